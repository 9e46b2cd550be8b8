"""Issue 20, item 5: the arbiter ends a match as abandoned with the fault assigned per side;
the tournament's stated policy (forfeit to the side not at fault, or the adjusted score)
decides the result, computed once (``referee.domain.result``) and shown the same in the
match's view, the scoreboard, the standings and both exports, and recomputed by
``referee verify``. Also item 4: the standings and exports name a substitute."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from referee.application import Referee
from referee.domain.errors import (
    MalformedRequestError,
    MatchOverError,
    PermissionDeniedError,
    TournamentNotFoundError,
)
from referee.domain.result import abandoned_winner
from referee.rules.game import sides_of
from referee.rules.registry import GAMES
from referee.tournaments import (
    abandon_match,
    attach_match,
    create_tournament,
    record_ruling,
    register_entrant,
)
from referee.verify import verify_data
from referee_projections.queries import Queries
from tests.projections.conftest import AUDITOR
from tests.projections.test_one_result import catch_up


def test_the_abandonment_rule() -> None:
    """``referee.domain.result.abandoned_winner``: a forfeit gives the match to the side not
    at fault whatever the score; the adjusted score lets the score stand but never gives the
    match to a side at fault."""
    forfeit = {"policy": "forfeit"}
    adjusted = {"policy": "adjusted"}
    assert abandoned_winner([50, 10], {**forfeit, "faults": [False, True]}) == 0
    assert abandoned_winner([10, 50], {**forfeit, "faults": [False, True]}) == 0
    assert abandoned_winner([10, 50], {**forfeit, "faults": [False, False]}) is None
    assert abandoned_winner([10, 50], {**forfeit, "faults": [True, True]}) is None
    assert abandoned_winner([3, 9, 9], {**forfeit, "faults": [True, False, False]}) == 1
    assert abandoned_winner([10, 50], {**adjusted, "faults": [False, False]}) == 1
    assert abandoned_winner([10, 50], {**adjusted, "faults": [False, True]}) == 0
    assert abandoned_winner([10, 10], {**adjusted, "faults": [False, False]}) is None
    assert abandoned_winner([3, 9, 9], {**adjusted, "faults": [True, False, False]}) is None
    assert abandoned_winner([3, 9, 9], {**adjusted, "faults": [True, True, True]}) is None


def _tournament(app: Referee, name: str, policy: str) -> tuple[Any, Any, list[str]]:
    game = GAMES[name]
    tid = create_tournament(app, AUDITOR, f"{name} cup", name, abandonment=policy)
    entrants = [f"e{i}" for i in range(sides_of(game))]
    for e in entrants:
        register_entrant(app, AUDITOR, tid, e, [e])
    c = app.create_match(name, players=[f"p{i}" for i in range(game.num_seats)])
    attach_match(app, AUDITOR, tid, c.match_id, entrants)
    return tid, c, entrants


def _play_one_hand(app: Referee, c: Any, rng: random.Random) -> None:
    """Random legal play to the end of hand 1 and a few actions into hand 2."""
    extra = 3
    while extra:
        m = app.get_match(c.match_id)
        if m.over:
            return
        if len(m.hands) > 1:
            extra -= 1
        seat = m.to_act
        legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
        app.submit_action(c.match_id, c.seat_tokens[seat], rng.choice(legal))


@pytest.mark.parametrize("policy", ["forfeit", "adjusted"])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_abandoned_match_shows_one_result_everywhere(app: Referee, name: str,
                                                        policy: str) -> None:
    for attempt in range(10):  # a hand that does not end the match at once
        tid, c, entrants = _tournament(app, name, policy)
        _play_one_hand(app, c, random.Random(f"{name}-{policy}-{attempt}"))
        m = app.get_match(c.match_id)
        if not m.over:
            break
    assert not m.over
    if len(entrants) == 2:  # the side ahead is at fault: the policies differ on the winner
        scores = m.match_state.scores
        at_fault = [scores[0] >= scores[1], scores[0] < scores[1]]
    else:
        at_fault = [True, False, False]
    version, winner, replayed = abandon_match(app, AUDITOR, c.match_id, at_fault,
                                              "north left the club", tid, command_id="ab")
    assert not replayed
    expected = abandoned_winner(list(m.match_state.scores),
                                {"faults": at_fault, "policy": policy})
    assert winner == expected
    assert winner is None or not at_fault[winner]  # never the side at fault
    again = abandon_match(app, AUDITOR, c.match_id, at_fault, "north left the club", tid,
                          command_id="ab")
    assert again == (version, winner, True)
    with pytest.raises(MatchOverError):
        abandon_match(app, AUDITOR, c.match_id, at_fault, "again", tid)
    # The substitute's name shows too (item 4); the match is over, so one before it.
    view = app.get_view(c.match_id, c.spectator_token)
    assert view.match_over and view.winner == winner

    record, finished = app.match_record(c.match_id, c.spectator_token)
    assert finished and record["result"]["winner"] == winner
    ab = record["result"]["abandoned"]
    assert ab == {"faults": at_fault, "policy": policy, "hand": len(m.hands),
                  "reason": "north left the club"}
    assert len(record["hands"]) == len(m.hands)  # the hand it ended, unfinished
    code, report = verify_data(json.loads(json.dumps(record)))
    assert code == 0, report
    tampered = json.loads(json.dumps(record))
    tampered["result"]["abandoned"]["faults"] = [not f for f in at_fault]
    code, _ = verify_data(tampered)
    assert code == (0 if abandoned_winner(list(m.match_state.scores), {
        "faults": [not f for f in at_fault], "policy": policy}) == winner else 1)

    catch_up(app)
    q = Queries(app)
    board = q.scoreboard(c.match_id, c.spectator_token)
    assert board["result"]["winner"] == winner and board["result"]["abandoned"] == ab
    assert q.match_record(c.match_id, c.spectator_token)["result"] == record["result"]
    standings = q.standings(tid)
    assert standings["abandonment"] == policy
    rows = {r["entrant"]: r for r in standings["entrants"]}
    for side, entrant in enumerate(entrants):
        row = rows[entrant]
        assert row["played"] == 1 and row["abandoned"] == int(at_fault[side])
        assert row["won"] == int(winner == side)
        assert row["drawn"] == int(winner is None)
    [entry] = standings["results"]
    assert entry["winner"] == winner and entry["abandoned"]["policy"] == policy


def test_abandonment_misused(app: Referee) -> None:
    tid, c, _ = _tournament(app, "belot", "forfeit")
    with pytest.raises(PermissionDeniedError):
        abandon_match(app, c.seat_tokens[0], c.match_id, [True, False], "x", tid)
    with pytest.raises(MalformedRequestError):  # one value per side
        abandon_match(app, AUDITOR, c.match_id, [True], "x", tid)
    with pytest.raises(MalformedRequestError):  # a reason is required
        abandon_match(app, AUDITOR, c.match_id, [True, False], "  ", tid)
    other = app.create_match("belot")
    with pytest.raises(MalformedRequestError):  # not attached to this tournament
        abandon_match(app, AUDITOR, other.match_id, [True, False], "x", tid)
    with pytest.raises(TournamentNotFoundError):
        abandon_match(app, AUDITOR, c.match_id, [True, False], "x", other.match_id)
    with pytest.raises(MalformedRequestError):
        create_tournament(app, AUDITOR, "cup", "belot", abandonment="coin toss")
    assert not app.get_match(c.match_id).over
    # Outside a tournament: a forfeit.
    _, winner, _ = abandon_match(app, AUDITOR, other.match_id, [False, True], "no show")
    assert winner == 0
    assert app.get_match(other.match_id).abandoned["policy"] == "forfeit"


def test_rulings_after_an_adjusted_abandonment_count(app: Referee) -> None:
    """Under the adjusted policy the official winner follows the official scores: a ruling
    that flips the lead between the sides not at fault changes it (Ulti, three sides)."""
    tid, c, _ = _tournament(app, "ulti", "adjusted")
    _play_one_hand(app, c, random.Random("ulti-ruling"))
    m = app.get_match(c.match_id)
    scores = list(m.match_state.scores)
    abandon_match(app, AUDITOR, c.match_id, [True, False, False], "a quarrel", tid)
    gap = scores[1] - scores[2]
    record_ruling(app, c.match_id, AUDITOR, 1, "correction", [0, -gap - 1, 0], "miscount")
    view = app.get_view(c.match_id, c.spectator_token)
    assert view.winner == 2


def test_the_standings_and_exports_name_the_substitute(app: Referee) -> None:
    """Item 4: after SubstitutePlayer the standings' matches and both exports name the
    player who sits there now, and the exports list the substitution."""
    tid, c, _ = _tournament(app, "euchre", "forfeit")
    app.substitute(c.match_id, AUDITOR, 2, "Zoë")
    catch_up(app)
    q = Queries(app)
    [entry] = q.standings(tid)["results"]
    assert entry["players"] == ["p0", "p1", "Zoë", "p3"]
    abandon_match(app, AUDITOR, c.match_id, [False, False], "power cut", tid)
    catch_up(app)
    for record in (q.match_record(c.match_id, AUDITOR),
                   app.match_record(c.match_id, AUDITOR)[0]):
        assert record["players"][2] == "Zoë"
        assert record["substitutions"][0]["previous"] == "p2"
    assert q.standings(tid)["results"][0]["winner"] is None  # nobody at fault: a draw
