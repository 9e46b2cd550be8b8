"""The server as Kubernetes needs it (issue 23, item 9): keepalive and connection-age options,
every service in the health service, and no start-up with a placeholder credential."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import SettingsError, settings_from_env
from referee.service.capacity import capacity_options
from referee.service.credentials import MIN_LENGTH, check_credentials
from referee.service.keepalive import keepalive_options
from referee.service.read_side import SERVICE_NAMES as READ_SIDE
from referee.service.server import LIVENESS_NAME, SERVICE_NAME
from tests.service.helpers import expect_error, serving
from trick_referee_client.sdk import bearer

SERVING = health_pb2.HealthCheckResponse.SERVING


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Referee]:
    referee = Referee(settings_from_env({"PERSISTENCE_MODULE": "eventsourcing.popo"}))
    yield referee
    referee.close()


def test_keepalive_and_connection_age_defaults_suit_kubernetes() -> None:
    options = dict(keepalive_options({}))
    assert options["grpc.keepalive_time_ms"] == 60_000
    assert options["grpc.keepalive_timeout_ms"] == 20_000
    assert options["grpc.max_connection_age_ms"] == 300_000  # new pods get traffic in ~5 min
    assert options["grpc.max_connection_age_grace_ms"] == 30_000
    assert options["grpc.http2.min_ping_interval_without_data_ms"] == 10_000
    assert options["grpc.keepalive_permit_without_calls"] == 1


def test_keepalive_settings_come_from_the_environment() -> None:
    options = dict(keepalive_options({"REFEREE_MAX_CONNECTION_AGE_MS": "0",
                                      "REFEREE_KEEPALIVE_TIME_MS": "30000"}))
    assert "grpc.max_connection_age_ms" not in options  # 0: gRPC's default (no limit)
    assert options["grpc.keepalive_time_ms"] == 30_000
    with pytest.raises(SettingsError, match="REFEREE_KEEPALIVE_TIMEOUT_MS=soon: must be"):
        keepalive_options({"REFEREE_KEEPALIVE_TIMEOUT_MS": "soon"})


def test_the_server_is_built_with_the_keepalive_options(
        app: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[dict[str, Any]] = []
    real = grpc.aio.server

    def spy(*args: Any, **kwargs: Any) -> Any:
        built.append(dict(kwargs.get("options") or ()))
        return real(*args, **kwargs)

    monkeypatch.setattr(grpc.aio, "server", spy)
    monkeypatch.setenv("REFEREE_MAX_CONNECTION_AGE_MS", "120000")
    with serving(app) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == SERVING
    (options,) = built
    assert options["grpc.max_connection_age_ms"] == 120_000
    assert options.items() >= dict(keepalive_options()).items()
    assert options["grpc.max_receive_message_length"] > 0  # beside the message-size limits


def test_health_lists_every_service_serving(app: Referee) -> None:
    with serving(app) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        listed = health.List(health_pb2.HealthListRequest(), timeout=10).statuses
        for name in ("", SERVICE_NAME, *READ_SIDE, LIVENESS_NAME):
            assert listed[name].status == SERVING, name
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
            assert reply.status == SERVING, name
    assert {"referee.api.v1.ProjectionsService", "referee.api.v1.TournamentService"} <= set(
        READ_SIDE)


@pytest.mark.parametrize("value", ["REPLACE-WITH-A-LONG-RANDOM-TOKEN", "changeme-please-now",
                                   "<your token here>", "short"])
@pytest.mark.parametrize("name", ["REFEREE_AUDITOR_TOKEN", "REFEREE_ORGANISER_TOKEN"])
def test_a_placeholder_or_short_credential_is_refused(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        check_credentials({name: value})


def test_real_credentials_and_none_are_accepted() -> None:
    check_credentials({})
    check_credentials({"REFEREE_AUDITOR_TOKEN": "x" * MIN_LENGTH,
                       "REFEREE_ORGANISER_TOKEN": os.urandom(32).hex()})


def test_referee_serve_refuses_the_template_secret_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE"))}
    env.update(REFEREE_DATA_DIR=str(tmp_path), REFEREE_AUDITOR_TOKEN=os.urandom(16).hex(),
               REFEREE_ORGANISER_TOKEN="REPLACE-WITH-A-LONG-RANDOM-TOKEN")
    done = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0"],
        env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("referee serve: REFEREE_ORGANISER_TOKEN is still the template's "
                           "placeholder")
    assert done.stdout == ""  # it never listened


def test_call_intake_options_are_sized_for_many_streams() -> None:
    options = dict(capacity_options({}))
    # gRPC's default (1000 waiting calls, then refusals at random) cancelled a burst of new
    # watch streams; the server takes ten times that in.
    assert options["grpc.server.max_pending_requests"] == 10_000
    assert options["grpc.server.max_pending_requests_hard_limit"] == 20_000
    assert options["grpc.max_concurrent_streams"] == 100
    options = dict(capacity_options({"REFEREE_MAX_PENDING_CALLS": "50",
                                     "REFEREE_MAX_STREAMS_PER_CONNECTION": "500"}))
    assert options["grpc.server.max_pending_requests_hard_limit"] == 100
    assert options["grpc.max_concurrent_streams"] == 500
    with pytest.raises(SettingsError, match="REFEREE_MAX_PENDING_CALLS"):
        capacity_options({"REFEREE_MAX_PENDING_CALLS": "0"})


def test_a_server_full_of_streams_refuses_the_next_one_clearly() -> None:
    app = Referee(settings_from_env({"PERSISTENCE_MODULE": "eventsourcing.popo",
                                     "REFEREE_STREAMS_TOTAL": "2"}))
    try:
        with serving(app) as channel:
            stub = pbg.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
            created = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))

            def watch() -> Any:
                return stub.WatchMatch(pb.WatchMatchRequest(
                    match_id=created.match_id), timeout=30,
        metadata=bearer(created.spectator_token))

            open_ = [watch(), watch()]
            for stream in open_:
                next(stream)
            info = expect_error(lambda: next(watch()), grpc.StatusCode.RESOURCE_EXHAUSTED,
                                "TOO_MANY_STREAMS")
            assert info.metadata["scope"] == "server" and info.metadata["limit"] == "2"
            open_[0].cancel()
            deadline = time.monotonic() + 10
            while True:  # the place is free again once the server has seen the cancel
                try:
                    assert next(watch()).version == 2
                    break
                except grpc.RpcError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            open_[1].cancel()
    finally:
        app.close()
