"""Bulgarian Belot: rule-by-rule tests citing BG-* ids and the worked examples of
``rules/belot-coinche.md`` §1.9 (L1–L13, S1–S20, D1–D5, G1–G3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.rules.cards import PACK_32, parse_card
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import HandResult, MatchState, TrickTaken
from referee.rules.games.belot import (
    GAME,
    PLAY,
    Belot,
    BelotRules,
    BelotState,
    resolve_declarations,
    score_deal,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    CARD_POINTS,
    NO_TRUMPS,
    PLAIN_ORDER,
    TRUMP_ORDER,
    trick_winner_index,
)
from referee.rules.registry import find_game
from referee.verify import verify_data, verify_path

GOLDEN = Path(__file__).parent.parent / "golden" / "belot"
DEFAULT = BelotRules()
MODES = {"C": 0, "D": 1, "H": 2, "S": 3, "NT": NO_TRUMPS, "AT": ALL_TRUMPS}


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.replace("10", "T").split()]


def mask(text: str) -> int:
    return sum(1 << c for c in cards(text))


def fresh(dealer: int = 3, rules: BelotRules = DEFAULT) -> BelotState:
    pack = list(PACK_32)
    return GAME.new_hand(GAME.deal(pack, dealer), dealer, rules)


def position(contract: str, seat: int, trick: str, hand: str) -> BelotState:
    """A play position from the §1.9.1 notation: seats 1..4, ``trick`` as ``s4:TC s1:7D``."""
    s = fresh()
    s.phase = PLAY
    s.contract = MODES[contract]
    s.bidder = 0
    s.tricks = ()
    s.decls = ()
    plays = [(int(p.split(":")[0][1:]) - 1, parse_card(p.split(":")[1])) for p in trick.split()]
    s.hands = mask(hand) << ((seat - 1) << 6)
    s.trick = tuple(c for _, c in plays)
    s.to_act = seat - 1
    if plays:
        s.leader = plays[0][0]
        w = trick_winner_index(s.contract, list(s.trick))
        s.best, s.winner = plays[w][1], plays[w][0]
    else:
        s.leader = seat - 1
    s.tricks = (TrickTaken(1, (), 0, 0),)  # past trick 1: no declarations offered
    return s


def legal_cards(state: BelotState) -> set[int]:
    return {a for a in GAME.legal_actions(state) if a < 64}


def play(state: BelotState, *texts: str) -> BelotState:
    for text in texts:
        state = GAME.apply(state, state.to_act, GAME.parse_action(text)).state
    return state


# -- cards, orders and values (BG-C1 .. BG-C5, BG-T1) ----------------------------------------


def test_pack_and_partnerships_BG_C1() -> None:
    assert len(GAME.pack) == 32 and GAME.num_seats == 4 and GAME.partnerships


def test_contract_ladder_BG_C2_and_bids_must_rise_BG_B2() -> None:
    s = play(fresh(), "bid:H")
    legal = {GAME.format_action(a) for a in GAME.legal_actions(s)}
    assert {"bid:S", "bid:NT", "bid:AT"} <= legal and not {"bid:C", "bid:D", "bid:H"} & legal
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 1, GAME.parse_action("bid:D"))
    assert exc.value.rule == "BG-B2"
    s = play(s, "bid:AT")
    assert not [a for a in GAME.legal_actions(s) if "bid" in GAME.format_action(a)]


def test_orders_and_values_BG_C3_BG_C4_BG_C5() -> None:
    assert [r for r in TRUMP_ORDER] == [parse_card(x + "C") % 13 for x in "78QKTA9J"]
    assert [r for r in PLAIN_ORDER] == [parse_card(x + "C") % 13 for x in "789JQKTA"]
    assert sum(CARD_POINTS[2][c] for c in PACK_32) + 10 == 162
    assert sum(CARD_POINTS[ALL_TRUMPS][c] for c in PACK_32) + 10 == 258
    assert 2 * (sum(CARD_POINTS[NO_TRUMPS][c] for c in PACK_32) + 10) == 260


def test_trick_winner_BG_T1() -> None:
    assert trick_winner_index(2, cards("AS 7H TS KS")) == 1  # a trump beats any plain card
    assert trick_winner_index(NO_TRUMPS, cards("9S JS AH TS")) == 3  # NT: PLAIN, led suit only
    assert trick_winner_index(ALL_TRUMPS, cards("AS 9S JH TS")) == 1  # AT: TRUMP order, no cutting


# -- dealing (BG-D1 .. BG-D4) ---------------------------------------------------------------


def test_deal_three_two_then_three_BG_D1_BG_D2() -> None:
    pack = list(PACK_32)
    deal = GAME.deal(pack, 3)  # first hand = seat 0
    assert deal.hands[0] == (pack[0], pack[1], pack[2], pack[12], pack[13])
    assert deal.hands[1] == (pack[3], pack[4], pack[5], pack[14], pack[15])
    assert deal.stock == tuple(pack[20:32])
    s = play(GAME.new_hand(deal, 3, DEFAULT), "bid:C", "pass", "pass", "pass")
    assert s.hand(0) == mask(" ".join(GAME.format_action(c)[5:] for c in
                                      (*deal.hands[0], *pack[20:23])))
    assert s.hand(1) & (1 << pack[23])


def test_first_hand_speaks_and_leads_BG_D3() -> None:
    s = fresh(dealer=1)
    assert GAME.current_seat(s) == 2
    s = play(s, "pass", "bid:D", "pass", "pass", "pass")
    assert GAME.current_seat(s) == 2 and s.phase == PLAY


def test_dealer_rotates_after_all_pass_BG_D4_BG_B6() -> None:
    s = play(fresh(), "pass", "pass", "pass", "pass")
    assert GAME.is_terminal(s) and GAME.result(s).void and GAME.result(s).points == (0, 0)
    assert GAME.card_locations(s)["stock"].bit_count() == 12  # the last cards are not dealt
    m = MatchState(scores=(10, 20), dealer=2, carry=(7, 0))
    after = GAME.after_hand(m, GAME.result(s), DEFAULT)
    assert after.dealer == 3 and after.scores == (10, 20) and after.carry == (7, 0)  # BG-S6


# -- auction (BG-B1 .. BG-B9) ---------------------------------------------------------------


def test_calls_BG_B1_contra_BG_B3_recontra_BG_B4() -> None:
    s = play(fresh(), "bid:C")
    assert "contra" in {GAME.format_action(a) for a in GAME.legal_actions(s)}
    s2 = play(s, "pass")  # seat 2, the bidder's partner, may not double
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s2, 2, GAME.parse_action("contra"))
    assert exc.value.rule == "BG-B3"
    s = play(s, "contra")
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 2, GAME.parse_action("contra"))
    assert exc.value.rule == "BG-B3"
    s = play(s, "recontra")
    assert s.level == 4
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 3, GAME.parse_action("surcontra"))
    assert exc.value.rule == "BG-B1"


def test_higher_bid_cancels_doubles_BG_B5_and_declarer_BG_B8() -> None:
    s = play(fresh(), "bid:C", "contra", "recontra", "bid:NT")
    assert s.level == 1 and s.bidder == 3 and s.contract == NO_TRUMPS
    frozen = fresh(rules=BelotRules(bg_double_freezes_auction=True))
    frozen = play(frozen, "bid:C", "contra")
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(frozen, 2, GAME.parse_action("bid:AT"))
    assert exc.value.rule == "BG-B5"


def test_auction_end_three_passes_BG_B6_turn_order_BG_B7() -> None:
    s = play(fresh(), "bid:H", "contra", "pass", "pass")
    assert s.phase != PLAY
    with pytest.raises(NotYourTurnError) as exc:
        GAME.apply(s, 1, GAME.parse_action("pass"))
    assert exc.value.rule == "BG-B7"
    s = play(s, "pass")
    assert s.phase == PLAY and s.level == 2 and s.bidder == 0


def test_misbid_is_rejected_not_penalised_BG_B9() -> None:
    s = play(fresh(), "bid:H")
    before = GAME.audit_view(s)
    with pytest.raises(IllegalActionError):
        GAME.apply(s, 1, GAME.parse_action("bid:D"))
    assert GAME.audit_view(s) == before


# -- legal cards: L1–L13 (BG-P1 .. BG-P7) ----------------------------------------------------

VECTORS = [
    ("L1", "D", 1, "s4:TC", "8C JC KC JH 8S TS", "8C JC KC"),
    ("L2", "C", 4, "s2:KC s3:TC", "7C 8C QC 7D TD AH AS", "7C 8C QC"),
    ("L3", "C", 2, "s4:QC s1:7D", "TC 9D JD KD 7S", "TC"),
    ("L4", "S", 1, "s2:TH s3:JH s4:KH", "9C QC KC AC 7D JD QD QS", "QS"),
    ("L5", "H", 1, "s3:QS s4:QH", "QC KC 7D KD 9H JH", "9H JH"),
    ("L6", "C", 1, "s3:QH s4:JC", "8C 9D QD TS JS", "8C 9D QD TS JS"),
    ("L7", "D", 4, "s1:QH s2:TH s3:8S", "KD AD KS", "KD AD KS"),
    ("L8", "D", 4, "s1:KH s2:JD s3:8H", "9C JC KC AC TD 9S", "9C JC KC AC TD 9S"),
    ("L9", "AT", 1, "s3:QH s4:JC", "JH KH TS", "JH KH"),
    ("L10", "AT", 2, "s3:KC s4:AD s1:7S", "9C KS", "9C"),
    ("L11", "AT", 1, "s2:KH s3:KC s4:7H", "7C 7D 8D TD JD", "7C 7D 8D TD JD"),
    ("L12", "NT", 3, "s2:JS", "9C 9D QD 9H JH QH KH AS", "AS"),
    ("L13", "C", 3, "s1:TS s2:AH", "8C AC 7D", "8C AC 7D"),
]


@pytest.mark.parametrize(("name", "contract", "seat", "trick", "hand", "legal"), VECTORS)
def test_legal_card_vectors_BG_P2_P3_P4_P5_P6_P7(
    name: str, contract: str, seat: int, trick: str, hand: str, legal: str
) -> None:
    """BG-P2, BG-P3, BG-P4, BG-P5, BG-P6, BG-P7: the exact legal sets of §1.9.1."""
    assert legal_cards(position(contract, seat, trick, hand)) == set(cards(legal)), name


def test_leader_plays_any_card_BG_P1() -> None:
    s = position("H", 1, "", "7C AS JH 8D")
    assert legal_cards(s) == set(cards("7C AS JH 8D"))


def test_no_raise_in_no_trumps_BG_P4_and_raise_over_partner_BG_P3() -> None:
    assert legal_cards(position("NT", 3, "s1:9S s2:7S", "8S AS")) == set(cards("8S AS"))
    assert legal_cards(position("S", 3, "s1:9S s2:7S", "8S JS")) == {parse_card("JS")}


# -- bad input: syntax, illegal with the rule, out of turn; nothing changes ------------------


@pytest.mark.parametrize("text", ["", "bid", "bid:X", "play:1H", "declare:7S,8S", "belot:AS",
                                  "declare:7S,9S,TS", "contra:C", "dance", "declare:7S,7S,8S"])
def test_malformed_actions_raise_invalid(text: str) -> None:
    with pytest.raises(InvalidActionError):
        GAME.parse_action(text)


def test_illegal_card_names_rule_and_changes_nothing_BG_P2() -> None:
    s = position("D", 1, "s4:TC", "8C JC KC JH 8S TS")
    before = GAME.audit_view(s)
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("play:JH"))
    assert exc.value.rule == "BG-P2" and "'play:JH'" in exc.value.message
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("play:AS"))
    assert exc.value.rule == "BG-P1"
    with pytest.raises(NotYourTurnError):
        GAME.apply(s, 1, GAME.parse_action("play:8C"))
    assert GAME.audit_view(s) == before


def test_must_trump_and_overtrump_messages_BG_P5() -> None:
    s = position("S", 1, "s2:TH s3:JH s4:KH", "9C QC KC AC 7D JD QD QS")
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("play:AC"))
    assert exc.value.rule == "BG-P5"


# -- declarations and belot (BG-A1 .. BG-A8) -------------------------------------------------


def _decl(pairs: list[tuple[int, str]], rules: BelotRules = DEFAULT) -> list[int]:
    return resolve_declarations([(s, GAME.parse_action("declare:" + t)) for s, t in pairs], rules)


def test_D1_longer_or_higher_sequence_wins_BG_A5() -> None:
    assert _decl([(0, "TS,JS,QS,KS"), (1, "JH,QH,KH,AH")]) == [0, 50]


def test_D2_equal_best_sequences_void_all_BG_A5() -> None:
    assert _decl([(0, "TS,JS,QS,KS"), (0, "7C,8C,9C"), (1, "TH,JH,QH,KH")]) == [0, 0, 0]


def test_D3_kare_of_tens_beats_kings_BG_A6() -> None:
    assert _decl([(0, "TC,TD,TH,TS"), (1, "KC,KD,KH,KS")]) == [100, 0]
    assert _decl([(0, "TC,TD,TH,TS"), (1, "KC,KD,KH,KS")],
                 BelotRules(bg_kare_order="rank")) == [0, 100]  # V7


def test_D4_sequences_and_kares_are_separate_contests_BG_A6_BG_A1() -> None:
    got = _decl([(0, "7C,8C,9C"), (2, "JC,JD,JH,JS"), (1, "8H,9H,TH,JH,QH")])
    assert got == [0, 200, 100]


def test_D5_no_belot_on_a_discard_in_all_trumps_BG_A7() -> None:
    s = position("AT", 2, "s1:7C", "KH QH 9D")
    legal = {GAME.format_action(a) for a in GAME.legal_actions(s)}
    assert "play:QH" in legal and "belot:QH" not in legal
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 1, GAME.parse_action("belot:QH"))
    assert exc.value.rule == "BG-A7"
    lead = position("AT", 2, "", "KH QH 9D")
    assert {"belot:KH", "belot:QH"} <= {GAME.format_action(a) for a in GAME.legal_actions(lead)}


def _trick_one(contract: str, hand: str) -> BelotState:
    s = position(contract, 1, "", hand)
    s.tricks = ()
    return s


def test_declarations_timing_and_holding_BG_A3_and_one_card_one_combination_BG_A4() -> None:
    s = _trick_one("H", "KC KD KH KS TS JS QS 7D")
    legal = {GAME.format_action(a) for a in GAME.legal_actions(s)}
    assert {"declare:KC,KD,KH,KS", "declare:TS,JS,QS"} <= legal
    assert "declare:TS,JS,QS,KS" in legal and "declare:JS,QS,KS" not in legal  # BG-A1 whole run
    s = play(s, "declare:KC,KD,KH,KS")
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("declare:TS,JS,QS,KS"))
    assert exc.value.rule == "BG-A4"
    s = play(s, "declare:TS,JS,QS")
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("declare:9C,9D,9H,9S"))
    assert exc.value.rule == "BG-A3"
    view = GAME.view(s, 1)
    assert view["declarations"] == [{"seat": 0, "kind": "kare"}, {"seat": 0, "kind": "terca"}]
    s = play(s, "play:7D")
    with pytest.raises(NotYourTurnError):
        GAME.apply(s, 0, GAME.parse_action("declare:TS,JS,QS"))


def test_no_declarations_or_belot_in_no_trumps_BG_A2() -> None:
    s = _trick_one("NT", "KC KD KH KS QS JS TS 7D")
    assert all(a < 64 for a in GAME.legal_actions(s))
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, 0, GAME.parse_action("declare:KC,KD,KH,KS"))
    assert exc.value.rule == "BG-A2"


def test_valat_golden_record_BG_A8_BG_S1() -> None:
    # Seat 0 holds all eight spades, bids spades and takes every trick: 152 + 10 + kvinta 100
    # (the 8-card run, BG-A5) + belot 20 + valat 90 = 372 raw -> 37 (BG-R2: 2 rounds down).
    code, out = verify_path(str(GOLDEN / "valat_spades.json"))
    assert code == 0, out
    r = out["result"]
    assert r["raw"] == [152 + 10 + 100 + 20 + 90, 0] and r["points"] == [37, 0]
    assert r["tricks"] == [8, 0] and r["valat"] == 0


# -- scoring: S1–S20 (BG-S1 .. BG-S8, BG-R1 .. BG-R4) ----------------------------------------

NS, EW = 0, 1
SCORING = [
    ("S1", "H", 1, NS, (96, 66), False, (9, 7), 0),
    ("S2", "C", 1, EW, (56, 106), False, (6, 10), 0),
    ("S3", "C", 1, NS, (56, 106), False, (0, 16), 0),
    ("S4", "C", 1, EW, (6, 156), False, (1, 15), 0),
    ("S5", "AT", 1, EW, (34, 224), False, (4, 22), 0),
    ("S6", "AT", 1, EW, (164, 194), False, (17, 19), 0),
    ("S7", "NT", 1, NS, (146, 114), False, (15, 11), 0),
    ("S8", "S", 1, EW, (91, 71), False, (16, 0), 0),
    ("S9", "C", 1, NS, (81, 81), False, (0, 8), 8),
    ("S11", "C", 1, NS, (106, 106), False, (0, 10), 11),
    ("S12", "AT", 1, NS, (154, 154), False, (0, 15), 16),
    ("S13", "H", 2, NS, (90, 92), False, (0, 36), 0),
    ("S14", "AT", 4, NS, (170, 88), False, (104, 0), 0),
    ("S15", "C", 2, NS, (91, 91), False, (0, 0), 36),
    ("S16", "D", 1, NS, (272, 0), True, (27, 0), 0),
    ("S17", "D", 2, NS, (272, 0), True, (27, 0), 0),
    ("S18", "NT", 1, NS, (350, 0), True, (35, 0), 0),
    ("S19", "C", 1, NS, (85, 77), False, (8, 8), 0),
    ("S20", "AT", 1, NS, (150, 108), False, (15, 11), 0),
]


@pytest.mark.parametrize(
    ("name", "contract", "level", "declarer", "raw", "valat", "points", "hanging"), SCORING
)
def test_scoring_examples_BG_S2_S3_S4_S5_S7_S8_BG_R1_R2_R3_R4(
    name: str, contract: str, level: int, declarer: int, raw: tuple[int, int], valat: bool,
    points: tuple[int, int], hanging: int,
) -> None:
    """BG-S2, BG-S3, BG-S4, BG-S5, BG-S7, BG-S8, BG-R1, BG-R2, BG-R3, BG-R4: §1.9.2."""
    got = score_deal(MODES[contract], level, declarer, raw, valat, DEFAULT)
    assert (got.points, got.hanging) == (points, hanging), name


def test_S7_S18_no_trumps_doubling_valat_not_doubled_BG_S1() -> None:
    # S7: NT cards 73-57 (last ten included) are doubled before scoring.
    assert score_deal(NO_TRUMPS, 1, NS, (2 * 73, 2 * 57), False, DEFAULT).points == (15, 11)
    assert 2 * 130 + 90 == 350  # S18's raw: the 90 is added after the doubling


def test_S10_hanging_pot_goes_to_next_winner_BG_S6() -> None:
    m = GAME.new_match(DEFAULT, 0)
    hung = score_deal(0, 1, NS, (81, 81), False, DEFAULT)  # S9
    m = GAME.after_hand(m, _result(hung), DEFAULT)
    assert m.scores == (0, 8) and m.carry[0] == 8
    won = score_deal(0, 1, NS, (100, 62), False, DEFAULT)
    m = GAME.after_hand(m, _result(won), DEFAULT)
    assert m.scores == (18, 14) and m.carry[0] == 0


def test_valat_contra_variant_BG_S8() -> None:
    undoubled = BelotRules(bg_valat_contra="undoubled")
    assert score_deal(1, 2, NS, (272, 20), True, DEFAULT).points == (29, 0)
    assert score_deal(1, 2, NS, (272, 20), True, undoubled).points == (27, 2)


def _result(score: object) -> HandResult:
    points, hanging, pot_winner, outcome = score  # type: ignore[misc]
    return HandResult(points, {"hanging": hanging, "pot_winner": pot_winner, "valat": None,
                               "outcome": outcome})


# -- the match: G1–G3 (BG-G1 .. BG-G3) --------------------------------------------------------


def _deal_points(points: tuple[int, int], valat: bool = False) -> HandResult:
    return HandResult(points, {"hanging": 0, "pot_winner": 0 if points[0] else 1,
                               "valat": 0 if valat else None})


def test_G1_reaching_151_wins_BG_G1() -> None:
    m = MatchState(scores=(145, 120), dealer=0, carry=(0, 0))
    m = GAME.after_hand(m, _deal_points((16, 0)), DEFAULT)
    assert m.over and m.winner == 0 and m.scores == (161, 120)


def test_G2_higher_wins_and_tie_plays_on_BG_G1() -> None:
    m = GAME.after_hand(MatchState((150, 150), 0, carry=(0, 0)), _deal_points((10, 5)), DEFAULT)
    assert m.scores == (160, 155) and m.over and m.winner == 0
    m = GAME.after_hand(MatchState((150, 150), 0, carry=(0, 0)), _deal_points((8, 8)), DEFAULT)
    assert m.scores == (158, 158) and not m.over


def test_G3_no_going_out_on_a_valat_BG_G2_BG_G3() -> None:
    m = GAME.after_hand(MatchState((140, 60), 0, carry=(5, 0)), _deal_points((27, 0), True),
                        DEFAULT)
    assert m.scores == (172, 60) and not m.over  # 140 + 27 + the pot 5: one more deal
    m = GAME.after_hand(m, HandResult((0, 0), {}, void=True), DEFAULT)
    assert not m.over  # an all-pass deal does not count
    m = GAME.after_hand(m, _deal_points((0, 16)), DEFAULT)
    assert m.over and m.winner == 0 and m.carry[0] == 0
    off = BelotRules(bg_valat_exit="off")
    m = GAME.after_hand(MatchState((140, 60), 0, carry=(0, 0)), _deal_points((27, 0), True), off)
    assert m.over


def test_match_golden_record_with_hanging_points_BG_S6_BG_S7() -> None:
    data = json.loads((GOLDEN / "match_hanging.json").read_text())
    code, out = verify_data(data)
    assert code == 0, out
    results = [h["result"] for h in out["hands"]]
    assert any(r.get("hanging") for r in results)
    # The final scores are the deals' points plus every pot, given to the next deal's winner.
    scores, pot = [0, 0], 0
    for r in results:
        if r.get("void"):
            continue
        scores = [scores[0] + r["points"][0], scores[1] + r["points"][1]]
        if r["pot_winner"] is not None:
            scores[r["pot_winner"]] += pot
            pot = 0
        pot += r["hanging"]
    assert out["result"]["scores"] == scores
    assert out["result"]["winner"] == (0 if scores[0] > scores[1] else 1)


def test_registered_and_record_errors() -> None:
    assert isinstance(find_game("belot"), Belot)
    bad = json.loads((GOLDEN / "valat_spades.json").read_text())
    bad["actions"][5]["action"] = "play:7H"  # seat 0 holds only spades
    code, out = verify_data(bad)
    assert code == 1 and out["error"]["reason"] == "ILLEGAL_ACTION"
