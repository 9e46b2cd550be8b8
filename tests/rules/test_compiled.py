"""The compiled rules core (``REFEREE_COMPILE=1``, mypyc; docs/operations.md) plays exactly as
the source does.

The modules of :data:`referee.rules.compiled.MODULES` are compiled with mypyc into a copy of the
package, and the rules tests that pin behaviour run against that copy in a subprocess: the Ulti
tests (every UL rule id and §3.9 vector, and the pinned fingerprint of 600 seeded deals),
the Coinche, Belot, Euchre and Pedro tests (every rule id and worked example; Belot uses the
compiled tables of the Belote family), Euchre's and Pedro's differential digests (seeded
hands per variant parameter), the
conformance suite for every game (the shared card tables are compiled too: random play keeps
every invariant; states and facts deep-copy and pickle), and the claim search against the
brute-force enumerator (issue 20).
Compiling needs a C compiler and the Python headers: without them this module is skipped on a
developer's machine and fails in CI. Compiling and the runs on compiled code are ``slow``; the
runs are split in cases (a test file, or a game's conformance) so that progress shows.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from referee.rules.compiled import MODULES, is_compiled
from referee.rules.registry import GAMES
from tests.conftest import IN_CI
from tests.rules import test_conformance as conformance

ROOT = Path(__file__).resolve().parents[2]


def _toolchain_missing() -> str | None:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        return f"no Python headers ({include})"
    return None


def _say(request: pytest.FixtureRequest, line: str) -> None:
    """``line`` on the terminal now, past pytest's capture: a long step is not a silent one."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line(line)
            reporter.write_fspath_result(request.node.nodeid, "")  # the dots go on after it


@pytest.fixture(scope="module")
def compiled_tree(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
                  ) -> Path:
    """A copy of ``referee/`` and ``tests/`` with :data:`MODULES` compiled in place."""
    missing = _toolchain_missing()
    if missing:
        if IN_CI:
            pytest.fail(f"CI must test the compiled rules: {missing}")
        pytest.skip(missing)
    tree = tmp_path_factory.mktemp("compiled")
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
    shutil.copytree(ROOT / "referee", tree / "referee", ignore=ignore)
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    sources = [m.replace(".", "/") + ".py" for m in MODULES]
    _say(request, f"compiling {len(MODULES)} rules modules with mypyc (about 30 s) ...")
    build = subprocess.run(
        [sys.executable, "-m", "mypyc", *sources],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    return tree


def _run(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=1800
    )


@pytest.mark.slow
def test_the_copy_runs_compiled(compiled_tree: Path) -> None:
    out = _run(
        compiled_tree,
        "-c",
        "import referee.rules.compiled as c; print(','.join(c.compiled_modules()))",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [",".join(MODULES)]


def _conformance(game: str) -> dict[str, list[str]]:
    """Every conformance case of ``game`` (the slow ones too), in three runs: the thorough
    deals and the copy checks, then each half of the rest."""
    path = "tests/rules/test_conformance.py"
    play = f"{path}::test_random_playouts_keep_the_invariants"
    deals, chunk = conformance.DEALS, conformance.CHUNK
    cuts = sorted({0, -(-conformance.THOROUGH // chunk) * chunk, deals // 2 // chunk * chunk})
    cuts = [c for c in cuts if c < deals] + [deals]
    runs = {f"conformance-{game}-{a}": [f"{play}[{game}-{first}]" for first in range(a, b, chunk)]
            for a, b in itertools.pairwise(cuts)}
    runs[f"conformance-{game}-0"] += [f"{path}::test_states_and_facts_copy_and_pickle[{game}-{c}]"
                                      for c in conformance.COPIES]
    return runs


PINNING = {
    "ulti": ["tests/rules/test_ulti.py"],
    "coinche": ["tests/rules/test_coinche.py"],
    "belot": ["tests/rules/test_belot.py"],
    "euchre": ["tests/rules/test_euchre.py", "tests/rules/test_euchre_openspiel.py"],
    "pedro": ["tests/rules/test_pedro.py"],
    "differential-euchre-pedro": ["tests/rules/test_differential.py", "-k", "euchre or pedro"],
    **{case: ids for game in GAMES for case, ids in _conformance(game).items()},
    "claims": ["tests/rules/test_claims.py::test_the_solver_agrees_with_the_enumerator",
               "tests/rules/test_claim_order.py"],
}
"""The runs on compiled code, one a test case (each about 20 s at most on 2 cores)."""


@pytest.mark.slow
@pytest.mark.parametrize("case", list(PINNING))
def test_compiled_rules_pass_the_pinning_tests(compiled_tree: Path, case: str) -> None:
    """UL-1 .. UL-36, the rule ids and worked examples of Coinche, Belot, Euchre and Pedro,
    the conformance suite, the fingerprints and digests, on compiled code."""
    out = _run(compiled_tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PINNING[case])
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "skipped" not in out.stdout


@pytest.mark.parametrize("name", MODULES)
def test_no_compiled_module_is_older_than_its_source(name: str) -> None:
    """After ``REFEREE_COMPILE=1 pip install -e .`` the extensions sit beside the sources and
    win the import: an edit to the ``.py`` would silently not run (docs/operations.md)."""
    if not is_compiled(name):
        return  # the source runs: nothing can be stale
    extension = Path(importlib.import_module(name).__file__ or "")
    source = extension.parent / (name.rpartition(".")[2] + ".py")
    if source.exists():  # an installed wheel writes both at once; an edit comes later
        assert source.stat().st_mtime <= extension.stat().st_mtime + 2, (
            f"{extension.name} is older than {source.name}: rebuild it "
            "(REFEREE_COMPILE=1 pip install -e .) or delete it"
        )


_DIGESTS = """
import json
from referee.rules.registry import find_game
from tests.rules.fingerprint import playout_digest
names = ("euchre", "belot", "coinche", "pedro", "ulti")
print(json.dumps({n: playout_digest(find_game(n), [find_game(n).rules_class()], 60, 7, facts=True)
                  for n in names}))
"""


@pytest.mark.slow
def test_compiled_play_matches_the_source_for_every_game(compiled_tree: Path) -> None:
    """Differential: 60 seeded random deals of every game (every legal set, action, fact and
    result) give the same digest compiled and from source."""
    compiled = _run(compiled_tree, "-c", _DIGESTS)
    assert compiled.returncode == 0, compiled.stderr
    source = subprocess.run(
        [sys.executable, "-c", _DIGESTS], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert source.returncode == 0, source.stderr
    assert json.loads(compiled.stdout) == json.loads(source.stdout)
