"""Coinche's variant parameters that had no test with a non-default value
(``rules/belot-coinche.md`` §2 and §3, V14–V35), each citing the rule it changes."""

from __future__ import annotations

from referee.rules.cards import PACK_32
from referee.rules.game import HandResult, MatchState
from referee.rules.games.coinche import GAME, CoincheRules, CoincheState
from tests.rules.test_coinche import R, cards, new, run, s


def capot_deal(rules: CoincheRules) -> CoincheState:
    """80H by seat 0, who holds all eight hearts and leads them: team 0 takes every trick
    (a capot, not bid), seat 0 holding the belote K/Q without saying it."""
    hands = {0: cards("7H 8H 9H TH JH QH KH AH"), 1: cards("7S 8S 9S TS JS QS KS AS"),
             2: cards("7D 8D 9D TD JD QD KD AD"), 3: cards("7C 8C 9C TC JC QC KC AC")}
    state = GAME.position(rules, "80H", 0, hands, [])
    while (seat := GAME.current_seat(state)) is not None:
        plain = [a for a in GAME.legal_actions(state) if a < 64]  # no belote said
        state = GAME.apply(state, seat, plain[0]).state
    return state


def test_capot_card_points_250_CO_S1() -> None:
    """CO-S1: a team taking all 8 tricks counts 252 card points (FFB), or a flat 250 (pagat)."""
    default = GAME.result(capot_deal(R))
    assert default.detail["card_points"] == [252, 0] and default.detail["capot"]
    assert default.points == (252 + 80, 0)
    flat = GAME.result(capot_deal(CoincheRules(capot_card_points=250)))
    assert flat.detail["card_points"] == [250, 0] and flat.points == (250 + 80, 0)


def test_belote_counts_without_being_said_CO_A4() -> None:
    """CO-A4: by default the 20 count only if 'belote' and 'rebelote' are said; with
    belote_must_be_said off, holding the K and Q of trumps is enough."""
    assert GAME.result(capot_deal(R)).detail["belote"] == [0, 0]
    loose = GAME.result(capot_deal(CoincheRules(belote_must_be_said=False)))
    assert loose.detail["belote"] == [20, 0] and loose.points == (252 + 80 + 20, 0)


def test_capot_value_CO_S1_V29() -> None:
    """V29: the contract value C of a capot bid (250 by default; 270 in Cannes)."""
    hands = {0: cards("AH")}
    assert GAME.view(GAME.position(R, "capotH", 0, hands, []), None)["contract"]["value"] == 250
    cannes = GAME.position(CoincheRules(capot_value=270), "capotH", 0, hands, [])
    assert GAME.view(cannes, None)["contract"]["value"] == 270
    assert s(270, (252, 0), kind="capot", all_tricks=True,
             rules=CoincheRules(capot_value=270)) == (True, (522, 0))


def test_generale_value_CO_S1_V30() -> None:
    """V30: the generale's contract value (500 by default; pagat's example 1000)."""
    rules = CoincheRules(generale=True, generale_value=1000)
    state = run(new(0, rules), "bid:generaleS", "pass", "pass", "pass")
    assert GAME.view(state, None)["contract"]["value"] == 1000
    default = run(new(0, CoincheRules(generale=True)), "bid:generaleS", "pass", "pass", "pass")
    assert GAME.view(default, None)["contract"]["value"] == 500


def test_failure_base_contract_only_CO_S3_V22() -> None:
    """V22 (ASCEE): the defence of a failed contract scores only C, plus announcements."""
    rules = CoincheRules(failure_base="C")
    assert s(100, (80, 82)) == (False, (0, 262))
    assert s(100, (80, 82), rules=rules) == (False, (0, 100))
    assert s(100, (80, 82), ann=(0, 20), rules=rules) == (False, (0, 120))


def test_six_cards_before_the_auction_CO_D4() -> None:
    """CO-D4 (Saint-Etienne): each seat holds the first 6 of its cards while bidding, all 8
    after."""
    rules = CoincheRules(cards_before_auction=6)
    deal = GAME.deal(PACK_32, 0)
    state = new(0, rules)
    for p in range(4):
        assert state.hand(p) == sum(1 << c for c in deal.hands[p][:6])
    state = run(state, "bid:80H", "pass", "pass", "pass")
    for p in range(4):
        assert state.hand(p) == sum(1 << c for c in deal.hands[p])


def test_target_score_CO_G1() -> None:
    """CO-G1: the match ends when a team reaches the target (701 in the seed)."""
    short = CoincheRules(target_score=301)
    assert GAME.after_hand(MatchState((290, 100), 0), HandResult((20, 0)), short).over
    assert not GAME.after_hand(MatchState((290, 100), 0), HandResult((20, 0)), R).over
