"""The layers of DESIGN.md: the rules core is pure; clients talk to the service over gRPC only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FORBIDDEN_IN_RULES = {
    "grpc",
    "eventsourcing",
    "psycopg",
    "random",
    "time",
    "secrets",
    "os",
    "socket",
    "referee.service",
    "referee.domain",
    "referee.application",
}


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports at run time (imports under ``if TYPE_CHECKING:`` are for
    the type checker only)."""
    names: set[str] = set()
    todo: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.If) and ast.unparse(node.test) in _TYPE_CHECKING:
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return names


_TYPE_CHECKING = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


RULES_FILES = sorted((ROOT / "referee" / "rules").rglob("*.py"))


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_core_imports_only_the_standard_library_and_itself(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN_IN_RULES), name
        assert top in {"referee", "__future__"} or top in _stdlib(), name
        if top == "referee":
            assert name.startswith("referee.rules"), name


def _stdlib() -> frozenset[str]:
    import sys

    return frozenset(sys.stdlib_module_names)


CLIENT_FILES = sorted((ROOT / "clients").rglob("*.py"))


@pytest.mark.parametrize("path", CLIENT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_clients_use_only_the_stubs_and_the_record_format(path: Path) -> None:
    for name in _imports(path):
        if name.startswith("referee"):
            assert name.startswith(
                ("referee.api", "referee.rules.handrecord", "referee.rules.cards",
                 "referee.rules.render")
            ), name
