"""Issue 21, item 1: one result after rulings, the same on every surface. A penalty that flips
the lead makes the other side the winner in the match's view, the scoreboard, the standings
and both exports (the application's and the read side's), which carry the match id, the
rulings and the as-played figures; ``referee verify`` recomputes it from the record."""

from __future__ import annotations

import random
from typing import Any

from referee.application import Referee
from referee.domain.result import match_result, official_winner
from referee.tournaments import attach_match, create_tournament, record_ruling, register_entrant
from referee.verify import verify_data
from referee_projections.queries import Queries
from referee_projections.runner import BatchRunner
from referee_projections.store import open_view
from referee_projections.views import PROJECTIONS
from tests.projections.conftest import AUDITOR, play


def catch_up(app: Referee) -> None:
    for name, cls in PROJECTIONS.items():
        view = open_view(name, app.settings)
        BatchRunner(app.event_log, cls, view, batch_size=50).run_once()
        view.close()


def test_the_official_winner_rule() -> None:
    assert official_winner([10, 7], 0, []) == 0  # no ruling: the rules' winner
    assert official_winner([10, 7], 0, [{"adjust": [-5, 0]}]) == 1  # the lead flips
    assert official_winner([10, 7], 0, [{"adjust": [-3, 0]}]) is None  # a tie: a draw
    assert official_winner([3, 10], 0, [{"adjust": [0, -9]}], forfeit={"seat": 1}) == 0
    result = match_result([10, 7], 0, True, [{"adjust": [-5, 0]}])
    assert result == {"scores": [5, 7], "winner": 1, "over": True,
                      "as_played": {"scores": [10, 7], "winner": 0}}


def test_a_ruling_that_flips_the_lead_changes_the_winner_everywhere(app: Referee) -> None:
    tid = create_tournament(app, AUDITOR, "cup", "euchre")
    register_entrant(app, AUDITOR, tid, "north", ["n1", "n2"])
    register_entrant(app, AUDITOR, tid, "east", ["e1", "e2"])
    c = app.create_match("euchre", rules={"target_score": 3})
    attach_match(app, AUDITOR, tid, c.match_id, ["north", "east"])
    play(app, c.match_id, c.seat_tokens, random.Random(4))
    state = app.get_match(c.match_id).match_state
    assert state.over and state.winner is not None
    won, lost = state.winner, 1 - state.winner
    margin = state.scores[won] - state.scores[lost]
    points = [0, 0]
    points[won] = margin + 1  # the winner as played now trails by one
    record_ruling(app, c.match_id, AUDITOR, 1, "penalty", points, "revoke in hand 1")
    official = [s - p for s, p in zip(state.scores, points, strict=True)]

    # The match's own view and export.
    view = app.get_view(c.match_id, c.spectator_token)
    assert view.winner == lost and view.scores == official
    record, _ = app.match_record(c.match_id, c.spectator_token)
    _check_record(record, str(c.match_id), official, lost, list(state.scores), won)

    # The read side: scoreboard, standings, export.
    catch_up(app)
    q = Queries(app)
    board = q.scoreboard(c.match_id, c.spectator_token)
    assert board["result"]["winner"] == lost and board["adjusted_scores"] == official
    assert board["winner"] == won  # as played, kept beside
    rows = {r["entrant"]: r for r in q.standings(tid)["entrants"]}
    names = ["north", "east"]
    assert rows[names[lost]]["won"] == 1 and rows[names[won]]["lost"] == 1
    _check_record(q.match_record(c.match_id, c.spectator_token), str(c.match_id), official,
                  lost, list(state.scores), won)


def _check_record(record: dict[str, Any], match_id: str, official: list[int], winner: int,
                  played: list[int], played_winner: int) -> None:
    assert record["match_id"] == match_id
    assert [r["adjust"] for r in record["rulings"]] == [
        [a - b for a, b in zip(official, played, strict=True)]]
    assert record["result"]["scores"] == official and record["result"]["winner"] == winner
    assert record["result"]["as_played"] == {"scores": played, "winner": played_winner}
    code, report = verify_data(record)
    assert code == 0, report
    assert report["result"]["winner"] == winner
    # The record's rulings are what verify applies: without them the result does not hold.
    tampered = dict(record, rulings=[])
    code, report = verify_data(tampered)
    assert code == 1 and report["error"]["reason"] == "RESULT_MISMATCH"
    bad = dict(record, rulings=[{"hand": 99, "kind": "penalty", "adjust": [0, 0],
                                 "reason": "x"}])
    assert verify_data(bad)[0] == 2  # not a valid record: no hand 99


def test_standings_are_provisional_until_the_results_are_final(app: Referee) -> None:
    from referee.tournaments import finalize_results

    tid = create_tournament(app, AUDITOR, "league", "euchre")
    register_entrant(app, AUDITOR, tid, "north", ["n1", "n2"])
    register_entrant(app, AUDITOR, tid, "east", ["e1", "e2"])
    c = app.create_match("euchre", rules={"target_score": 3})
    attach_match(app, AUDITOR, tid, c.match_id, ["north", "east"])
    play(app, c.match_id, c.seat_tokens, random.Random(9))
    catch_up(app)
    q = Queries(app)
    assert q.standings(tid)["final"] is False
    finalize_results(app, AUDITOR, tid)
    catch_up(app)
    assert q.standings(tid)["final"] is True
