"""PostgreSQL goes down under a playing client, and comes back: the server answers
STORE_UNAVAILABLE (with RetryInfo) within seconds, health follows the store both ways, play
resumes, and no acknowledged action is lost. A real server over a PostgreSQL of the test's own
(``pg_cluster``), stopped with ``pg_ctl stop -m fast`` and started again."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from uuid import UUID

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.service.server import LIVENESS_NAME, SERVICE_NAME
from tests.pg_cluster import PgCluster
from tests.service.helpers import Table, create, error_info, serving, step
from trick_referee_client.sdk import bearer

pytestmark = pytest.mark.postgres
CALL_TIMEOUT = 30.0  # a call that hangs shows up as DEADLINE_EXCEEDED, not as a stuck test
FAST = 5.0  # seconds: every flip and every first answer must come within this


@dataclass
class Player:
    """Keeps playing one match from a thread, noting every answer with its time."""

    stub: pbg.RefereeServiceStub
    table: Table
    acked: list[pb.SubmitActionResponse] = field(default_factory=list)
    refusals: list[tuple[float, grpc.RpcError]] = field(default_factory=list)
    successes: list[float] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        rng = random.Random(7)
        while not self.stop.is_set():
            try:
                resp, _ = step(self.stub, self.table, rng)
            except grpc.RpcError as err:
                if err.code() != grpc.StatusCode.UNAVAILABLE:  # type: ignore[attr-defined]
                    self.other.append(f"{err.code()} {err.details()}")  # type: ignore[attr-defined]
                self.refusals.append((time.monotonic(), err))
                time.sleep(0.05)
                continue
            self.acked.append(resp)
            self.successes.append(time.monotonic())
            if resp.match_over:
                return


def _wait_for(what: Callable[[], bool], limit: float) -> float:
    """Seconds until ``what()`` holds (fails after ``limit``)."""
    start = time.monotonic()
    while not what():
        assert time.monotonic() - start < limit, "not within the limit"
        time.sleep(0.05)
    return time.monotonic() - start


def _health(channel: grpc.Channel, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2).status


def _retry_delay(err: grpc.RpcError) -> float:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
    raise AssertionError("no RetryInfo")


@pytest.fixture
def channel(pg_cluster: PgCluster) -> Iterator[grpc.Channel]:
    """A real server over a real Referee on ``pg_cluster``, and a channel to it."""
    env = {**pg_cluster.env(), "POSTGRES_POOL_SIZE": "3", "POSTGRES_MAX_OVERFLOW": "3"}
    app = Referee(settings_from_env(env))
    try:
        with serving(app) as ch:
            yield ch
    finally:
        app.close()


def test_outage_fails_fast_flips_health_and_loses_nothing(
    channel: grpc.Channel, pg_cluster: PgCluster
) -> None:
    stub = pbg.RefereeServiceStub(channel)
    up, down = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    table = create(stub, "euchre", rules={"target_score": pb.RuleValue(int_value=100)})
    player = Player(stub, table)
    thread = threading.Thread(target=player.run, daemon=True)
    thread.start()
    try:
        _wait_for(lambda: len(player.acked) >= 10, FAST)

        pg_cluster.stop("fast")
        stopped = time.monotonic()
        to_down = _wait_for(lambda: all(_health(channel, s) == down for s in ("", SERVICE_NAME)),
                            FAST)
        _wait_for(lambda: any(t > stopped for t, _ in player.refusals), FAST)
        first_refusal = min(t for t, _ in player.refusals if t > stopped) - stopped
        acked_before = len(player.acked)
        # While down: every call that needs the store is refused at once, ListGames is not.
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                         timeout=CALL_TIMEOUT, metadata=bearer(table.spectator))
        refused_in = time.monotonic() - started
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
        assert error_info(caught.value).reason == "STORE_UNAVAILABLE"
        assert 0.5 <= _retry_delay(caught.value) <= 2.0
        assert stub.ListGames(pb.ListGamesRequest(), timeout=CALL_TIMEOUT).games
        assert _health(channel, LIVENESS_NAME) == up  # no restarts for a database outage
        for _, err in player.refusals:
            assert error_info(err).reason == "STORE_UNAVAILABLE"
            assert _retry_delay(err) > 0
        time.sleep(2.0)  # an outage of a few seconds, the client still trying

        pg_cluster.start()
        restarted = time.monotonic()
        to_up = _wait_for(lambda: all(_health(channel, s) == up for s in ("", SERVICE_NAME)),
                          FAST)
        _wait_for(lambda: any(t > restarted for t in player.successes), FAST)
        to_play = min(t for t in player.successes if t > restarted) - restarted
        _wait_for(lambda: len(player.acked) >= acked_before + 10, 2 * FAST)
    finally:
        player.stop.set()
        thread.join(CALL_TIMEOUT)
    print(f"\nstore outage: first STORE_UNAVAILABLE {first_refusal:.2f}s after the stop, "
          f"health NOT_SERVING after {to_down:.2f}s, a refusal while down took "
          f"{refused_in * 1e3:.1f}ms; after the restart health SERVING in {to_up:.2f}s, "
          f"first action accepted in {to_play:.2f}s")
    assert not player.other, player.other
    assert first_refusal < FAST and refused_in < 0.5

    # Every acknowledged action is in the store, in order: read it back with a fresh
    # application. (A refused call may have committed too, so the store may hold more.)
    fresh = Referee(settings_from_env(pg_cluster.env()))
    try:
        stored = [(e.originator_version, e.seat, e.action)  # type: ignore[attr-defined]
                  for e in fresh.repository.event_store.get(UUID(table.match_id))
                  if type(e).__name__ == "ActionTaken"]
    finally:
        fresh.close()
    assert len(player.acked) >= acked_before + 10
    rest = iter(stored)
    for resp in player.acked:  # its version counts the hand's end and the next deal too
        found = next((v for v, seat, action in rest if (seat, action) == (resp.seat, resp.action)
                      and v <= resp.version), None)
        assert found is not None, f"acknowledged {resp.action} (version {resp.version}) is lost"
