"""Projection fixtures: the application on SQLite (the embedded default) or PostgreSQL, and
helpers to play scripted-random matches through it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import grpc
import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.service.server import build_server
from referee_projections.runner import ProjectionWorker
from tests.pg_cluster import fresh_schema

AUDITOR = "auditor-secret"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        # A fresh schema per test: views and events never leak between tests.
        env["POSTGRES_SCHEMA"] = fresh_schema(env, "t")
    return env


@pytest.fixture
def app(env: dict[str, str]) -> Iterator[Referee]:
    a = Referee(settings_from_env(env))
    yield a
    a.close()


@pytest.fixture
def served(app: Referee) -> Iterator[tuple[grpc.Channel, ProjectionWorker]]:
    """A real server for ``app`` on a free port with its views kept by a worker."""
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        yield ch, worker
    server.stop(1.0)
    worker.stop()


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
