"""Issue 24, item 4: a match played through one replica is watched through another. Two
``referee serve`` processes on one PostgreSQL, their log polling slowed to once a minute
(``REFEREE_FOLLOW_MS``), so that only LISTEN/NOTIFY (``referee.notices``) can bring the
watcher on replica B each action submitted on replica A within the bound: the match's events
(``WatchMatch``, with a seat's stream showing that seat's cards and no other's) and its
scoreboard (``WatchScoreboard``). Then PostgreSQL drops the listening connections: B says
NOT_SERVING until it listens again, reconnects, and its watchers see the next actions as
before."""

from __future__ import annotations

import queue
import random
import signal
import threading
import time
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf.json_format import MessageToJson
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from tests.deploy.helpers import start_server
from tests.pg_cluster import fresh_schema
from trick_referee_client.sdk import bearer

AUDITOR = "auditor-replica-watch"
BOUND = 2.0  # seconds from A's answer to B's stream (polling here: once a minute)
ACTIONS = 12


def _reader(stream: Any, into: queue.Queue[tuple[float, Any]]) -> threading.Thread:
    def run() -> None:
        try:
            for msg in stream:  # a WatchScoreboardResponse: its scoreboard
                into.put((time.monotonic(), getattr(msg, "scoreboard", msg)))
        except grpc.RpcError:
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _until(into: queue.Queue[tuple[float, Any]], version: int) -> tuple[float, list[Any]]:
    """When a message at ``version`` or later came, and every message until then."""
    got = []
    while True:
        at, msg = into.get(timeout=BOUND * 5)
        if getattr(msg, "heartbeat", False):
            continue
        got.append(msg)
        if msg.version >= version:
            return at, got


def _play(stub: pbg.RefereeServiceStub, match_id: str, tokens: list[str], rng: random.Random
          ) -> tuple[float, int]:
    view = stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(AUDITOR))
    seat = view.to_act
    legal = stub.GetView(pb.GetViewRequest(match_id=match_id),
                         metadata=bearer(tokens[seat])).legal_actions
    resp = stub.SubmitAction(pb.SubmitActionRequest(match_id=match_id,
                                                    action=rng.choice(list(legal))),
        metadata=bearer(tokens[seat]))
    return time.monotonic(), resp.outcome.version


def _listeners(env: dict[str, str], channel: str) -> list[int]:
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                         user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                         dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE query ILIKE %s",
                            (f'%LISTEN "{channel}"%',)).fetchall()
        return [r[0] for r in rows]


def _terminate(env: dict[str, str], pids: list[int]) -> None:
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                         user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                         dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
        for pid in pids:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _health_for(channel: grpc.Channel, seconds: float) -> list[int]:
    """The server's overall health status, looked at every 20 ms for ``seconds``."""
    stub = health_pb2_grpc.HealthStub(channel)
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        out.append(stub.Check(health_pb2.HealthCheckRequest(service="")).status)
        time.sleep(0.02)
    return out


@pytest.mark.postgres
def test_a_watcher_on_one_replica_sees_every_action_made_on_another(
        postgres_env: dict[str, str]) -> None:
    schema = fresh_schema(postgres_env, "w")
    env = {**postgres_env, "POSTGRES_SCHEMA": schema, "REFEREE_AUDITOR_TOKEN": AUDITOR,
           "REFEREE_FOLLOW_MS": "60000"}
    servers = [start_server(env, "--metrics-port", "0") for _ in range(2)]
    try:
        _watch_across(postgres_env, schema, servers[0][1], servers[1][1])
    finally:
        for proc, _ in servers:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)


def _watch_across(postgres_env: dict[str, str], schema: str, addr_a: str, addr_b: str
                  ) -> None:
    with grpc.insecure_channel(addr_a) as ch_a, grpc.insecure_channel(addr_b) as ch_b:
        a, b = pbg.RefereeServiceStub(ch_a), pbg.RefereeServiceStub(ch_b)
        boards_b = ppbg.ProjectionsServiceStub(ch_b)
        created = a.CreateMatch(pb.CreateMatchRequest(game="euchre", public_spectators=True))
        mid, tokens = created.match_id, [t.token for t in created.seat_tokens]
        spectator: queue.Queue[tuple[float, Any]] = queue.Queue()
        seat1: queue.Queue[tuple[float, Any]] = queue.Queue()
        boards: queue.Queue[tuple[float, Any]] = queue.Queue()
        streams = [b.WatchMatch(pb.WatchMatchRequest(match_id=mid, heartbeat_seconds=60),
                                timeout=120),
                   b.WatchMatch(pb.WatchMatchRequest(match_id=mid,
                                                     heartbeat_seconds=60), timeout=120,
        metadata=bearer(tokens[1])),
                   boards_b.WatchScoreboard(ppb.WatchScoreboardRequest(match_id=mid),
                                            timeout=120)]
        for stream, into in zip(streams, (spectator, seat1, boards), strict=True):
            _reader(stream, into)
        _until(spectator, created.version)
        _until(seat1, created.version)
        rng = random.Random(24)
        delays: list[float] = []
        board_delays: list[float] = []
        try:
            for i in range(ACTIONS):
                if i == ACTIONS // 2:  # PostgreSQL drops the listening connections
                    pids = _listeners(postgres_env, f"referee_changes_{schema}")
                    assert len(pids) == 2, pids  # one per replica
                    _terminate(postgres_env, pids)
                    statuses = _health_for(ch_b, 2.0)  # (each reconnects within a second)
                    # Meanwhile B says it is not serving (its watchers would miss A's
                    # commits), then serving again once it listens again.
                    assert health_pb2.HealthCheckResponse.NOT_SERVING in statuses, statuses
                    assert statuses[-1] == health_pb2.HealthCheckResponse.SERVING, statuses
                    assert len(_listeners(postgres_env, f"referee_changes_{schema}")) == 2
                acked, version = _play(a, mid, tokens, rng)
                at, _ = _until(spectator, version)
                delays.append(at - acked)
                at, seen = _until(seat1, version)
                audit = a.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(AUDITOR)).table
                public = set(MessageToJson(a.GetView(pb.GetViewRequest(
                    match_id=mid)).table).split('"'))
                others = {c for s, held in enumerate(audit.hands) if s != 1
                          for c in held.cards} - public  # (the upcard a dealer took is public)
                for msg in seen:  # seat 1 sees its own cards, never another seat's
                    state = msg.view.table
                    assert not state.hands and "stock" not in state.detail.fields
                    if msg.version == version:
                        assert list(state.hand) == list(audit.hands[1].cards)
                        assert not others & set(MessageToJson(state).split('"'))
                at, _ = _until(boards, version)
                board_delays.append(at - acked)
        finally:
            for s in streams:
                s.cancel()
        assert max(delays) < BOUND, delays
        assert max(board_delays) < BOUND, board_delays
        # The seat's view on B is its own GetView on A (same redaction through either).
        view_b = b.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(tokens[1]))
        view_a = a.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(tokens[1]))
        assert view_a == view_b
