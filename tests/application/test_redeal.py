"""Issue 21, item 2: a hand cancelled and replayed with a new committed deal (the ``redeal``
ruling, docs/tournaments.md). The hand in progress, or the last scored hand while the match
goes on, is cancelled: its scores stop counting, the dealer and the hands played step back,
and the hand is dealt anew at once with a new commitment; anything older, a finished match or
a final result is refused with the reason. The record keeps the cancelled deals apart, and
``referee verify`` replays and checks them."""

from __future__ import annotations

import copy
import random
from typing import Any
from uuid import UUID

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.deal import commitment
from referee.domain.errors import (
    BoardInPlayError,
    CommandIdReusedError,
    HandNotFoundError,
    InvalidRulingError,
    MatchOverError,
    PermissionDeniedError,
    ResultsFinalError,
)
from referee.rules.cards import CARD_NAMES
from referee.rules.registry import find_game
from referee.tournaments import (
    attach_match,
    create_tournament,
    finalize_results,
    record_ruling,
    register_entrant,
)
from referee.verify import verify_data
from tests.application.conftest import AUDITOR
from tests.projections.conftest import play

EUCHRE = {"target_score": 10}


def act(app: Referee, match_id: UUID, tokens: list[str], n: int, rng: random.Random) -> None:
    """``n`` random legal actions."""
    for _ in range(n):
        view = app.get_view(match_id, AUDITOR)
        seat = view.to_act
        assert seat is not None
        app.submit_action(match_id, tokens[seat],
                          rng.choice(app.get_view(match_id, tokens[seat]).legal_actions))


def redeal(app: Referee, match_id: UUID, hand: int, **kw: Any) -> tuple[int, list[int], bool]:
    return record_ruling(app, match_id, AUDITOR, hand, "redeal", [], kw.pop("reason", "misdeal"),
                         rule=kw.pop("rule", "EU-4"), **kw)


def test_the_hand_in_progress_is_cancelled_and_dealt_anew_by_the_same_dealer(
        app: Referee, env: dict[str, str]) -> None:
    c = app.create_match("euchre", EUCHRE)
    act(app, c.match_id, c.seat_tokens, 3, random.Random(1))
    old = app.get_match(c.match_id).hand
    version, adjust, replayed = redeal(app, c.match_id, 1, reason="a card face up in the deal")
    assert adjust == [0, 0] and not replayed
    m = app.get_match(c.match_id)
    assert m.version == version and len(m.hands) == 1
    new = m.hand
    assert (new.number, new.dealer, new.actions) == (1, old.dealer, [])
    assert new.commitment != old.commitment  # a new deal, committed before play
    assert new.commitment == commitment(new.nonce, new.cards)
    assert [h.number for h in m.cancelled_hands] == [1]
    assert m.cancelled_hands[0].actions == old.actions
    ruling = m.rulings[-1]
    assert (ruling["kind"], ruling["reason"], ruling["rule"]) == (
        "redeal", "a card face up in the deal", "EU-4")
    assert ruling["replay"] == {"version": version, "commitment": new.commitment}
    assert list(m.match_state.scores) == [0, 0] and m.match_state.hands_played == 0
    view = app.get_view(c.match_id, AUDITOR)
    assert view.hand == 1 and view.commitment == new.commitment
    # The log replays to the same match (a fresh application reads it from the store).
    fresh = Referee(settings_from_env(env))
    try:
        again = fresh.get_match(c.match_id)
    finally:
        fresh.close()
    assert [h.cards for h in again.hands] == [new.cards]
    assert [h.actions for h in again.cancelled_hands] == [old.actions]
    assert again.rulings == m.rulings
    # Play goes on: the replayed hand counts, the cancelled one never does.
    play(app, c.match_id, c.seat_tokens, random.Random(2), stop_after_hand=1)
    m = app.get_match(c.match_id)
    assert m.hands[0].cards == new.cards and m.hands[0].result is not None
    assert list(m.match_state.scores) == list(m.hands[0].result["points"])


def test_the_last_scored_hand_steps_the_match_back(app: Referee) -> None:
    c = app.create_match("euchre", EUCHRE, first_dealer=1)
    play(app, c.match_id, c.seat_tokens, random.Random(5), stop_after_hand=1)
    act(app, c.match_id, c.seat_tokens, 2, random.Random(6))  # hand 2 under way
    m = app.get_match(c.match_id)
    assert m.match_state.hands_played == 1 and m.match_state.dealer == 2
    first, second = m.hands[0], m.hands[1]
    redeal(app, c.match_id, 1, reason="the pack had two jacks of spades")
    m = app.get_match(c.match_id)
    # Hand 1's scores no longer count, the dealer and the count come back, hand 2 is void.
    assert list(m.match_state.scores) == [0, 0]
    assert (m.match_state.hands_played, m.match_state.dealer) == (0, 1)
    assert len(m.hands) == 1 and m.hand.dealer == 1 and m.hand.cards != first.cards
    assert [(h.number, h.cards) for h in m.cancelled_hands] == [
        (1, first.cards), (2, second.cards)]
    assert m.cancelled_hands[0].result == first.result
    assert m.rulings[-1]["hands"] == [1, 2]
    # The replay's result replaces the cancelled one; the rotation goes on from it.
    play(app, c.match_id, c.seat_tokens, random.Random(7), stop_after_hand=1)
    m = app.get_match(c.match_id)
    assert m.match_state.hands_played == 1 and m.hand.number == 2 and m.hand.dealer == 2
    assert list(m.match_state.scores) == list(m.hands[0].result["points"])  # type: ignore[index]


def test_refusals_name_why(app: Referee) -> None:
    c = app.create_match("euchre", EUCHRE)
    play(app, c.match_id, c.seat_tokens, random.Random(3), stop_after_hand=2)
    assert app.get_match(c.match_id).hand.number == 3
    with pytest.raises(InvalidRulingError, match="only the hand in progress"):
        redeal(app, c.match_id, 1)  # hand 2 was scored after it
    with pytest.raises(HandNotFoundError):
        redeal(app, c.match_id, 4)
    with pytest.raises(InvalidRulingError, match="reason"):
        record_ruling(app, c.match_id, AUDITOR, 3, "redeal", [], "  ")
    token = c.seat_tokens[0]
    with pytest.raises(PermissionDeniedError):
        record_ruling(app, c.match_id, token, 3, "redeal", [], "my cards are bad")
    before = app.get_match(c.match_id).version
    assert app.get_match(c.match_id).version == before  # nothing was recorded
    v, _, _ = redeal(app, c.match_id, 3)
    with pytest.raises(InvalidRulingError, match="cannot be undone"):
        record_ruling(app, c.match_id, AUDITOR, 0, "withdraw", [], "oops",
                      ref=app.get_match(c.match_id).rulings[-1]["version"])
    assert app.get_match(c.match_id).version == v
    # A finished match: an annul or artificial ruling, not a redeal.
    play(app, c.match_id, c.seat_tokens, random.Random(4))
    last = len(app.get_match(c.match_id).hands)
    with pytest.raises(MatchOverError, match="annul or artificial"):
        redeal(app, c.match_id, last)


def test_after_results_final_a_redeal_needs_an_appeal(app: Referee) -> None:
    tid = create_tournament(app, AUDITOR, "cup", "euchre")
    register_entrant(app, AUDITOR, tid, "north", ["n"])
    register_entrant(app, AUDITOR, tid, "east", ["e"])
    c = app.create_match("euchre", EUCHRE)
    play(app, c.match_id, c.seat_tokens, random.Random(8))
    attach_match(app, AUDITOR, tid, c.match_id, ["north", "east"])
    finalize_results(app, AUDITOR, tid)
    with pytest.raises(ResultsFinalError):
        redeal(app, c.match_id, len(app.get_match(c.match_id).hands))


def test_a_retried_redeal_is_applied_once_and_answered_the_same(app: Referee) -> None:
    c = app.create_match("euchre", EUCHRE)
    act(app, c.match_id, c.seat_tokens, 2, random.Random(9))
    first = redeal(app, c.match_id, 1, command_id="misdeal-1")
    again = redeal(app, c.match_id, 1, command_id="misdeal-1")
    assert first[:2] == again[:2] and not first[2] and again[2]
    m = app.get_match(c.match_id)
    assert len(m.cancelled_hands) == 1 and m.version == first[0]
    with pytest.raises(CommandIdReusedError):
        record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "misdeal",
                      command_id="misdeal-1")


def _record_with_cancelled_hands(app: Referee) -> tuple[Any, dict[str, Any]]:
    c = app.create_match("euchre", EUCHRE)
    act(app, c.match_id, c.seat_tokens, 3, random.Random(10))
    redeal(app, c.match_id, 1)
    play(app, c.match_id, c.seat_tokens, random.Random(11), stop_after_hand=1)
    record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "revoke")
    redeal(app, c.match_id, 1, reason="fouled board")  # the last scored hand
    play(app, c.match_id, c.seat_tokens, random.Random(12))
    record, over = app.match_record(c.match_id, c.seat_tokens[1])
    assert over
    return c, record


def test_verify_replays_and_checks_the_cancelled_deals(app: Referee) -> None:
    _, record = _record_with_cancelled_hands(app)
    cancelled = record["cancelled"]
    assert [c["hand"] for c in cancelled] == [1, 1, 2]
    assert cancelled[1]["reason"] == "fouled board" and "result" in cancelled[1]
    assert cancelled[1]["replay"] != cancelled[1]["commitment"]
    assert [r["kind"] for r in record["rulings"]] == ["penalty"]  # the score rulings only
    code, out = verify_data(record)
    assert code == 0, out
    assert out["result"] == record["result"] and len(out["cancelled"]) == 3
    # A verifier that does not know "cancelled" follows the record all the same.
    plain = {k: v for k, v in record.items() if k != "cancelled"}
    assert verify_data(plain)[1]["result"] == record["result"]
    # A cancelled deal is checked: its pack against its commitment, its dealer, its actions.
    forged = copy.deepcopy(record)
    forged["cancelled"][0]["nonce"] = "0" * 32
    code, out = verify_data(forged)
    assert (code, out["error"]["reason"]) == (1, "COMMITMENT_MISMATCH")
    forged = copy.deepcopy(record)
    forged["cancelled"][0]["dealer"] = (record["cancelled"][0]["dealer"] + 1) % 4
    forged["cancelled"][0].pop("pack")
    code, out = verify_data(forged)
    assert (code, out["error"]["reason"]) == (1, "WRONG_DEALER")
    forged = copy.deepcopy(record)
    forged["cancelled"][0]["hand"] = len(record["hands"]) + 3
    assert verify_data(forged)[0] == 2


def test_a_cancelled_deal_is_shown_as_a_finished_hand_but_not_a_board_in_play(
        app: Referee) -> None:
    pack = [CARD_NAMES[c] for c in find_game("euchre").pack]
    random.Random(13).shuffle(pack)
    packs = [pack, list(reversed(pack))]
    tid = create_tournament(app, AUDITOR, "pairs", "euchre")
    for e in ("n", "e", "s", "w"):
        register_entrant(app, AUDITOR, tid, e, [e])
    a = app.create_match("euchre", EUCHRE, fixed_deals=packs)
    b = app.create_match("euchre", EUCHRE, fixed_deals=packs)
    attach_match(app, AUDITOR, tid, a.match_id, ["n", "e"], board="7")
    attach_match(app, AUDITOR, tid, b.match_id, ["s", "w"], board="7")
    act(app, a.match_id, a.seat_tokens, 2, random.Random(14))
    redeal(app, a.match_id, 1, reason="a card exposed")
    m = app.get_match(a.match_id)
    assert m.cancelled_hands[0].cards == pack
    assert m.hand.cards != pack  # the board's pack is never dealt twice at a table
    # Seats see their own new cards only; the board stays hidden while table b plays it.
    view = app.get_view(a.match_id, a.seat_tokens[0])
    assert view.state != app.get_view(a.match_id, AUDITOR).state
    for token in (a.seat_tokens[1], a.spectator_token):
        with pytest.raises(BoardInPlayError):
            app.match_record(a.match_id, token)
    record, _ = app.match_record(a.match_id, AUDITOR)
    assert record["cancelled"][0]["pack"] == pack
    # The last scored hand cannot be replayed when the next one is a board deal already seen.
    play(app, a.match_id, a.seat_tokens, random.Random(15), stop_after_hand=1)
    with pytest.raises(InvalidRulingError, match="duplicate board"):
        redeal(app, a.match_id, 1)
    play(app, b.match_id, b.seat_tokens, random.Random(16), stop_after_hand=2)
    play(app, a.match_id, a.seat_tokens, random.Random(17), stop_after_hand=2)
    record, _ = app.match_record(a.match_id, a.seat_tokens[1])  # every table is done
    assert record["cancelled"][0]["pack"] == pack


def test_an_annul_after_a_redeal_undoes_the_replay_not_the_cancelled_deal(app: Referee) -> None:
    c = app.create_match("euchre", EUCHRE)
    play(app, c.match_id, c.seat_tokens, random.Random(20), stop_after_hand=1)
    first = app.get_match(c.match_id).hands[0].result
    assert first is not None
    for attempt in range(20):  # the replay is shuffled afresh: until it scores otherwise
        redeal(app, c.match_id, 1)
        play(app, c.match_id, c.seat_tokens, random.Random(attempt), stop_after_hand=1)
        replayed = app.get_match(c.match_id).hands[0].result
        assert replayed is not None
        if replayed["points"] != first["points"]:
            break
    assert replayed["points"] != first["points"]  # so the test tells them apart
    _, adjust, _ = record_ruling(app, c.match_id, AUDITOR, 1, "annul", [], "revoke")
    assert adjust == [-p for p in replayed["points"]]


def test_verify_follows_a_void_successor_whatever_came_after(app: Referee) -> None:
    """The hand dealt after a cancelled scored hand was dealt by the dealer that hand's
    result passed the deal to: verify checks it so, even when the replay ended the match
    before that position was played again, and while the replay is still running."""
    for seed in range(30):  # a match that hand 1 does not end (target 2)
        c = app.create_match("euchre", {"target_score": 2})
        play(app, c.match_id, c.seat_tokens, random.Random(seed), stop_after_hand=1)
        if not app.get_match(c.match_id).over:
            break
    record_ruling(app, c.match_id, AUDITOR, 1, "penalty", [1, 0], "slow play")
    redeal(app, c.match_id, 1)  # the penalty stays in force (docs/tournaments.md)
    running, _ = app.match_record(c.match_id, c.seat_tokens[0])
    assert running["hands"] == [] and [d["hand"] for d in running["cancelled"]] == [1, 2]
    assert running["rulings"][0]["hand"] == 1  # names the hand being replayed
    assert verify_data(running)[0] == 0, verify_data(running)
    forged = copy.deepcopy(running)
    forged["cancelled"][1]["dealer"] = running["cancelled"][0]["dealer"]  # not passed on
    forged["cancelled"][1].pop("pack")
    assert verify_data(forged)[1]["error"]["reason"] == "WRONG_DEALER"
    for attempt in range(40):  # replay hand 1 until it ends the match
        play(app, c.match_id, c.seat_tokens, random.Random(100 + attempt), stop_after_hand=1)
        if app.get_match(c.match_id).over:
            break
        redeal(app, c.match_id, 1)
    assert app.get_match(c.match_id).over
    record, _ = app.match_record(c.match_id, c.seat_tokens[0])
    assert len(record["hands"]) == 1 and record["cancelled"][-1]["hand"] == 2
    code, out = verify_data(record)
    assert code == 0, out


def test_a_redeal_on_a_timed_table_starts_the_turn_afresh(app: Referee) -> None:
    c = app.create_match("euchre", EUCHRE, time_control={"action_ms": 60_000, "policy": "auto"})
    act(app, c.match_id, c.seat_tokens, 1, random.Random(30))
    app.pause_clocks(c.match_id, AUDITOR, "a card fell on the floor")
    redeal(app, c.match_id, 1)
    m = app.get_match(c.match_id)
    assert m.clock is not None and m.clock.paused and m.deadline() is None  # still paused
    app.resume_clocks(c.match_id, AUDITOR)
    m = app.get_match(c.match_id)
    deadline = m.deadline()
    assert deadline is not None and m.to_act is not None and m.hand.actions == []
