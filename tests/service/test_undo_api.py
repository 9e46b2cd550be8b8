"""Issue 20 (items 2, 3) over the wire: RequestUndo and AnswerUndo, the table policies at
CreateMatch, their errors (naming the undo policy), the pending request in views and
streams, the exports and dispute replay after a withdrawal (the read side); an unchecked
claim put to the other side and answered (AnswerClaim)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.rules.game import side_of
from referee.rules.registry import GAMES
from referee.verify import verify_data
from referee_projections.runner import ProjectionWorker
from tests.service.conftest import AUDITOR
from tests.service.helpers import Table, create, expect_error, fact_dict, facts
from trick_referee_client.sdk import bearer

CONSENT = pb.TablePolicies(undo="consent")


def table(stub: pbg.RefereeServiceStub, name: str, **kw: Any) -> Table:
    return create(stub, name, players=[f"p{i}" for i in range(GAMES[name].num_seats)], **kw)


def act(stub: pbg.RefereeServiceStub, t: Table, rng: random.Random) -> tuple[int, str]:
    seat = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(AUDITOR)).to_act
    view = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.tokens[seat]))
    action = rng.choice(list(view.legal_actions))
    stub.SubmitAction(pb.SubmitActionRequest(match_id=t.match_id,
                                             action=action), metadata=bearer(t.tokens[seat]))
    return seat, action


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_undo_over_the_wire(stub: pbg.RefereeServiceStub, name: str) -> None:
    game = GAMES[name]
    t = table(stub, name, policies=CONSENT)
    rng = random.Random(f"wire-undo-{name}")
    act(stub, t, rng)
    before = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.spectator))
    seat, _ = act(stub, t, rng)
    asked = stub.RequestUndo(pb.RequestUndoRequest(match_id=t.match_id,
                                                   command_id="u"),
        metadata=bearer(t.tokens[seat])).outcome
    assert asked.action == "undo" and asked.facts[0].kind == pb.FACT_KIND_UNDO_REQUESTED
    again = stub.RequestUndo(pb.RequestUndoRequest(match_id=t.match_id,
                                                   command_id="u"),
        metadata=bearer(t.tokens[seat])).outcome
    assert again.replayed and again.version == asked.version
    view = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.spectator))
    assert view.HasField("undo") and view.undo.seat == seat and view.undo.index == 1
    mine = stub.GetView(pb.GetViewRequest(match_id=t.match_id),
                        metadata=bearer(t.tokens[view.to_act]))
    assert not mine.legal_actions  # nothing is played while the table waits
    expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id=t.match_id, action="pass"), metadata=bearer(t.tokens[view.to_act])),
        grpc.StatusCode.FAILED_PRECONDITION, "UNDO_PENDING")
    expect_error(lambda: stub.AnswerUndo(pb.AnswerUndoRequest(
        match_id=t.match_id, agree=True), metadata=bearer(t.tokens[seat])),
        grpc.StatusCode.FAILED_PRECONDITION, "UNDO_NOT_ALLOWED")  # the asking side
    answers = []
    sides = {side_of(game, seat)}
    for s in range(game.num_seats):
        if side_of(game, s) not in sides:
            sides.add(side_of(game, s))
            answers.append(stub.AnswerUndo(pb.AnswerUndoRequest(
                match_id=t.match_id, agree=True, command_id="yes"),
        metadata=bearer(t.tokens[s])).outcome)
    last = answers[-1]
    assert last.action == "undo:agree"
    assert [f.kind for f in last.facts] == [pb.FACT_KIND_UNDO_ANSWERED,
                                            pb.FACT_KIND_ACTION_WITHDRAWN]
    assert facts(last)[1] == {"kind": "action_withdrawn", "seat": seat, "index": 1}
    after = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.spectator))
    assert not after.HasField("undo")
    assert (after.table, after.to_act) == (before.table, before.to_act)
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=t.match_id,
                                                  after_version=before.version),
        metadata=bearer(t.spectator))
    first = next(stream)
    stream.cancel()
    kinds = [fact_dict(f)["kind"] for e in first.events for f in e.facts]
    assert "undo_requested" in kinds and kinds[-1] == "action_withdrawn"


def test_undo_misuse_over_the_wire(stub: pbg.RefereeServiceStub) -> None:
    expect_error(lambda: stub.CreateMatch(pb.CreateMatchRequest(
        game="euchre", policies=pb.TablePolicies(undo="sometimes"))),
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_POLICY")
    off = table(stub, "euchre")
    seat, _ = act(stub, off, random.Random("off"))
    info = expect_error(lambda: stub.RequestUndo(pb.RequestUndoRequest(
        match_id=off.match_id),
        metadata=bearer(off.tokens[seat])), grpc.StatusCode.FAILED_PRECONDITION,
        "UNDO_NOT_ALLOWED")
    assert info.metadata["policy"] == "undo"
    expect_error(lambda: stub.RequestUndo(pb.RequestUndoRequest(
        match_id=off.match_id), metadata=bearer(off.spectator)), grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED")
    expect_error(lambda: stub.AnswerUndo(pb.AnswerUndoRequest(
        match_id=off.match_id, agree=True),
        metadata=bearer(AUDITOR)), grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED")
    expect_error(lambda: stub.AnswerUndo(pb.AnswerUndoRequest(
        match_id=off.match_id, agree=True), metadata=bearer(off.tokens[0])),
        grpc.StatusCode.FAILED_PRECONDITION, "UNDO_NOT_ALLOWED")  # nothing pending
    expect_error(lambda: stub.RequestUndo(pb.RequestUndoRequest(match_id="nope")),
                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


def test_the_read_side_shows_the_withdrawal(app: Referee, channel: grpc.Channel) -> None:
    """The exported hand lists the withdrawn action (``referee verify`` accepts it), the
    dispute replay's timeline shows the request, the answers and the withdrawal, and the
    scoreboard's clock and turn follow."""
    stub = pbg.RefereeServiceStub(channel)
    read = ppbg.ProjectionsServiceStub(channel)
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        t = table(stub, "euchre", policies=CONSENT,
                  time_control=pb.TimeControl(action_ms=60_000))
        rng = random.Random("read-side")
        seat, action = act(stub, t, rng)
        stub.RequestUndo(pb.RequestUndoRequest(match_id=t.match_id),
                         metadata=bearer(t.tokens[seat]))
        worker.wait()
        board = read.GetScoreboard(ppb.GetScoreboardRequest(match_id=t.match_id),
                                   metadata=bearer(AUDITOR)).scoreboard
        assert board.clock.paused and not board.clock.HasField("deadline")
        stub.AnswerUndo(pb.AnswerUndoRequest(match_id=t.match_id, agree=True),
                        metadata=bearer(t.tokens[(seat + 1) % 4]))
        worker.wait()
        board = read.GetScoreboard(ppb.GetScoreboardRequest(match_id=t.match_id),
                                   metadata=bearer(AUDITOR)).scoreboard
        assert not board.clock.paused and board.to_act == seat
        while True:  # play the hand out (the record of a finished hand)
            view = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(AUDITOR))
            if view.hand > 1 or view.match_over:
                break
            act(stub, t, rng)
        deadline = time.monotonic() + 10
        while True:
            try:
                record = json.loads(read.ExportHand(ppb.ExportHandRequest(
                    match_id=t.match_id, hand=1), metadata=bearer(t.spectator)).record_json)
                break
            except grpc.RpcError:
                assert time.monotonic() < deadline, "the hand was not exported"
                time.sleep(0.05)
        assert record["withdrawn"] == [{"index": 0, "seat": seat, "action": action}]
        assert record["actions"][0]["seat"] == seat
        code, report = verify_data(record)
        assert code == 0, report
        replay = read.GetReplay(ppb.GetReplayRequest(
            match_id=t.match_id, hand=1, action_index=0), metadata=bearer(t.spectator))
        types = [e.event.type if e.WhichOneof("entry") == "event" else e.WhichOneof("entry")
                 for e in replay.timeline]
        assert types.index("undo_request") < types.index("undo_answer") < types.index(
            "withdrawn"), types
        withdrawn = replay.timeline[types.index("withdrawn")].event
        assert (withdrawn.seat, withdrawn.detail["action"]) == (seat, action)
    finally:
        worker.stop()


def test_an_unchecked_claim_over_the_wire(stub: pbg.RefereeServiceStub) -> None:
    t = table(stub, "euchre", policies=pb.TablePolicies(unchecked_claims="consent"))
    rng = random.Random("wire-unchecked")
    while True:
        view = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(AUDITOR))
        if view.table.phase == "play":
            break
        act(stub, t, rng)
    seat = view.to_act
    put = stub.SubmitClaim(pb.SubmitClaimRequest(match_id=t.match_id,
                                                 unchecked=True, command_id="p"),
        metadata=bearer(t.tokens[seat])).outcome
    assert put.action == "claim:unchecked" and put.facts[0].kind == pb.FACT_KIND_CLAIM_PROPOSED
    pending = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.spectator))
    assert pending.HasField("claim") and pending.claim.seat == seat
    expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id=t.match_id, action=view.legal_actions[0]
        if view.legal_actions else "play:AS"),
        metadata=bearer(t.tokens[seat])), grpc.StatusCode.FAILED_PRECONDITION,
        "CLAIM_PENDING")
    expect_error(lambda: stub.AnswerClaim(pb.AnswerClaimRequest(
        match_id=t.match_id, accept=True), metadata=bearer(t.tokens[(seat + 2) % 4])),
        grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_NOT_ALLOWED")  # the claimer's partner
    done = stub.AnswerClaim(pb.AnswerClaimRequest(match_id=t.match_id, accept=True),
                            metadata=bearer(t.tokens[(seat + 1) % 4])).outcome
    assert done.hand_over and done.action == "claim:accept"
    assert [f.kind for f in done.facts][:2] == [pb.FACT_KIND_CLAIM_ANSWERED,
                                                pb.FACT_KIND_CLAIM_ACCEPTED]
    off = table(stub, "euchre")
    info = expect_error(lambda: stub.SubmitClaim(pb.SubmitClaimRequest(
        match_id=off.match_id, unchecked=True), metadata=bearer(off.tokens[1])),
        grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_NOT_ALLOWED")
    assert info.metadata["policy"] == "unchecked_claims"
