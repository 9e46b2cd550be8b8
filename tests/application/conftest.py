"""The application on SQLite (the embedded default) and on PostgreSQL, one per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from referee.application import Referee
from referee.config import settings_from_env

AUDITOR = "auditor-secret"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        # A schema of its own per test: a server's timers recover every open timed match
        # of their store, and must not find other tests' ones.
        schema = "a" + uuid.uuid4().hex[:12]
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                             user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                             dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        env["POSTGRES_SCHEMA"] = schema
    return env


@pytest.fixture
def app(env: dict[str, str]) -> Iterator[Referee]:
    a = Referee(settings_from_env(env))
    yield a
    a.close()
