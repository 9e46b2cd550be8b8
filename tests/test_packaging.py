"""Packaging: one version, an example hand for every game, proto/ in the sdist, mypy over
every package, pinned image dependencies, and PostgreSQL's driver optional."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import referee
from referee.cli import main
from referee.rules.registry import GAMES
from referee.verify import verify_path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_one_version_source() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "referee.__version__"
    assert metadata.version("trick-referee") == referee.__version__  # as installed


@pytest.mark.parametrize("game", list(GAMES))
def test_an_example_hand_for_every_game(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["example", game]) == 0
    path = capsys.readouterr().out.strip()
    code, report = verify_path(path)
    assert code == 0 and report["ok"], report
    assert f'"game": "{game}"' in Path(path).read_text()


def test_example_list_and_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["example", "--list"]) == 0
    listed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert set(listed) == set(GAMES)
    for game in GAMES.values():
        for alias in game.aliases:
            assert main(["example", alias]) == 0
            assert capsys.readouterr().out.strip() == listed[game.name]
    assert main(["example", "bridge"]) == 2
    assert "unknown game 'bridge'" in capsys.readouterr().err


def test_the_sdist_carries_proto(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "print(b.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert build.returncode == 0, build.stderr
    name = build.stdout.strip().splitlines()[-1]
    with tarfile.open(tmp_path / name) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for proto in (ROOT / "proto").rglob("*.proto"):
        assert str(proto.relative_to(ROOT)) in names
    assert "proto/codegen.py" in names and "CHANGELOG.md" in names
    assert "referee/examples/ulti-hand.json" in names


def test_mypy_checks_every_package_and_the_rules_core_strictly() -> None:
    mypy = PYPROJECT["tool"]["mypy"]
    assert set(mypy["packages"]) == {"referee", "referee_projections", "referee_clients",
                                     "trick_referee_client"}
    strict = [o for o in mypy["overrides"] if o.get("strict")]
    assert any(o["module"] == "referee.rules.*" for o in strict)
    assert any(o["module"] == "trick_referee_client.*" for o in strict)


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[\s\[<>=!~;@]", requirement, maxsplit=1)[0]).lower()


def test_the_image_installs_pinned_versions_of_every_dependency() -> None:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"not pinned: {line}"
            pins[_name(name)] = version
    project = PYPROJECT["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["postgres"],
              *PYPROJECT["build-system"]["requires"]]
    todo, seen = [_name(r) for r in wanted], set()
    while todo:  # the closure, by the installed distributions' own requirements
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert name in pins, f"{name} is not pinned in constraints.txt"
        for text in metadata.requires(name) or []:
            req = Requirement(text)  # on Linux, without extras (as in the image)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_name(req.name))
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "PIP_CONSTRAINT=/src/constraints.txt" in dockerfile
    assert "pip install --constraint /wheels/constraints.txt" in dockerfile
    assert "trick-referee[postgres]" in dockerfile


BLOCK_PSYCOPG = """
import runpy, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("psycopg", "psycopg_pool"):
            raise ImportError("psycopg is not installed")
sys.meta_path.insert(0, Block())
sys.argv = ["referee", *sys.argv[1:]]
runpy.run_module("referee", run_name="__main__")
"""


def test_sqlite_needs_no_psycopg(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "REFEREE_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", BLOCK_PSYCOPG, "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0", "--grace", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:"), proc.stderr and proc.stderr.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_PSYCOPG, "serve"], cwd=ROOT, capture_output=True,
        text=True, timeout=60, check=False,
        env={**env, "PERSISTENCE_MODULE": "eventsourcing.postgres"})
    assert done.returncode == 2
    assert done.stderr == ("referee serve: PERSISTENCE_MODULE=eventsourcing.postgres needs "
                           "psycopg: pip install 'trick-referee[postgres]'\n")


# -- the SDK: a distribution of its own (clients/), and no generic top-level names (issue 22) --

SDK_ROOT = ROOT / "clients"
SDK_PYPROJECT = tomllib.loads((SDK_ROOT / "pyproject.toml").read_text())


def _wheel(project: Path, out: Path) -> zipfile.ZipFile:
    build = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
         "print(b.build_wheel(sys.argv[1]))", str(out)],
        cwd=project, capture_output=True, text=True, timeout=300, check=False)
    assert build.returncode == 0, build.stderr
    return zipfile.ZipFile(out / build.stdout.strip().splitlines()[-1])


def test_the_server_wheel_installs_no_generic_top_level_names(tmp_path: Path) -> None:
    with _wheel(ROOT, tmp_path) as wheel:
        tops = {n.split("/")[0] for n in wheel.namelist() if not n.split("/")[0].endswith(
            ".dist-info")}
        entry_points = wheel.read(next(n for n in wheel.namelist()
                                       if n.endswith("entry_points.txt"))).decode()
    assert tops == {"referee", "referee_projections", "referee_clients"}, tops
    assert "referee-client = referee_clients.cli:main" in entry_points


def test_the_sdk_wheel_holds_the_sdk_its_stubs_and_py_typed(tmp_path: Path) -> None:
    project = SDK_PYPROJECT["project"]
    assert project["name"] == "trick-referee-client"
    assert sorted(_name(r) for r in project["dependencies"]) == [
        "grpcio", "grpcio-status", "protobuf"]
    assert "trick-referee-client" in [_name(r) for r in PYPROJECT["project"]["dependencies"]]
    with _wheel(SDK_ROOT, tmp_path) as wheel:
        names = set(wheel.namelist())
        meta = wheel.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert {n.split("/")[0] for n in names if ".dist-info" not in n} == {"trick_referee_client"}
    for module in ("__init__.py", "sdk.py", "errors.py", "tables.py", "webhooks.py",
                   "py.typed", "api/v1/referee_pb2.py", "api/v1/referee_pb2.pyi",
                   "api/v1/referee_pb2_grpc.py", "api/v1/projections_pb2_grpc.py",
                   "api/v1/webhooks_pb2_grpc.py"):
        assert f"trick_referee_client/{module}" in names, module
    requires = sorted(_name(line.split(":", 1)[1].strip()) for line in meta.splitlines()
                      if line.startswith("Requires-Dist:"))
    assert requires == ["grpcio", "grpcio-status", "protobuf"]
    import trick_referee_client

    assert metadata.version("trick-referee-client") == trick_referee_client.__version__


ALONE = """
try:
    import referee
except ImportError:
    pass
else:
    raise SystemExit("the server package is importable beside the SDK")
"""


def _tour(address: str) -> str:
    """The Python block of the SDK's README, against ``address``."""
    text = (SDK_ROOT / "README.md").read_text()
    return text.split("```python\n", 1)[1].split("```", 1)[0].replace("127.0.0.1:50051", address)


@pytest.mark.slow
def test_the_sdk_wheel_alone_in_a_fresh_venv_plays_a_match(tmp_path: Path) -> None:
    """``pip wheel ./clients`` installs alone (grpcio, protobuf, grpcio-status) and plays a
    match: the tour of the SDK's README."""
    wheels = tmp_path / "wheels"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels),
                           str(SDK_ROOT)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q",
                           *map(str, wheels.glob("*.whl"))],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    env = {"PATH": "/usr/bin:/bin", "REFEREE_DATA_DIR": str(tmp_path / "data"),
           "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0", "--grace", "0"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        address = line.split()[2]
        played = subprocess.run([str(python), "-c", ALONE + _tour(address)], cwd=tmp_path,
                                capture_output=True, text=True, timeout=300, check=False)
        assert played.returncode == 0, played.stderr
        assert played.stdout.startswith("[")  # the scores
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
