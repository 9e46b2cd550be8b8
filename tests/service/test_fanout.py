"""The watch fan-out (``referee.application.fanout``): every audience gets every version,
exactly as redacted as its own ``GetView``; a consumer that does not read stalls neither the
other watchers nor the players and then gets everything it missed, once; the streams read
the store once per version, not once per stream; heartbeats read nothing."""

from __future__ import annotations

import asyncio
import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee, fanout
from referee.application.principals import Principal, Role
from referee.service.servicer import _event_pb
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, step
from trick_referee_client.sdk import bearer


def _audiences(table: Any) -> dict[str, str]:
    out = {f"seat{s}": t for s, t in enumerate(table.tokens)}
    return out | {"seat0-again": table.tokens[0], "spectator": table.spectator,
                  "auditor": AUDITOR}


def _read_until(stream: Iterator[pb.WatchMatchResponse], version: int,
                into: list[pb.WatchMatchResponse]) -> None:
    while not into or into[-1].version < version:
        msg = next(stream)
        if not msg.heartbeat:
            into.append(msg)


def test_every_audience_gets_every_version_as_redacted_as_its_view(
        app: Referee, stub: pbg.RefereeServiceStub) -> None:
    rng = random.Random(24)
    table = create(stub, "euchre")
    tokens = _audiences(table)
    streams = {name: stub.WatchMatch(pb.WatchMatchRequest(
        match_id=table.match_id, heartbeat_seconds=60), timeout=60, metadata=bearer(token))
        for name, token in tokens.items()}
    got: dict[str, list[pb.WatchMatchResponse]] = {name: [] for name in tokens}
    views: dict[str, dict[int, pb.GetViewResponse]] = {name: {} for name in tokens}

    def look(version: int) -> None:
        for name, token in tokens.items():
            view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(token))
            assert view.version == version
            views[name][version] = view
            _read_until(streams[name], version, got[name])

    look(2)
    for _ in range(40):
        resp, _ = step(stub, table, rng)
        look(resp.version)
    for s in streams.values():
        s.cancel()
    match = app.get_match(uuid.UUID(table.match_id))
    for name, token in tokens.items():
        who = app.tokens.authorize(match, token)
        # The events: every version once, in order, redacted as the one redaction does.
        events = [e for msg in got[name] for e in msg.events]
        assert events == [_event_pb(e) for e in app.reading.events_after(match, who, 0)], name
        # The views: each exactly the audience's own GetView at that version.
        for msg in got[name]:
            assert msg.view == views[name][msg.version], (name, msg.version)
        assert got[name][-1].version == match.version
    # Seats see their own cards and not the others'; seat 0's two streams are the same.
    assert [m.view for m in got["seat0"]] == [m.view for m in got["seat0-again"]]
    # (At the first version each holds a whole hand: at the last both may have played out.)
    first0, first1 = got["seat0"][0].view.table.hand, got["seat1"][0].view.table.hand
    assert first0 and first1 and not set(first0) & set(first1)
    assert got["spectator"][-1].view.role == pb.ROLE_SPECTATOR
    assert got["auditor"][-1].view.role == pb.ROLE_AUDITOR


def test_a_consumer_that_does_not_read_stalls_no_one(app: Referee,
                                                     stub: pbg.RefereeServiceStub) -> None:
    rng = random.Random(5)
    table = create(stub, "euchre")
    slow = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id), timeout=120,
                           metadata=bearer(table.spectator))
    first = next(slow)  # open, then not read while the match goes on
    keen = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id), timeout=120,
                           metadata=bearer(table.spectator))
    seen: list[pb.WatchMatchResponse] = []
    for _ in range(120):
        resp, _ = step(stub, table, rng)
        _read_until(keen, resp.version, seen)  # the other watcher has it at once
        if resp.match_over:
            break
    latest = resp.version
    rest: list[pb.WatchMatchResponse] = []
    _read_until(slow, latest, rest)
    versions = [e.version for msg in [first, *rest] for e in msg.events]
    assert versions == sorted(set(versions))  # nothing twice, in order
    assert [e for msg in [first, *rest] for e in msg.events] == [
        e for msg in seen for e in msg.events]  # nothing missing
    assert rest[-1].view == seen[-1].view
    slow.cancel()
    keen.cancel()


def test_a_stream_not_ready_takes_one_update_to_the_latest(app: Referee) -> None:
    """In the fan-out itself: a subscriber that does not ask holds no queue; when it asks
    again it gets one update with every event since the last it took, and the latest view."""
    created = app.create_match("euchre")
    rng = random.Random(3)

    async def scenario() -> tuple[Any, Any, int]:
        slow = app.watch(created.match_id, created.spectator_token, 0, 60.0)
        first = await slow.__anext__()
        loop = asyncio.get_running_loop()
        for _ in range(12):
            await loop.run_in_executor(None, _act, app, created, rng)
        await asyncio.sleep(0.2)  # the feed has published them all meanwhile
        update = await asyncio.wait_for(slow.__anext__(), 10)
        await slow.aclose()
        return first, update, app.get_match(created.match_id).version

    first, (events, view, version), latest = asyncio.run(scenario())
    assert first[2] == 2 and version == latest == view.version
    assert [e.version for e in events] == list(range(3, latest + 1))


def test_a_stream_behind_the_history_gets_an_update_read_for_it(
        app: Referee, monkeypatch: Any) -> None:
    """Further behind than the feed keeps (a few versions here): the update is read for that
    stream alone, and it still brings every event once."""
    monkeypatch.setattr(fanout, "HISTORY", 4)
    created = app.create_match("euchre")
    rng = random.Random(8)

    async def scenario() -> tuple[list[Any], int]:
        slow = app.watch(created.match_id, created.spectator_token, 0, 60.0)
        keen = app.watch(created.match_id, created.spectator_token, 0, 60.0)
        got = [await slow.__anext__()]
        await keen.__anext__()
        loop = asyncio.get_running_loop()
        for _ in range(15):
            await loop.run_in_executor(None, _act, app, created, rng)
            await asyncio.wait_for(keen.__anext__(), 10)  # the feed moves on meanwhile
        latest = app.get_match(created.match_id).version
        while got[-1][2] < latest:
            got.append(await asyncio.wait_for(slow.__anext__(), 10))
        await slow.aclose()
        await keen.aclose()
        return got, latest

    got, latest = asyncio.run(scenario())
    versions = [e.version for events, _, _ in got for e in events]
    assert versions == list(range(2, latest + 1))
    assert len(got) == 2  # the first update, then one with all the rest


def _act(app: Referee, created: Any, rng: random.Random) -> None:
    view = app.get_view(created.match_id, AUDITOR)
    assert view.to_act is not None
    token = created.seat_tokens[view.to_act]
    legal = app.get_view(created.match_id, token).legal_actions
    app.submit_action(created.match_id, token, rng.choice(legal))


def test_streams_read_the_store_once_per_version_and_not_for_heartbeats(
        app: Referee, stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "euchre")
    streams = [stub.WatchMatch(pb.WatchMatchRequest(
        match_id=table.match_id,
        heartbeat_seconds=1), timeout=60,
        metadata=bearer(table.tokens[i % 4] if i % 5 else table.spectator)) for i in range(40)]
    for s in streams:
        next(s)
    time.sleep(1.5)  # the log follower's first look, when watchers come, wakes them all
    reads = _count_calls(app.recorder, "select_events")
    beats = [0] * len(streams)

    def two_beats(i: int) -> None:
        while beats[i] < 2:
            beats[i] += next(streams[i]).heartbeat

    readers = [threading.Thread(target=two_beats, args=(i,)) for i in range(len(streams))]
    for r in readers:
        r.start()
    for r in readers:
        r.join(20)
    assert beats == [2] * len(streams)
    assert reads() == 0  # heartbeats come from a timer, not from reading the match
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.spectator))
    token = table.tokens[view.to_act]
    legal = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                         metadata=bearer(token)).legal_actions
    before = reads()
    resp = stub.SubmitAction(pb.SubmitActionRequest(match_id=table.match_id,
                                                    action=legal[0]),
        metadata=bearer(token)).outcome
    for s in streams:
        msg = next(s)
        while msg.heartbeat:
            msg = next(s)
        assert msg.version == resp.version
    # A read of the match (its catch-up) and one of the new events, for all 40 streams of
    # five audiences, once or twice (a wake by the commit, maybe one by the log follower);
    # the old way: two per stream.
    assert reads() - before <= 4
    for s in streams:
        s.cancel()


def test_the_auditor_view_goes_to_the_auditor_only(app: Referee) -> None:
    """Audiences are principals: the fan-out's snapshot builds each one's own view."""
    created = app.create_match("euchre")
    wants = {Principal(Role.SPECTATOR): 0, Principal(Role.SEAT, 1): 0,
             Principal(Role.AUDITOR): 0}
    version, parts = app.reading.snapshot(created.match_id, wants)
    assert version == 2 and set(parts) == set(wants)
    for who, (_, view) in parts.items():
        assert view.principal == who
    audit = parts[Principal(Role.AUDITOR)][1].state
    assert audit != parts[Principal(Role.SPECTATOR)][1].state
    assert audit != parts[Principal(Role.SEAT, 1)][1].state


def _count_calls(obj: Any, name: str) -> Any:
    real = getattr(obj, name)
    count = [0]

    def spy(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    setattr(obj, name, spy)
    return lambda: count[0]
