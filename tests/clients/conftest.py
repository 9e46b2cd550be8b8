"""A real referee on a free port (in-process, SQLite), reached over a real channel."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.sdk import RefereeClient
from referee.application import Referee
from referee.config import settings_from_env
from referee.rules.registry import GAMES
from referee.service.server import build_server, stop

AUDITOR = "clients-auditor-secret"
GAME_NAMES = list(GAMES)
FAST = {name: ({"deals": 1} if name == "ulti" else {"target_score": 1}) for name in GAMES}
"""The lowest match length each game allows, for speed."""


@pytest.fixture(scope="session")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("client-data")
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(data),
                                     "REFEREE_AUDITOR_TOKEN": AUDITOR}))
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    stop(server, 1.0)
    app.close()


@pytest.fixture
def client(address: str) -> Iterator[RefereeClient]:
    with RefereeClient(address, timeout=20) as c:
        yield c
