"""PostgreSQL is really there: a round trip through psycopg and through eventsourcing."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

pytestmark = pytest.mark.postgres


def test_psycopg_round_trip(postgres_env: dict[str, str]) -> None:
    with psycopg.connect(
        host=postgres_env["POSTGRES_HOST"],
        port=postgres_env.get("POSTGRES_PORT", "5432"),
        user=postgres_env.get("POSTGRES_USER"),
        password=postgres_env.get("POSTGRES_PASSWORD"),
        dbname=postgres_env.get("POSTGRES_DBNAME"),
    ) as conn:
        assert conn.execute("select 6 * 7").fetchone() == (42,)


class _Note(Aggregate):
    @event("Written")
    def __init__(self, text: str) -> None:
        self.text = text


def test_eventsourcing_round_trip(postgres_env: dict[str, str]) -> None:
    env = dict(postgres_env, POSTGRES_SCHEMA="public")
    app: Application[uuid.UUID] = Application(env=env)
    note = _Note("hello")
    app.save(note)
    assert app.repository.get(note.id).text == "hello"
    app.close()
