"""Ulti (rules/euchre-pedro-ulti.md §3): rule ids UL-1 .. UL-36 and test vectors U-T1 .. U-T20."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.rules.cards import CLUBS, DIAMONDS, HEARTS, HUNGARIAN_32, SPADES, mask_of, parse_card
from referee.rules.conformance import check_playout
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import Announced, Deal, HandEnded, TrickTaken
from referee.rules.games.ulti import Ulti, UltiRules, UltiState
from referee.rules.games.ulti import game as ulti_game
from referee.rules.games.ulti.contracts import BETLI, C40, LADDER, PARTI, by_key
from referee.rules.games.ulti.game import _bid_tables, legal_cards, trick_winner
from referee.rules.games.ulti.scoring import Tally, settle
from referee.verify import verify_data
from tests.rules.fingerprint import playout_digest

G = Ulti()
R = UltiRules()
GOLDEN = Path(__file__).parent.parent / "golden" / "ulti"
_SUIT = {"P": "H", "T": "D", "Z": "S", "M": "C"}
_RANK = {"U": "J", "O": "Q", "X": "T"}


def hc(text: str) -> int:
    """A card in the reference's Hungarian notation, e.g. ``"P X"`` (piros ten)."""
    suit, rank = text.split()
    return parse_card(_RANK.get(rank, rank) + _SUIT[suit])


def hm(*texts: str) -> int:
    return mask_of(hc(t) for t in texts)


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


# A deal where seat 0 (first, dealer 2) holds every 7, 8 and 9: it can lose every trick.
LOW = "7C 8C 9C 7D 8D 9D 7H 8H 9H 7S 8S 9S"
HIGH1 = "TC JC QC KC AC TD JD QD KD AD"
HIGH2 = "TH JH QH KH AH TS JS QS KS AS"
LOW10 = "7C 8C 9C 7D 8D 9D 7H 8H 7S 8S"


def low_deal() -> Deal:
    return Deal(hands=(cards(LOW), cards(HIGH1), cards(HIGH2)), stock=())


def run(state: UltiState, *actions: tuple[int, str], rules: UltiRules = R) -> UltiState:
    for seat, text in actions:
        state = G.apply(state, seat, G.parse_action(text)).state
    return state


def stand_on(contract: str, rules: UltiRules = R, deal: Deal | None = None) -> UltiState:
    """Seat 0 discards 9H 9S and bids ``contract``; both others pass; seat 0 stands."""
    state = G.new_hand(deal or low_deal(), 2, rules)
    return run(state, (0, "discard:9H,9S"), (0, f"bid:{contract}"), (1, "pass"), (2, "pass"),
               (0, "stand"))


# -- components, deal (UL-1 .. UL-6) --------------------------------------------------------


def test_ul1_ul6_pack_and_deal_talon_with_first_player() -> None:
    """UL-1: 32 cards; UL-5: the first player is dealer+1; UL-6: 12 cards to the first player,
    10 to the others, no stock."""
    assert len(G.pack) == 32 and G.pack == HUNGARIAN_32
    deal = G.deal(list(G.pack), dealer=1)
    assert [len(h) for h in deal.hands] == [10, 10, 12] and deal.stock == ()
    state = G.new_hand(deal, 1, R)
    assert G.current_seat(state) == 2 and state.phase == ulti_game.DISCARD


def test_ul2_u_t1_rank_order() -> None:
    """U-T1 / UL-2 / UL-26: X beats K in a suit contract; U beats X in betli."""
    assert trick_winner((hc("T K"), hc("T X"), hc("T 9")), SPADES) == 1
    assert trick_winner((hc("P X"), hc("P U"), hc("P 9")), -1) == 1


def test_ul26_highest_trump_wins() -> None:
    """UL-26: any trump beats the led suit; colourless, only the led suit wins."""
    assert trick_winner((hc("P A"), hc("T 7"), hc("P X")), DIAMONDS) == 1
    assert trick_winner((hc("P 7"), hc("T A"), hc("P 8")), -1) == 2


def test_ul3_card_points_total_90() -> None:
    """UL-3: aces and tens are 10 each (80), plus 10 for the last trick."""
    from referee.rules.games.ulti.game import CARD_POINTS

    assert sum(CARD_POINTS[c] for c in HUNGARIAN_32) + 10 == 90


# -- play obligations (UL-23, UL-24, UL-25) -------------------------------------------------


def test_u_t2_must_beat() -> None:
    """U-T2 / UL-23 / UL-24: must beat when possible, else follow."""
    assert legal_cards(hm("P 7", "P A", "P 9"), [hc("P K")], DIAMONDS) == hm("P A")
    assert legal_cards(hm("P 7", "P 8", "T A"), [hc("P A")], DIAMONDS) == hm("P 7", "P 8")


def test_u_t3_third_player_beats_the_highest() -> None:
    """U-T3 / UL-24: the card to beat is the best so far, not the led card."""
    hand = hm("P 8", "P X", "T 9")
    assert legal_cards(hand, [hc("P 7"), hc("P K")], DIAMONDS) == hm("P X")


def test_u_t4_must_trump_and_overtrump() -> None:
    """U-T4 / UL-23: void in the led suit: trump, and overtrump when possible."""
    assert legal_cards(hm("P 7", "P A", "T K"), [hc("Z A"), hc("P 9")], HEARTS) == hm("P A")
    hand = hm("P 7", "P 8", "T K")
    assert legal_cards(hand, [hc("Z A"), hc("P A")], HEARTS) == hm("P 7", "P 8")


def test_u_t5_betli_order_and_no_trump_duty() -> None:
    """U-T5 / UL-2 / UL-24: betli order for must-beat; a void player plays anything."""
    assert legal_cards(hm("P 7", "P X", "P K"), [hc("P 9")], -1) == hm("P X", "P K")
    hand = hm("T 7", "Z A")
    assert legal_cards(hand, [hc("P 9")], -1) == hand


def test_ul24_must_beat_after_trumped_flag() -> None:
    """UL-24 [OPEN]: once trumped, following suit need not beat with the flag off."""
    hand = hm("P 8", "P A")
    trick = [hc("P K"), hc("T 8")]
    assert legal_cards(hand, trick, DIAMONDS) == hm("P A")
    assert legal_cards(hand, trick, DIAMONDS, must_beat_after_trumped=False) == hand


def test_ul25_ul22_ulti_seven_held_back() -> None:
    """UL-25: with an ulti the declarer keeps the trump 7 while other cards are legal;
    UL-22: the declarer leads trick 1."""
    state = stand_on("ulti")
    assert state.phase == ulti_game.TRUMP
    state = run(state, (0, "name:C"))
    assert G.current_seat(state) == 0
    assert parse_card("7C") not in G.legal_actions(state)
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 0, parse_card("7C"))
    assert err.value.rule == "UL-25"
    relaxed = stand_on("ulti", UltiRules(hold_ulti_seven=False))
    relaxed = run(relaxed, (0, "name:C"))
    assert parse_card("7C") in G.legal_actions(relaxed)


# -- the ladder (UL-7 .. UL-9) --------------------------------------------------------------

REFERENCE_VALUES = [1, 2, 4, 5, 5, 6, 8, 8, 8, 10, 10, 10, 10, 12, 12, 12, 14, 14, 16, 16, 16,
                    16, 18, 20, 20, 20, 20, 20, 24, 24, 28, 28, 32, 32, 36, 40, 40, 48]


def test_ul7_ul8_ul9_ladder_values() -> None:
    """UL-9: 38 bids with the reference's values; UL-8: each value is its components' sum;
    UL-7: piros doubles (piros passz 2, piros ulti 10); terített durchmars 12, betli 20."""
    assert [c.value for c in LADDER] == REFERENCE_VALUES
    assert by_key("piros_passz").value == 2 * by_key("passz").value
    assert by_key("piros_ulti").value == 10 and by_key("ulti").value == 4 + 1
    assert by_key("teritett_durchmars").value == 12 and by_key("teritett_betli").value == 20
    assert by_key("teritett_betli").open and not by_key("betli").open
    assert by_key("betli").colourless and by_key("piros_passz").trump == "piros"


def test_u_t6_ul10_ul11_ul12_auction_flow() -> None:
    """U-T6: P0 Passz, P1 pass, P2 picks up for Ulti, P0 picks up for Betli, passes, P0
    stands and declares Betli. UL-10: the first player must bid; UL-11/UL-12."""
    state = G.new_hand(G.deal(list(G.pack), 2), 2, R)
    hand0 = [a for a in G.legal_actions(state)]
    state = run(state, (0, G.format_action(hand0[0])))
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 0, G.parse_action("pass"))
    assert err.value.rule == "UL-10"
    state = run(state, (0, "bid:passz"), (1, "pass"), (2, "pickup"))
    assert bin(state.hands[2]).count("1") == 12
    state = run(state, (2, G.format_action(G.legal_actions(state)[0])), (2, "bid:ulti"))
    state = run(state, (0, "pickup"))
    state = run(state, (0, G.format_action(G.legal_actions(state)[-1])))
    state = run(state, (0, "bid:betli"), (1, "pass"), (2, "pass"))
    assert list(G.legal_actions(state)) == [G.parse_action("pickup"), G.parse_action("stand")]
    state = run(state, (0, "stand"))
    assert state.declarer == 0 and state.contract == by_key("betli")
    assert state.phase == ulti_game.PLAY and state.trump == -1 and G.current_seat(state) == 0


def test_u_t6_equal_value_overcall_off() -> None:
    """U-T6 / UL-9: with equal_value_overcall off, Betli (5) cannot overcall Ulti (5)."""
    rules = UltiRules(equal_value_overcall=False)
    state = G.new_hand(low_deal(), 2, rules)
    state = run(state, (0, "discard:9H,9S"), (0, "bid:ulti"), (1, "pickup"),
                (1, "discard:TC,JC"), rules=rules)
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 1, G.parse_action("bid:betli"))
    assert err.value.rule == "UL-9"
    assert G.parse_action("bid:durchmars") in G.legal_actions(state)


def test_u_t7_no_pickup_over_the_top_bid() -> None:
    """U-T7 / UL-11: over bid #38 nobody may pick up; the holder must stand."""
    top = LADDER[-1].key
    state = G.new_hand(low_deal(), 2, R)
    state = run(state, (0, "discard:9H,9S"), (0, f"bid:{top}"))
    assert list(G.legal_actions(state)) == [G.parse_action("pass")]
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 1, G.parse_action("pickup"))
    assert err.value.rule == "UL-11"
    state = run(state, (1, "pass"), (2, "pass"))
    assert list(G.legal_actions(state)) == [G.parse_action("stand")]


def test_ul7_ul9_seed_ladder_variant() -> None:
    """UL-9 [VARIANT]: "The seed's minimal ladder (UL-7) is a subset of the table": each
    feature alone, plain or piros, in table order; compounds such as 40-100 ulti (#7) are
    not bids."""
    rules = UltiRules(ladder="seed")
    state = run(G.new_hand(low_deal(), 2, rules), (0, "discard:9H,9S"), rules=rules)
    bids = [G.format_action(a).removeprefix("bid:") for a in G.legal_actions(state)]
    assert bids == ["passz", "piros_passz", "40-100", "ulti", "betli", "durchmars",
                    "piros_40-100", "20-100", "piros_ulti", "rebetli", "redurchmars",
                    "teritett_durchmars", "piros_20-100", "teritett_betli"]
    assert len(G.legal_actions(run(G.new_hand(low_deal(), 2, R), (0, "discard:9H,9S")))) == 38
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 0, G.parse_action("bid:40-100_ulti"))
    assert err.value.rule == "UL-9"


def test_ul12_two_passes_variant() -> None:
    """UL-12 [VARIANT KJ]: the auction ends after two passes, with no stand."""
    rules = UltiRules(auction_end="two_passes")
    state = G.new_hand(low_deal(), 2, rules)
    state = run(state, (0, "discard:9H,9S"), (0, "bid:betli"), (1, "pass"), (2, "pass"))
    assert state.phase == ulti_game.PLAY and state.declarer == 0


def test_ul12_raise_without_talon_variant() -> None:
    """UL-12 [VARIANT pagat]: a higher bid without picking up the talon."""
    state = G.new_hand(low_deal(), 2, R)
    state = run(state, (0, "discard:9H,9S"), (0, "bid:passz"))
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 1, G.parse_action("bid:betli"))
    assert err.value.rule == "UL-11"
    rules = UltiRules(raise_without_talon=True)
    state = G.new_hand(low_deal(), 2, rules)
    state = run(state, (0, "discard:9H,9S"), (0, "bid:passz"), (1, "bid:betli"))
    assert state.holder == 1 and state.hands[1].bit_count() == 10


def test_ul13_ul14_declarer_names_trump_not_piros() -> None:
    """UL-13: the last bidder declares; UL-14: names tök, zöld or makk, never piros."""
    state = stand_on("passz")
    assert state.declarer == 0 and G.current_seat(state) == 0
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 0, G.parse_action("name:H"))
    assert err.value.rule == "UL-14"
    state = run(state, (0, "name:S"))
    assert state.trump == SPADES and state.phase == ulti_game.PLAY


def test_ul15_passz_standing_pay_variant() -> None:
    """UL-15 [SEED]: an unraised Passz is played; [VARIANT] the first player pays 2 each."""
    assert stand_on("passz").phase == ulti_game.TRUMP
    state = stand_on("passz", UltiRules(passz_standing="pay"))
    assert G.is_terminal(state) and G.result(state).points == (-4, 2, 2)


# -- marriages, kontra, open contracts (UL-16 .. UL-21), early stop (UL-27) ----------------


def play_first_legal(state: UltiState) -> UltiState:
    while not G.is_terminal(state):
        seat = G.current_seat(state)
        assert seat is not None
        if state.phase == ulti_game.KONTRA:
            state = G.apply(state, seat, G.parse_action("pass")).state
        else:
            state = G.apply(state, seat, G.legal_actions(state)[0]).state
    return state


def test_u_t20_ul21_open_hand_after_trick_1_and_ul20_ul19_kontra() -> None:
    """U-T20 / UL-21: in terített betli the declarer's hand is public after trick 1, not
    before. UL-20: kontra after trick 1, defenders then the declarer; UL-18: rekontra ×4;
    UL-19: individual in colourless contracts; UL-32: betli won with no trick."""
    state = stand_on("teritett_betli")
    assert state.phase == ulti_game.PLAY
    state = run(state, (0, "play:7C"))
    for seat in (None, 1, 2):
        assert "open_hand" not in G.view(state, seat)
        assert "7D" not in json.dumps(G.view(state, seat))
    state = run(state, (1, "play:TC"), (2, "play:TH"))
    assert state.phase == ulti_game.KONTRA and G.current_seat(state) == 1
    for seat in (None, 1, 2):
        assert "7D" in G.view(state, seat)["open_hand"]
    state = run(state, (1, "kontra:betli"), (2, "pass"), (0, "rekontra:betli"))
    assert state.kon == (0, BETLI, 0) and state.rek == (0, BETLI, 0)
    assert G.current_seat(state) == 1 and state.phase == ulti_game.PLAY
    state = play_first_legal(state)
    result = G.result(state)
    assert result.detail["tricks"][0] == 0
    assert result.points == (80 + 20, -80, -20)


def test_ul27_betli_stops_when_declarer_wins_a_trick() -> None:
    """UL-27: betli stops at the declarer's first trick; UL-32: betli lost."""
    deal = Deal(hands=(cards(HIGH1 + " 9H 9S"), cards(LOW10), cards(HIGH2)), stock=())
    state = stand_on("betli", deal=deal)
    state = run(state, (0, "play:AC"), (1, "play:7C"))
    step = G.apply(state, 2, G.parse_action("play:AH"))
    assert isinstance(step.facts[0], TrickTaken) and isinstance(step.facts[-1], HandEnded)
    assert G.is_terminal(step.state)
    assert G.result(step.state).points == (-10, 5, 5)
    full = stand_on("betli", UltiRules(early_stop=False), deal=deal)
    full = run(full, (0, "play:AC"), (1, "play:7C"), (2, "play:AH"))
    assert not G.is_terminal(full)


def test_ul16_ul4_marriages_announced_with_first_card() -> None:
    """UL-16: a 20 or 40 held at the start of play is announced when its holder plays to
    trick 1; UL-4: 40 in trump, 20 otherwise."""
    state = stand_on("passz")
    state = run(state, (0, "name:C"), (0, "play:8C"))
    step = G.apply(state, 1, G.legal_actions(state)[0])
    shown = [f.data for f in step.facts if isinstance(f, Announced) and f.what == "marriage"]
    assert {(m["suit"], m["value"]) for m in shown} == {("C", 40), ("D", 20)}
    assert len(G.view(step.state, None)["marriages"]) == 2
    assert G.view(state, None)["marriages"] == []


def test_ul18_ul19_suit_kontra_binds_both_defenders() -> None:
    """UL-18: kontra per component; UL-19: in a suit contract it binds both defenders."""
    state = stand_on("ulti")
    state = run(state, (0, "name:C"))
    state = run(state, (0, "play:8C"), (1, "play:TC"), (2, "play:TH"))
    assert state.phase == ulti_game.KONTRA
    state = run(state, (1, "kontra:ulti"))
    assert state.kon == (0, 8, 8)
    assert list(G.legal_actions(state)) == [G.parse_action("pass"), G.parse_action("kontra:parti")]
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 2, G.parse_action("kontra:ulti"))
    assert err.value.rule == "UL-19"
    state = run(state, (2, "pass"), (0, "pass"))
    assert state.phase == ulti_game.PLAY


def test_ul20_kontra_with_the_first_card_variant() -> None:
    """UL-20: by default kontra comes after trick 1 (TRICKSTER); [VARIANT] each defender says
    kontra at the moment it plays to trick 1, and the declarer's rekontra follows the trick."""
    state = run(stand_on("ulti"), (0, "name:C"), (0, "play:8C"))
    assert state.phase == ulti_game.PLAY and G.current_seat(state) == 1
    rules = UltiRules(kontra_timing="with_first_card")
    state = run(stand_on("ulti", rules), (0, "name:C"), (0, "play:8C"))
    assert state.phase == ulti_game.KONTRA and G.current_seat(state) == 1
    state = run(state, (1, "kontra:ulti"))
    assert state.phase == ulti_game.PLAY and G.current_seat(state) == 1 and state.kon == (0, 8, 8)
    state = run(state, (1, "play:TC"))
    assert state.phase == ulti_game.KONTRA and G.current_seat(state) == 2
    state = run(state, (2, "pass"), (2, "play:TH"))
    assert state.phase == ulti_game.KONTRA and G.current_seat(state) == 0
    assert list(G.legal_actions(state)) == [G.parse_action("pass"),
                                            G.parse_action("rekontra:ulti")]
    state = run(state, (0, "rekontra:ulti"))
    assert state.phase == ulti_game.PLAY and state.rek == (0, 8, 8)


# -- settlement vectors (UL-28 .. UL-36, U-T8 .. U-T19) -------------------------------------


def points(contract: str, tally: Tally, kon: tuple[int, ...] = (0, 0, 0),
           rek: tuple[int, ...] = (0, 0, 0), rules: UltiRules = R) -> tuple[int, int, int]:
    pts, _ = settle(by_key(contract), tally, kon, rek, rules)
    assert sum(pts) == 0  # UL-36
    return pts


def test_u_t8_ul28_passz_made() -> None:
    """U-T8 / UL-28: 40 + a valid 20 = 60 beats 50: D +2, defenders -1 each."""
    t = Tally(0, DIAMONDS, 40, (4, 3, 3), ((0, SPADES),))
    assert points("passz", t) == (2, -1, -1)


def test_u_t9_piros_passz_lost() -> None:
    """U-T9 / UL-28 / UL-1: 30 against 60 + a valid 20: D pays 2 to each, D -4."""
    t = Tally(0, HEARTS, 30, (3, 4, 3), ((1, SPADES),))
    assert points("piros_passz", t) == (-4, 2, 2)


def test_u_t10_ul17_defender_marriage_void() -> None:
    """U-T10 / UL-17: a defender's 20 without a trick does not count (seed); it does under
    the 'side' variant."""
    t = Tally(0, DIAMONDS, 50, (5, 0, 5), ((1, SPADES),))
    assert points("passz", t) == (2, -1, -1)
    assert points("passz", t, rules=UltiRules(marriage_needs_trick="side")) == (-2, 1, 1)


def test_u_t11_ul13_talon_counts_for_defenders() -> None:
    """U-T11 / UL-13: D's 50 against the defenders' 20 from the talon + 20: parti won."""
    t = Tally(0, DIAMONDS, 50, (6, 2, 2))
    assert points("passz", t) == (2, -1, -1)


def test_ul13_talon_points_in_the_game() -> None:
    """UL-13: the talon's aces and tens go to the defenders, or to D with the flag off."""
    deal = Deal(hands=(cards("AH TH " + HIGH1), cards(LOW10),
                       cards("9H 9S JH QH KH TS JS QS KS AS")), stock=())
    for rules, extra in ((R, 0), (UltiRules(talon_to_defenders=False), 20)):
        s = G.new_hand(deal, 2, rules)
        s = run(s, (0, "discard:TH,AH"), (0, "bid:passz"), (1, "pass"), (2, "pass"),
                (0, "stand"), (0, "name:C"))
        s = play_first_legal(s)
        cp = G.result(s).detail["card_points"]
        assert cp["declarer"] + cp["defenders"] == 90
        assert cp["declarer"] == s.pts[0] + extra


def test_u_t12_ul29_40_100() -> None:
    """U-T12 / UL-29: 60 + 40 = 100 won, D +8; 50 lost, D -8."""
    assert points("40-100", Tally(0, CLUBS, 60, (5, 3, 2), ((0, CLUBS),))) == (8, -4, -4)
    assert points("40-100", Tally(0, CLUBS, 50, (5, 3, 2), ((0, CLUBS),))) == (-8, 4, 4)
    assert points("40-100", Tally(0, CLUBS, 80, (9, 1, 0))) == (-8, 4, 4)


def test_u_t13_ul30_20_100() -> None:
    """U-T13 / UL-30: 80 with a 20 won, D +16; 70 lost, D -16."""
    assert points("20-100", Tally(0, CLUBS, 80, (7, 2, 1), ((0, SPADES),))) == (16, -8, -8)
    assert points("20-100", Tally(0, CLUBS, 70, (7, 2, 1), ((0, SPADES),))) == (-16, 8, 8)


def test_u_t14_ul31_ul34_ulti() -> None:
    """U-T14 / UL-31 / UL-34: ulti+parti won D +10; ulti lost, parti won D -14 (double),
    -6 seed-literal; a 7 forced out early (no 7 at trick 10) loses the ulti too."""
    won = Tally(0, CLUBS, 50, (6, 2, 2), (), seven_seat=0, last_winner=0)
    assert points("ulti", won) == (10, -5, -5)
    lost = Tally(0, CLUBS, 50, (6, 2, 2), (), seven_seat=0, last_winner=1)
    assert points("ulti", lost) == (-14, 7, 7)
    assert points("ulti", lost, rules=UltiRules(lost_ulti="single")) == (-6, 3, 3)
    early = Tally(0, CLUBS, 50, (6, 2, 2), (), seven_seat=-1, last_winner=0)
    assert points("ulti", early) == (-14, 7, 7)
    kontra = (0, 8, 8)
    assert points("ulti", lost, kontra, rules=UltiRules(lost_ulti="k_plus_one"))[1] == 12 - 1


def test_u_t15_ul19_betli_kontra_individual() -> None:
    """U-T15 / UL-19: A's kontra on betli binds only A: D pays A 10 and B 5, D -15; in a
    suit contract the same kontra binds both (UL-18)."""
    t = Tally(0, -1, 0, (1, 1, 1))
    assert points("betli", t, kon=(0, BETLI, 0)) == (-15, 10, 5)
    lost = Tally(0, DIAMONDS, 30, (3, 4, 3))
    assert points("passz", lost, kon=(0, PARTI, PARTI)) == (-4, 2, 2)


def test_u_t16_ul18_rekontra() -> None:
    """U-T16 / UL-18: 40-100 kontra and rekontra (×4), won: 16 each, D +32."""
    t = Tally(0, CLUBS, 60, (5, 3, 2), ((0, CLUBS),))
    assert points("40-100", t, kon=(0, C40, C40), rek=(0, C40, C40)) == (32, -16, -16)


def test_u_t17_ul33_teritett_durchmars() -> None:
    """U-T17 / UL-33: terített durchmars won D +24, lost D -24; piros ulti terített
    durchmars won D +64."""
    assert points("teritett_durchmars", Tally(0, -1, 0, (10, 0, 0))) == (24, -12, -12)
    assert points("teritett_durchmars", Tally(0, -1, 0, (3, 1, 0))) == (-24, 12, 12)
    t = Tally(0, HEARTS, 90, (10, 0, 0), (), seven_seat=0, last_winner=0)
    assert points("piros_ulti_teritett_durchmars", t) == (64, -32, -32)


def test_u_t18_ul35_silent_ulti() -> None:
    """U-T18 / UL-35: silent ulti in Passz: 1 + 2 = 3 each, D +6; lost: 1 - 4, D -6."""
    t = Tally(0, DIAMONDS, 50, (6, 2, 2), (), seven_seat=0, last_winner=0)
    assert points("passz", t) == (6, -3, -3)
    t = Tally(0, DIAMONDS, 50, (6, 2, 2), (), seven_seat=0, last_winner=1)
    assert points("passz", t) == (-6, 3, 3)
    assert points("passz", t, rules=UltiRules(lost_silent_ulti=False)) == (2, -1, -1)


def test_u_t19_ul35_silent_durchmars_and_silent_100() -> None:
    """U-T19 / UL-35: all 10 tricks and a valid 20: parti doubled + silent durchmars, D +10;
    in Piros passz D +20."""
    t = Tally(0, DIAMONDS, 90, (10, 0, 0), ((0, SPADES),))
    assert points("passz", t) == (10, -5, -5)
    t = Tally(0, HEARTS, 90, (10, 0, 0), ((0, SPADES),))
    assert points("piros_passz", t) == (20, -10, -10)
    assert points("passz", Tally(0, DIAMONDS, 90, (10, 0, 0)),
                  rules=UltiRules(silent_durchmars=False)) == (1 * 1 * 2, -1, -1)


def test_ul35_silent_100_by_marriage_variant() -> None:
    """UL-35 silent 100: the seed doubles the parti (2, piros 4) once cardPts(D) + mar(D)
    reaches 100; [VARIANT TRICKSTER] it is a silent 40-100 worth 2 or a silent 20-100 worth
    4 (piros doubled), replacing the parti, each reached with its one marriage (UL-29,
    UL-30)."""
    by_marriage = UltiRules(silent_100="by_marriage")
    twenty = Tally(0, DIAMONDS, 80, (8, 1, 1), ((0, SPADES),))  # 80 + 20
    assert points("passz", twenty) == (4, -2, -2)
    assert points("passz", twenty, rules=by_marriage) == (8, -4, -4)
    red = Tally(0, HEARTS, 80, (8, 1, 1), ((0, SPADES),))
    assert points("piros_passz", red) == (8, -4, -4)
    assert points("piros_passz", red, rules=by_marriage) == (16, -8, -8)
    forty = Tally(0, DIAMONDS, 60, (6, 2, 2), ((0, DIAMONDS),))  # 60 + 40
    assert points("passz", forty) == points("passz", forty, rules=by_marriage) == (4, -2, -2)
    both = Tally(0, DIAMONDS, 50, (5, 3, 2), ((0, DIAMONDS), (0, SPADES)))  # 50 + 40 + 20
    assert points("passz", both) == (4, -2, -2)
    assert points("passz", both, rules=by_marriage) == (2, -1, -1)  # 90, 70: no 100


def test_ul35_defenders_silent_feats_variant() -> None:
    """UL-35 [VARIANT]: a defender's silent ulti is paid by both other players."""
    t = Tally(0, DIAMONDS, 30, (3, 5, 2), (), seven_seat=1, last_winner=1)
    assert points("passz", t) == (-2, 1, 1)
    assert points("passz", t, rules=UltiRules(defenders_silent_feats=True)) == (-4, 5, -1)


def test_ul34_lost_passz_variant_and_ul8_ulti_without_parti() -> None:
    """UL-34 [VARIANT]: a lost plain Passz costs 2; UL-8: ulti alone is 4 when the parti
    is not part of it."""
    t = Tally(0, DIAMONDS, 30, (3, 4, 3))
    assert points("passz", t, rules=UltiRules(lost_passz=2)) == (-4, 2, 2)
    won = Tally(0, CLUBS, 20, (2, 6, 2), (), seven_seat=0, last_winner=0)
    assert points("ulti", won, rules=UltiRules(ulti_with_parti=False)) == (8, -4, -4)


def test_ul17_declarer_counts_only_the_40_in_40_100() -> None:
    """UL-17: in 40-100 the declarer counts only the 40 (HUWIKI) unless the flag is off."""
    t = Tally(0, CLUBS, 40, (4, 3, 3), ((0, CLUBS), (0, SPADES)))
    assert points("40-100", t)[0] == -8
    assert points("40-100", t, rules=UltiRules(declarer_marriages_limited=False))[0] == 8


# -- errors, hidden information, records, match (UL-36) ------------------------------------


def test_bad_inputs() -> None:
    """Malformed → InvalidActionError; out of turn → NotYourTurnError; illegal →
    IllegalActionError naming the rule; refused actions change nothing."""
    for text in ("bid:nothing", "play:2C", "discard:7C", "discard:7C,7C", "kontra:x", "shout",
                 "play:1H", "name:X"):
        with pytest.raises(InvalidActionError):
            G.parse_action(text)
    state = G.new_hand(low_deal(), 2, R)
    before = G.audit_view(state)
    with pytest.raises(NotYourTurnError):
        G.apply(state, 1, G.parse_action("pass"))
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 0, G.parse_action("discard:TC,JC"))
    assert err.value.rule == "UL-10" and "'discard:TC,JC'" in err.value.message
    assert G.audit_view(state) == before
    state = run(stand_on("passz"), (0, "name:C"), (0, "play:8C"))
    with pytest.raises(IllegalActionError) as err:
        G.apply(state, 1, G.parse_action("play:TD"))
    assert err.value.rule == "UL-23" and "follow" in err.value.message


def test_views_hide_other_hands_and_the_talon() -> None:
    """Hidden information: a seat sees its own hand; the talon only its discarder."""
    state = G.new_hand(low_deal(), 2, R)
    state = run(state, (0, "discard:9H,9S"))
    v0, v1, spec = G.view(state, 0), G.view(state, 1), G.view(state, None)
    assert v0["talon"] == ["9H", "9S"] and "talon" not in v1 and "hand" not in spec
    assert "TC" not in json.dumps(v0) and "7C" not in json.dumps(v1)


def test_ul36_match_totals_over_fixed_deals() -> None:
    """UL-36: running totals over ``deals`` deals; UL-5: the deal passes on."""
    rules = UltiRules(deals=2)
    match = G.new_match(rules, 0)
    state = stand_on("passz", UltiRules(passz_standing="pay"))
    match = G.after_hand(match, G.result(state), rules)
    assert match.scores == (-4, 2, 2) and match.dealer == 1 and not match.over
    match = G.after_hand(match, G.result(state), rules)
    assert match.over and match.scores == (-8, 4, 4) and match.winner is None


def test_golden_record_replays() -> None:
    """A recorded terített betli with kontra and rekontra replays to its stored result."""
    paths = sorted(GOLDEN.glob("*.json"))
    assert paths
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["result"]["points"] == [100, -80, -20]
        code, out = verify_data(data)
        assert code == 0, out
        assert out["ok"]


def test_random_playouts_reach_the_ladder() -> None:
    """Random playouts (the conformance sampler) reach open contracts, kontra, piros,
    colourless and choose contracts, and stay zero-sum (UL-36)."""
    rng = random.Random("ulti-ladder")
    pack = list(G.pack)
    seen: set[str] = set()
    for i in range(60):
        rng.shuffle(pack)
        result, _ = check_playout(G, R, pack, i % 3, rng.randrange, thorough=False)
        assert sum(result.points) == 0
        d = result.detail
        c = by_key(d["contract"])
        seen.add(c.trump)
        if c.open:
            seen.add("open")
        if any(k > 1 for comp in d["components"] for k in comp["kontra"].values()):
            seen.add("kontra")
    assert {"open", "kontra", "piros", "none", "choose"} <= seen


FINGERPRINT = "9b67842f6f06021fc0d7a1e13c936136603ba2c149276d8aa7a5e36c8877ac65"


def test_random_hands_fingerprint_unchanged() -> None:
    """Regression pin for speed work: 600 seeded random deals under five rule sets (every
    choice of UL-12, UL-15, UL-17, UL-20, UL-24, UL-34, UL-35 varied) give the same full legal
    sets, actions, facts and results as the code the fingerprint was taken from."""
    variants = [
        UltiRules(),
        UltiRules(ladder="seed", kontra_timing="with_first_card", must_beat_after_trumped=False),
        UltiRules(auction_end="two_passes", raise_without_talon=True, passz_standing="pay"),
        UltiRules(early_stop=False, hold_ulti_seven=False, talon_to_defenders=False),
        UltiRules(
            equal_value_overcall=False,
            ulti_with_parti=False,
            marriage_needs_trick="side",
            declarer_marriages_limited=False,
            lost_ulti="k_plus_one",
            silent_100="by_marriage",
        ),
    ]
    assert playout_digest(G, variants, 120, 2000, facts=True) == FINGERPRINT


def test_ul10_discard_pairs_lazy_sequence_matches_the_full_list() -> None:
    """UL-10: the legal discards are every pair of the 12 cards (66 codes, ascending); the
    lazy sequence answers ``len``, ``[i]``, ``in``, ``index`` and slices as the list would."""
    from itertools import combinations

    from referee.rules.games.ulti.discards import DISCARD_BASE, DiscardPairs, pair_of

    rng = random.Random(10)
    for _ in range(200):
        hand_cards = sorted(rng.sample(HUNGARIAN_32, 12))
        pairs = DiscardPairs(mask_of(hand_cards))
        want = [DISCARD_BASE + 52 * a + b for a, b in combinations(hand_cards, 2)]
        assert len(pairs) == 66 and pairs == want and list(pairs) == want
        assert [pairs[i] for i in range(66)] == want and pairs[-1] == want[-1]
        assert pairs[3:9] == want[3:9] and list(reversed(pairs)) == want[::-1]
        for i, code in enumerate(want):
            assert code in pairs and pairs.index(code) == i and pair_of(code) is not None
    outside = next(c for c in HUNGARIAN_32 if c not in hand_cards)
    for other in (DISCARD_BASE + 52 * outside + outside, DISCARD_BASE - 1, 0, "x", None):
        assert other not in pairs
    with pytest.raises(IndexError):
        pairs[66]
    with pytest.raises(ValueError):
        pairs.index(DISCARD_BASE)
    assert DiscardPairs(0) == [] and not DiscardPairs(0)


def test_rule_sets_that_bid_alike_share_one_bid_table_UL_9_UL_12() -> None:
    """The auction's tables depend on the ladder, the equal-value overcall (UL-9) and raising
    without the talon (UL-12) only: rule sets differing elsewhere (here 999 match lengths,
    UL-36) share one, so naming new rule sets cannot grow the referee's memory."""
    shared = _bid_tables(UltiRules())
    assert all(_bid_tables(UltiRules(deals=n)) is shared for n in range(1, 1000))
    seed = _bid_tables(UltiRules(ladder="seed"))
    assert seed is not shared and len(seed.bids[0]) < len(shared.bids[0])
