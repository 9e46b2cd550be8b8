"""Issue 19 over the wire: a timed match through the public API (CreateMatch's TimeControl,
the ClockView in views, streams and the scoreboard, the timeout facts, PauseClocks and
ResumeClocks, and the errors that name what was wrong)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee_projections.runner import ProjectionWorker
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error, fact_dict
from trick_referee_client.sdk import bearer


def view(stub: pbg.RefereeServiceStub, match_id: str, token: str) -> pb.GetViewResponse:
    return stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(token))


@pytest.mark.parametrize(("control", "field"), [
    (pb.TimeControl(), "action_ms"),
    (pb.TimeControl(action_ms=-5), "action_ms"),
    (pb.TimeControl(bank_ms=10**12), "bank_ms"),
    (pb.TimeControl(action_ms=1000, increment_ms=10), "increment_ms"),
    (pb.TimeControl(action_ms=1000, lag_ms=-1), "lag_ms"),
    (pb.TimeControl(action_ms=1000, policy=7), "time_control.policy"),  # type: ignore[arg-type]
])
def test_a_bad_time_control_is_invalid_argument_naming_the_field(
        stub: pbg.RefereeServiceStub, control: pb.TimeControl, field: str) -> None:
    info = expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(
        game="euchre", time_control=control)), grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_TIME_CONTROL" if field != "time_control.policy" else "MALFORMED_REQUEST")
    assert info.metadata["field"] == field


def test_the_clock_in_views_and_the_timeout_in_the_stream(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "pedro", time_control=pb.TimeControl(
        action_ms=1500, bank_ms=1000, increment_ms=100, lag_ms=0,
        policy=pb.TIMEOUT_POLICY_AUTO))
    first = view(stub, table.match_id, table.spectator)
    clock = first.clock
    assert first.HasField("clock") and clock.control.policy == pb.TIMEOUT_POLICY_AUTO
    assert list(clock.banks_ms) == [1000] * 4 and not clock.paused
    assert clock.to_act == first.to_act and 0 < clock.left_ms <= 2500
    deadline = clock.deadline.ToDatetime(tzinfo=UTC)
    assert 0 < (deadline - datetime.now(UTC)).total_seconds() <= 2.5
    # Nobody acts: the stream carries the timeout and the referee's action for the seat.
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id, heartbeat_seconds=1),
                             timeout=10, metadata=bearer(table.spectator))
    seen: list[dict[str, object]] = []
    for update in stream:
        for e in update.events:
            for f in e.facts:
                if f.kind == pb.FACT_KIND_TIMED_OUT:
                    seen.append(fact_dict(f))
        if seen and update.view.clock.to_act != first.to_act:
            break
    stream.cancel()
    assert seen[0]["seat"] == first.to_act and seen[0]["policy"] == "auto"
    after = view(stub, table.match_id, table.spectator)
    assert after.clock.banks_ms[first.to_act] == 100  # spent, plus the increment


def test_pause_and_resume_are_the_auditors_and_events(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "belot", time_control=pb.TimeControl(action_ms=60_000))
    expect_error(lambda: stub.PauseClocks(pb.PauseClocksRequest(
        match_id=table.match_id, reason="mine"), metadata=bearer(table.tokens[1])),
        grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
    paused = stub.PauseClocks(pb.PauseClocksRequest(match_id=table.match_id,
                                                    reason="a disconnect"),
        metadata=bearer(AUDITOR))
    seat = view(stub, table.match_id, table.spectator).to_act
    legal = view(stub, table.match_id, table.tokens[seat]).legal_actions[0]
    expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id=table.match_id, action=legal), metadata=bearer(table.tokens[seat])),
        grpc.StatusCode.FAILED_PRECONDITION, "CLOCK_PAUSED")
    expect_error(lambda: stub.PauseClocks(pb.PauseClocksRequest(
        match_id=table.match_id), metadata=bearer(AUDITOR)), grpc.StatusCode.FAILED_PRECONDITION,
        "CLOCK_STATE")
    resumed = stub.ResumeClocks(pb.ResumeClocksRequest(match_id=table.match_id,
                                                       add_ms=5000), metadata=bearer(AUDITOR))
    assert resumed.version == paused.version + 1
    assert view(stub, table.match_id, table.spectator).clock.left_ms > 60_000
    expect_error(lambda: stub.ResumeClocks(pb.ResumeClocksRequest(
        match_id=table.match_id, add_ms=-1), metadata=bearer(AUDITOR)),
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    expect_error(lambda: stub.PauseClocks(pb.PauseClocksRequest(
        match_id=create(stub).match_id), metadata=bearer(AUDITOR)),
        grpc.StatusCode.FAILED_PRECONDITION, "CLOCK_STATE")  # an untimed match


def test_a_late_action_is_timed_out_naming_the_event(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "coinche", time_control=pb.TimeControl(
        action_ms=100, lag_ms=0, policy=pb.TIMEOUT_POLICY_PAUSE))
    seat = view(stub, table.match_id, table.spectator).to_act
    time.sleep(0.4)
    info = expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id=table.match_id, action="pass"), metadata=bearer(table.tokens[seat])),
        grpc.StatusCode.FAILED_PRECONDITION, "TIMED_OUT")
    assert info.metadata["seat"] == str(seat) and info.metadata["policy"] == "pause"
    assert int(info.metadata["timeoutVersion"]) > 1


def test_the_scoreboard_shows_the_clock_and_the_timeouts(app: Referee,
                                                         channel: grpc.Channel) -> None:
    stub = pbg.RefereeServiceStub(channel)
    read = ppbg.ProjectionsServiceStub(channel)
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        table = create(stub, "euchre", time_control=pb.TimeControl(
            action_ms=150, lag_ms=0, policy=pb.TIMEOUT_POLICY_FORFEIT))
        deadline = time.monotonic() + 10
        while True:
            try:
                board = read.GetScoreboard(ppb.GetScoreboardRequest(
                    match_id=table.match_id), metadata=bearer(table.spectator)).scoreboard
                if board.state == "over":
                    break
            except grpc.RpcError:
                pass  # VIEW_NOT_READY
            assert time.monotonic() < deadline, "no forfeit on the scoreboard"
            time.sleep(0.05)
        assert board.HasField("clock") and board.clock.control.action_ms == 150
        assert not board.clock.HasField("to_act")  # the match is over
        [timeout] = board.timeouts
        assert timeout.policy == pb.TIMEOUT_POLICY_FORFEIT and timeout.hand == 1
        assert timeout.seat == 1 and timeout.deadline.seconds > 0
        assert board.winner == 0  # seat 1's side (1) forfeits to side 0
    finally:
        worker.stop()
