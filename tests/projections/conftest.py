"""Projection fixtures: the application on SQLite (the embedded default) or PostgreSQL, and
helpers to play scripted-random matches through it."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from referee.application import Referee
from referee.config import settings_from_env

AUDITOR = "auditor-secret"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        # A fresh schema per test: views and events never leak between tests.
        schema = "t" + uuid.uuid4().hex[:12]
        import psycopg

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


def play(app: Referee, match_id: UUID, tokens: list[str], rng: random.Random,
         max_actions: int = 10_000, stop_after_hand: int | None = None) -> None:
    """Random legal actions until the match is over (or hand ``stop_after_hand`` ends)."""
    for _ in range(max_actions):
        view = app.get_view(match_id, AUDITOR)
        if view.match_over:
            return
        if stop_after_hand is not None and view.hand > stop_after_hand:
            return
        seat = view.to_act
        assert seat is not None
        legal = app.get_view(match_id, tokens[seat]).legal_actions
        app.submit_action(match_id, tokens[seat], rng.choice(legal))


def hand_events(app: Referee, match_id: UUID) -> list[Any]:
    return [e for e in app.repository.event_store.get(match_id)
            if type(e).__name__ == "HandScored"]
