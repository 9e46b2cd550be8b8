"""The read side over a real server and channel: every new RPC, and bad queries mapped to
NOT_FOUND / OUT_OF_RANGE / PERMISSION_DENIED with ErrorInfo reasons, no hidden cards."""

from __future__ import annotations

import json
import random
import re
import uuid

import grpc

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.rules.render import render_record
from referee.verify import verify_data
from referee_projections.runner import ProjectionWorker
from tests.projections.conftest import AUDITOR, play
from tests.service.helpers import expect_error
from trick_referee_client.sdk import bearer


def test_read_side_rpcs(app: Referee, served: tuple[grpc.Channel, ProjectionWorker]) -> None:
    channel, worker = served
    ref = pbg.RefereeServiceStub(channel)
    proj = ppbg.ProjectionsServiceStub(channel)
    tour = ppbg.TournamentServiceStub(channel)
    created = ref.CreateMatch(pb.CreateMatchRequest(
        game="euchre", rules={"target_score": pb.RuleValue(int_value=3)}))
    mid = created.match_id
    tokens = [t.token for t in created.seat_tokens]
    worker.wait()

    # Scoreboard, and the watch stream's first message.
    board = proj.GetScoreboard(ppb.GetScoreboardRequest(match_id=mid),
                               metadata=bearer(tokens[0])).scoreboard
    assert board.state == "playing" and board.hand == 1 and board.HasField("to_act")
    first = next(iter(proj.WatchScoreboard(ppb.WatchScoreboardRequest(match_id=mid),
                      metadata=bearer(tokens[0]))))
    assert first.scoreboard.version == board.version

    # A seat may not replay the running hand; the auditor may. Nothing hidden leaks.
    info = expect_error(lambda: proj.GetReplay(ppb.GetReplayRequest(
        match_id=mid, hand=1, action_index=0), metadata=bearer(tokens[0])),
        grpc.StatusCode.PERMISSION_DENIED, "HAND_IN_PROGRESS")
    assert "hand1" not in str(info)
    r = proj.GetReplay(ppb.GetReplayRequest(match_id=mid, hand=1, action_index=0),
                       metadata=bearer(AUDITOR))
    assert r.legal and len(r.cards["hand0"].cards) == 5
    assert [len(h.cards) for h in r.table.hands] == [5, 5, 5, 5]
    assert all(e.WhichOneof("entry") and e.time.seconds for e in r.timeline)
    expect_error(lambda: proj.GetReplay(ppb.GetReplayRequest(
        match_id=mid, hand=1, action_index=99), metadata=bearer(AUDITOR)),
        grpc.StatusCode.OUT_OF_RANGE, "ACTION_INDEX_OUT_OF_RANGE")
    expect_error(lambda: proj.GetReplay(ppb.GetReplayRequest(
        match_id=str(uuid.uuid4()), hand=1, action_index=0), metadata=bearer(AUDITOR)),
        grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND")
    expect_error(lambda: proj.GetReplay(ppb.GetReplayRequest(
        match_id=mid, hand=7, action_index=0), metadata=bearer(AUDITOR)),
        grpc.StatusCode.NOT_FOUND, "HAND_NOT_FOUND")
    expect_error(lambda: proj.GetScoreboard(ppb.GetScoreboardRequest(match_id=mid),
                 metadata=bearer("x")),
                 grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")

    play(app, uuid.UUID(mid), tokens, random.Random(3))
    worker.wait()
    board = proj.GetScoreboard(ppb.GetScoreboardRequest(
        match_id=mid), metadata=bearer(created.spectator_token)).scoreboard
    assert board.state == "over" and board.hands and not board.HasField("to_act")
    r = proj.GetReplay(ppb.GetReplayRequest(match_id=mid, hand=1, action_index=1),
                       metadata=bearer(tokens[2]))
    assert r.finished and r.action.action and r.action.time.seconds > 0
    assert len(r.scoring.points) == 2 and r.scoring.hand == 1
    record = json.loads(proj.ExportMatch(ppb.ExportMatchRequest(match_id=mid),
                        metadata=bearer(tokens[1])).record_json)
    assert verify_data(record)[0] == 0
    hand = json.loads(proj.ExportHand(ppb.ExportHandRequest(match_id=mid, hand=1),
                      metadata=bearer(tokens[1])).record_json)
    assert verify_data(hand)[0] == 0
    chain = proj.CheckChain(ppb.CheckChainRequest(match_id=mid), metadata=bearer(tokens[0]))
    assert chain.ok and chain.events == board.version and not chain.HasField("first_break")
    # The head is anchored: the scoreboard shows it, CheckChain checks a saved one.
    assert (chain.version, chain.head) == (board.version, board.head_hash) and board.head_hash
    assert not chain.HasField("anchor_ok")
    anchored = proj.CheckChain(ppb.CheckChainRequest(
        match_id=mid, anchor_version=board.version,
        anchor_head=board.head_hash), metadata=bearer(tokens[0]))
    assert anchored.ok and anchored.anchor_ok
    wrong = proj.CheckChain(ppb.CheckChainRequest(
        match_id=mid, anchor_version=board.version, anchor_head="0" * 64),
        metadata=bearer(tokens[0]))
    assert not wrong.ok and not wrong.anchor_ok and "rewritten" in wrong.message

    # Tournament and a ruling through the API.
    expect_error(lambda: tour.CreateTournament(ppb.CreateTournamentRequest(
        name="x", game="euchre"), metadata=bearer(tokens[0])),
        grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
    tid = tour.CreateTournament(ppb.CreateTournamentRequest(name="cup",
                                                            game="euchre"),
        metadata=bearer(AUDITOR)).tournament_id
    for e in ("N", "E"):
        tour.RegisterEntrant(ppb.RegisterEntrantRequest(tournament_id=tid,
                                                        entrant=e, members=[e]),
        metadata=bearer(AUDITOR))
    tour.AttachMatch(ppb.AttachMatchRequest(tournament_id=tid, match_id=mid,
                                            sides=["N", "E"]), metadata=bearer(AUDITOR))
    ruled = proj.RecordRuling(ppb.RecordRulingRequest(match_id=mid, hand=1,
                                                      kind="correction", points=[0, 1],
                                                      reason="miscount"), metadata=bearer(AUDITOR))
    assert list(ruled.adjust) == [0, 1]
    expect_error(lambda: proj.RecordRuling(ppb.RecordRulingRequest(
        match_id=mid, hand=1, kind="bribe", points=[0, 1], reason="x"), metadata=bearer(AUDITOR)),
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULING")
    worker.wait()
    s = tour.GetStandings(ppb.GetStandingsRequest(tournament_id=tid))
    final = list(board.scores)
    rows = {row.entrant: row for row in s.standings}
    assert rows["E"].points_for == final[1] + 1 and rows["N"].points_against == final[1] + 1
    lines = [m.record_json for m in tour.ExportTournament(
        ppb.ExportTournamentRequest(tournament_id=tid), metadata=bearer(AUDITOR))]
    assert len(lines) == 1 and verify_data(json.loads(lines[0]))[0] == 0
    expect_error(lambda: tour.GetStandings(ppb.GetStandingsRequest(
        tournament_id=str(uuid.uuid4()))), grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND")


def test_hand_view_page_for_auditors_any_time_and_everyone_after_the_hand(
        app: Referee, served: tuple[grpc.Channel, ProjectionWorker]) -> None:
    channel, worker = served
    ref = pbg.RefereeServiceStub(channel)
    proj = ppbg.ProjectionsServiceStub(channel)
    created = ref.CreateMatch(pb.CreateMatchRequest(
        game="euchre", rules={"target_score": pb.RuleValue(int_value=3)}))
    mid, tokens = created.match_id, [t.token for t in created.seat_tokens]
    play(app, uuid.UUID(mid), tokens, random.Random(5), max_actions=3)
    worker.wait()

    # The running hand: the auditor sees the page (every hand's cards), a seat may not.
    running = proj.GetHandView(ppb.GetHandViewRequest(match_id=mid, hand=1),
                               metadata=bearer(AUDITOR))
    assert not running.finished and running.html.startswith("<!DOCTYPE html>")
    assert len(set(re.findall(r'<svg class="card" data-card="(\w\w)"', running.html))) >= 20
    expect_error(lambda: proj.GetHandView(ppb.GetHandViewRequest(
        match_id=mid, hand=1), metadata=bearer(tokens[0])), grpc.StatusCode.PERMISSION_DENIED,
        "HAND_IN_PROGRESS")

    # Once over, any token of the match gets the same page the client renders locally.
    play(app, uuid.UUID(mid), tokens, random.Random(5), stop_after_hand=1)
    worker.wait()
    page = proj.GetHandView(ppb.GetHandViewRequest(match_id=mid, hand=1),
                            metadata=bearer(created.spectator_token))
    assert page.finished and 'id="score"' in page.html and 'data-trick="5"' in page.html
    assert not re.search(r'(src|href)=|url\(|@import|<script|<link', page.html)
    record = json.loads(proj.ExportHand(ppb.ExportHandRequest(match_id=mid, hand=1),
                        metadata=bearer(tokens[1])).record_json)
    title = f"Euchre — hand 1 of match {mid}"
    assert page.html == render_record(record, players=list(created_players(app, mid)),
                                      title=title)
    expect_error(lambda: proj.GetHandView(ppb.GetHandViewRequest(
        match_id=mid, hand=9),
        metadata=bearer(AUDITOR)), grpc.StatusCode.NOT_FOUND, "HAND_NOT_FOUND")
    expect_error(lambda: proj.GetHandView(ppb.GetHandViewRequest(
        match_id=mid, hand=1),
        metadata=bearer("nope")), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")


def created_players(app: Referee, mid: str) -> list[str]:
    return list(app.get_match(uuid.UUID(mid)).players)


def test_walk_replay_streams_every_state_as_get_replay_answers_it(
        app: Referee, served: tuple[grpc.Channel, ProjectionWorker]) -> None:
    """Issue 24, item 5: WalkReplay sends each state of a hand once, from one read and one
    replay of it: message for message what GetReplay answers at that index (the hand's
    timeline and scoring with the first message only); bounded by the
    same access rules (a seat may not walk the running hand) and the same index range."""
    channel, worker = served
    ref = pbg.RefereeServiceStub(channel)
    proj = ppbg.ProjectionsServiceStub(channel)
    created = ref.CreateMatch(pb.CreateMatchRequest(
        game="ulti", rules={"deals": pb.RuleValue(int_value=1)}))
    mid = created.match_id
    tokens = [t.token for t in created.seat_tokens]
    worker.wait()

    def walk(token: str, **bounds: int) -> list[ppb.GetReplayResponse]:
        return [m.step for m in proj.WalkReplay(ppb.WalkReplayRequest(
            match_id=mid, hand=1, **bounds), metadata=bearer(token))]

    info = expect_error(lambda: walk(tokens[0]), grpc.StatusCode.PERMISSION_DENIED,
                        "HAND_IN_PROGRESS")
    assert "hand1" not in str(info)
    assert len(walk(AUDITOR)) == 1  # the auditor walks the running hand: no action yet

    play(app, uuid.UUID(mid), tokens, random.Random(5))
    worker.wait()
    steps = walk(tokens[1])
    n = steps[0].actions
    assert n > 10 and [s.action_index for s in steps] == list(range(n + 1))
    for i in (0, n // 2, n):  # the hand's timeline and scoring come once, with the first
        answer = proj.GetReplay(ppb.GetReplayRequest(
            match_id=mid, hand=1, action_index=i), metadata=bearer(tokens[1]))
        assert answer.timeline and answer.HasField("scoring")
        if i:
            assert not steps[i].timeline and not steps[i].HasField("scoring")
            del answer.timeline[:]
            answer.ClearField("scoring")
        assert steps[i] == answer
    assert steps[-1].finished and not steps[-1].HasField("action")
    assert [s.action_index for s in walk(AUDITOR, from_index=3, to_index=5)] == [3, 4, 5]
    assert [s.action_index for s in walk(AUDITOR, from_index=n)] == [n]
    for bounds in ({"from_index": n + 1}, {"from_index": 0, "to_index": n + 1},
                   {"from_index": 4, "to_index": 3}, {"from_index": -1}):
        expect_error(lambda b=bounds: walk(AUDITOR, **b), grpc.StatusCode.OUT_OF_RANGE,
                     "ACTION_INDEX_OUT_OF_RANGE")
