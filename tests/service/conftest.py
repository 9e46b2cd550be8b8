"""A real server on a free port over a real channel, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.service.server import build_server
from tests.pg_cluster import fresh_schema

AUDITOR = "auditor-secret"


def store_env(request: pytest.FixtureRequest, data_dir: Path) -> dict[str, str]:
    """Environment for the store named by ``request.param`` (``sqlite`` or ``postgres``)."""
    env = {"REFEREE_DATA_DIR": str(data_dir), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        # A schema of its own: the timed matches made here must not be recovered and played
        # on by every later `referee serve` of the session on the shared database.
        env["POSTGRES_SCHEMA"] = fresh_schema(env, "s")
    return env


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Referee]:
    env = store_env(request, tmp_path_factory.mktemp("data"))
    referee = Referee(settings_from_env(env))
    yield referee
    referee.close()


@pytest.fixture(scope="module")
def channel(app: Referee) -> Iterator[grpc.Channel]:
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        yield ch
    server.stop(1.0)


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> pbg.RefereeServiceStub:
    return pbg.RefereeServiceStub(channel)
