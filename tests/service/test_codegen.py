"""The committed generated code is what ``proto/codegen.py`` produces from the protos."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("codegen", ROOT / "proto" / "codegen.py")
    assert spec and spec.loader
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    generated = codegen.generate(tmp_path)
    assert generated
    for path in generated:
        committed = ROOT / path.relative_to(tmp_path)
        assert committed.read_text() == path.read_text(), (
            f"{committed.relative_to(ROOT)} is stale: run python proto/codegen.py"
        )
