"""Coinche (Belote contrée): rule-by-rule tests citing ``rules/belot-coinche.md`` §2, the worked
examples of §2.9 (legal cards K1–K7, scoring C1–C13, the game-end example), bad inputs, and
golden hand and match records replayed through ``referee.verify``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.rules.cards import CARD_NAMES, PACK_32, parse_card
from referee.rules.errors import (
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RecordError,
    RuleParameterError,
)
from referee.rules.game import Deal, HandResult, MatchState
from referee.rules.games.coinche import (
    GAME,
    CoincheRules,
    CoincheState,
    resolve_announcements,
    score,
)
from referee.rules.registry import find_game
from referee.verify import verify_data

GOLDEN = Path(__file__).parent.parent / "golden" / "coinche"
R = CoincheRules()


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def names(actions: list[int]) -> str:
    return " ".join(CARD_NAMES[a] for a in actions if a < 64)


def texts(state: CoincheState) -> list[str]:
    return [GAME.format_action(a) for a in GAME.legal_actions(state)]


def new(dealer: int = 0, rules: CoincheRules = R) -> CoincheState:
    return GAME.new_hand(GAME.deal(PACK_32, dealer), dealer, rules)


def run(state: CoincheState, *actions: str) -> CoincheState:
    for a in actions:
        seat = GAME.current_seat(state)
        assert seat is not None
        state = GAME.apply(state, seat, GAME.parse_action(a)).state
    return state


def legal_cards(
    bid: str, trick: list[tuple[int, str]], seat: int, hand: str, rules: CoincheRules = R
) -> str:
    state = GAME.position(
        rules, bid, 0, {seat: cards(hand)}, [(s, parse_card(c)) for s, c in trick]
    )
    assert GAME.current_seat(state) == seat
    return names(GAME.legal_actions(state))


def refused(state: CoincheState, seat: int, action: str, error: type[Exception]) -> Any:
    before = GAME.audit_view(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, GAME.parse_action(action))
    assert GAME.audit_view(state) == before
    return info.value


# -- cards and deal (CO-C1..CO-C3, CO-D1..CO-D4) -------------------------------------------------


def test_co_c1_c2_every_contract_totals_162() -> None:
    """CO-C1, CO-C2: 152 card points + 10 for the last trick in suit, SA and TA contracts."""
    from referee.rules.games.coinche import card_points_table

    for denom in range(6):
        assert sum(card_points_table(denom, R)[c] for c in PACK_32) == 152
    assert sum(card_points_table(5, CoincheRules(ta_values="ffb2015"))[c] for c in PACK_32) == 152
    assert card_points_table(4, R)[parse_card("AS")] == 19
    assert card_points_table(5, R)[parse_card("JS")] == 14


def test_co_c3_trick_winner_trump_beats_led_suit() -> None:
    """CO-C3: the highest trump wins; otherwise the highest card of the led suit."""
    state = GAME.position(
        R, "80H", 0, {0: cards("AS"), 1: cards("7H"), 2: cards("TS"), 3: cards("KS")}, []
    )
    step = None
    for c in ("AS", "7H", "TS", "KS"):
        seat = GAME.current_seat(state)
        assert seat is not None
        step = GAME.apply(state, seat, parse_card(c))
        state = step.state
    assert step is not None
    assert step.facts[-1].winner == 1  # type: ignore[union-attr]


def test_co_d2_deal_is_eight_cards_3_2_3_from_dealer_plus_one() -> None:
    """CO-D2: eight cards each in packets of 3, 2, 3, starting at dealer + 1; no stock."""
    deal = GAME.deal(PACK_32, 2)
    assert deal.stock == ()
    assert [len(h) for h in deal.hands] == [8, 8, 8, 8]
    assert deal.hands[3][:3] == tuple(PACK_32[0:3])
    assert deal.hands[3][3:5] == tuple(PACK_32[12:14])


def test_co_d3_first_hand_speaks_and_leads_whoever_wins_the_auction() -> None:
    """CO-D3: dealer+1 speaks first and leads trick 1 (DEFAULT); the seed's -1 is a parameter."""
    state = new(dealer=0)
    assert GAME.current_seat(state) == 1
    state = run(state, "pass", "bid:80H", "pass", "pass", "pass")
    assert state.phase == 1 and GAME.current_seat(state) == 1
    assert GAME.current_seat(new(0, CoincheRules(first_hand_offset="-1"))) == 3


def test_co_d4_five_cards_before_the_auction() -> None:
    """CO-D4: with cards_before_auction=5 a seat holds 5 cards while bidding, then 8."""
    rules = CoincheRules(cards_before_auction=5)
    state = new(0, rules)
    assert len(GAME.view(state, 1)["hand"]) == 5
    state = run(state, "bid:80H", "pass", "pass", "pass")
    assert len(GAME.view(state, 1)["hand"]) == 8
    # a record may give 5 cards per hand and the other 12 in the stock
    deal = GAME.deal(PACK_32, 0)
    short = Deal(
        tuple(h[:5] for h in deal.hands), tuple(c for k in (1, 2, 3, 0) for c in deal.hands[k][5:])
    )
    other = run(GAME.new_hand(short, 0, rules), "bid:80H", "pass", "pass", "pass")
    assert GAME.audit_view(other)["hands"] == GAME.audit_view(state)["hands"]
    with pytest.raises(RecordError):
        GAME.new_hand(Deal(deal.hands, (PACK_32[0],)), 0, R)


def test_co_d1_dealer_rotates_after_every_deal_including_thrown_in() -> None:
    """CO-D1: the first dealer is given (drawn by the server); the deal passes to the next seat,
    thrown-in deals included (CO-B6: co_redeal_same_dealer keeps it)."""
    match = GAME.new_match(R, 2)
    assert match.dealer == 2
    void = HandResult((0, 0), {"redeal": True}, void=True)
    assert GAME.after_hand(match, void, R).dealer == 3
    assert GAME.after_hand(match, void, CoincheRules(redeal_same_dealer=True)).dealer == 2


# -- auction (CO-B1..CO-B8) ------------------------------------------------------------------


def test_co_b1_calls_and_first_bid_at_least_80() -> None:
    """CO-B1, CO-B2: pass, bids 80..160 in C D H S SA TA, capot; no generale by default."""
    legal = texts(new())
    assert "pass" in legal and "bid:80C" in legal and "bid:160TA" in legal
    assert "bid:capotSA" in legal and "bid:170H" not in legal and "bid:generaleH" not in legal
    assert "coinche" not in legal
    with pytest.raises(InvalidActionError):
        GAME.parse_action("bid:70H")
    err = refused(new(), 1, "bid:generaleH", IllegalActionError)
    assert err.rule == "CO-B1"
    assert "bid:generaleH" in texts(new(0, CoincheRules(generale=True)))


def test_co_b2_each_bid_higher_denominations_unranked() -> None:
    """CO-B2: strictly higher value; an equal value in another denomination is not enough
    (unless ranked_denominations); capot above 160 and nothing numeric after it."""
    state = run(new(), "bid:100S")
    legal = texts(state)
    assert "bid:100TA" not in legal and "bid:110C" in legal
    err = refused(state, 2, "bid:100TA", IllegalActionError)
    assert err.rule == "CO-B2" and "100S" in err.message
    ranked = run(new(0, CoincheRules(ranked_denominations=True)), "bid:100S")
    assert "bid:100TA" in texts(ranked) and "bid:100H" not in texts(ranked)
    capot = run(new(), "bid:capotH")
    assert [t for t in texts(capot) if t.startswith("bid:")] == []
    assert "bid:170H" in texts(new(0, CoincheRules(max_bid=180)))


def test_co_b3_partner_may_raise_and_a_passed_player_may_bid_again() -> None:
    """CO-B3: seat 1 bids, its partner 3 raises; seat 2 who passed bids later."""
    state = run(new(), "bid:80H", "pass", "bid:90S", "pass", "pass", "bid:100C")
    assert state.phase == 0 and state.auc[1:3] == (GAME.parse_action("bid:100C"), 2)


def test_co_b4_coinche_only_opponents_in_turn_and_freezes() -> None:
    """CO-B4: coinche only by an opponent of the standing bid, in turn; it freezes bidding."""
    state = run(new(), "bid:80H")  # seat 1 bid; seat 2 to act
    assert "coinche" in texts(state)
    partner = run(state, "pass")  # seat 3, partner of the bidder
    assert "coinche" not in texts(partner)
    assert refused(partner, 3, "coinche", IllegalActionError).rule == "CO-B4"
    assert refused(state, 0, "coinche", NotYourTurnError).rule == "CO-B4"
    frozen = run(state, "coinche")
    assert texts(frozen) == ["pass", "surcoinche"]  # seat 3: the coinched team
    assert refused(frozen, 3, "bid:90H", IllegalActionError).rule == "CO-B4"
    assert texts(run(frozen, "pass")) == ["pass"]  # seat 0: the coincher's partner


def test_co_b4_variants_out_of_turn_and_decoincher() -> None:
    """CO-B4 variants: coinche 'a la volee' (V26) and a higher bid cancelling it (V27)."""
    volee = run(new(0, CoincheRules(coinche_out_of_turn=True)), "bid:80H")
    step = GAME.apply(volee, 0, GAME.parse_action("coinche"))
    assert step.state.auc[3] == 2 and GAME.current_seat(step.state) == 1
    deco = run(new(0, CoincheRules(coinche_freezes=False)), "bid:80H", "coinche")
    assert "bid:90S" in texts(deco)
    assert run(deco, "bid:90S").auc[3] == 1


def test_co_b5_surcoinche_ends_the_auction() -> None:
    """CO-B5: the coinched team surcoinches and play starts at once, x4."""
    step = GAME.apply(run(new(), "bid:80H", "coinche"), 3, GAME.parse_action("surcoinche"))
    assert step.state.phase == 1 and step.state.ct is not None and step.state.ct.level == 4
    assert refused(run(new(), "bid:80H"), 2, "surcoinche", IllegalActionError).rule == "CO-B5"


def test_co_b6_three_passes_end_four_passes_throw_in() -> None:
    """CO-B6: a bid then three passes ends the auction; four passes void the deal."""
    state = run(new(), "bid:80H", "pass", "pass")
    assert state.phase == 0
    assert run(state, "pass").phase == 1
    coinched = run(new(), "bid:80H", "coinche", "pass", "pass")
    assert coinched.phase == 0 and run(coinched, "pass").phase == 1
    void = run(new(), "pass", "pass", "pass", "pass")
    assert GAME.is_terminal(void) and GAME.result(void).void
    assert GAME.result(void).points == (0, 0)


def test_co_b7_bidder_cannot_raise_after_three_passes() -> None:
    """CO-B7: after three passes the auction is over; the bidder plays its bid."""
    state = run(new(), "bid:80H", "pass", "pass", "pass")
    assert GAME.current_seat(state) == 1 and all(
        a < 64 or a >= 160 for a in GAME.legal_actions(state)
    )
    assert refused(state, 1, "bid:90H", IllegalActionError).rule == "CO-B6"


def test_co_b8_capot_may_be_coinched_unless_the_parameter_says_not() -> None:
    """CO-B8: a capot bid can be coinched by default (V28), not with capot_doublable off."""
    assert "coinche" in texts(run(new(), "bid:capotH"))
    assert "coinche" not in texts(run(new(0, CoincheRules(capot_doublable=False)), "bid:capotH"))


# -- legal cards (CO-P1..CO-P6, K1..K7) --------------------------------------------------------


def test_k1_co_p5d_must_undertrump() -> None:
    """K1 (CO-P5d): E 7S, N 8S, W JH; S holds one low trump and must 'pisser' with it."""
    trick = [(1, "7S"), (2, "8S"), (3, "JH")]
    assert legal_cards("80H", trick, 0, "7H 7D 8D 9D JD QD KD TD") == "7H"
    free = legal_cards(
        "80H", trick, 0, "7H 7D 8D 9D JD QD KD TD", CoincheRules(undertrump_required=False)
    )
    assert len(free.split()) == 8


def test_k2_co_p5a_partner_winning_any_card() -> None:
    """K2 (CO-P5a): partner N trumps and wins; S may play anything."""
    assert legal_cards("80H", [(1, "7S"), (2, "9H"), (3, "8S")], 0, "7H AH 7D 8D") == "7D 8D 7H AH"


def test_k3_co_p3_trump_led_cannot_beat_partner() -> None:
    """K3 (CO-P3): partner led JH; nothing beats it, so any heart."""
    assert legal_cards("80H", [(2, "JH"), (3, "8H")], 0, "7H AH 7D") == "7H AH"


def test_k4_co_p3_must_beat_trump_led() -> None:
    """K4 (CO-P3): W led TH; S must beat it with AH."""
    assert legal_cards("80H", [(3, "TH")], 0, "7H AH 7D") == "AH"


def test_k5_co_p3_tout_atout_raise() -> None:
    """K5 (CO-P3, TA): N TS, W 7S; S must beat the ten: 9S only."""
    assert legal_cards("80TA", [(2, "TS"), (3, "7S")], 0, "KS 9S JD") == "9S"


def test_k5_variant_ta_no_raise_over_partner() -> None:
    """CO-P3 variant (V25): in TA, no raise needed while the partner wins."""
    rules = CoincheRules(ta_raise_over_partner=False)
    assert legal_cards("80TA", [(2, "TS"), (3, "7S")], 0, "KS 9S JD", rules) == "9S KS"


def test_k6_co_p4_sans_atout_follow_only() -> None:
    """K6 (CO-P4): SA, W led KS; S follows with TS."""
    assert legal_cards("80SA", [(3, "KS")], 0, "TS AD") == "TS"


def test_k7_co_p5c_void_must_trump_any_trump() -> None:
    """K7 (CO-P5c): W void in spades, opponent winning without trump: any heart."""
    assert (
        legal_cards("80H", [(1, "7S"), (2, "8S")], 3, "JH 9H AH TH KH QH AD AC")
        == "9H TH JH QH KH AH"
    )


def test_co_p1_co_p2_co_p5b_co_p6() -> None:
    """CO-P1 the leader plays anything; CO-P2 follow suit; CO-P5b no trump: any card;
    CO-P6 TA void: any card."""
    assert legal_cards("80H", [], 0, "7S 8D 9H") == "8D 9H 7S"
    assert legal_cards("80H", [(3, "AD")], 0, "7D 7H 7S") == "7D"
    assert legal_cards("80H", [(2, "7S"), (3, "AS")], 0, "7D 8C") == "8C 7D"
    assert legal_cards("80TA", [(3, "AS")], 0, "7D 8C") == "8C 7D"


def test_co_p5d_must_overtrump_when_able() -> None:
    """CO-P5d: an opponent's trump wins; a higher trump is compulsory when held."""
    assert legal_cards("80H", [(2, "7S"), (3, "QH")], 0, "7H AH 7D") == "AH"
    state = GAME.position(
        R, "80H", 0, {0: cards("7H AH 7D")}, [(2, parse_card("7S")), (3, parse_card("QH"))]
    )
    err = refused(state, 0, "play:7H", IllegalActionError)
    assert err.rule == "CO-P5" and "QH" in err.message
    assert refused(state, 0, "play:7D", IllegalActionError).rule == "CO-P5"
    assert refused(state, 0, "play:8D", IllegalActionError).rule == "CO-P1"


@pytest.mark.parametrize(
    "variant",
    [{}, {"undertrump_required": False}, {"ta_raise_over_partner": False}],
)
def test_co_p1_p6_playable_set_kept_with_the_state_matches_the_rule(
    variant: dict[str, object],
) -> None:
    """CO-P1..CO-P6: ``apply`` computes the next seat's playable cards inline (the hot path);
    at every play decision of random deals they equal the rule as ``_playable`` states it."""
    import random

    rules = CoincheRules.from_dict(variant)
    rng = random.Random(f"playable-{variant}")
    pack = list(PACK_32)
    for i in range(150):
        rng.shuffle(pack)
        state = GAME.new_hand(GAME.deal(pack, i % 4), i % 4, rules)
        while (seat := GAME.current_seat(state)) is not None:
            if state.ct is not None:
                assert state.pm == GAME._playable(state, state.ct)
            legal = GAME.legal_actions(state)
            state = GAME.apply(state, seat, legal[rng.randrange(len(legal))]).state


# -- announcements and belote (CO-A1..CO-A5) ---------------------------------------------------


def ann(text: str) -> int:
    return GAME.parse_action("announce:" + text) - 160


def test_co_a1_values() -> None:
    """CO-A1: tierce 20, cinquante 50, cent 100; carres J 200, 9 150, A/10/K/Q 100; SA: the FFB
    scale; four 7s or 8s are not an announcement."""
    from referee.rules.games.coinche import combo_value

    assert combo_value(ann("7H,8H,9H"), 0, R) == 20
    assert combo_value(ann("7H,8H,9H,TH"), 0, R) == 50
    assert combo_value(ann("7H,8H,9H,TH,JH,QH"), 0, R) == 100
    assert combo_value(ann("JC,JD,JH,JS"), 0, R) == 200
    assert combo_value(ann("9C,9D,9H,9S"), 0, R) == 150
    assert combo_value(ann("QC,QD,QH,QS"), 0, R) == 100
    assert combo_value(ann("AC,AD,AH,AS"), 4, R) == 200
    assert combo_value(ann("AC,AD,AH,AS"), 4, CoincheRules(sa_carre_scale="standard")) == 100
    for bad in ("announce:7C,7D,7H,7S", "announce:7H,8H,TH", "announce:7H,7H,8H,9H"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(bad)


def test_co_a2_announce_in_trick_one_with_held_cards_each_card_once() -> None:
    """CO-A2: announcements with one's card to trick 1, cards really held, a card in one
    announcement only; the kind is public at once, the cards when trick 2 starts."""
    hands = {0: cards("7H 8H 9H TH"), 1: cards("7S 8S"), 2: cards("9S TS"), 3: cards("JS QS")}
    state = GAME.position(R, "80C", 0, hands, [])
    assert GAME.current_seat(state) == 0  # dealer 3: seat 0 leads
    legal = texts(state)
    assert "announce:7H,8H,9H,TH" in legal and "announce:7H,8H,9H" in legal
    assert refused(state, 0, "announce:JH,QH,KH", IllegalActionError).rule == "CO-A2"
    state = run(state, "announce:7H,8H,9H")
    assert "announce:8H,9H,TH" not in texts(state)
    assert refused(state, 0, "announce:8H,9H,TH", IllegalActionError).rule == "CO-A2"
    public = GAME.view(state, 1)["announcements"]
    assert public == [{"seat": 0, "kind": "tierce"}]
    state = run(state, "play:TH", "play:7S", "play:9S", "play:JS")  # TH wins (plain suit)
    assert GAME.view(state, 1)["announcements"] == [{"seat": 0, "kind": "tierce"}]
    assert refused(state, 0, "announce:7H,8H,9H", IllegalActionError).rule in ("CO-A2",)
    step = GAME.apply(state, 0, parse_card("9H"))
    assert step.facts[-1].what == "announcements"  # type: ignore[union-attr]
    shown = GAME.view(step.state, 1)["announcements"]
    assert shown[0]["cards"] == ["7H", "8H", "9H"] and shown[0]["points"] == 20


def test_co_a3_single_contest_best_team_scores_all() -> None:
    """CO-A3: the team with the best announcement scores all of its own; the other none."""
    # NS: cinquante + tierce; EW: tierce to the ace
    anns = [(0, ann("7H,8H,9H,TH")), (2, ann("7C,8C,9C")), (1, ann("QS,KS,AS"))]
    assert resolve_announcements(anns, 0, R) == (70, 0, 0)
    # a carre of 100 beats a cent; carre vs carre by TRUMP order (A > 10 > K > Q)
    anns = [(0, ann("7H,8H,9H,TH,JH")), (1, ann("KC,KD,KH,KS"))]
    assert resolve_announcements(anns, 0, R) == (0, 100, 1)
    anns = [(0, ann("TC,TD,TH,TS")), (1, ann("KC,KD,KH,KS"))]
    assert resolve_announcements(anns, 0, R)[2] == 0
    # the same sequence length and top card: a trump sequence wins
    anns = [(0, ann("7H,8H,9H")), (1, ann("7S,8S,9S"))]
    assert resolve_announcements(anns, 3, R) == (0, 20, 1)
    # a complete tie cancels both (FFB); the variant gives it to the first announced
    assert resolve_announcements(anns, 0, R) == (0, 0, None)
    assert resolve_announcements(anns, 0, CoincheRules(announcement_tie="first"))[2] == 0


def test_co_a4_belote_rebelote_said_with_king_and_queen() -> None:
    """CO-A4: 'belote' with the first of K/Q of trumps, 'rebelote' with the second."""
    hands = {0: cards("KH QH 7C"), 1: cards("7H 8C 9C"), 2: cards("8H TC JC"), 3: cards("7S QC KC")}
    state = GAME.position(R, "80H", 0, hands, [])
    legal = texts(state)
    assert "belote:KH" in legal and "belote:QH" in legal and "rebelote:QH" not in legal
    assert refused(state, 0, "rebelote:KH", IllegalActionError).rule == "CO-A4"
    state = run(state, "belote:KH", "play:7H", "play:8H", "play:7S")
    assert GAME.current_seat(state) == 0
    assert "rebelote:QH" in texts(state) and "belote:QH" not in texts(state)
    state = run(state, "rebelote:QH")
    view = GAME.view(state, None)
    assert view["belote"] == ["KH"] and view["rebelote"] == ["QH"]
    with pytest.raises(InvalidActionError):
        GAME.parse_action("belote:7H")
    # SA has no belote; a seat without both cards cannot say it
    sa = GAME.position(R, "80SA", 0, hands, [])
    assert not any(t.startswith("belote") for t in texts(sa))
    assert refused(sa, 0, "belote:KH", IllegalActionError).rule == "CO-A4"


def test_co_a5_announcements_count_towards_the_contract() -> None:
    """CO-A5 / V17 (C12): 84 card points + cent make a 100 contract; off: they do not."""
    args: dict[str, Any] = dict(
        value=100, kind="numeric", level=1, card=(84, 78), ann=(100, 0), bel=(0, 0), taker=0
    )
    assert score(R, **args) == (True, (284, 78))
    assert score(CoincheRules(announcements_help_contract=False), **args)[0] is False


# -- scoring (CO-S1..CO-S6, C1..C13) -----------------------------------------------------------


def s(
    value: int,
    card: tuple[int, int],
    *,
    level: int = 1,
    ann: tuple[int, int] = (0, 0),
    bel: tuple[int, int] = (0, 0),
    kind: str = "numeric",
    all_tricks: bool = False,
    rules: CoincheRules = R,
) -> tuple[bool, tuple[int, int]]:
    return score(
        rules,
        value=value,
        kind=kind,
        level=level,
        card=card,
        ann=ann,
        bel=bel,
        taker=0,
        all_tricks=all_tricks,
    )


def test_c1_co_s2_made() -> None:
    """C1 (CO-S2): 80H, card 92-70 -> 172 / 70."""
    assert s(80, (92, 70)) == (True, (172, 70))


def test_c2_co_s3_failed() -> None:
    """C2 (CO-S3): 100S, card 82-80 -> 0 / 262."""
    assert s(100, (82, 80)) == (False, (0, 262))


def test_c3_co_s1_82_floor() -> None:
    """C3 (CO-S1): 80C, card 81-81: down (81 < 82) -> 0 / 242; without the floor, made."""
    assert s(80, (81, 81)) == (False, (0, 242))
    assert s(80, (81, 81), rules=CoincheRules(floor82=False))[0] is True


def test_c4_co_a4_belote_helps() -> None:
    """C4 (CO-A4, CO-S2): 100H, T has belote, card 88-74 -> 208 / 74; if announcements and
    belote do not count: 20 / 262."""
    assert s(100, (88, 74), bel=(20, 0)) == (True, (208, 74))
    off = CoincheRules(announcements_help_contract=False)
    assert s(100, (88, 74), bel=(20, 0), rules=off) == (False, (20, 262))


def test_c5_co_s5_coinched_failed() -> None:
    """C5 (CO-S5): 110D coinched, card 90-72, D tierce -> 0 / (162+110+20)*2 = 584."""
    assert s(110, (90, 72), level=2, ann=(0, 20)) == (False, (0, 584))


def test_c6_co_s4_coinched_made_and_its_readings() -> None:
    """C6 (CO-S4, V20): 90S coinched, card 120-42, T tierce -> 320 / 0; 'whole' 440; FFB 360."""
    assert s(90, (120, 42), level=2, ann=(20, 0)) == (True, (320, 0))
    assert s(90, (120, 42), level=2, ann=(20, 0), rules=CoincheRules(made_mult_scope="whole"))[
        1
    ] == (440, 0)
    assert s(90, (120, 42), level=2, ann=(20, 0), rules=CoincheRules(made_mult_scope="flat160"))[
        1
    ] == (360, 0)


def test_c7_surcoinche_x4_or_x3() -> None:
    """C7 (CO-S4, V19): 120 surcoinched, card 130-32 -> 610 / 0; x3 flag: 490."""
    assert s(120, (130, 32), level=4) == (True, (610, 0))
    assert s(120, (130, 32), level=4, rules=CoincheRules(surcoinche_mult=3))[1] == (490, 0)


def test_c8_c9_capot_bid() -> None:
    """C8, C9 (CO-S1): capot bid made 252+250 = 502; with 7 tricks: 0 / 162+250 = 412."""
    assert s(250, (252, 0), kind="capot", all_tricks=True) == (True, (502, 0))
    assert s(250, (150, 12), kind="capot") == (False, (0, 412))


def test_c10_capot_without_capot_bid() -> None:
    """C10 (CO-S1): 100H, the taker takes all 8 tricks: 252+100 = 352."""
    assert s(100, (252, 0)) == (True, (352, 0))


def test_c11_co_a3_defence_carre_beats_taker_cinquante() -> None:
    """C11 (CO-A3, CO-S3): 130C, card 100-62, D carre of 9s beats T cinquante -> 0 / 442."""
    a0, a1, _ = resolve_announcements([(0, ann("7H,8H,9H,TH")), (1, ann("9C,9D,9H,9S"))], 0, R)
    assert (a0, a1) == (0, 150)
    assert s(130, (100, 62), ann=(a0, a1)) == (False, (0, 442))


def test_c12_announcements_help() -> None:
    """C12 (CO-A5): 100S, card 84-78, T cent -> 284 / 78."""
    assert s(100, (84, 78), ann=(100, 0)) == (True, (284, 78))


def test_c13_floor_excludes_announcements() -> None:
    """C13 (CO-S1, CO-A5): 90D, card 70-92, T cinquante: 120 >= 90 but 70 < 82 -> 0 / 302."""
    assert s(90, (70, 92), ann=(50, 0)) == (False, (0, 302))


def test_co_s1_generale_and_must_beat_defence() -> None:
    """CO-S1: a generale is made only if the bidder alone takes all 8 (V30); with
    must_beat_defence (V18) 82-80 for 80 still makes, 81-81 never does."""
    assert s(500, (252, 0), kind="generale", all_tricks=True) == (True, (752, 0))
    beat = CoincheRules(must_beat_defence=True, floor82=False)
    assert s(80, (82, 80), rules=beat)[0] is True
    assert s(80, (81, 81), rules=beat)[0] is False


def test_co_s3_variants_base_and_prenable_belote() -> None:
    """CO-S3 / V22, V23: failure base 160+C; belote 'prenable' goes to the defence."""
    assert s(100, (82, 80), rules=CoincheRules(failure_base="160+C")) == (False, (0, 260))
    assert s(100, (80, 82), bel=(20, 0)) == (False, (20, 262))
    prenable = CoincheRules(belote_to_defence_on_failure=True)
    assert s(100, (80, 82), bel=(20, 0), rules=prenable) == (False, (0, 282))


@pytest.mark.parametrize(("base", "defence"), [("162", 162), ("160", 160), ("162+C", 412)])
def test_co_s3_v22_flat_failure_base_can_be_below_a_capot_value(base: str, defence: int) -> None:
    """CO-S3 / V22: with a flat failure base (160, or 162 as in classic belote) the defence of a
    failed capot (C = 250) scores the base plus announcements and belote, not C: 162 < 250 is
    right. The conformance check used to demand at least C from the defence and failed here."""
    rules = CoincheRules(failure_base=base)
    state = run(new(0, rules), "pass", "pass", "bid:capotTA", "pass", "pass", "pass")
    while (seat := GAME.current_seat(state)) is not None:
        state = GAME.apply(state, seat, GAME.legal_actions(state)[0]).state
    result = GAME.result(state)
    d = result.detail
    assert d["contract"]["value"] == 250 and d["contract"]["team"] == 1
    assert d["made"] is False and d["tricks"] == [3, 5]
    assert d["announcement_points"] == [0, 0] and d["belote"] == [0, 0]
    assert result.points == (defence, 0)
    GAME.check_result(result, rules)  # the game's own result invariants hold


def test_co_s5_variant_contract_only_multiplied() -> None:
    """CO-S5 / V21: Cannes multiplies only the contract: 162 + 110*2 + 20 = 402."""
    rules = CoincheRules(failed_mult_scope="contract")
    assert s(110, (90, 72), level=2, ann=(0, 20), rules=rules) == (False, (0, 402))


def test_co_s6_rounding_never_turns_failure_into_success() -> None:
    """CO-S6 (V34): exact by default; nearest10 gives C1 170 / 70, and 89 for 90 is still down."""
    rules = CoincheRules(rounding="nearest10")
    assert s(80, (92, 70), rules=rules) == (True, (170, 70))
    assert s(90, (89, 73), rules=rules)[0] is False


# -- match (CO-G1..CO-G3) ----------------------------------------------------------------------


def test_co_g1_game_end_example() -> None:
    """CO-G1 (§2.9 game end): NS 690, EW 650; the deal gives +80 / +110 -> 770 vs 760, NS wins."""
    match = MatchState(scores=(690, 650), dealer=0)
    after = GAME.after_hand(match, HandResult((80, 110)), R)
    assert after.scores == (770, 760) and after.over and after.winner == 0


def test_co_g2_tie_at_701_plays_on() -> None:
    """CO-G2 (V35): level at >= 701: play on (DEFAULT); the draw variant ends the match."""
    match = MatchState(scores=(650, 650), dealer=0)
    tie = GAME.after_hand(match, HandResult((60, 60)), R)
    assert not tie.over and tie.winner is None
    draw = GAME.after_hand(match, HandResult((60, 60)), CoincheRules(tie_at_target="draw"))
    assert draw.over and draw.winner is None


def test_co_g3_no_ffb_exception_for_capot_or_belote() -> None:
    """CO-G3: off by default: a match may end on a capot deal."""
    match = MatchState(scores=(300, 100), dealer=0)
    capot = HandResult((502, 0), {"capot": True})
    assert GAME.after_hand(match, capot, R).over


# -- bad inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "play",
        "play:1H",
        "play:2H",
        "bid:85H",
        "bid:80X",
        "bid:80",
        "bid:0080H",
        "announce:",
        "belote:JH",
        "coinche:1",
        "double",
        "PASS",
    ],
)
def test_malformed_actions_are_invalid(text: str) -> None:
    with pytest.raises(InvalidActionError):
        GAME.parse_action(text)


def test_out_of_turn_and_finished_deal_and_unknown_codes() -> None:
    state = new()
    assert refused(state, 2, "pass", NotYourTurnError).rule == "CO-D3"
    assert refused(state, 1, "play:7C", IllegalActionError).rule == "CO-B1"
    with pytest.raises(IllegalActionError):
        GAME.apply(state, 1, 9999)
    over = run(state, "pass", "pass", "pass", "pass")
    assert refused(over, 1, "pass", NotYourTurnError).rule == "CO-B6"


def test_unknown_rule_parameter_and_bad_value() -> None:
    with pytest.raises(RuleParameterError):
        CoincheRules.from_dict({"pisser": True})
    with pytest.raises(RuleParameterError):
        CoincheRules.from_dict({"surcoinche_mult": 5})


def test_round_trip_every_action() -> None:
    for a in GAME.all_actions():
        assert GAME.parse_action(GAME.format_action(a)) == a
    assert GAME.parse_action("bid:80sa") == GAME.parse_action("bid:80SA")
    assert GAME.parse_action("announce:9h,7h,8h") == GAME.parse_action("announce:7H,8H,9H")
    assert find_game("belote_contree") is GAME or find_game("coinche").name == "coinche"


def test_views_hide_other_hands() -> None:
    state = new()
    view = GAME.view(state, 1)
    assert len(view["hand"]) == 8 and "hands" not in view
    assert "hand" not in GAME.view(state, None)


# -- records ---------------------------------------------------------------------------------


def load(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def test_golden_hand_record_replays() -> None:
    """A coinched TA hand with a tierce and two belotes: (162+80+20+20)*2 = 564 / 20."""
    data = load("hand_announce_belote_coinche.json")
    code, report = verify_data(data, legal=True)
    assert code == 0, report
    assert report["result"]["points"] == [564, 20]
    assert report["result"]["made"] is False


def test_golden_hand_record_detects_a_wrong_result_and_an_illegal_action() -> None:
    data = load("hand_announce_belote_coinche.json")
    data["result"]["points"] = [0, 0]
    assert verify_data(data)[0] == 1
    data = load("hand_announce_belote_coinche.json")
    data["actions"][1]["action"] = "coinche"  # seat 2 is the bidder's partner
    code, report = verify_data(data)
    assert code == 1 and report["error"]["rule"] == "CO-B4"


def test_golden_match_record_replays() -> None:
    data = load("match_to_301.json")
    code, report = verify_data(data)
    assert code == 0, report
    assert report["result"]["over"] is True
    assert report["result"]["winner"] == data["result"]["winner"]
