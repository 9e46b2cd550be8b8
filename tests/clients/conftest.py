"""A real referee on a free port (in-process, SQLite, with its read-side views projected by
an in-process worker, as ``referee serve`` does), reached over a real channel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.rules.registry import GAMES
from referee.service.server import build_server
from referee_projections.runner import ProjectionWorker
from trick_referee_client.sdk import RefereeClient

AUDITOR = "clients-auditor-secret"
GAME_NAMES = list(GAMES)
FAST = {name: {game.match_length: 1} for name, game in GAMES.items()}  # the shortest match
"""The lowest match length each game allows, for speed."""


@pytest.fixture(scope="session")
def _served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ProjectionWorker]]:
    data: Path = tmp_path_factory.mktemp("client-data")
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(data),
                                     "REFEREE_AUDITOR_TOKEN": AUDITOR}))
    worker = ProjectionWorker(app.event_log, poll=0.1).start()
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", worker
    server.stop(1.0)
    worker.stop()
    app.close()


@pytest.fixture(scope="session")
def address(_served: tuple[str, ProjectionWorker]) -> str:
    return _served[0]


@pytest.fixture
def views(_served: tuple[str, ProjectionWorker]) -> ProjectionWorker:
    """The projection worker: ``views.wait()`` blocks until the views reach the log's head."""
    return _served[1]


@pytest.fixture
def client(address: str) -> Iterator[RefereeClient]:
    with RefereeClient(address, timeout=20) as c:
        yield c
