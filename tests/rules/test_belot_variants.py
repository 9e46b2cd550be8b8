"""Bulgarian Belot's variant parameters, each with a non-default value (``rules/belot-coinche.md``
§1 and the BG rows of §3, V1–V13), citing the rule each one changes; and the two defects of
issue 18 (``bg_small_side_min_one`` broke BG-R, ``bg_valat_contra`` had no V3 reading that
keeps the multiplier)."""

from __future__ import annotations

import pytest

from referee.rules.cards import PACK_32
from referee.rules.errors import IllegalActionError
from referee.rules.game import HandResult, MatchState
from referee.rules.games.belot import (
    GAME,
    BelotRules,
    BelotState,
    decl_points,
    resolve_declarations,
    round_all,
    score_deal,
)
from referee.rules.games.belote_family import ALL_TRUMPS, NO_TRUMPS

DEFAULT = BelotRules()
NS, EW = 0, 1
CLUBS, HEARTS = 0, 2


def fresh(rules: BelotRules, dealer: int = 3) -> BelotState:
    return GAME.new_hand(GAME.deal(list(PACK_32), dealer), dealer, rules)


def play(state: BelotState, *texts: str) -> BelotState:
    for text in texts:
        state = GAME.apply(state, state.to_act, GAME.parse_action(text)).state
    return state


def code(text: str) -> int:
    return GAME.parse_action(text)


# -- BG-R, V11: bg_small_side_min_one --------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "raw", "default", "min_one"),
    [
        (CLUBS, (158, 4), (16, 0), (15, 1)),  # suit: 162 -> 16
        (ALL_TRUMPS, (255, 3), (26, 0), (25, 1)),  # all trumps: 258 -> 26
        (NO_TRUMPS, (256, 4), (26, 0), (25, 1)),  # no trumps (doubled): 260 -> 26
    ],
)
def test_small_side_min_one_moves_the_point_BG_R_V11(
    mode: int, raw: tuple[int, int], default: tuple[int, int], min_one: tuple[int, int]
) -> None:
    """BG-R: the two figures always add up to the rounded deal total. With
    ``bg_small_side_min_one`` (V11, the 2001 program) a side that took points never rounds to
    0: it gets 1, taken from the other side, not added (which made 17 / 27)."""
    rules = BelotRules(bg_small_side_min_one=True)
    assert score_deal(mode, 1, NS, raw, False, DEFAULT).points == default
    got = score_deal(mode, 1, NS, raw, False, rules)
    assert got.points == min_one and got.outcome == "made"
    assert sum(got.points) == round_all(sum(raw))


def test_small_side_min_one_leaves_other_deals_alone_BG_R_V11() -> None:
    rules = BelotRules(bg_small_side_min_one=True)
    for raw in [(96, 66), (158, 4), (100, 62), (162, 0), (85, 77)]:
        got = score_deal(CLUBS, 1, NS, raw, raw[1] == 0, rules)
        assert sum(got.points) + got.hanging == round_all(sum(raw)), raw
    # a side with no points stays at 0 (BG-S16: valat)
    assert score_deal(CLUBS, 1, NS, (252, 0), True, rules).points == (25, 0)
    # inside (BG-S4): the defenders take all, the declarers 0 however many points they had
    assert score_deal(CLUBS, 1, NS, (4, 158), False, rules).points == (0, 16)


# -- BG-S8, V3: bg_valat_contra --------------------------------------------------------------


def test_valat_under_contra_keeps_its_multiplier_BG_S8_V3() -> None:
    """V3, the source text's reading: the valat premium is doubled too, so a valat under
    contra (recontra) scores x2 (x4): round first, then multiply (BG-R4)."""
    keeps = BelotRules(bg_valat_contra="keeps_multiplier")
    # S17: diamonds by NS, valat and belot, contra: 272 - 0
    assert score_deal(1, 2, NS, (272, 0), True, DEFAULT).points == (27, 0)
    assert score_deal(1, 2, NS, (272, 0), True, keeps).points == (54, 0)
    assert score_deal(1, 4, NS, (272, 0), True, keeps).points == (108, 0)
    # the side without tricks had declarations: all to the valat side, doubled (V3: 272 - 20)
    assert score_deal(1, 2, NS, (272, 20), True, keeps).points == (58, 0)
    # a valat by the defenders of a recontra: the defenders take 4 x the total
    got = score_deal(1, 4, NS, (0, 272), True, keeps)
    assert got.points == (0, 108) and got.outcome == "inside"
    # without a contra the choice changes nothing (BG-S1)
    assert score_deal(1, 1, NS, (272, 0), True, keeps).points == (27, 0)


def test_valat_contra_choices_are_documented_BG_S8() -> None:
    spec = {s.name: s for s in BelotRules.param_specs()}["bg_valat_contra"]
    assert spec.choices == ("winner_takes_all", "undoubled", "keeps_multiplier")
    assert "keeps_multiplier" in spec.doc and spec.rule == "BG-S8"


# -- the other parameters, one non-default value each ------------------------------------------


def _deal(points: tuple[int, int], valat: bool = False) -> HandResult:
    return HandResult(points, {"hanging": 0, "pot_winner": 0 if points[0] else 1,
                               "valat": 0 if valat else None})


def test_target_score_BG_G1() -> None:
    rules = BelotRules(target_score=30)
    m = GAME.after_hand(GAME.new_match(rules, 0), _deal((16, 0)), rules)
    assert not m.over
    m = GAME.after_hand(m, _deal((14, 2)), rules)
    assert m.over and m.winner == 0 and m.scores == (30, 2)
    assert not GAME.after_hand(GAME.new_match(DEFAULT, 0), _deal((30, 2)), DEFAULT).over


def test_surcontra_third_level_BG_B1_V12() -> None:
    rules = BelotRules(bg_surcontra=True)
    s = play(fresh(rules), "bid:C", "contra", "recontra")
    assert code("surcontra") in GAME.legal_actions(s)  # the defenders answer the recontra
    s = play(s, "surcontra")
    assert s.level == 8 and code("surcontra") not in GAME.legal_actions(s)
    with pytest.raises(IllegalActionError) as exc:
        GAME.apply(s, s.to_act, code("recontra"))
    assert exc.value.rule == "BG-B4"
    s = play(s, "pass", "pass", "pass")
    assert GAME.view(s, None)["doubled"] == "surcontra"
    assert score_deal(CLUBS, 8, NS, (100, 62), False, rules).points == (128, 0)  # 8 x 16
    assert code("surcontra") not in GAME.legal_actions(
        play(fresh(DEFAULT), "bid:C", "contra", "recontra"))


def test_valat_exit_winner_scores_last_BG_G2_V5() -> None:
    """NikolayIT's reading: the game ends only on a non-valat deal in which the leader
    scored."""
    rules = BelotRules(bg_valat_exit="winner_scores_last")
    m = GAME.after_hand(MatchState((140, 60), 0, carry=(0, 0)), _deal((27, 0), True), rules)
    assert not m.over
    m = GAME.after_hand(m, _deal((0, 16)), rules)  # 167 - 76: the leader did not score
    assert not m.over
    assert GAME.after_hand(m, _deal((8, 8)), rules).over
    # the default (one more deal) ends after the (0, 16) deal
    d = GAME.after_hand(MatchState((140, 60), 0, carry=(0, 0)), _deal((27, 0), True), DEFAULT)
    assert GAME.after_hand(d, _deal((0, 16)), DEFAULT).over


def test_eight_card_run_kvinta_terca_BG_A5_V6() -> None:
    eight = code("declare:7H,8H,9H,TH,JH,QH,KH,AH")
    assert decl_points(eight, DEFAULT) == 100
    rules = BelotRules(bg_seq8="kvinta_terca")
    assert decl_points(eight, rules) == 120
    assert decl_points(code("declare:7H,8H,9H,TH,JH,QH,KH"), rules) == 100  # 7 cards: kvinta
    # it still ranks as an 8-card run in the contest (BG-A5)
    assert resolve_declarations([(0, eight), (1, code("declare:7S,8S,9S,TS,JS"))], rules) == [
        120, 0]


def test_combined_declaration_contest_BG_A6_V8() -> None:
    """D4 under V8: one contest. NS's kare of Js (200) is the best declaration, so NS scores it
    and its terca; EW's kvinta scores nothing (separate contests: 200 and 100)."""
    decls = [(0, code("declare:7C,8C,9C")), (0, code("declare:JC,JD,JH,JS")),
             (1, code("declare:7S,8S,9S,TS,JS"))]
    assert resolve_declarations(decls, DEFAULT) == [0, 200, 100]
    combined = BelotRules(bg_declaration_contest="combined")
    assert resolve_declarations(decls, combined) == [20, 200, 0]
    # a kare beats a sequence of equal points; a complete tie voids everything
    kvinta_vs_kare = [(0, code("declare:9D,TD,JD,QD,KD")), (1, code("declare:AC,AD,AH,AS"))]
    assert resolve_declarations(kvinta_vs_kare, combined) == [0, 100]
    tie = [(0, code("declare:7C,8C,9C")), (1, code("declare:7D,8D,9D"))]
    assert resolve_declarations(tie, combined) == [0, 0]


def test_declarations_in_no_trumps_not_doubled_BG_A2_V9() -> None:
    rules = BelotRules(bg_nt_declarations=True)
    s = play(fresh(rules), "bid:NT", "pass", "pass", "pass")
    legal = [GAME.format_action(a) for a in GAME.legal_actions(s)]
    assert "declare:7C,8C,9C" in legal and "declare:JH,QH,KH" in legal
    plain = play(fresh(DEFAULT), "bid:NT", "pass", "pass", "pass")
    assert not any(GAME.format_action(a).startswith("declare") for a in
                   GAME.legal_actions(plain))  # BG-A2
    s = play(s, "declare:7C,8C,9C")
    while not GAME.is_terminal(s):
        s = GAME.apply(s, s.to_act, GAME.legal_actions(s)[0]).state
    d = GAME.result(s).detail
    assert d["declarations"] == [{"seat": 0, "kind": "terca", "cards": ["7C", "8C", "9C"],
                                  "points": 20}]
    for t in (0, 1):
        cards = d["card_points"][t] + (10 if d["last_trick"] == t else 0)
        valat = 90 if d["tricks"][t] == 8 else 0
        assert d["raw"][t] == 2 * cards + (20 if t == 0 else 0) + valat  # the 20 not doubled


def test_suit_rounding_half_up_BG_R2_V10() -> None:
    """S19 under V10: naive half-up rounding writes 9 - 8 for 85 - 77 (17 in all), where the
    seed's BG-R2 writes 8 - 8."""
    half_up = BelotRules(bg_suit_rounding="half_up")
    assert score_deal(CLUBS, 1, NS, (85, 77), False, DEFAULT).points == (8, 8)
    assert score_deal(CLUBS, 1, NS, (85, 77), False, half_up).points == (9, 8)
    # S1: the problem digit 6 is no longer special
    assert score_deal(HEARTS, 1, NS, (96, 66), False, half_up).points == (10, 7)
    # all trumps keep BG-R3 (the parameter is about suit contracts)
    assert score_deal(ALL_TRUMPS, 1, EW, (34, 224), False, half_up).points == (4, 22)
