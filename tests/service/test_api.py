"""Every RPC over a real channel to a real server, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.rules.handrecord import read_record, replay_hand
from referee.rules.registry import GAMES
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error, facts, step
from trick_referee_client.sdk import bearer, rule_default

C = grpc.StatusCode


def short_rules(game: str) -> dict[str, pb.RuleValue]:
    """Keep matches short: the lowest target score where a game has one."""
    for spec in GAMES[game].rules_class.param_specs():
        if spec.name == "target_score" and spec.minimum is not None:
            return {"target_score": pb.RuleValue(int_value=spec.minimum)}
    return {}


def test_list_games(stub: pbg.RefereeServiceStub) -> None:
    games = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    assert set(games) == set(GAMES)
    for name, game in GAMES.items():
        info = games[name]
        assert info.seats == game.num_seats
        specs = game.rules_class.param_specs()
        assert [p.name for p in info.parameters] == [s.name for s in specs]
        assert [rule_default(p) for p in info.parameters] == [s.default for s in specs]
        # The Game contract as clients read it: sides, partnerships, the match length
        # parameter (an integer rule parameter) and the hidden verbs.
        assert info.partnerships == game.partnerships
        assert info.sides == (game.num_seats // 2 if game.partnerships else game.num_seats)
        assert info.match_length in {s.name for s in specs if s.type is int}
        assert set(info.hidden_verbs) == game.hidden_verbs


@pytest.mark.parametrize("game", list(GAMES))
def test_full_match_every_game(stub: pbg.RefereeServiceStub, game: str) -> None:
    rng = random.Random(game)
    table = create(stub, game, rules=short_rules(game), seed_entropy=b"players' dice")
    assert len(table.tokens) == GAMES[game].num_seats
    resp = None
    for _ in range(20_000):
        resp, _view = step(stub, table, rng)
        if resp.match_over:
            break
    assert resp is not None and resp.match_over
    kinds = [f["kind"] for f in facts(resp)]
    assert kinds[-2:] == ["hand_ended", "match_ended"]
    final = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                         metadata=bearer(table.tokens[0]))
    assert final.match_over and not final.HasField("to_act") and not final.legal_actions
    # Acting after the end is refused.
    expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id=table.match_id, action="pass"),
        metadata=bearer(table.tokens[0])), C.FAILED_PRECONDITION,
        "MATCH_OVER")
    # The match record replays through the rules to the same results, and every deal checks.
    record = stub.GetMatchRecord(pb.GetMatchRecordRequest(
        match_id=table.match_id), metadata=bearer(table.spectator))
    assert record.finished
    data = json.loads(record.record_json)
    assert data["format"] == "referee.match/v1" and data["result"]["over"]
    parsed = read_record(data)
    for i, hand in enumerate(parsed.hands, start=1):  # type: ignore[union-attr]
        replay = replay_hand(GAMES[game], hand)
        assert replay.error is None and replay.result is not None
        assert replay.result.to_json() == hand.result
        check = stub.VerifyDeal(pb.VerifyDealRequest(
            match_id=table.match_id, hand=i), metadata=bearer(table.tokens[1]))
        assert check.valid
        text = f"{check.nonce}:{' '.join(check.cards)}"
        assert hashlib.sha256(text.encode()).hexdigest() == check.commitment


def test_hand_records_and_deal_commitment(stub: pbg.RefereeServiceStub) -> None:
    rng = random.Random(7)
    table = create(stub, "euchre", players=["ann", "bob", "cy", "dee"])
    commitment = table.created.deal_commitment
    # A running hand is the auditor's only.
    expect_error(lambda: stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=table.match_id, hand=1), metadata=bearer(table.tokens[0])), C.FAILED_PRECONDITION,
        "HAND_NOT_FINISHED")
    expect_error(lambda: stub.VerifyDeal(pb.VerifyDealRequest(
        match_id=table.match_id, hand=1), metadata=bearer(table.tokens[0])), C.FAILED_PRECONDITION,
        "HAND_NOT_FINISHED")
    running = stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=table.match_id, hand=1), metadata=bearer(AUDITOR))
    assert not running.finished
    expect_error(lambda: stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=table.match_id, hand=9), metadata=bearer(AUDITOR)), C.NOT_FOUND, "HAND_NOT_FOUND")
    while True:
        resp, _ = step(stub, table, rng)
        if resp.hand_over:
            break
    rec = stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=table.match_id, hand=1), metadata=bearer(table.spectator))
    assert rec.finished
    data = json.loads(rec.record_json)
    assert data["format"] == "referee.hand/v1" and data["game"] == "euchre"
    assert data["result"] == next(f["result"] for f in facts(resp) if f["kind"] == "hand_ended")
    check = stub.VerifyDeal(pb.VerifyDealRequest(
        match_id=table.match_id, hand=1), metadata=bearer(table.spectator))
    assert check.valid and check.commitment == commitment
    dealt = [c for h in data["deal"]["hands"] for c in h] + data["deal"]["stock"]
    assert sorted(dealt) == sorted(check.cards)
    # The next hand was dealt with a new commitment, published in the same answer.
    dealt_facts = [f for f in facts(resp) if f["kind"] == "hand_dealt"]
    assert dealt_facts and dealt_facts[0]["hand"] == 2
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.spectator))
    assert view.hand == 2 and view.deal_commitment == dealt_facts[0]["commitment"]
    assert list(view.players) == ["ann", "bob", "cy", "dee"]


def test_fixed_deals_for_duplicate(stub: pbg.RefereeServiceStub) -> None:
    game = GAMES["euchre"]
    from referee.rules.cards import CARD_NAMES

    pack = [CARD_NAMES[c] for c in game.pack]
    a = create(stub, "euchre", fixed_deals=[pb.FixedDeal(cards=pack)])
    b = create(stub, "euchre", fixed_deals=[pb.FixedDeal(cards=pack)])
    assert a.created.deal_commitment != b.created.deal_commitment  # fresh nonces
    va = stub.GetView(pb.GetViewRequest(match_id=a.match_id), metadata=bearer(a.tokens[2]))
    vb = stub.GetView(pb.GetViewRequest(match_id=b.match_id), metadata=bearer(b.tokens[2]))
    assert va.table.hand == vb.table.hand and len(va.table.hand) == 5
    expect_error(lambda: create(stub, "euchre", fixed_deals=[pb.FixedDeal(cards=pack[:-1])]),
                 C.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    expect_error(lambda: create(stub, "euchre", fixed_deals=[pb.FixedDeal(cards=["XX"])]),
                 C.INVALID_ARGUMENT, "MALFORMED_REQUEST")


def test_views_by_role(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "euchre")
    spectator = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                             metadata=bearer(table.spectator))
    assert spectator.role == pb.ROLE_SPECTATOR and not spectator.HasField("seat")
    assert not spectator.legal_actions and not spectator.table.hand
    assert not spectator.table.hands
    to_act = spectator.to_act
    for seat, token in enumerate(table.tokens):
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(token))
        assert view.role == pb.ROLE_SEAT and view.seat == seat
        assert bool(view.legal_actions) == (seat == to_act)
    audit = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
    assert audit.role == pb.ROLE_AUDITOR and not audit.legal_actions
    # A private match needs a token; a public one lets anyone watch.
    expect_error(lambda: stub.GetView(pb.GetViewRequest(match_id=table.match_id)),
                 C.UNAUTHENTICATED, "BAD_TOKEN")
    public = create(stub, "euchre", public_spectators=True)
    anon = stub.GetView(pb.GetViewRequest(match_id=public.match_id))
    assert anon.role == pb.ROLE_SPECTATOR


def _rejected_unchanged(stub: pbg.RefereeServiceStub, table, before: int) -> None:  # type: ignore[no-untyped-def]
    after = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                         metadata=bearer(AUDITOR)).version
    assert after == before


def test_error_table_over_the_wire(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "euchre")
    mid = table.match_id
    spectator = stub.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(table.spectator))
    seat, version = spectator.to_act, spectator.version
    other = (seat + 1) % 4
    mine = stub.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(table.tokens[seat]))

    def submit(token: str, action: str, **kw: object) -> object:
        return lambda: stub.SubmitAction(
            pb.SubmitActionRequest(match_id=mid, action=action, **kw),
        metadata=bearer(token))  # type: ignore[arg-type]

    expect_error(submit(table.tokens[seat], "bogus"), C.INVALID_ARGUMENT, "INVALID_ACTION")
    info = expect_error(submit(table.tokens[other], mine.legal_actions[0]),
                        C.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    game = GAMES["euchre"]
    legal = set(mine.legal_actions)
    illegal = next(game.format_action(a) for a in game.all_actions()
                   if game.format_action(a) not in legal)
    info = expect_error(submit(table.tokens[seat], illegal), C.FAILED_PRECONDITION,
                        "ILLEGAL_ACTION")
    assert info.metadata["rule"]
    expect_error(submit("", mine.legal_actions[0]), C.UNAUTHENTICATED, "BAD_TOKEN")
    expect_error(submit("not-a-token", mine.legal_actions[0]), C.UNAUTHENTICATED, "BAD_TOKEN")
    elsewhere = create(stub, "euchre")
    expect_error(submit(elsewhere.tokens[seat], mine.legal_actions[0]),
                 C.UNAUTHENTICATED, "BAD_TOKEN")
    expect_error(submit(table.spectator, mine.legal_actions[0]), C.PERMISSION_DENIED,
                 "PERMISSION_DENIED")
    expect_error(submit(AUDITOR, mine.legal_actions[0]), C.PERMISSION_DENIED,
                 "PERMISSION_DENIED")
    expect_error(submit(table.tokens[other], mine.legal_actions[0], seat=seat),
                 C.PERMISSION_DENIED, "PERMISSION_DENIED")
    info = expect_error(submit(table.tokens[seat], mine.legal_actions[0],
                               expected_version=version - 1), C.ABORTED, "VERSION_CONFLICT")
    assert info.metadata["actualVersion"] == str(version)
    expect_error(submit(table.tokens[seat], ""), C.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    _rejected_unchanged(stub, table, version)

    expect_error(lambda: stub.SubmitAction(pb.SubmitActionRequest(
        match_id="nope", action="pass"), metadata=bearer(table.tokens[seat])), C.INVALID_ARGUMENT,
        "MALFORMED_REQUEST")
    expect_error(lambda: stub.GetView(pb.GetViewRequest(
        match_id=str(uuid.uuid4())),
        metadata=bearer(table.tokens[seat])), C.NOT_FOUND, "MATCH_NOT_FOUND")
    expect_error(lambda: create(stub, "chess"), C.INVALID_ARGUMENT, "UNKNOWN_GAME")
    expect_error(lambda: create(stub, ""), C.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    expect_error(lambda: create(stub, "euchre", rules={"no_such_rule": pb.RuleValue(
        int_value=1)}), C.INVALID_ARGUMENT, "INVALID_RULES")
    info = expect_error(lambda: create(stub, "euchre", rules={"target_score": pb.RuleValue()}),
                        C.INVALID_ARGUMENT, "INVALID_RULES")
    assert info.metadata["field"] == "rules[target_score]"
    expect_error(lambda: create(stub, "euchre", players=["a", "b"]), C.INVALID_ARGUMENT,
                 "MALFORMED_REQUEST")
    expect_error(lambda: stub.ListRejections(pb.ListRejectionsRequest(),
                 metadata=bearer(table.tokens[0])),
                 C.PERMISSION_DENIED, "PERMISSION_DENIED")
    expect_error(lambda: stub.ListRejections(pb.ListRejectionsRequest()),
                 C.UNAUTHENTICATED, "BAD_TOKEN")

    # The audit trail kept every refused action on this match, with reason and rule.
    rejections = stub.ListRejections(pb.ListRejectionsRequest(match_id=mid),
                                     metadata=bearer(AUDITOR))
    reasons = [r.reason for r in rejections.rejections]
    assert reasons[:3] == ["INVALID_ACTION", "NOT_YOUR_TURN", "ILLEGAL_ACTION"]
    assert "VERSION_CONFLICT" in reasons and "BAD_TOKEN" in reasons
    illegal_row = rejections.rejections[2]
    assert illegal_row.seat == seat and illegal_row.action == illegal and illegal_row.rule
    assert stub.ListRejections(pb.ListRejectionsRequest(page_size=1),
                               metadata=bearer(AUDITOR)).rejections


def test_idempotent_retry(stub: pbg.RefereeServiceStub) -> None:
    table = create(stub, "euchre")
    seat = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR)).to_act
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.tokens[seat]))
    request = pb.SubmitActionRequest(
        match_id=table.match_id, action=view.legal_actions[0],
        command_id="cmd-1", expected_version=view.version,
    )
    first = stub.SubmitAction(request, metadata=bearer(table.tokens[seat])).outcome
    again = stub.SubmitAction(request, metadata=bearer(table.tokens[seat])).outcome
    assert not first.replayed and again.replayed
    assert (again.version, again.action, list(again.facts)) == (
        first.version, first.action, list(first.facts))
    now = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
    assert now.version == first.version
    # The same id for a different action is refused, not applied.
    other = pb.SubmitActionRequest()
    other.CopyFrom(request)
    other.action = "bogus"
    expect_error(lambda: stub.SubmitAction(other, metadata=bearer(table.tokens[seat])),
                 C.FAILED_PRECONDITION, "COMMAND_ID_REUSED")


@pytest.mark.parametrize("attempt", range(3))
def test_race_on_one_match(stub: pbg.RefereeServiceStub, attempt: int) -> None:
    table = create(stub, "euchre")
    seat = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR)).to_act
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.tokens[seat]))
    barrier = threading.Barrier(4)
    results: list[object] = []

    def racer(i: int) -> None:
        barrier.wait()
        try:
            results.append(stub.SubmitAction(pb.SubmitActionRequest(
                match_id=table.match_id,
                action=view.legal_actions[i % len(view.legal_actions)],
                command_id=f"race-{attempt}-{i}", expected_version=view.version),
        metadata=bearer(table.tokens[seat])))
        except grpc.RpcError as err:
            results.append(err)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wins = [r for r in results if isinstance(r, pb.SubmitActionResponse)]
    losses = [r for r in results if isinstance(r, grpc.RpcError)]
    assert len(wins) == 1 and len(losses) == 3
    assert all(e.code() == C.ABORTED for e in losses)  # type: ignore[attr-defined]
    after = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
    assert after.version == wins[0].outcome.version  # type: ignore[attr-defined]


def test_watch_match_stream(stub: pbg.RefereeServiceStub) -> None:
    rng = random.Random(3)
    table = create(stub, "euchre")
    token = table.tokens[0]
    stream = stub.WatchMatch(pb.WatchMatchRequest(
        match_id=table.match_id, heartbeat_seconds=1), timeout=20, metadata=bearer(token))
    first = next(stream)
    assert not first.heartbeat and first.view.version == first.version == 2
    assert [e.version for e in first.events] == [2]  # the first deal
    heartbeat = next(stream)
    assert heartbeat.heartbeat and heartbeat.version == 2
    acks = [step(stub, table, rng)[0] for _ in range(3)]
    seen: list[int] = []
    while len(seen) < 3:
        msg = next(stream)
        if not msg.heartbeat:
            seen += [e.version for e in msg.events]
            assert msg.view.version == msg.version
    assert seen == [a.version for a in acks]
    stream.cancel()
    # Resuming from any version replays what came after it.
    resumed = stub.WatchMatch(pb.WatchMatchRequest(
        match_id=table.match_id, after_version=acks[0].version), timeout=20, metadata=bearer(token))
    msg = next(resumed)
    assert [e.version for e in msg.events] == [a.version for a in acks[1:]]
    resumed.cancel()
    bad = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id), timeout=5,
                          metadata=bearer("x"))
    expect_error(lambda: next(bad), C.UNAUTHENTICATED, "BAD_TOKEN")


def test_health_and_reflection(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "referee.api.v1.RefereeService"):
        resp = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert resp.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    answers = refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
        list_services="")]))
    names = {s.name for a in answers for s in a.list_services_response.service}
    assert "referee.api.v1.RefereeService" in names
