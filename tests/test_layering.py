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


#: The top-level directories that hold packages (DESIGN.md's projections/ and clients/) -> the
#: packages in them: no generic top-level import names (issue 22).
PACKAGE_DIRS = {"projections": ("referee_projections",),
                "clients": ("referee_clients", "trick_referee_client")}
SDK_FILES = sorted(p for p in (ROOT / "clients" / "trick_referee_client").rglob("*.py")
                   if "api" not in p.parts)
CLIENT_FILES = sorted((ROOT / "clients" / "referee_clients").rglob("*.py")) + SDK_FILES


@pytest.mark.parametrize("path", CLIENT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_clients_use_only_the_sdk_and_the_record_format(path: Path) -> None:
    for name in _imports(path):
        if name.split(".")[0] in {"referee", "referee_projections"}:
            assert name.startswith(
                ("referee.rules.handrecord", "referee.rules.cards",
                 "referee.rules.render", "referee.rules.words")
            ), name


@pytest.mark.parametrize("path", SDK_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_sdk_needs_only_grpc_and_protobuf(path: Path) -> None:
    """Issue 22: the SDK is a distribution of its own that depends on grpcio, protobuf and
    grpcio-status only (its generated stubs are inside it), never on the server."""
    for name in _imports(path):
        top = name.split(".")[0]
        assert (top in _stdlib() or top in {"__future__", "grpc", "grpc_status",
                                            "trick_referee_client"}
                or name.startswith(("google.protobuf", "google.rpc"))), name


# -- the whole tree: rules <- domain <- application <- service / projections <- composition ---

#: module prefix -> layer (the longest prefix wins). Service and projections share a layer:
#: the read-side servicers (``referee.service.read_side``) query the views, but the views
#: never reach into the service.
LAYERS: dict[str, int] = {
    "referee.rules": 0,
    "referee.domain": 1,
    "referee": 2,  # the application and its adapters (store, limits, rejection trail, ...)
    "referee.api": 3,  # the generated public API
    "referee.service": 3,
    "referee_projections": 3,
    "referee.cli": 4,
    "referee.__main__": 4,
    "referee.composition": 4,
    "referee.verify": 4,
    "referee.benchmarks": 4,
    "referee_projections.cli": 4,
}
LAYER_NAMES = ("rules", "domain", "application", "service/projections", "composition")
OURS = ("referee", "referee_projections", "referee_clients", "trick_referee_client")
PRODUCT_FILES = sorted(p for top in ("referee", "projections/referee_projections")
                       for p in (ROOT / top).rglob("*.py")
                       if "api" not in p.relative_to(ROOT).parts[1:2])


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] in PACKAGE_DIRS:
        parts.pop(0)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _directory(module: str) -> Path:
    """Where the package or module ``module`` lives (the inverse of :func:`_module`)."""
    top = next((d for d, packages in PACKAGE_DIRS.items()
                if module.split(".")[0] in packages), None)
    return ROOT.joinpath(*([top] if top else []), *module.split("."))


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def _import_froms(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``from module import names`` in ``path``, run-time or not."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.module, [a.name for a in node.names]) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module]


@pytest.mark.parametrize("path", PRODUCT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_points_up_a_layer(path: Path) -> None:
    """Issue 17: the layers of DESIGN.md hold over the whole tree (the server does not reach
    into the projections' internals, the projections not into the service)."""
    here = _module(path)
    mine = layer(here)
    for name in _imports(path):
        if name.split(".")[0] not in OURS[:2]:
            continue
        theirs = layer(name)
        assert theirs <= mine, (
            f"{here} ({LAYER_NAMES[mine]}) imports {name} ({LAYER_NAMES[theirs]})")
        if here.startswith("referee_projections") and mine < 4:
            assert not name.startswith("referee.service"), f"{here} imports {name}"
        if here.startswith("referee.service") and here != "referee.service.read_side":
            assert not name.startswith("referee_projections"), (
                f"{here} imports {name}: only the read side queries the views")


@pytest.mark.parametrize("path", PRODUCT_FILES + CLIENT_FILES,
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_is_imported_from_another_package(path: Path) -> None:
    here = _module(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module(path)
    for module, names in _import_froms(path):
        if module.split(".")[0] not in OURS:
            continue
        package = module if _directory(module).is_dir() else (
            module.rsplit(".", 1)[0])
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private or package == here, f"{_module(path)} imports {private} from {module}"


def _game_names() -> frozenset[str]:
    from referee.rules.registry import GAMES

    return frozenset(n for g in GAMES.values() for n in (g.name, *g.aliases))


@pytest.mark.parametrize("path", [p for p in PRODUCT_FILES + CLIENT_FILES
                                  if "rules" not in p.relative_to(ROOT).parts],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_game_is_named_outside_the_rules(path: Path) -> None:
    """Game knowledge lives behind the Game contract: nothing outside ``referee/rules``
    compares anything with a game's name (``game == "ulti"``)."""
    names = _game_names()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                literals = operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) \
                    else [operand]
                for lit in literals:
                    assert not (isinstance(lit, ast.Constant) and lit.value in names), (
                        f"{path.relative_to(ROOT)}:{node.lineno} compares with the game name "
                        f"{lit.value!r}")


APPLICATION_FILES = sorted((ROOT / "referee" / "application").glob("*.py"))


@pytest.mark.parametrize("path", APPLICATION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_application_modules_stay_small(path: Path) -> None:
    """Issue 17: use cases in modules named after what they hold, none over ~400 lines (the
    application was one 1,284-line module)."""
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 400


@pytest.mark.parametrize("path", sorted((ROOT / "projections" / "referee_projections").glob(
                                         "*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_projections_never_build_the_write_side(path: Path) -> None:
    """Issue 17: projections read the log through the ``EventLog`` port (a ``LogReader``),
    never by constructing the write-side application (``Referee(...)``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "Referee", f"{path.name}:{node.lineno} builds a Referee"
