"""Issue 16: no anonymous caller can exhaust, flood or crash the referee.

Each test names the defect it guards (the numbers of the issue's list) and fails on the code
before the fix: unbounded player names (1), rejection evidence pushed out by token-less calls
(2), heartbeat busy loops and polling streams (3), deep JSON (6), and the limits, the organiser
policy, the anonymous rate and the per-peer stream ceiling that close them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee import limits
from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import LimitExceededError, MalformedRequestError, UnauthenticatedError
from referee.rules.errors import NotYourTurnError
from tests.service.conftest import AUDITOR, store_env
from tests.service.helpers import create, expect_error, serving
from trick_referee_client.sdk import bearer

ORGANISER = "organiser-secret"


@contextmanager
def referee(request: pytest.FixtureRequest, tmp: Path, **extra: str) -> Iterator[Referee]:
    env = store_env(request, tmp)
    env.update(extra)
    app = Referee(settings_from_env(env))
    try:
        yield app
    finally:
        app.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> pytest.FixtureRequest:
    return request


# -- 1: sizes of what a caller may make the referee store ------------------------------------

def test_huge_player_names_are_refused_and_nothing_is_stored(
        store: pytest.FixtureRequest, tmp_path: Path) -> None:
    with referee(store, tmp_path, REFEREE_ANONYMOUS_RATE="0") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        head = app.recorder.max_notification_id() or 0
        for size in (limits.MAX_PLAYER_NAME + 1, 100_000, 900_000):
            info = expect_error(
                lambda n=size: stub.CreateMatch(pb.CreateMatchRequest(
                    game="euchre", players=["x" * n, "b", "c", "d"])),
                grpc.StatusCode.INVALID_ARGUMENT, "LIMIT_EXCEEDED")
            assert info.metadata["field"] == "players[0]"
            assert info.metadata["limit"] == str(limits.MAX_PLAYER_NAME)
        # A request over the message limit never reaches a handler.
        with pytest.raises(grpc.RpcError) as caught:
            stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", players=["x" * (2 << 20), "b", "c", "d"]))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (app.recorder.max_notification_id() or 0) == head  # nothing was stored
        # A name at the limit is fine.
        create(stub, players=["y" * limits.MAX_PLAYER_NAME, "b", "c", "d"])


def test_names_with_control_characters_are_refused(tmp_path: Path) -> None:
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path)}))
    try:
        for bad in ("\x1b[2Jspoof", "tab\tname", "bidi\u202eevil", "   "):
            with pytest.raises(Exception) as caught:
                app.create_match("euchre", players=[bad, "b", "c", "d"])
            assert getattr(caught.value, "reason", "") == "MALFORMED_REQUEST"
        assert app.create_match("euchre", players=["Zoë", "李", "b c", "d"]).players[0] == "Zoë"
    finally:
        app.close()


def test_every_request_field_is_bounded(store: pytest.FixtureRequest, tmp_path: Path) -> None:
    with referee(store, tmp_path, REFEREE_ANONYMOUS_RATE="0") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        t = create(stub)
        cases: list[tuple[Any, str]] = [
            (lambda: stub.SubmitAction(pb.SubmitActionRequest(
                match_id=t.match_id, action="p" * 10_000), metadata=bearer(t.tokens[1])), "action"),
            (lambda: stub.SubmitAction(pb.SubmitActionRequest(
                match_id=t.match_id, action="pass",
                command_id="c" * 5000), metadata=bearer(t.tokens[1])), "command_id"),
            (lambda: stub.GetView(pb.GetViewRequest(match_id=t.match_id),
                                  metadata=bearer("t" * 5000)), "authorization"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", seed_entropy=b"e" * 5000)), "seed_entropy"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", players=["p"] * 1000)), "players"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", fixed_deals=[pb.FixedDeal(cards=["AS"])] * 1000)),
             "fixed_deals"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", rules={"x" * 1000: pb.RuleValue(int_value=1)})), "rules"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", rules={f"r{i}": pb.RuleValue() for i in range(100)})), "rules"),
            (lambda: stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", rules={"x": pb.RuleValue(string_value="y" * 20_000)})),
             "rules[x].string_value"),
        ]
        for call, field in cases:
            info = expect_error(call, grpc.StatusCode.INVALID_ARGUMENT, "LIMIT_EXCEEDED")
            assert info.metadata["field"] == field, (field, info.metadata)
        read = ppbg.ProjectionsServiceStub(ch)
        info = expect_error(lambda: read.RecordRuling(ppb.RecordRulingRequest(
            match_id=t.match_id, hand=1, kind="penalty", points=[1, 0],
            reason="r" * 100_000),
        metadata=bearer(AUDITOR)), grpc.StatusCode.INVALID_ARGUMENT, "LIMIT_EXCEEDED")
        assert info.metadata["field"] == "reason"


def test_list_rejections_returns_at_most_the_list_limit(tmp_path: Path) -> None:
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path),
                                     "REFEREE_AUDITOR_TOKEN": AUDITOR,
                                     "REFEREE_REJECTIONS_PER_MATCH": "5000"}))
    try:
        m = app.create_match("euchre")
        for _ in range(limits.MAX_LIST_LIMIT + 20):
            with pytest.raises(NotYourTurnError):  # seat 1 acts first
                app.submit_action(m.match_id, m.seat_tokens[0], "pass")
        assert len(app.list_rejections(AUDITOR, str(m.match_id))) == limits.MAX_LIST_LIMIT
        assert len(app.list_rejections(AUDITOR, str(m.match_id), limit=5)) == 5
    finally:
        app.close()


# -- who may create matches, and how fast anonymous callers may call -------------------------

def test_an_organiser_credential_guards_match_creation(tmp_path: Path) -> None:
    with referee(_sqlite(), tmp_path, REFEREE_ORGANISER_TOKEN=ORGANISER) as app, \
            serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        info = expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="euchre")),
                            grpc.StatusCode.PERMISSION_DENIED, "ORGANISER_REQUIRED")
        assert info.domain == "referee.cardgames"
        expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="euchre"),
                     metadata=bearer("no")),
                     grpc.StatusCode.PERMISSION_DENIED, "ORGANISER_REQUIRED")
        assert stub.CreateMatch(pb.CreateMatchRequest(game="euchre"),
                                metadata=bearer(ORGANISER)).match_id
        assert stub.CreateMatch(pb.CreateMatchRequest(game="euchre"),
                                metadata=bearer(AUDITOR)).match_id


def test_anonymous_calls_are_rate_limited_per_peer(tmp_path: Path) -> None:
    with referee(_sqlite(), tmp_path, REFEREE_ANONYMOUS_RATE="2",
                 REFEREE_ANONYMOUS_BURST="3") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        for _ in range(3):
            stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))
        info = expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="euchre")),
                            grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        assert 0 < int(info.metadata["retryAfterMs"]) <= 1000
        # A made-up token is no credential: still anonymous.
        expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(game="euchre"),
                     metadata=bearer("x")),
                     grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
        # Calls with a credential are not limited.
        m = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"), metadata=bearer(AUDITOR))
        for _ in range(10):
            stub.GetView(pb.GetViewRequest(match_id=m.match_id),
                         metadata=bearer(m.seat_tokens[0].token))
        time.sleep(0.6)  # the bucket refills at 2 a second
        stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))


def test_open_streams_per_peer_are_capped(tmp_path: Path) -> None:
    with referee(_sqlite(), tmp_path, REFEREE_STREAMS_PER_PEER="3",
                 REFEREE_ANONYMOUS_RATE="0") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        t = create(stub)
        req = pb.WatchMatchRequest(match_id=t.match_id, heartbeat_seconds=30)
        streams = [stub.WatchMatch(req, timeout=30, metadata=bearer(t.spectator)) for _ in range(3)]
        for s in streams:
            next(s)
        with pytest.raises(grpc.RpcError) as caught:
            next(stub.WatchMatch(req, timeout=30, metadata=bearer(t.spectator)))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        streams[0].cancel()
        deadline = time.monotonic() + 5
        while True:  # the place is given back once the server sees the cancel
            try:
                next(stub.WatchMatch(req, timeout=30, metadata=bearer(t.spectator)))
                break
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert time.monotonic() < deadline
                time.sleep(0.05)
        for s in streams[1:]:
            s.cancel()


# -- 2: the rejection trail keeps a seat's evidence ------------------------------------------

def test_token_less_calls_cannot_push_a_seats_refusal_out(
        store: pytest.FixtureRequest, tmp_path: Path) -> None:
    with referee(store, tmp_path, REFEREE_REJECTIONS_PER_MATCH="200") as app:
        m = app.create_match("euchre")
        match = str(m.match_id)
        before = {(r.seat, r.action) for r in app.list_rejections(AUDITOR, match)}
        with pytest.raises(NotYourTurnError):  # seat 1 acts first
            app.submit_action(m.match_id, m.seat_tokens[3], "order_up")
        for i in range(250):
            with pytest.raises(UnauthenticatedError):
                app.submit_action(m.match_id, "", f"pass{i}")
        trail = app.list_rejections(AUDITOR, match)
        assert (3, "order_up") in {(r.seat, r.action) for r in trail} - before
        anonymous = [r for r in trail if r.seat is None]
        assert len(anonymous) == app.settings.rejections_anonymous


# -- 3: streams are bounded and event-driven ---------------------------------------------------

def test_heartbeat_outside_its_bounds_is_refused(tmp_path: Path) -> None:
    """``heartbeat_seconds=-1`` was a busy loop of 4,550 messages/s."""
    with referee(_sqlite(), tmp_path, REFEREE_ANONYMOUS_RATE="0") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        t = create(stub, public_spectators=True)
        for bad in (-1, -1000, limits.HEARTBEAT_MAX + 1):
            with pytest.raises(grpc.RpcError) as caught:
                next(stub.WatchMatch(pb.WatchMatchRequest(
                    match_id=t.match_id, heartbeat_seconds=bad), timeout=5))
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "heartbeat_seconds" in (caught.value.details() or "")
        # At the lower bound an idle stream sends one heartbeat a second, no more.
        stream = stub.WatchMatch(pb.WatchMatchRequest(
            match_id=t.match_id, heartbeat_seconds=limits.HEARTBEAT_MIN), timeout=10)
        start = time.monotonic()
        got = [next(stream) for _ in range(3)]
        assert [m.heartbeat for m in got] == [False, True, True]
        assert time.monotonic() - start >= 1.8
        stream.cancel()


def test_idle_watch_streams_read_nothing_from_the_store(tmp_path: Path) -> None:
    """Each idle WatchMatch used to read the store once a second (and wake every 0.5 s)."""
    with referee(_sqlite(), tmp_path, REFEREE_ANONYMOUS_RATE="0") as app, serving(app) as ch:
        stub = pbg.RefereeServiceStub(ch)
        tables = [create(stub) for _ in range(4)]
        streams = [stub.WatchMatch(pb.WatchMatchRequest(
            match_id=t.match_id, heartbeat_seconds=60), timeout=30, metadata=bearer(t.spectator))
            for t in tables for _ in range(5)]
        for s in streams:
            next(s)
        reads = _count_calls(app.recorder, "select_events")
        time.sleep(2.5)
        assert reads() == 0
        # ... and a change still reaches its watchers at once.
        t = tables[0]
        stub.SubmitAction(pb.SubmitActionRequest(match_id=t.match_id,
                                                 action="pass"), metadata=bearer(t.tokens[1]))
        for s in streams[:5]:
            assert next(s).version == 3
        for s in streams:
            s.cancel()


def test_another_process_write_wakes_watchers_through_one_follower(tmp_path: Path) -> None:
    """Two applications on one store (two servers): a write by one reaches the other's
    watchers, found by the one log follower of that process, not a poll per stream."""
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_FOLLOW_MS": "100"}
    a, b = Referee(settings_from_env(env)), Referee(settings_from_env(env))
    try:
        m = a.create_match("euchre")

        async def watch() -> int:
            seen = b.watch(m.match_id, m.spectator_token, 0, 30.0)
            first = await seen.__anext__()
            assert first[2] == 2
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, a.submit_action, m.match_id, m.seat_tokens[1],
                                       "pass")
            start = loop.time()
            _, view, version = await asyncio.wait_for(seen.__anext__(), 5)
            assert view is not None and loop.time() - start < 2
            await seen.aclose()
            return version

        assert asyncio.run(watch()) == 3
    finally:
        a.close()
        b.close()


def _count_calls(obj: Any, name: str) -> Any:
    """Count the calls of ``obj.name`` from now on (a spy on the real method)."""
    real = getattr(obj, name)
    count = [0]

    def spy(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    setattr(obj, name, spy)
    return lambda: count[0]


class _Sqlite:
    param = "sqlite"


def _sqlite() -> Any:
    return _Sqlite()


def test_tournament_and_entrant_names_are_printable_and_bounded(tmp_path: Path) -> None:
    from referee import tournaments as tour

    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path),
                                     "REFEREE_AUDITOR_TOKEN": AUDITOR}))
    try:
        with pytest.raises(LimitExceededError):
            tour.create_tournament(app, AUDITOR, "t" * (limits.MAX_TITLE + 1), "euchre")
        with pytest.raises(MalformedRequestError, match="control character"):
            tour.create_tournament(app, AUDITOR, "cup\x1b[2J", "euchre")
        tid = tour.create_tournament(app, AUDITOR, "Winter cup", "euchre")
        with pytest.raises(MalformedRequestError, match="control character"):
            tour.register_entrant(app, AUDITOR, tid, "team\nfake line", [])
        with pytest.raises(MalformedRequestError, match="members"):
            tour.register_entrant(app, AUDITOR, tid, "Aces", ["ann", "\u202ebob"])
        assert tour.register_entrant(app, AUDITOR, tid, "Aces", ["ann", "bob"]) > 0
    finally:
        app.close()
