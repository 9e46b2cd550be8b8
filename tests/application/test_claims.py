"""Claims and concessions as commands (issue 20, items 1 and 2), in every game: an accepted
claim ends the hand along its line (events, records, ``referee verify``, a reload), a refused
one changes nothing and reveals nothing (the spy test), the misuses are refused by name."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from referee.application import Referee
from referee.domain.errors import (
    ClaimNotAllowedError,
    ClaimRefusedError,
    CommandIdReusedError,
    MalformedRequestError,
    MatchOverError,
    PermissionDeniedError,
)
from referee.domain.match import Match
from referee.rules.cards import CARD_NAMES
from referee.rules.claims import (
    ALL,
    check_claim,
    concession_line,
    in_trick_play,
    remaining_tricks,
)
from referee.rules.game import side_of
from referee.rules.registry import GAMES
from referee.rules.render import render_hand, replay_for_view
from referee.verify import verify_data
from tests.application.conftest import AUDITOR

SEATS = {"ulti": 3}


def create(app: Referee, name: str, **kw: Any) -> Any:
    return app.create_match(name, players=[f"p{i}" for i in range(SEATS.get(name, 4))], **kw)


def play_until(app: Referee, c: Any, want: bool | None, rng: random.Random,
               most_left: int = 4) -> Match:
    """Play random legal actions until the seat to act is in trick play with at most
    ``most_left`` tricks left and its claim of all the tricks holds (``want`` True) or not
    (False); ``None``: any trick-play position."""
    for _ in range(2000):
        m = app.get_match(c.match_id)
        game, state = m.game, m.hand_state
        seat = game.current_seat(state)
        assert seat is not None
        if in_trick_play(game, state) and remaining_tricks(game, state) <= most_left and (
                want is None or check_claim(game, state, seat, ALL).holds == want):
            return m
        legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
        app.submit_action(c.match_id, c.seat_tokens[seat], rng.choice(legal))
    raise AssertionError("no such position in 2000 actions")


def hand_events(app: Referee, match_id: Any, since: int) -> list[Any]:
    return [e for e in app.repository.event_store.get(match_id) if e.originator_version > since]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_accepted_claim_ends_the_hand_along_its_line(app: Referee, name: str) -> None:
    c = create(app, name)
    m = play_until(app, c, True, random.Random(f"accept-{name}"))
    seat, hand, before = m.to_act, m.hand.number, m.version
    assert seat is not None
    side = check_claim(m.game, m.hand_state, seat, ALL).side
    answer = app.claim(c.match_id, c.seat_tokens[seat], ALL, command_id="claim-1")
    assert answer.hand_over and answer.outcome.action == "claim:all"
    assert answer.outcome.facts[0] == {"kind": "claim_accepted", "seat": seat,
                                       "claim": "claim", "tricks": -1}
    tricks = [f for f in answer.outcome.facts if f["kind"] == "trick_taken"]
    assert tricks and all(f["winner"] in side for f in tricks)
    kinds = [type(e).__name__ for e in hand_events(app, c.match_id, before)]
    assert kinds[0] == "ClaimAccepted"
    line = kinds[1:kinds.index("HandScored")]
    assert line and set(line) == {"ClaimLineAction"}
    # A retry is answered from the record; the id for another command is refused.
    again = app.claim(c.match_id, c.seat_tokens[seat], ALL, command_id="claim-1")
    assert again.replayed and again.outcome.version == answer.outcome.version
    with pytest.raises(CommandIdReusedError):
        app.concede(c.match_id, c.seat_tokens[seat], command_id="claim-1")
    # The record marks the line; the referee's verifier replays it.
    record, finished = app.hand_record(c.match_id, hand, AUDITOR)
    assert finished
    marked = [a for a in record["actions"] if a.get("claim")]
    assert len(marked) == len(line)
    page = render_hand(replay_for_view(record))
    assert "played out along the line of an accepted claim" in page
    match_record, _ = app.match_record(c.match_id, AUDITOR)
    code, report = verify_data(json.loads(json.dumps(match_record)), legal=True)
    assert code == 0, report
    # A reload from the store rebuilds the same match.
    app.live.evict(c.match_id)
    reloaded = app.get_match(c.match_id)
    played = len(m.hand.actions)
    assert reloaded.hands[hand - 1].claimed == list(range(played, played + len(line)))
    assert reloaded.hands[hand - 1].result == record["result"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_refused_claim_changes_nothing_and_leaks_nothing(app: Referee, name: str) -> None:
    """The spy test: every seat and a spectator read the match before and after a refused
    claim; nothing they may read changes, and the error names no card. Only the auditor's
    rejection trail holds the defence."""
    c = create(app, name)
    m = play_until(app, c, False, random.Random(f"refuse-{name}"))
    seat = m.to_act
    assert seat is not None
    readers = [*c.seat_tokens, c.spectator_token]
    before = [app.get_view(c.match_id, t) for t in readers]
    with pytest.raises(ClaimRefusedError) as err:
        app.claim(c.match_id, c.seat_tokens[seat], ALL, command_id="bold")
    exc = err.value
    assert exc.reason == "CLAIM_REFUSED"
    said = " ".join([exc.message, *exc.metadata.keys(), *exc.metadata.values()])
    named = [n for n in CARD_NAMES if re.search(rf"\b{re.escape(n)}\b", said)]
    assert not named, (said, named)
    assert set(exc.metadata) == {"seat", "tricks"}
    after = [app.get_view(c.match_id, t) for t in readers]
    assert after == before
    assert app.get_match(c.match_id).version == m.version
    assert hand_events(app, c.match_id, m.version) == []
    # The command id was not used up: the refused claim is no outcome.
    assert Match.command_key(seat, "bold") not in app.get_match(c.match_id).outcomes
    # The auditor sees the defence in the rejection trail.
    trail = app.list_rejections(AUDITOR, str(c.match_id))
    last = trail[-1]
    assert (last.seat, last.action, last.reason) == (seat, "claim:all", "CLAIM_REFUSED")
    assert "a defence that beats it:" in last.message
    with pytest.raises(PermissionDeniedError):
        app.list_rejections(c.seat_tokens[seat], str(c.match_id))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_claim_of_some_tricks(app: Referee, name: str) -> None:
    c = create(app, name)
    m = play_until(app, c, None, random.Random(f"some-{name}"))
    seat = m.to_act
    assert seat is not None
    check = check_claim(m.game, m.hand_state, seat, 1)
    if check.holds:
        answer = app.claim(c.match_id, c.seat_tokens[seat], 1)
        assert answer.hand_over and answer.outcome.action == "claim:1"
        won = [f for f in answer.outcome.facts
               if f["kind"] == "trick_taken" and f["winner"] in check.side]
        assert len(won) >= 1
    else:
        with pytest.raises(ClaimRefusedError):
            app.claim(c.match_id, c.seat_tokens[seat], 1)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_concession_gives_the_opponents_the_tricks_the_cards_allow(app: Referee, name: str
                                                                     ) -> None:
    c = create(app, name)
    m = play_until(app, c, None, random.Random(f"concede-{name}"))
    seat = (m.to_act + 1) % m.game.num_seats  # any seat may concede for its side
    state = m.hand_state
    answer = app.concede(c.match_id, c.seat_tokens[seat], command_id="give-up")
    assert answer.hand_over and answer.outcome.action == "concede"
    assert answer.outcome.facts[0]["claim"] == "concession"
    record, _ = app.hand_record(c.match_id, m.hand.number, AUDITOR)
    assert any(a.get("claim") for a in record["actions"])
    # The line is the rules module's (tested there against an enumeration of each trick).
    assert [(a["seat"], a["action"]) for a in record["actions"] if a.get("claim")] == [
        (s, m.game.format_action(a)) for s, a in concession_line(m.game, state, seat)]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_claims_and_concessions_misused(app: Referee, name: str) -> None:
    c = create(app, name)
    m = app.get_match(c.match_id)
    seat = m.to_act
    assert seat is not None and not in_trick_play(m.game, m.hand_state)
    with pytest.raises(ClaimNotAllowedError):  # the auction
        app.claim(c.match_id, c.seat_tokens[seat], ALL)
    with pytest.raises(ClaimNotAllowedError):
        app.concede(c.match_id, c.seat_tokens[seat])
    with pytest.raises(PermissionDeniedError):
        app.claim(c.match_id, c.spectator_token, ALL)
    with pytest.raises(PermissionDeniedError):
        app.concede(c.match_id, AUDITOR)
    with pytest.raises(MalformedRequestError):
        app.claim(c.match_id, c.seat_tokens[seat], 0)
    m = play_until(app, c, None, random.Random(f"misuse-{name}"))
    seat = m.to_act
    assert seat is not None
    other = (seat + 1) % m.game.num_seats
    with pytest.raises(ClaimNotAllowedError) as err:  # not the seat to act
        app.claim(c.match_id, c.seat_tokens[other], ALL)
    assert "seat to act" in err.value.message
    with pytest.raises(ClaimNotAllowedError):  # more tricks than are left
        app.claim(c.match_id, c.seat_tokens[seat], remaining_tricks(m.game, m.hand_state) + 1)
    assert app.get_match(c.match_id).version == m.version
    reasons = [r.reason for r in app.list_rejections(AUDITOR, str(c.match_id))]
    assert reasons.count("CLAIM_NOT_ALLOWED") == 4


def test_a_claim_in_a_timed_match_ends_the_turn_and_the_line_takes_no_time(app: Referee
                                                                           ) -> None:
    control = {"action_ms": 60_000, "bank_ms": 60_000, "increment_ms": 1000}
    c = create(app, "euchre", time_control=control)
    m = play_until(app, c, True, random.Random("timed"))
    seat = m.to_act
    assert seat is not None and m.clock is not None
    banks = list(m.clock.banks_ms)
    answer = app.claim(c.match_id, c.seat_tokens[seat], ALL)
    assert answer.hand_over
    after = app.get_match(c.match_id)
    assert after.clock is not None and not after.clock.paused
    # The claimer's turn ended (its increment); the line's plays gave no one anything.
    expected = list(banks)
    expected[seat] += 1000
    assert after.clock.banks_ms == expected
    view = app.get_view(c.match_id, c.seat_tokens[0])
    assert view.clock is not None and view.clock["deadline"] is not None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_side_concedes_the_match(app: Referee, name: str) -> None:
    """The match ends at once, won as a forfeit by that seat would be; the record says so
    and ``referee verify`` recomputes the winner."""
    c = create(app, name)
    m = play_until(app, c, None, random.Random(f"resign-{name}"))
    seat = (m.to_act + 1) % m.game.num_seats
    answer = app.concede(c.match_id, c.seat_tokens[seat], command_id="resign",
                         whole_match=True)
    assert answer.match_over and answer.outcome.action == "concede:match"
    kinds = [f["kind"] for f in answer.outcome.facts]
    assert kinds == ["match_conceded", "match_ended"]
    winner = answer.outcome.facts[0]["winner"]
    assert winner is not None and winner != side_of(m.game, seat)
    again = app.concede(c.match_id, c.seat_tokens[seat], command_id="resign",
                        whole_match=True)
    assert again.replayed
    with pytest.raises(MatchOverError):
        app.concede(c.match_id, c.seat_tokens[seat], whole_match=True)
    record, finished = app.match_record(c.match_id, AUDITOR)
    assert finished and record["result"]["winner"] == winner
    assert record["result"]["forfeit"] == {"seat": seat, "hand": m.hand.number,
                                           "conceded": True}
    code, report = verify_data(json.loads(json.dumps(record)))
    assert code == 0, report
