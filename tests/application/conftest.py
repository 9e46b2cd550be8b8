"""The application on SQLite (the embedded default) and on PostgreSQL, one per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from tests.pg_cluster import fresh_schema

AUDITOR = "auditor-secret"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        # A schema of its own per test: a server's timers recover every open timed match
        # of their store, and must not find other tests' ones.
        env["POSTGRES_SCHEMA"] = fresh_schema(env, "a")
    return env


@pytest.fixture
def app(env: dict[str, str]) -> Iterator[Referee]:
    a = Referee(settings_from_env(env))
    yield a
    a.close()
