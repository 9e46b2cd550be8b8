"""Shared fixtures.

PostgreSQL comes from the environment (``POSTGRES_HOST``, ``POSTGRES_PORT``, ``POSTGRES_USER``,
``POSTGRES_PASSWORD``, ``POSTGRES_DBNAME``), as eventsourcing reads it. Tests marked
``postgres`` skip when it is not configured on a developer's machine, and **fail** when
``CI=true``: in CI a missing database is an error, never a skip. ``pg_cluster`` is a
PostgreSQL of a test's own, for outages and restarts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.pg_cluster import PgCluster, find_bindir

IN_CI = os.environ.get("CI", "").lower() == "true"


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


@pytest.fixture(scope="session")
def postgres_env() -> Iterator[dict[str, str]]:
    """Environment for eventsourcing's PostgreSQL module; fails in CI when unreachable."""
    settings = postgres_settings()
    if "POSTGRES_HOST" not in settings:
        if IN_CI:
            pytest.fail("CI=true but POSTGRES_HOST is not set: PostgreSQL tests must run in CI")
        pytest.skip("PostgreSQL not configured (set POSTGRES_HOST etc.; .ci/run does)")
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
        if IN_CI:
            pytest.fail(f"CI=true but PostgreSQL is unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    yield {"PERSISTENCE_MODULE": "eventsourcing.postgres", **settings}


@pytest.fixture
def pg_cluster() -> Iterator[PgCluster]:
    """A started PostgreSQL cluster of the test's own, which it may stop and start
    (``tests/pg_cluster.py``); removed afterwards. Skips when PostgreSQL's server binaries are
    not installed, and **fails** when ``CI=true``."""
    bindir = find_bindir()
    if bindir is None:
        if IN_CI:
            pytest.fail("CI=true but PostgreSQL's server binaries (initdb, pg_ctl) are missing")
        pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    cluster = PgCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()
