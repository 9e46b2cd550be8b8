"""Issue 20 (items 1, 2) over the wire: SubmitClaim and Concede, their errors, and the spy
test: a refused claim shows no player anything new (error, views, streams)."""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.rules.cards import CARD_NAMES
from referee.rules.claims import ALL, check_claim, in_trick_play, remaining_tricks
from referee.rules.registry import GAMES
from referee_projections.runner import ProjectionWorker
from tests.service.conftest import AUDITOR
from tests.service.helpers import Table, create, expect_error, facts
from trick_referee_client.sdk import bearer

SEATS = {"ulti": 3}


def table(stub: pbg.RefereeServiceStub, name: str) -> Table:
    return create(stub, name, players=[f"p{i}" for i in range(SEATS.get(name, 4))])


def play_until(app: Referee, stub: pbg.RefereeServiceStub, t: Table, want: bool | None,
               rng: random.Random) -> Any:
    """Random legal play through the API until the seat to act, in trick play with at most
    four tricks left, holds (``want``) a claim of all the tricks (the referee's own match
    decides where the position is; the moves go over the wire)."""
    for _ in range(2000):
        m = app.get_match(uuid.UUID(t.match_id))
        game, state = m.game, m.hand_state
        seat = game.current_seat(state)
        if in_trick_play(game, state) and remaining_tricks(game, state) <= 4 and (
                want is None or check_claim(game, state, seat, ALL).holds == want):
            return m
        view = stub.GetView(pb.GetViewRequest(match_id=t.match_id), metadata=bearer(t.tokens[seat]))
        stub.SubmitAction(pb.SubmitActionRequest(
            match_id=t.match_id,
            action=rng.choice(list(view.legal_actions))), metadata=bearer(t.tokens[seat]))
    raise AssertionError("no such position")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_claim_accepted_over_the_wire(app: Referee, stub: pbg.RefereeServiceStub,
                                        name: str) -> None:
    t = table(stub, name)
    m = play_until(app, stub, t, True, random.Random(f"wire-{name}"))
    seat = m.to_act
    resp = stub.SubmitClaim(pb.SubmitClaimRequest(match_id=t.match_id,
                                                  command_id="c1"),
        metadata=bearer(t.tokens[seat])).outcome
    assert resp.hand_over and resp.action == "claim:all" and resp.seat == seat
    assert resp.facts[0].kind == pb.FACT_KIND_CLAIM_ACCEPTED
    assert facts(resp)[0]["claim"] == "claim"
    again = stub.SubmitClaim(pb.SubmitClaimRequest(match_id=t.match_id,
                                                   command_id="c1"),
        metadata=bearer(t.tokens[seat])).outcome
    assert again.replayed and again.version == resp.version
    # The watchers see the claim and its line.
    stream = stub.WatchMatch(pb.WatchMatchRequest(
        match_id=t.match_id, after_version=m.version), metadata=bearer(t.spectator))
    first = next(stream)
    stream.cancel()
    kinds = [f["kind"] for e in first.events for f in facts(e)]
    assert kinds[0] == "claim_accepted" and "hand_ended" in kinds
    line = [e for e in first.events if e.action]
    claimed = json.loads(stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=t.match_id, hand=m.hand.number),
        metadata=bearer(t.spectator)).record_json)["actions"]
    assert [(e.seat, e.action) for e in line] == [
        (a["seat"], a["action"]) for a in claimed if a.get("claim")]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_refused_claim_shows_no_one_anything(app: Referee, stub: pbg.RefereeServiceStub,
                                               name: str) -> None:
    t = table(stub, name)
    m = play_until(app, stub, t, False, random.Random(f"spy-{name}"))
    seat = m.to_act
    readers = [*t.tokens, t.spectator]
    before = [stub.GetView(pb.GetViewRequest(match_id=t.match_id),
              metadata=bearer(r)) for r in readers]
    with pytest.raises(grpc.RpcError) as caught:
        stub.SubmitClaim(pb.SubmitClaimRequest(match_id=t.match_id),
                         metadata=bearer(t.tokens[seat]))
    err = caught.value
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    status = rpc_status.from_call(err)
    assert status is not None and len(status.details) == 1  # the ErrorInfo, nothing else
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.reason == "CLAIM_REFUSED"
    said = " ".join([err.details(), status.message, *info.metadata.keys(),
                     *info.metadata.values()])
    assert not [n for n in CARD_NAMES if re.search(rf"\b{re.escape(n)}\b", said)], said
    assert dict(info.metadata) == {"seat": str(seat), "tricks": str(ALL)}
    # Every view as it was; every stream has nothing new.
    after = [stub.GetView(pb.GetViewRequest(match_id=t.match_id),
             metadata=bearer(r)) for r in readers]
    assert after == before
    for r, view in zip(readers, before, strict=True):
        stream = stub.WatchMatch(pb.WatchMatchRequest(
            match_id=t.match_id, after_version=view.version), metadata=bearer(r))
        first = next(stream)
        stream.cancel()
        assert not first.events and first.view == view
    # The auditor reads the defence in the rejection trail.
    trail = stub.ListRejections(pb.ListRejectionsRequest(match_id=t.match_id),
                                metadata=bearer(AUDITOR))
    assert "a defence that beats it" in trail.rejections[-1].message
    assert trail.rejections[-1].reason == "CLAIM_REFUSED"
    expect_error(lambda: stub.ListRejections(pb.ListRejectionsRequest(
        match_id=t.match_id), metadata=bearer(t.tokens[seat])), grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED")


def test_concede_and_the_misuses_over_the_wire(app: Referee, stub: pbg.RefereeServiceStub
                                               ) -> None:
    # A long match: conceding a hand (its valat to the other side, under contra maybe) must
    # not end it, so that the resignation below has a match to end (BG-G1).
    t = create(stub, "belot", players=[f"p{i}" for i in range(4)],
               rules={"target_score": pb.RuleValue(int_value=10_000)})
    expect_error(lambda: stub.SubmitClaim(pb.SubmitClaimRequest(
        match_id=t.match_id), metadata=bearer(t.tokens[1])), grpc.StatusCode.FAILED_PRECONDITION,
        "CLAIM_NOT_ALLOWED")  # the auction
    expect_error(lambda: stub.SubmitClaim(pb.SubmitClaimRequest(
        match_id=t.match_id, tricks=-2),
        metadata=bearer(t.tokens[1])), grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST")
    expect_error(lambda: stub.Concede(pb.ConcedeRequest(
        match_id=t.match_id), metadata=bearer(t.spectator)), grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED")
    m = play_until(app, stub, t, None, random.Random("concede"))
    expect_error(lambda: stub.SubmitClaim(pb.SubmitClaimRequest(
        match_id=t.match_id), metadata=bearer(t.tokens[(m.to_act + 1) % 4])),
        grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_NOT_ALLOWED")  # not the seat to act
    resp = stub.Concede(pb.ConcedeRequest(match_id=t.match_id,
                                          command_id="give"), metadata=bearer(t.tokens[0])).outcome
    assert resp.hand_over and resp.action == "concede"
    assert facts(resp)[0]["claim"] == "concession"
    resigned = stub.Concede(pb.ConcedeRequest(match_id=t.match_id,
                                              command_id="resign", match=True),
        metadata=bearer(t.tokens[1])).outcome
    assert resigned.match_over and resigned.action == "concede:match"
    assert resigned.facts[0].kind == pb.FACT_KIND_MATCH_CONCEDED
    assert facts(resigned)[0]["winner"] == 0  # seat 1's side (1) resigns to side 0
    expect_error(lambda: stub.Concede(pb.ConcedeRequest(
        match_id=t.match_id, match=True), metadata=bearer(t.tokens[1])),
        grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER")


def test_the_exported_hand_marks_the_claims_line(app: Referee, channel: grpc.Channel) -> None:
    stub = pbg.RefereeServiceStub(channel)
    read = ppbg.ProjectionsServiceStub(channel)
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        t = table(stub, "euchre")
        m = play_until(app, stub, t, True, random.Random("export"))
        resp = stub.SubmitClaim(pb.SubmitClaimRequest(match_id=t.match_id),
                                metadata=bearer(t.tokens[m.to_act])).outcome
        deadline = time.monotonic() + 10
        while True:
            try:
                record = json.loads(read.ExportHand(ppb.ExportHandRequest(
                    match_id=t.match_id, hand=m.hand.number), metadata=bearer(AUDITOR)).record_json)
                if "result" in record:
                    break
            except grpc.RpcError:
                pass  # VIEW_NOT_READY
            assert time.monotonic() < deadline, "the hand was not exported"
            time.sleep(0.05)
        assert resp.hand_over and any(a.get("claim") for a in record["actions"])
        direct, _ = app.hand_record(uuid.UUID(t.match_id), m.hand.number,
                                    AUDITOR)
        assert record["actions"] == direct["actions"]
    finally:
        worker.stop()
