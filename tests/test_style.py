"""The code is ruff-clean and the rules core passes mypy --strict (configured in pyproject)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is a dev dependency: pip install -e ./clients -e '.[dev]'"
    return found


def test_ruff_is_clean() -> None:
    run = subprocess.run(
        [_tool("ruff"), "check", "referee", "projections", "clients", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_strict_on_the_rules_core() -> None:
    run = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
