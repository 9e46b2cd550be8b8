"""Unchecked claims accepted by the opponents (issue 20, item 2; docs/claims.md), in every
game: where the match's ``unchecked_claims`` policy is ``consent``, the seat to act puts a
claim of all the remaining tricks to the other sides; a rejection changes nothing (and shows
no card), the last acceptance plays the hand out as the other sides' concession; a pending
claim stops the clocks; every misuse is refused naming the policy."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from referee.application import Referee
from referee.domain.errors import (
    ClaimNotAllowedError,
    ClaimPendingError,
    ClockStateError,
    MalformedRequestError,
    PermissionDeniedError,
)
from referee.rules.cards import CARD_NAMES
from referee.rules.claims import ALL, claim_sides, concession_line
from referee.rules.registry import GAMES
from referee.verify import verify_data
from tests.application.conftest import AUDITOR
from tests.application.test_claims import play_until

CONSENT = {"unchecked_claims": "consent"}


def create(app: Referee, name: str, **kw: Any) -> Any:
    n = GAMES[name].num_seats
    return app.create_match(name, players=[f"p{i}" for i in range(n)], **kw)


def others(m: Any, seat: int) -> list[int]:
    """One seat of each side (of the hand) other than ``seat``'s."""
    return [min(side) for side in claim_sides(m.game, m.hand_state) if seat not in side]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_unchecked_claim_accepted_by_the_other_sides(app: Referee, name: str) -> None:
    c = create(app, name, policies=CONSENT)
    m = play_until(app, c, None, random.Random(f"unchecked-{name}"))
    seat = m.to_act
    assert seat is not None
    put = app.claim(c.match_id, c.seat_tokens[seat], ALL, command_id="mine", unchecked=True)
    assert put.outcome.action == "claim:unchecked"
    assert put.outcome.facts == [{"kind": "claim_proposed", "seat": seat, "tricks": ALL}]
    assert app.claim(c.match_id, c.seat_tokens[seat], ALL, command_id="mine",
                     unchecked=True).replayed
    view = app.get_view(c.match_id, c.spectator_token)
    assert view.claim == {"seat": seat, "agreed": [], "version": put.outcome.version}
    answerers = others(m, seat)
    last = None
    for s in answerers:
        last = app.answer_claim(c.match_id, c.seat_tokens[s], True, command_id="yes")
    assert last is not None and last.hand_over and last.outcome.action == "claim:accept"
    kinds = [f["kind"] for f in last.outcome.facts]
    assert kinds[0] == "claim_answered" and kinds[1] == "claim_accepted"
    assert last.outcome.facts[1] == {"kind": "claim_accepted", "seat": seat,
                                     "claim": "unchecked", "tricks": ALL}
    # The line is the other sides' concession: every trick the cards allow the claimer.
    record, _ = app.hand_record(c.match_id, m.hand.number, AUDITOR)
    line = [(a["seat"], a["action"]) for a in record["actions"] if a.get("claim")]
    assert line == [(s, m.game.format_action(a))
                    for s, a in concession_line(m.game, m.hand_state, answerers[-1])]
    again = app.answer_claim(c.match_id, c.seat_tokens[answerers[-1]], True,
                             command_id="yes")
    assert again.replayed and again.outcome.version == last.outcome.version
    code, report = verify_data(json.loads(json.dumps(app.match_record(c.match_id,
                                                                      AUDITOR)[0])))
    assert code == 0, report
    app.live.evict(c.match_id)  # rebuilt the same from the events
    assert app.get_match(c.match_id).hands[m.hand.number - 1].claim["kind"] == "unchecked"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_rejected_unchecked_claim_changes_nothing_and_shows_no_card(app: Referee,
                                                                      name: str) -> None:
    """The spy test: every reader's view is as before (but for the claim while it waits),
    and nothing said names a card."""
    c = create(app, name, policies=CONSENT)
    m = play_until(app, c, None, random.Random(f"reject-{name}"))
    seat = m.to_act
    assert seat is not None
    readers = [*c.seat_tokens, c.spectator_token]
    before = [app.get_view(c.match_id, t) for t in readers]
    app.claim(c.match_id, c.seat_tokens[seat], ALL, unchecked=True)
    for t, old in zip(readers, before, strict=True):
        now = app.get_view(c.match_id, t)
        assert now.state == old.state and now.claim is not None
        assert not now.legal_actions  # the table waits
    other = others(m, seat)[0]
    no = app.answer_claim(c.match_id, c.seat_tokens[other], False)
    assert [f["kind"] for f in no.outcome.facts] == ["claim_answered"]
    for t, old in zip(readers, before, strict=True):
        now = app.get_view(c.match_id, t)
        assert (now.state, now.legal_actions, now.to_act, now.claim) == (
            old.state, old.legal_actions, old.to_act, None)
    live = app.get_match(c.match_id)
    for t in readers:
        who = app.reading.watcher(c.match_id, t)
        said = json.dumps([[e.action, e.facts] for e in
                           app.reading.events_after(live, who, m.version)])
        assert not [n for n in CARD_NAMES if re.search(rf"\b{n}\b", said)], said


@pytest.mark.parametrize("name", sorted(GAMES))
def test_unchecked_claims_misused(app: Referee, name: str) -> None:
    off = create(app, name)
    m = play_until(app, off, None, random.Random(f"off-{name}"))
    with pytest.raises(ClaimNotAllowedError) as err:
        app.claim(off.match_id, off.seat_tokens[m.to_act], ALL, unchecked=True)
    assert "unchecked claims policy is off" in err.value.message
    c = create(app, name, policies=CONSENT)
    first = app.get_match(c.match_id)
    with pytest.raises(ClaimNotAllowedError):  # the auction
        app.claim(c.match_id, c.seat_tokens[first.to_act], ALL, unchecked=True)
    with pytest.raises(ClaimNotAllowedError) as err:  # nothing pending
        app.answer_claim(c.match_id, c.seat_tokens[0], True)
    assert "unchecked claims policy" in err.value.message
    m = play_until(app, c, None, random.Random(f"misuse-{name}"))
    seat = m.to_act
    assert seat is not None
    with pytest.raises(MalformedRequestError):  # all the tricks only
        app.claim(c.match_id, c.seat_tokens[seat], 1, unchecked=True)
    with pytest.raises(ClaimNotAllowedError):  # not the seat to act
        app.claim(c.match_id, c.seat_tokens[(seat + 1) % m.game.num_seats], ALL,
                  unchecked=True)
    with pytest.raises(PermissionDeniedError):
        app.claim(c.match_id, c.spectator_token, ALL, unchecked=True)
    app.claim(c.match_id, c.seat_tokens[seat], ALL, unchecked=True)
    with pytest.raises(ClaimPendingError):  # the table waits
        app.claim(c.match_id, c.seat_tokens[seat], ALL, unchecked=True)
    legal = m.game.format_action(m.game.legal_actions(m.hand_state)[0])
    with pytest.raises(ClaimPendingError) as pending:
        app.submit_action(c.match_id, c.seat_tokens[seat], legal)
    assert "unchecked claims policy" in pending.value.message
    mine = next(iter(side for side in claim_sides(m.game, m.hand_state) if seat in side))
    with pytest.raises(ClaimNotAllowedError) as err:  # the claiming side does not answer
        app.answer_claim(c.match_id, c.seat_tokens[max(mine)], True)
    assert "other sides answer" in err.value.message
    with pytest.raises(PermissionDeniedError):
        app.answer_claim(c.match_id, AUDITOR, True)
    reasons = {r.reason for r in app.list_rejections(AUDITOR, str(c.match_id))}
    assert {"CLAIM_NOT_ALLOWED", "CLAIM_PENDING"} <= reasons


def test_a_pending_unchecked_claim_stops_the_clocks(app: Referee) -> None:
    c = create(app, "coinche", policies=CONSENT, time_control={"action_ms": 60_000})
    m = play_until(app, c, None, random.Random("clock"))
    seat = m.to_act
    app.claim(c.match_id, c.seat_tokens[seat], ALL, unchecked=True)
    pending = app.get_match(c.match_id)
    assert pending.clock is not None and pending.clock.paused and pending.deadline() is None
    with pytest.raises(ClockStateError):
        app.pause_clocks(c.match_id, AUDITOR, "a ruling")
    app.answer_claim(c.match_id, c.seat_tokens[others(m, seat)[0]], False)
    after = app.get_match(c.match_id)
    assert after.clock is not None and not after.clock.paused and after.deadline() is not None
    assert after.to_act == seat
