"""A referee that cannot be reached is named with a hint; the demo leaves no folder behind."""

from __future__ import annotations

import json
import socket
import tempfile
from pathlib import Path

import pytest

from referee_clients.cli import main


def test_connection_refused_asks_whether_referee_serve_runs(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    assert main(["games", "--address", address, "--retries", "0"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"referee-client: UNAVAILABLE: cannot connect to {address}: is "
                          f"`referee serve` running at {address}? (")
    assert len(err.splitlines()) == 1


def test_the_demo_leaves_no_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for _ in range(2):
        assert main(["demo", "--game", "euchre", "--target", "1", "--seed", "1", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert Path(out["record"]).parent == tmp_path / "cache" / "trick-referee" / "demo"
    assert list(temp.iterdir()) == []  # the referee's store and log went with it
    assert len(list((tmp_path / "cache" / "trick-referee" / "demo").iterdir())) == 2
