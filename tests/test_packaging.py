"""Packaging: one version, an example hand for every game, proto/ in the sdist, mypy over
every package, pinned image dependencies, and PostgreSQL's driver optional."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tarfile
import tomllib
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
    assert set(mypy["packages"]) == {"referee", "projections", "clients"}
    strict = [o for o in mypy["overrides"] if o.get("strict")]
    assert any(o["module"] == "referee.rules.*" for o in strict)


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
