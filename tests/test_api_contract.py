"""The API's contract checks: ``buf lint`` (STANDARD) is clean, ``buf breaking`` finds no
break against the committed image (proto/api-image.binpb), the check is not vacuous, and no
field but a hand-record document carries JSON text."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.api.v1 import projections_pb2, referee_pb2

ROOT = Path(__file__).resolve().parents[1]
BUF = shutil.which("buf") or str(Path(sys.executable).parent / "buf")
IMAGE = ROOT / "proto" / "api-image.binpb"

#: The responses that carry a hand-record document (docs/hand-record.md) as its JSON text.
RECORDS = {"GetHandRecordResponse", "GetMatchRecordResponse", "ExportHandResponse",
           "ExportMatchResponse", "ExportTournamentResponse"}


def buf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    if not Path(BUF).exists():
        pytest.fail("buf is not installed: pip install -e ./clients -e '.[dev]' (buf-bin)")
    return subprocess.run([BUF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_buf_lint_is_clean() -> None:
    run = buf("lint", "proto")
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_breaking_change_against_the_committed_api() -> None:
    run = buf("breaking", "proto", "--against", str(IMAGE))
    assert run.returncode == 0, run.stdout + run.stderr


def test_buf_breaking_catches_a_renumbered_field(tmp_path: Path) -> None:
    copy = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", copy)
    api = copy / "referee" / "api" / "v1" / "referee.proto"
    text = api.read_text()
    api.write_text(text.replace("  string match_id = 1;\n  // The version this view",
                                "  string match_id = 99;\n  // The version this view", 1))
    assert api.read_text() != text
    run = buf("breaking", "proto", "--against", str(IMAGE), cwd=tmp_path)
    assert run.returncode != 0 and "match_id" in run.stdout, run.stdout + run.stderr


def test_no_json_inside_strings_but_the_records() -> None:
    for file in (referee_pb2.DESCRIPTOR, projections_pb2.DESCRIPTOR):
        for message in file.message_types_by_name.values():
            for field in message.fields:
                if field.name.endswith("_json"):
                    assert message.name in RECORDS, f"{message.name}.{field.name}"
