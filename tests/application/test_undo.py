"""Undo by consent (issue 20, item 3; docs/undo.md), in every game: a seat asks to withdraw
its last action, the other sides agree (the action is withdrawn: an event, the hand rebuilt
through the one replay loop, records and ``referee verify`` show both) or refuse (it stands);
a pending request stops the clocks; every misuse is refused naming the undo policy; nothing
hidden leaks (the spy test)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import (
    ClockStateError,
    InvalidPolicyError,
    PermissionDeniedError,
    UndoNotAllowedError,
    UndoPendingError,
)
from referee.domain.match import Match
from referee.rules.cards import CARD_NAMES
from referee.rules.claims import ALL
from referee.rules.game import is_public, side_of
from referee.rules.registry import GAMES
from referee.rules.render import render_hand, replay_for_view
from referee.verify import verify_data
from tests.application.conftest import AUDITOR

CONSENT = {"undo": "consent"}


def create(app: Referee, name: str, **kw: Any) -> Any:
    n = GAMES[name].num_seats
    return app.create_match(name, players=[f"p{i}" for i in range(n)], **kw)


def act(app: Referee, c: Any, rng: random.Random, pick: Any = None) -> tuple[int, str]:
    """The seat to act makes a legal action (``pick(legal)``, else a random one)."""
    seat = app.get_match(c.match_id).to_act
    assert seat is not None
    legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
    action = pick(legal) if pick is not None else rng.choice(legal)
    app.submit_action(c.match_id, c.seat_tokens[seat], action)
    return seat, action


def same(game: Any, a: Any, b: Any) -> bool:
    """Two rules states alike to every reader: the auditor's view, whose turn, what is legal."""
    return (game.audit_view(a), game.current_seat(a), list(game.legal_actions(a))) == (
        game.audit_view(b), game.current_seat(b), list(game.legal_actions(b)))


def opponent(game: Any, seat: int) -> int:
    """The next seat of another side (every side but the asking one must agree)."""
    return next(s for s in range(1, game.num_seats) if side_of(game, (seat + s) % game.num_seats)
                != side_of(game, seat)) + seat


def agree_all(app: Referee, c: Any, seat: int) -> Any:
    """Every other side agrees (one seat each); the last answer."""
    game = GAMES[app.get_match(c.match_id).game_name]
    sides = {side_of(game, seat)}
    answer = None
    for s in range(game.num_seats):
        if side_of(game, s) not in sides:
            sides.add(side_of(game, s))
            answer = app.answer_undo(c.match_id, c.seat_tokens[s], True)
    return answer


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_agreed_undo_withdraws_the_action(app: Referee, name: str) -> None:
    """Rule of the table (the undo policy ``consent``): the action is withdrawn, the hand is
    where it was before it, the same seat acts again; the log, the record, ``referee verify``
    and the viewer show both; a reload rebuilds the same match."""
    c = create(app, name, policies=CONSENT)
    rng = random.Random(f"undo-{name}")
    for _ in range(rng.randrange(1, 6)):
        act(app, c, rng)
    before = app.get_match(c.match_id)
    readers = [*c.seat_tokens, c.spectator_token]
    views = [app.get_view(c.match_id, t) for t in readers]
    seat, action = act(app, c, rng)
    asked = app.request_undo(c.match_id, c.seat_tokens[seat], command_id="oops")
    assert asked.outcome.action == "undo"
    assert asked.outcome.facts == [{"kind": "undo_requested", "seat": seat,
                                    "index": len(before.hand.actions)}]
    assert app.request_undo(c.match_id, c.seat_tokens[seat], command_id="oops").replayed
    last = agree_all(app, c, seat)
    assert last.outcome.facts[-1] == {"kind": "action_withdrawn", "seat": seat,
                                      "index": len(before.hand.actions)}
    after = app.get_match(c.match_id)
    assert after.to_act == seat and after.hand.actions == before.hand.actions
    assert same(after.game, after.hand_state, before.hand_state)
    for t, old in zip(readers, views, strict=True):  # every reader sees the hand as before
        now = app.get_view(c.match_id, t)
        assert (now.state, now.legal_actions, now.to_act) == (old.state, old.legal_actions,
                                                             old.to_act)
    kinds = [type(e).__name__ for e in app.repository.event_store.get(c.match_id)
             if e.originator_version > before.version]
    assert kinds[0] == "ActionTaken" and kinds[1] == "UndoRequested"
    assert kinds[-1] == "ActionWithdrawn" and set(kinds[2:-1]) == {"UndoAnswered"}
    record, _ = app.hand_record(c.match_id, 1, AUDITOR)
    assert record["withdrawn"] == [{"index": len(before.hand.actions), "seat": seat,
                                    "action": action}]
    assert len(record["actions"]) == len(before.hand.actions)
    assert "withdrew" in render_hand(replay_for_view(record))
    code, report = verify_data(json.loads(json.dumps(record)))
    assert code == 0, report
    # The seat plays on; the hand is rebuilt the same from the store.
    act(app, c, rng)
    app.live.evict(c.match_id)
    reloaded = app.get_match(c.match_id)
    assert reloaded.hand.withdrawn[0]["action"] == action
    assert same(reloaded.game, reloaded.hand_state, app.get_match(c.match_id).hand_state)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_refused_undo_leaves_the_action(app: Referee, name: str) -> None:
    c = create(app, name, policies=CONSENT)
    rng = random.Random(f"refuse-{name}")
    seat, _ = act(app, c, rng)
    m = app.get_match(c.match_id)
    app.request_undo(c.match_id, c.seat_tokens[seat])
    other = opponent(m.game, seat) % m.game.num_seats
    answer = app.answer_undo(c.match_id, c.seat_tokens[other], False, command_id="no")
    assert answer.outcome.action == "undo:refuse"
    assert [f["kind"] for f in answer.outcome.facts] == ["undo_answered"]
    after = app.get_match(c.match_id)
    assert after.undo_request is None and same(m.game, after.hand_state, m.hand_state)
    act(app, c, rng)  # play goes on
    with pytest.raises(UndoNotAllowedError):  # and the request is over
        app.answer_undo(c.match_id, c.seat_tokens[other], True)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_undo_misused(app: Referee, name: str) -> None:
    """Each misuse is refused with a message naming the undo policy, and changes nothing."""
    rng = random.Random(f"misuse-{name}")
    off = create(app, name)
    seat, _ = act(app, off, rng)
    with pytest.raises(UndoNotAllowedError) as err:  # the policy is off
        app.request_undo(off.match_id, off.seat_tokens[seat])
    assert "undo policy is off" in err.value.message
    c = create(app, name, policies=CONSENT)
    m = app.get_match(c.match_id)
    game = m.game
    with pytest.raises(UndoNotAllowedError) as err:  # nothing to withdraw yet
        app.request_undo(c.match_id, c.seat_tokens[m.to_act])
    assert "undo policy" in err.value.message
    with pytest.raises(UndoNotAllowedError) as err:  # nothing pending
        app.answer_undo(c.match_id, c.seat_tokens[0], True)
    assert "undo policy" in err.value.message
    first, _ = act(app, c, rng)
    second, _ = act(app, c, rng)
    if second != first:
        with pytest.raises(UndoNotAllowedError) as err:  # another action was made since
            app.request_undo(c.match_id, c.seat_tokens[first])
        assert f"seat {second} made it" in err.value.message
    with pytest.raises(PermissionDeniedError):
        app.request_undo(c.match_id, c.spectator_token)
    with pytest.raises(PermissionDeniedError):
        app.request_undo(c.match_id, AUDITOR)
    version = app.get_match(c.match_id).version
    app.request_undo(c.match_id, c.seat_tokens[second])
    with pytest.raises(UndoPendingError):  # one request at a time
        app.request_undo(c.match_id, c.seat_tokens[second])
    with pytest.raises(UndoNotAllowedError) as err:  # the asking side does not answer
        app.answer_undo(c.match_id, c.seat_tokens[second], True)
    assert "other sides answer" in err.value.message
    to_act = app.get_match(c.match_id).to_act
    assert to_act is not None
    legal = game.format_action(game.legal_actions(app.get_match(c.match_id).hand_state)[0])
    with pytest.raises(UndoPendingError) as pending:  # no action while it waits
        app.submit_action(c.match_id, c.seat_tokens[to_act], legal)
    assert "undo policy" in pending.value.message
    with pytest.raises(UndoPendingError):
        app.claim(c.match_id, c.seat_tokens[to_act], ALL)
    with pytest.raises(UndoPendingError):
        app.concede(c.match_id, c.seat_tokens[to_act])
    assert app.get_match(c.match_id).version == version + 1  # only the request
    reasons = {r.reason for r in app.list_rejections(AUDITOR, str(c.match_id))}
    assert {"UNDO_NOT_ALLOWED", "UNDO_PENDING"} <= reasons
    if game.num_seats == 3:  # Ulti: each other seat is a side; one agreement is not enough
        other = (second + 1) % 3
        app.answer_undo(c.match_id, c.seat_tokens[other], True)
        assert app.get_match(c.match_id).undo_request is not None
        with pytest.raises(UndoNotAllowedError):  # a side answers once
            app.answer_undo(c.match_id, c.seat_tokens[other], True)


def test_a_bad_policy_is_refused_by_name(app: Referee) -> None:
    with pytest.raises(InvalidPolicyError) as err:
        create(app, "euchre", policies={"undo": "always"})
    assert "undo must be one of off, consent" in err.value.message
    with pytest.raises(InvalidPolicyError):
        create(app, "euchre", policies={"redo": "consent"})


def _hidden_action(app: Referee, name: str) -> tuple[Any, int, str]:
    """A consent match in which the seat to act has a hidden legal action (a discard, a
    declaration...), reached by random play: the match, the seat, the action."""
    game = GAMES[name]
    for n in range(60):
        c = create(app, name, policies=CONSENT)
        rng = random.Random(f"hidden-{name}-{n}")
        for _ in range(40):
            m = app.get_match(c.match_id)
            seat = m.to_act
            if seat is None:
                break
            legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
            hidden = [a for a in legal if not is_public(game, a)]
            if hidden:
                return c, seat, hidden[0]
            app.submit_action(c.match_id, c.seat_tokens[seat], rng.choice(legal))
    raise AssertionError(f"no hidden action reached in {name}")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_spy_sees_no_hidden_action_through_an_undo(app: Referee, name: str) -> None:
    """A withdrawn action only its seat saw (``hidden_verbs``) stays hidden: the other seats'
    and a spectator's views and streams say ``hidden`` for the request and the withdrawal;
    the auditor sees it."""
    c, seat, action = _hidden_action(app, name)
    m = app.get_match(c.match_id)
    app.submit_action(c.match_id, c.seat_tokens[seat], action)
    since = app.get_match(c.match_id).version  # what the action itself said is the game's
    app.request_undo(c.match_id, c.seat_tokens[seat])
    spies = [t for s, t in enumerate(c.seat_tokens) if s != seat] + [c.spectator_token]
    card = action.partition(":")[2]
    for token in spies:
        view = app.get_view(c.match_id, token)
        assert view.undo is not None and view.undo["action"] == "hidden"
    assert app.get_view(c.match_id, c.seat_tokens[seat]).undo["action"] == action
    assert app.get_view(c.match_id, AUDITOR).undo["action"] == action
    agree_all(app, c, seat)
    live = app.get_match(c.match_id)
    for token in spies:
        who = app.reading.watcher(c.match_id, token)
        events = app.reading.events_after(live, who, since)
        said = json.dumps([[e.action, e.facts] for e in events])
        assert "hidden" in said and action not in said
        if card:
            named = [x for x in card.split(",") if x in CARD_NAMES]
            assert not any(re.search(rf"\b{x}\b", said) for x in named), said
    assert same(m.game, app.get_match(c.match_id).hand_state, m.hand_state)


def test_a_pending_request_stops_the_clock_and_the_answer_restarts_it(app: Referee) -> None:
    """docs/clocks.md and docs/undo.md: the request stops the clocks (no deadline, no
    timeout); a refusal lets the next seat's turn go on where it stopped; a withdrawal gives
    the withdrawing seat a fresh turn. The arbiter cannot pause or resume meanwhile."""
    c = create(app, "belot", policies=CONSENT, time_control={"action_ms": 60_000})
    rng = random.Random("clock")
    seat, _ = act(app, c, rng)
    app.request_undo(c.match_id, c.seat_tokens[seat])
    view = app.get_view(c.match_id, c.seat_tokens[0])
    assert view.clock is not None and view.clock["paused"] and view.clock["deadline"] is None
    assert app.get_match(c.match_id).deadline() is None
    with pytest.raises(ClockStateError):
        app.pause_clocks(c.match_id, AUDITOR, "a ruling")
    with pytest.raises(ClockStateError):
        app.resume_clocks(c.match_id, AUDITOR)
    app.answer_undo(c.match_id, c.seat_tokens[(seat + 1) % 4], False)
    m = app.get_match(c.match_id)
    assert m.clock is not None and not m.clock.paused and m.deadline() is not None
    assert m.to_act == (seat + 1) % 4
    seat, _ = act(app, c, rng)
    app.request_undo(c.match_id, c.seat_tokens[seat])
    app.answer_undo(c.match_id, c.seat_tokens[(seat + 1) % 4], True)
    m = app.get_match(c.match_id)
    assert m.to_act == seat and m.clock is not None and not m.clock.paused
    withdrawn = [e for e in app.repository.event_store.get(c.match_id)
                 if isinstance(e, Match.ActionWithdrawn)]
    assert m.clock.turn_start == withdrawn[-1].timestamp  # a fresh turn from the withdrawal


def test_undo_survives_a_restart_of_the_application(env: dict[str, str]) -> None:
    """A pending request and a withdrawal are rebuilt from the events by a new process."""
    first = Referee(settings_from_env(env))
    try:
        c = create(first, "pedro", policies=CONSENT)
        seat, _ = act(first, c, random.Random("restart"))
        first.request_undo(c.match_id, c.seat_tokens[seat])
    finally:
        first.close()
    second = Referee(settings_from_env(env))
    try:
        m = second.get_match(c.match_id)
        assert m.undo_request is not None and m.undo_request["seat"] == seat
        assert m.policies.undo == "consent"
        agree_all(second, c, seat)
        assert second.get_match(c.match_id).to_act == seat
    finally:
        second.close()
