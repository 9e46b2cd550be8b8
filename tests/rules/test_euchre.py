"""Euchre, rule by rule (euchre-pedro-ulti.md §1), with the reference's test vectors (§1.8).

Vectors E-T11..E-T19 live as hand records in tests/golden/euchre/ (deal and actions from the
reference; result points from its "seed" column); the trick winners below are the reference's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.rules.cards import PACK_24, card_name, parse_card
from referee.rules.errors import (
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RecordError,
    RuleParameterError,
)
from referee.rules.game import Deal, HandEnded, HandResult, TrickTaken
from referee.rules.games.euchre import POWER, Euchre, EuchreRules, EuchreState
from referee.rules.handrecord import read_record, replay_hand
from referee.rules.seats import partner_of, team_of

GAME = Euchre()
GOLDEN = Path(__file__).parent.parent / "golden" / "euchre"
N, E, S, W = range(4)


def os_card(text: str) -> int:
    """Cards in the reference's §1.8 are written suit first, as OpenSpiel does: HQ = QH."""
    return parse_card(text[1] + text[0])


def new_hand(hands: str, upcard: str, dealer: int, **rules: object) -> EuchreState:
    """A deal from the reference's notation: four hands 'N / E / S / W' and the upcard."""
    seats = [[os_card(c) for c in h.split()] for h in hands.split(" / ")]
    up = os_card(upcard)
    used = {c for h in seats for c in h} | {up}
    stock = (up, *(c for c in PACK_24 if c not in used))
    return GAME.new_hand(
        Deal(tuple(tuple(h) for h in seats), stock), dealer, EuchreRules.from_dict(rules)
    )


def act(state: EuchreState, *actions: str) -> EuchreState:
    """Apply actions, each by the seat to act."""
    for text in actions:
        seat = GAME.current_seat(state)
        assert seat is not None
        state = GAME.apply(state, seat, GAME.parse_action(text)).state
    return state


def legal(state: EuchreState) -> set[str]:
    return {GAME.format_action(a) for a in GAME.legal_actions(state)}


def plays(cards: str) -> set[str]:
    return {"play:" + card_name(os_card(c)) for c in cards.split()}


# The deal of E-T2..E-T10: dealer N, upcard HQ.
T2_HANDS = "DA DK C9 CT S9 / DJ DQ CA SA ST / HJ HA HK D9 CQ / H9 DT SK SQ CK"


@pytest.fixture
def t2_play() -> EuchreState:
    """E-T2 setup: E, S and W pass, N picks up hearts, discards C9, everyone plays with partner."""
    state = new_hand(T2_HANDS, "HQ", N)
    return act(
        state,
        "pass",
        "pass",
        "pass",
        "order_up",
        "discard:9C",
        "partner",
        "defend_partner",
        "defend_partner",
    )


# -- components (EU-1 .. EU-3) -------------------------------------------------------------


def test_eu1_partners_sit_opposite() -> None:
    """EU-1: N–S against E–W."""
    assert [team_of(s) for s in (N, E, S, W)] == [0, 1, 0, 1]
    assert partner_of(N) == S and partner_of(E) == W


def test_eu2_pack_is_24_cards_nine_to_ace() -> None:
    """EU-2: 9, 10, J, Q, K, A in four suits."""
    assert len(GAME.pack) == 24
    assert {card_name(c)[0] for c in GAME.pack} == set("9TJQKA")


def test_eu3_e_t1_rank_order_with_hearts_trump() -> None:
    """E-T1 / EU-3: HJ > DJ > HA > HK > HQ > HT > H9 > anything; DJ is not a diamond."""
    hearts = 2
    order = [os_card(c) for c in ["HJ", "DJ", "HA", "HK", "HQ", "HT", "H9"]]
    for led in range(4):
        powers = [POWER[hearts][led][c] for c in order]
        assert powers == sorted(powers, reverse=True)
        assert min(powers) > max(POWER[hearts][led][c] for c in PACK_24 if c not in order)
    diamonds = [os_card(c) for c in ["DA", "DK", "DQ", "DT", "D9"]]
    powers = [POWER[hearts][1][c] for c in diamonds]
    assert powers == sorted(powers, reverse=True) and min(powers) >= 0
    assert POWER[hearts][1][os_card("DJ")] > 100  # the left bower ranks as a trump


# -- dealer and deal (EU-4, EU-5) ----------------------------------------------------------


def test_eu4_deal_passes_to_the_left() -> None:
    """EU-4: the new dealer is the old dealer + 1."""
    rules = EuchreRules()
    match = GAME.new_match(rules, first_dealer=W)
    match = GAME.after_hand(match, HandResult((1, 0)), rules)
    assert match.dealer == N
    match = GAME.after_hand(match, HandResult((0, 2)), rules)
    assert match.dealer == E and match.scores == (1, 2)


def test_eu5_five_cards_each_and_the_upcard() -> None:
    """EU-5: five cards to each seat, four left over; the first is turned up."""
    deal = GAME.deal(list(PACK_24), dealer=2)
    assert [len(h) for h in deal.hands] == [5, 5, 5, 5] and len(deal.stock) == 4
    state = GAME.new_hand(deal, 2, EuchreRules())
    assert GAME.view(state, 0)["upcard"] == card_name(deal.stock[0])


# -- bidding (EU-6 .. EU-9, E-T10) ---------------------------------------------------------


def test_eu6_round_one_starts_left_of_dealer_and_ends_at_first_acceptance() -> None:
    """EU-6: dealer+1 speaks first; the first order-up fixes the upcard's suit."""
    state = new_hand(T2_HANDS, "HQ", N)
    assert GAME.current_seat(state) == E
    assert legal(state) == {"pass", "order_up"}  # E-T10 round 1 options for E
    state = act(state, "pass", "order_up")
    view = GAME.view(state, S)
    assert view["trump"] == "H" and view["maker"] == S
    assert GAME.current_seat(state) == N  # the dealer picks up and must discard


def test_eu7_e_t10_round_two_names_another_suit() -> None:
    """EU-7 / E-T10: round 2 offers pass and the three other suits."""
    state = act(new_hand(T2_HANDS, "HQ", N), *["pass"] * 4)
    assert GAME.current_seat(state) == E
    assert legal(state) == {"pass", "name:C", "name:D", "name:S"}
    with pytest.raises(IllegalActionError, match="upcard's suit") as err:
        GAME.apply(state, E, GAME.parse_action("name:H"))
    assert err.value.rule == "EU-7"


def test_eu8_e_t10_stick_the_dealer() -> None:
    """EU-8 / E-T10: after seven passes the stuck dealer must name a suit."""
    state = act(new_hand(T2_HANDS, "HQ", N), *["pass"] * 7)
    assert GAME.current_seat(state) == N
    assert legal(state) == {"name:C", "name:D", "name:S"}
    with pytest.raises(IllegalActionError, match="stuck") as err:
        GAME.apply(state, N, GAME.parse_action("pass"))
    assert err.value.rule == "EU-8"


def test_eu8_variant_redeal_when_all_eight_pass() -> None:
    """EU-8 variant / E-T10: without stick-the-dealer, eight passes void the deal; nobody
    scores and dealer+1 deals next."""
    state = act(new_hand(T2_HANDS, "HQ", N, stick_the_dealer=False), *["pass"] * 7)
    assert legal(state) == {"pass", "name:C", "name:D", "name:S"}
    step = GAME.apply(state, N, GAME.parse_action("pass"))
    assert GAME.is_terminal(step.state)
    result = GAME.result(step.state)
    assert result.void and result.points == (0, 0)
    assert isinstance(step.facts[-1], HandEnded)
    rules = EuchreRules(stick_the_dealer=False)
    match = GAME.after_hand(GAME.new_match(rules, N), result, rules)
    assert match.dealer == E and match.scores == (0, 0)


def test_eu9_the_seat_to_act_follows_the_pass_count() -> None:
    """EU-9: the player to act is (dealer + 1 + n) mod 4."""
    state = new_hand(T2_HANDS, "HQ", W)
    for n in range(8):
        assert GAME.current_seat(state) == (W + 1 + n) % 4
        if n == 7:
            break
        state = act(state, "pass")


# -- the exchange (EU-10 .. EU-12, E-T9) ----------------------------------------------------


def test_eu10_dealer_takes_the_upcard_and_lays_one_aside_unseen() -> None:
    """EU-10: six cards, one laid aside face down; only the dealer ever sees it."""
    state = act(new_hand(T2_HANDS, "HQ", N), "pass", "pass", "pass", "order_up")
    assert len(GAME.view(state, N)["hand"]) == 6
    state = act(state, "discard:9C")
    assert "9C" not in GAME.view(state, N)["hand"] and GAME.view(state, N)["discard"] == "9C"
    for seat in (E, S, W):
        assert "9C" not in json.dumps(GAME.view(state, seat))
    assert "9C" not in json.dumps(GAME.view(state, None))


def test_eu10_no_exchange_in_round_two() -> None:
    """EU-10: a suit named in round 2 goes straight to the maker's decision."""
    state = act(new_hand(T2_HANDS, "HQ", N), *["pass"] * 4, "name:S")
    assert legal(state) == {"alone", "partner"}
    assert len(GAME.view(state, N)["hand"]) == 5


def test_eu11_e_t9_dealer_may_discard_the_upcard_by_default() -> None:
    """EU-11 / E-T9: all six cards by default; the OpenSpiel variant excludes the upcard."""
    state = act(new_hand(T2_HANDS, "HQ", N), "pass", "pass", "pass", "order_up")
    six = {"discard:" + card_name(os_card(c)) for c in ["C9", "S9", "CT", "DK", "DA", "HQ"]}
    assert legal(state) == six
    strict = act(
        new_hand(T2_HANDS, "HQ", N, dealer_may_discard_upcard=False),
        "pass",
        "pass",
        "pass",
        "order_up",
    )
    assert legal(strict) == six - {"discard:QH"}
    with pytest.raises(IllegalActionError) as err:
        GAME.apply(strict, N, GAME.parse_action("discard:QH"))
    assert err.value.rule == "EU-11"


def test_eu12_exchange_before_alone_even_for_a_sitting_out_dealer() -> None:
    """EU-12 / E-T15: S orders up and goes alone; dealer N still exchanges first."""
    state = new_hand("CA D9 DK HK HT / CQ DA H9 HA HJ / C9 CJ CK SJ ST / DJ DT HQ S9 SK", "SQ", N)
    state = act(state, "pass", "order_up")
    assert GAME.current_seat(state) == N and all(a.startswith("discard") for a in legal(state))
    state = act(state, "discard:KH", "alone")
    assert GAME.view(state, N)["sitting_out"] == [N]


# -- going alone (EU-13 .. EU-15) -----------------------------------------------------------


def test_eu13_maker_alone_partner_sits_out() -> None:
    """EU-13: after the exchange the maker decides; alone, the partner lays the hand aside."""
    state = act(new_hand(T2_HANDS, "HQ", N), "pass", "order_up", "discard:9C")
    assert GAME.current_seat(state) == S and legal(state) == {"alone", "partner"}
    state = act(state, "alone")
    assert GAME.view(state, S)["sitting_out"] == [N]


def test_eu14_defenders_asked_from_dealer_plus_one_and_at_most_one_goes_alone() -> None:
    """EU-14: the maker first, then the defenders clockwise from dealer+1; the first
    defend_alone ends the asking, and the defender's partner sits out."""
    state = act(new_hand(T2_HANDS, "HQ", N), "pass", "order_up", "discard:9C", "partner")
    assert GAME.current_seat(state) == E and legal(state) == {"defend_alone", "defend_partner"}
    state = act(state, "defend_alone")
    assert GAME.view(state, N)["lone_defender"] == E
    assert GAME.view(state, N)["sitting_out"] == [W]
    assert GAME.view(state, N)["phase"] == "play"


def test_eu14_lone_defender_off_skips_the_question() -> None:
    """EU-14 with lone_defender off: play starts after the maker's decision."""
    state = act(
        new_hand(T2_HANDS, "HQ", N, lone_defender=False),
        "pass",
        "order_up",
        "discard:9C",
        "partner",
    )
    assert GAME.view(state, N)["phase"] == "play"


def test_eu14_variant_defend_alone_only_against_a_loner() -> None:
    """§4.1 flag defend_alone_only_vs_loner: no defenders' question against a partnership."""
    rules = {"defend_alone_only_vs_loner": True}
    partner = act(new_hand(T2_HANDS, "HQ", N, **rules), "pass", "order_up", "discard:9C", "partner")
    assert GAME.view(partner, N)["phase"] == "play"
    alone = act(new_hand(T2_HANDS, "HQ", N, **rules), "pass", "order_up", "discard:9C", "alone")
    assert legal(alone) == {"defend_alone", "defend_partner"}


def test_eu15_only_the_maker_goes_alone_and_canadian_variant() -> None:
    """EU-15: the maker's partner is never asked; with `canadian`, the dealer's partner who
    orders up in round 1 must go alone."""
    state = act(new_hand(T2_HANDS, "HQ", N), "pass", "order_up", "discard:9C")
    with pytest.raises(NotYourTurnError):
        GAME.apply(state, N, GAME.parse_action("alone"))
    forced = act(new_hand(T2_HANDS, "HQ", N, canadian=True), "pass", "order_up", "discard:9C")
    assert legal(forced) == {"alone"}
    with pytest.raises(IllegalActionError) as err:
        GAME.apply(forced, S, GAME.parse_action("partner"))
    assert err.value.rule == "EU-15"


# -- play (EU-16 .. EU-20, E-T2 .. E-T8) -----------------------------------------------------


def test_eu16_e_t2_dealer_plus_one_leads_any_card(t2_play: EuchreState) -> None:
    """EU-16 / E-T2: E leads trick 1 and may lead any of its five cards."""
    assert GAME.current_seat(t2_play) == E
    assert legal(t2_play) == plays("ST DJ DQ CA SA")


def test_eu16_sitting_out_leader_passes_the_lead_on() -> None:
    """EU-16: dealer+1 leads; when dealer+1 itself sits out, the next active seat leads."""
    state = act(
        new_hand(T2_HANDS, "HQ", W),
        "order_up",
        "discard:9H",
        "alone",
        "defend_partner",
        "defend_partner",
    )
    # dealer W; N ordered up and went alone, so S sits out; N (dealer+1) leads.
    assert GAME.current_seat(state) == N
    state = act(
        new_hand(T2_HANDS, "HQ", W),
        "pass",
        "pass",
        "order_up",
        "discard:9H",
        "alone",
        "defend_partner",
        "defend_partner",
    )
    # S went alone, so N (dealer+1) sits out and the lead passes to E.
    assert GAME.current_seat(state) == E


def test_eu16_variant_left_of_loner_leads() -> None:
    """EU-16 variant loner_lead=left_of_loner: the seat after the lone maker leads."""
    state = act(
        new_hand(T2_HANDS, "HQ", N, loner_lead="left_of_loner"),
        "pass",
        "pass",
        "order_up",
        "discard:9C",
        "alone",
        "defend_partner",
        "defend_partner",
    )
    assert GAME.current_seat(state) == N  # W alone, E sits out: the seat after W is N


def test_eu17_tricks_go_clockwise_skipping_the_sitting_out_seat() -> None:
    """EU-17: three cards to a trick when one seat sits out; the winner leads next."""
    state = act(
        new_hand(T2_HANDS, "HQ", N),
        "pass",
        "order_up",
        "discard:9C",
        "alone",
        "defend_partner",
        "defend_partner",
    )
    order = []
    for _ in range(3):
        seat = GAME.current_seat(state)
        assert seat is not None
        order.append(seat)
        state = GAME.apply(state, seat, GAME.legal_actions(state)[0]).state
    assert order == [E, S, W]
    taken = GAME.view(state, S)["tricks"][0]
    assert len(taken["plays"]) == 3 and GAME.current_seat(state) == taken["winner"]


def test_eu18_e_t3_must_follow_suit(t2_play: EuchreState) -> None:
    """E-T3 / EU-18: E led DQ; S must play D9."""
    state = act(t2_play, "play:QD")
    assert legal(state) == plays("D9")
    with pytest.raises(IllegalActionError, match="must follow suit") as err:
        GAME.apply(state, S, GAME.parse_action("play:AH"))
    assert err.value.rule == "EU-18" and "9D" in err.value.message


def test_eu18_e_t4_no_duty_to_trump(t2_play: EuchreState) -> None:
    """E-T4 / EU-18: E led SA; S has no spade and may play any card."""
    assert legal(act(t2_play, "play:AS")) == plays("D9 HJ CQ HK HA")


def test_eu19_e_t5_left_bower_lead_calls_for_trump(t2_play: EuchreState) -> None:
    """E-T5 / EU-19: the left bower led is a trump lead; S must play trumps."""
    assert legal(act(t2_play, "play:JD")) == plays("HJ HK HA")


def test_eu20_e_t6_e_t7_trick_winner(t2_play: EuchreState) -> None:
    """E-T6, E-T7 / EU-20: W's only trump; N's picked-up HQ; S wins with the right bower."""
    state = act(t2_play, "play:JD", "play:JH")
    assert legal(state) == plays("H9")
    state = act(state, "play:9H")
    assert legal(state) == plays("HQ")
    step = GAME.apply(state, N, GAME.parse_action("play:QH"))
    taken = step.facts[0]
    assert isinstance(taken, TrickTaken) and taken.winner == S


def test_eu19_e_t8_left_bower_is_not_its_printed_suit() -> None:
    """E-T8: hearts trump, N leads DA; E holds DJ and no other diamond: all five legal."""
    hands = "DA CT C9 S9 H9 / DJ HT CA SA ST / DK DQ HA HK HQ / CJ CQ CK D9 SJ"
    state = act(
        new_hand(hands, "HJ", W),
        "order_up",
        "discard:9D",
        "partner",
        "defend_partner",
        "defend_partner",
    )
    assert GAME.current_seat(state) == N
    state = act(state, "play:AD")
    assert legal(state) == plays("DJ HT CA SA ST")


# -- scoring (EU-21 .. EU-25) and the vectors --------------------------------------------------

WINNERS = {  # the reference's trick winners, per vector
    "e-t11": "SWESE",
    "e-t12": "NENEW",
    "e-t13": "SSSNS",
    "e-t14": "WWWWW",
    "e-t15": "SWESS",
    "e-t16": "WNNWE",
    "e-t17": "NWWNN",
    "e-t18": "SSSEE",
    "e-t19": "EWEES",
}


@pytest.mark.parametrize("vector", sorted(WINNERS))
def test_e_t11_to_e_t19_vectors_replay_with_the_reference_winners_and_seed_score(
    vector: str,
) -> None:
    """E-T11..E-T19 (EU-16..EU-25): each trick's winner and the seed score."""
    data = json.loads((GOLDEN / f"{vector}.json").read_text())
    record = read_record(data)
    replay = replay_hand(GAME, record)
    assert replay.error is None and replay.result is not None
    winners = "".join("NESW"[t.winner] for t in replay.state.tricks)
    assert winners == WINNERS[vector]
    assert list(replay.result.points) == data["result"]["points"]


def _score(vector: str, **rules: object) -> tuple[int, ...]:
    data = json.loads((GOLDEN / f"{vector}.json").read_text())
    data["rules"] = rules
    replay = replay_hand(GAME, read_record(data))
    assert replay.result is not None
    return replay.result.points


def test_eu21_three_or_four_tricks_score_one_alone_or_not() -> None:
    """EU-21: E-T15 (alone, 3 tricks) and E-T18 (partners, 3 tricks) both score 1."""
    assert _score("e-t15") == (1, 0)
    assert _score("e-t18") == (1, 0)
    assert _score("e-t19") == (0, 1)  # 4 tricks


def test_eu22_march_two_or_four_alone() -> None:
    """EU-22: E-T13 (partners, 5 tricks) 2; E-T14 (maker alone, 5 tricks) 4."""
    assert _score("e-t13") == (2, 0)
    assert _score("e-t14") == (0, 4)


def test_eu23_euchre_scores_two_for_the_defenders() -> None:
    """EU-23: E-T11 a euchred loner gives only 2; E-T16 euchre 2."""
    assert _score("e-t11") == (0, 2)
    assert _score("e-t16") == (0, 2)


def test_eu23_e_t17_lone_defender_with_three_tricks_gets_two_not_four() -> None:
    """EU-23 / E-T17: the seed gives 4 only if the lone defender takes all five; the
    OpenSpiel/EGN reading (flag lone_defender_euchre=any) gives 4."""
    assert _score("e-t17") == (2, 0)
    assert _score("e-t17", lone_defender_euchre="any") == (4, 0)


def test_eu23_lone_defender_taking_all_five_scores_four() -> None:
    """EU-23: "Podobnie jeśli ktoś z pary przeciwnej zagra sam i weźmie wszystkie lewy"."""
    state = _lone_defender_march()
    assert GAME.result(state).points == (0, 4)


MARCH_HANDS = "C9 CT D9 DT H9 / SJ CJ SA SK SQ / HT HQ HK S9 ST / CQ CK DQ DK HJ"
"""N deals; S names spades holding only two low trumps; E holds the five top spades."""


def _play_out(state: EuchreState) -> EuchreState:
    """E plays its highest card, everyone else their first legal card, to the end."""
    seat = GAME.current_seat(state)
    while seat is not None:
        options = GAME.legal_actions(state)
        best = max(options, key=lambda c: POWER[state.trump][3][c])
        action = best if seat == E else options[0]
        state = GAME.apply(state, seat, action).state
        seat = GAME.current_seat(state)
    return state


def _lone_defender_march() -> EuchreState:
    state = act(
        new_hand(MARCH_HANDS, "HA", N), *["pass"] * 4, "pass", "name:S", "partner", "defend_alone"
    )
    state = _play_out(state)
    assert state.won == (0, 5)
    return state


def test_eu23_no_super_euchre_but_a_regional_flag() -> None:
    """EU-23: defenders taking five with nobody alone still score 2 (the seed); the W-EU
    regional reading is the flag defenders_march_points."""
    for value, expected in ((2, (0, 2)), (4, (0, 4))):
        state = act(
            new_hand(MARCH_HANDS, "HA", N, defenders_march_points=value),
            *["pass"] * 4,
            "pass",
            "name:S",
            "partner",
            "defend_partner",
            "defend_partner",
        )
        state = _play_out(state)
        assert state.won[1] == 5
        assert GAME.result(state).points == expected


def test_eu23_march_flag_not_for_a_lone_maker_taking_nothing() -> None:
    """EU-23: defenders_march_points pays "defenders taking all five with nobody alone";
    a lone maker who takes no trick is euchred for 2 (E-T11: "a euchred loner gives only
    2"), whatever the flag says."""
    for value in (2, 3, 4):
        state = act(
            new_hand(MARCH_HANDS, "HA", N, defenders_march_points=value),
            *["pass"] * 4,
            "pass",
            "name:S",
            "alone",
            "defend_partner",
            "defend_partner",
        )
        state = _play_out(state)
        assert state.alone and state.defender < 0 and state.won == (0, 5)
        assert GAME.result(state).points == (0, 2)


def test_eu24_e_t20_to_e_t22_game_end() -> None:
    """EU-24: E-T20 9–6 then +1 wins 10–6; E-T21 6–9 then +4 wins 10–9; E-T22 8–9 euchred
    gives 8–11 to the defenders."""
    rules = EuchreRules()
    base = GAME.new_match(rules, N)
    for start, points, final, winner in (
        ((9, 6), (1, 0), (10, 6), 0),
        ((6, 9), (4, 0), (10, 9), 0),
        ((8, 9), (0, 2), (8, 11), 1),
    ):
        match = GAME.after_hand(type(base)(scores=start, dealer=N), HandResult(points), rules)
        assert match.scores == final and match.over and match.winner == winner


def test_eu24_e_t23_only_one_side_scores_so_no_tie() -> None:
    """E-T23 / EU-24: from 9–9 only one side can reach 10."""
    for vector in WINNERS:
        points = _score(vector)
        assert min(points) == 0


def test_eu25_target_score_is_a_parameter() -> None:
    """EU-24, §4.1: game length 10 by default, W-EU plays 5, 7, 11 or 15."""
    rules = EuchreRules(target_score=5)
    match = GAME.after_hand(GAME.new_match(rules, N), HandResult((4, 0)), rules)
    assert not match.over
    match = GAME.after_hand(match, HandResult((1, 0)), rules)
    assert match.over and match.winner == 0


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "play",
        "play:",
        "play:1H",
        "play:JX",
        "play:10",
        "name:X",
        "name:HH",
        "bid:5",
        "PASS",
        "discard:",
    ],
)
def test_malformed_actions_are_syntax_errors(text: str) -> None:
    with pytest.raises(InvalidActionError) as err:
        GAME.parse_action(text)
    assert repr(text) in err.value.message


def test_card_aliases_are_accepted() -> None:
    assert GAME.parse_action("play:10h") == GAME.parse_action("play:TH")
    assert GAME.parse_action("play:jd") == parse_card("JD")


def test_out_of_turn_and_refused_actions_change_nothing(t2_play: EuchreState) -> None:
    before = GAME.audit_view(t2_play)
    with pytest.raises(NotYourTurnError) as err:
        GAME.apply(t2_play, S, GAME.parse_action("play:9D"))
    assert "seat 1's turn" in err.value.message and err.value.rule == "EU-17"
    with pytest.raises(IllegalActionError, match="do not hold"):
        GAME.apply(t2_play, E, GAME.parse_action("play:9D"))
    with pytest.raises(IllegalActionError, match="not allowed now") as err:
        GAME.apply(t2_play, E, GAME.parse_action("order_up"))
    assert err.value.rule == "EU-17"
    assert GAME.audit_view(t2_play) == before


def test_acting_after_the_deal_is_over_is_refused() -> None:
    state = _lone_defender_march()
    with pytest.raises(NotYourTurnError, match="over"):
        GAME.apply(state, N, GAME.parse_action("pass"))


def test_rule_parameters_are_validated() -> None:
    assert EuchreRules.from_dict({}).stick_the_dealer is True
    with pytest.raises(RuleParameterError, match="unknown rule parameter 'stick'"):
        EuchreRules.from_dict({"stick": False})
    with pytest.raises(RuleParameterError, match="true or false"):
        EuchreRules.from_dict({"lone_defender": "yes"})
    with pytest.raises(RuleParameterError, match="one of"):
        EuchreRules.from_dict({"loner_lead": "north"})
    with pytest.raises(RuleParameterError, match="at least 1"):
        EuchreRules.from_dict({"target_score": 0})


def test_record_parameter_names_and_defaults_match_the_spec() -> None:
    """docs/hand-record.md names three Euchre parameters and their defaults."""
    specs = {s.name: s.default for s in EuchreRules.param_specs()}
    assert specs["stick_the_dealer"] is True
    assert specs["lone_defender"] is True
    assert specs["dealer_may_discard_upcard"] is True


def test_a_deal_that_is_not_the_pack_is_refused() -> None:
    deal = GAME.deal(list(PACK_24), 0)
    twice = Deal((deal.hands[0], deal.hands[0], *deal.hands[2:]), deal.stock)
    with pytest.raises(RecordError, match="dealt twice"):
        GAME.new_hand(twice, 0, EuchreRules())
    short = Deal((deal.hands[0][:4], *deal.hands[1:]), deal.stock)
    with pytest.raises(RecordError, match="5 cards"):
        GAME.new_hand(short, 0, EuchreRules())


def test_views_hide_other_hands(t2_play: EuchreState) -> None:
    """No seat sees another seat's unplayed cards; the auditor sees all."""
    audit = GAME.audit_view(t2_play)
    for seat in range(4):
        view = json.dumps(GAME.view(t2_play, seat))
        for other in range(4):
            if other != seat:
                for name in audit["hands"][other]:
                    if name != "QH":  # the upcard, face up and picked up by the dealer
                        assert f'"{name}"' not in view
    assert all(len(h) == 5 for h in audit["hands"])
