"""Pedro (Cinch): every rule of ``rules/euchre-pedro-ulti.md`` §2 and every test vector of §2.7.

Seats 0..3 are N, E, S, W; teams N–S (0) and E–W (1). Test names carry the rule ids (PE-n)
and the vector ids (P-Tn) they check.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules.cards import CARD_NAMES, PACK_52, parse_card
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import Deal, HandEnded, HandResult, MatchState, TrickTaken
from referee.rules.games import pedro
from referee.rules.games.pedro import (
    COUNTING,
    DISCARD_BASE,
    EFF_MASK,
    GAME,
    POINTS,
    POWER,
    TRUMPS,
    DiscardSets,
    PedroRules,
    PedroState,
)
from referee.rules.registry import find_game
from referee.verify import verify_data
from tests.rules.fingerprint import playout_digest

N, E, S, W = 0, 1, 2, 3
C, D, H, SP = 0, 1, 2, 3
GOLDEN = Path(__file__).parent.parent / "golden" / "pedro"
DEFAULT = PedroRules()


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text.split())


def names(cs: Any) -> list[str]:
    return sorted(CARD_NAMES[c] for c in cs)


def act(state: PedroState, seat: int, text: str) -> PedroState:
    new: PedroState = GAME.apply(state, seat, GAME.parse_action(text)).state
    return new


def legal(state: PedroState) -> list[str]:
    return [GAME.format_action(a) for a in GAME.legal_actions(state)]


# A fixed deal (dealer W = 3, so N = dealer+1 speaks first). Hearts will be trump.
HANDS = (
    "AH JH TH 2H 5H 5D KH 3C 4S",  # N: P-T6's hand, six counting trumps
    "2C 4C 5C 6C 7C 8C 9C TC JC",  # E: clubs
    "2S 3S 5S 6S 7S 8S 9S TS JS",  # S: spades
    "2D 3D 4D 6D 7D 8D 9D TD JD",  # W: diamonds
)
WIDOW = "QH 9H 8H 7H 6H 4H 3H QC KC AC QD KD AD QS KS AS"


def fixed_deal(widow: str = WIDOW) -> Deal:
    return Deal(hands=tuple(cards(h) for h in HANDS), stock=cards(widow))


def start(rules: PedroRules = DEFAULT, dealer: int = W, deal: Deal | None = None) -> PedroState:
    return GAME.new_hand(deal or fixed_deal(), dealer, rules)


def to_discards(rules: PedroRules = DEFAULT, bid: int = 6, trump: str = "H") -> PedroState:
    """N bids ``bid``, the others pass, N names ``trump``."""
    s = start(rules)
    s = act(s, N, f"bid:{bid}")
    for seat in (E, S, W):
        s = act(s, seat, "pass")
    return act(s, N, f"name:{trump}")


# -- components (PE-1 .. PE-4) -------------------------------------------------------------


def test_pe1_four_seats_in_partnership_registered_as_pedro_and_cinch() -> None:
    """PE-1: four players, partners opposite; the game is found by both names."""
    assert find_game("pedro") is find_game("Cinch")
    assert GAME.num_seats == 4 and GAME.partnerships


def test_pe2_full_pack_and_plain_suit_order() -> None:
    """PE-2: 52 cards; in a plain suit A K Q J 10 ... 2, highest wins (clubs trump, ♥ led)."""
    assert sorted(GAME.pack) == sorted(PACK_52) and len(GAME.pack) == 52
    order = names_by_power(H, C, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    assert order == ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"]


def names_by_power(led: int, trump: int, text: str) -> list[str]:
    return [CARD_NAMES[c] for c in sorted(cards(text), key=lambda c: -POWER[trump][led][c])]


def test_pe3_p_t1_trump_order_with_left_pedro() -> None:
    """P-T1 / PE-3: hearts trump has 14 cards, 5♦ directly below 5♥; diamonds keeps 12."""
    trumps = [CARD_NAMES[c] for c in PACK_52 if TRUMPS[H] >> c & 1]
    assert len(trumps) == 14
    order = names_by_power(H, H, " ".join(trumps))
    expected = "AH KH QH JH TH 9H 8H 7H 6H 5H 5D 4H 3H 2H"
    assert order == expected.split(" ")
    assert bin(EFF_MASK[H][D]).count("1") == 12 and not EFF_MASK[H][D] >> parse_card("5D") & 1


def test_pe4_counting_cards_total_fourteen() -> None:
    """PE-4: A, J, 10, 2 of trump one point, both pedros five, all else nothing: 14."""
    pts = {CARD_NAMES[c]: POINTS[SP][c] for c in PACK_52 if POINTS[SP][c]}
    assert pts == {"AS": 1, "JS": 1, "TS": 1, "2S": 1, "5S": 5, "5C": 5}
    assert sum(POINTS[SP]) == 14
    assert names(c for c in PACK_52 if COUNTING[SP] >> c & 1) == sorted(pts)


# -- deal (PE-5) ---------------------------------------------------------------------------


def test_pe5_deal_three_rounds_of_three_and_sixteen_card_widow() -> None:
    """PE-5: from dealer+1, 3 rounds of 3 cards; the last 16 cards are the widow, in order."""
    pack = list(range(52))
    deal = GAME.deal(pack, dealer=S)
    assert deal.hands[W] == (0, 1, 2, 12, 13, 14, 24, 25, 26)  # W is dealer+1
    assert deal.hands[N] == (3, 4, 5, 15, 16, 17, 27, 28, 29)
    assert deal.hands[S] == (9, 10, 11, 21, 22, 23, 33, 34, 35)
    assert deal.stock == tuple(range(36, 52))
    state = GAME.new_hand(deal, S, DEFAULT)
    assert GAME.current_seat(state) == W


# -- bidding (PE-6 .. PE-9) ----------------------------------------------------------------


def test_pe6_p_t13_bids_strictly_higher_one_round() -> None:
    """P-T13 / PE-6: bids 7, pass, 9; the dealer may pass or bid 10..14, not 9; nobody twice."""
    s = start()
    s = act(s, N, "bid:7")
    s = act(s, E, "pass")
    s = act(s, S, "bid:9")
    assert legal(s) == ["pass", *(f"bid:{b}" for b in range(10, 15))]
    with pytest.raises(IllegalActionError) as err:
        act(s, W, "bid:9")
    assert err.value.rule == "PE-6" and "bid:9" in err.value.message
    s = act(s, W, "pass")
    assert s.phase == pedro.NAME and GAME.current_seat(s) == S
    with pytest.raises(NotYourTurnError):
        act(s, N, "bid:10")  # N already spoke


def test_pe7_bid_range_one_to_fourteen_and_fourteen_not_overcalled() -> None:
    """PE-7: bids 1..14; a 14 ends it (PIDRO variant: 14 may top 14; min_bid 6)."""
    s = start()
    assert legal(s) == ["pass", *(f"bid:{b}" for b in range(1, 15))]
    with pytest.raises(IllegalActionError) as err:
        act(s, N, "bid:0")
    assert err.value.rule == "PE-7"
    s = act(s, N, "bid:14")
    assert legal(s) == ["pass"]
    with pytest.raises(IllegalActionError) as err:
        act(s, E, "bid:14")
    assert err.value.rule == "PE-7"
    pidro = PedroRules(min_bid=6, fourteen_overcall=True)
    s = start(pidro)
    assert legal(s)[1] == "bid:6"
    s = act(act(s, N, "bid:14"), E, "bid:14")
    assert s.maker == E


def test_pe8_high_bidder_names_any_trump() -> None:
    """PE-8: the maker, and only the maker, names any of the four suits."""
    s = start()
    s = act(act(act(act(s, N, "bid:3"), E, "bid:5"), S, "pass"), W, "pass")
    assert legal(s) == ["name:C", "name:D", "name:H", "name:S"]
    with pytest.raises(NotYourTurnError) as err:
        act(s, N, "name:H")
    assert err.value.rule == "PE-8"
    step = GAME.apply(s, E, GAME.parse_action("name:S"))
    assert step.state.trump == SP and step.state.maker == E
    assert step.facts[0].data == {"trump": "S", "maker": E, "bid": 5}  # type: ignore[union-attr]


def test_pe9_p_t14_all_pass_throws_in_and_dealer_plus_one_deals() -> None:
    """P-T14 / PE-9: four passes, no score, the next dealer is dealer+1."""
    s = start()
    for seat in (N, E, S):
        s = act(s, seat, "pass")
    step = GAME.apply(s, W, GAME.parse_action("pass"))
    assert GAME.is_terminal(step.state)
    result = GAME.result(step.state)
    assert result.void and result.points == (0, 0)
    assert isinstance(step.facts[-1], HandEnded)
    match = GAME.after_hand(GAME.new_match(DEFAULT, W), result, DEFAULT)
    assert match.dealer == N and match.scores == (0, 0) and not match.over


def test_pe9_variants_dealer_forced_and_dealer_free() -> None:
    """PE-9 variants: PIDRO forces the dealer to bid 6+; KATZ lets the dealer name at 0."""
    s = start(PedroRules(all_pass="dealer_forced"))
    for seat in (N, E, S):
        s = act(s, seat, "pass")
    assert legal(s) == [f"bid:{b}" for b in range(6, 15)]
    with pytest.raises(IllegalActionError) as err:
        act(s, W, "pass")
    assert err.value.rule == "PE-9"
    s = start(PedroRules(all_pass="dealer_free"))
    for seat in (N, E, S):
        s = act(s, seat, "pass")
    assert legal(s)[:2] == ["pass", "bid:0"]
    s = act(s, W, "bid:0")
    assert s.maker == W and s.high == 0


# -- discard and refill (PE-10 .. PE-14) ---------------------------------------------------


def test_pe10_pe11_p_t6_only_legal_discard_of_the_counting_hand() -> None:
    """P-T6 / PE-10 / PE-11: hearts trump, N's only legal discard is K♥ 3♣ 4♠."""
    s = to_discards()
    assert GAME.current_seat(s) == N  # dealer+1 discards first (PE-10 default)
    assert legal(s) == ["discard:3C,KH,4S"]
    s = act(s, N, "discard:KH,3C,4S")
    assert names(c for c in PACK_52 if s.hands[N] >> c & 1) == names(cards("AH JH TH 2H 5H 5D"))


def test_pe10_pe11_p_t7_illegal_discards_name_the_rule() -> None:
    """P-T7: {3♣, 4♠} is too few (PE-10); {K♥, 3♣, 2♥} turns up a counting trump (PE-11)."""
    s = to_discards()
    with pytest.raises(IllegalActionError) as err:
        act(s, N, "discard:3C,4S")
    assert err.value.rule == "PE-10" and "at least three" in err.value.message
    with pytest.raises(IllegalActionError) as err:
        act(s, N, "discard:KH,3C,2H")
    assert err.value.rule == "PE-11" and "2H" in err.value.message
    with pytest.raises(IllegalActionError) as err:
        act(s, N, "discard:KH,3C,9C")
    assert err.value.rule == "PE-10" and "do not hold 9C" in err.value.message


def discard_round(sizes: dict[int, int], trump: str = "H") -> PedroState:
    """Each seat from dealer+1 turns up its lowest legal set of the given size."""
    s = to_discards(trump=trump)
    for seat in (N, E, S, W):
        options = [
            a for a in GAME.legal_actions(s) if GAME.format_action(a).count(",") + 1 == sizes[seat]
        ]
        s = GAME.apply(s, seat, options[0]).state
    return s


def test_pe13_p_t8_refill_in_order_and_widow_shown() -> None:
    """PE-13: discards of 3, 5, 4, 7 cards from dealer+1: the widow gives 0, 2, 1, 4 cards
    in its order, the dealer last; the other 9 are shown to all; 19 + 9 = 28 face up."""
    s = to_discards()
    facts: list[Any] = []
    sizes = {N: 3, E: 5, S: 4, W: 7}
    for seat in (N, E, S, W):
        options = [
            a for a in GAME.legal_actions(s) if GAME.format_action(a).count(",") + 1 == sizes[seat]
        ]
        step = GAME.apply(s, seat, options[0])
        s, facts = step.state, facts + list(step.facts)
    refill = next(f for f in facts if getattr(f, "what", "") == "refill")
    assert refill.data["served"] == [0, 2, 1, 4]
    assert [h.bit_count() for h in s.hands] == [6, 6, 6, 6]
    widow = cards(WIDOW)
    assert s.hands[E] & ((1 << widow[0]) | (1 << widow[1])) == (1 << widow[0]) | (1 << widow[1])
    assert s.hands[S] >> widow[2] & 1 and all(s.hands[W] >> c & 1 for c in widow[3:7])
    assert s.widow_up == sum(1 << c for c in widow[7:]) and s.widow_up.bit_count() == 9
    face_up = sum(d.bit_count() for d in s.discards) + s.widow_up.bit_count()
    assert face_up == 19 + 9 == 28
    assert s.phase == pedro.PLAY and GAME.current_seat(s) == N  # PE-15: the maker leads
    for viewer in (None, N, E, S, W):  # discards and the shown widow are public
        view = GAME.view(s, viewer)
        assert len(view["widow_up"]) == 9 and sum(len(d) for d in view["discards"]) == 19


def test_pe13_p_t8_requests_match_the_vector_sizes() -> None:
    """P-T8 literally: d = (5, 3, 4, 7) from dealer+1 gives 2, 0, 1, 4 from the widow."""
    deal = Deal(
        hands=(cards(HANDS[1]), cards(HANDS[2]), cards(HANDS[3]), cards(HANDS[0])),
        stock=cards(WIDOW),
    )
    s = GAME.new_hand(deal, W, DEFAULT)  # N holds clubs now; W holds the counting hand
    s = act(s, N, "bid:6")
    for seat in (E, S, W):
        s = act(s, seat, "pass")
    s = act(s, N, "name:D")  # diamonds: W's 5H is the left pedro
    sizes = {N: 5, E: 3, S: 4, W: 7}
    facts: list[Any] = []
    for seat in (N, E, S, W):
        options = [
            a for a in GAME.legal_actions(s) if GAME.format_action(a).count(",") + 1 == sizes[seat]
        ]
        step = GAME.apply(s, seat, options[0])
        s, facts = step.state, facts + list(step.facts)
    refill = next(f for f in facts if getattr(f, "what", "") == "refill")
    assert refill.data["served"] == [2, 0, 1, 4]
    assert s.widow_up.bit_count() == 9


def test_pe12_more_than_six_trumps_discard_down_to_six() -> None:
    """PE-12: a seat with 8 trumps turns up non-counting trumps; it keeps at most six."""
    s = to_discards(trump="C")  # E holds nine clubs
    s = act(s, N, "discard:KH,3C,4S")
    for a in GAME.legal_actions(s):
        assert not (a - DISCARD_BASE) & COUNTING[C]
    with pytest.raises(IllegalActionError) as err:
        act(s, E, "discard:2C,4C,6C")  # 2C counts
    assert err.value.rule == "PE-11"
    s = act(s, E, "discard:4C,6C,7C")
    assert s.hands[E].bit_count() == 6


def test_pe12_variant_all_non_trumps() -> None:
    """PE-12 KATZ variant: every non-trump goes; trumps only beyond six (PIDRO kill rule)."""
    rules = PedroRules(discard_rule="all_non_trumps")
    s = to_discards(rules, trump="C")
    # N: 3C is its only trump, so all eight non-trumps go, and nothing else is legal.
    assert legal(s) == ["discard:5D,2H,5H,TH,JH,KH,AH,4S"]
    s = act(s, N, "discard:2H,5H,TH,JH,KH,AH,5D,4S")
    # E: nine clubs, three non-counting ones beyond six must go; counting ones may not.
    options = legal(s)
    assert all(len(o.split(",")) == 3 for o in options)
    assert "discard:2C,4C,6C" not in options and "discard:4C,6C,7C" in options
    with pytest.raises(IllegalActionError) as err:
        act(s, E, "discard:4C,6C,7C,8C")
    assert err.value.rule == "PE-12"


def test_pe14_widow_cannot_run_short() -> None:
    """PE-14: discards may ask for at most 16 widow cards in all; 3 cards always stay legal."""
    s = to_discards(trump="S")  # S holds spades: its counting ones must stay
    s = act(s, N, "discard:AH,JH,TH,2H,5H,5D,KH,3C,4S")  # asks 6
    with pytest.raises(IllegalActionError) as err:
        act(s, E, "discard:2C,4C,5C,6C,7C,8C,9C,TC,JC")  # 5C is the left pedro
    assert err.value.rule == "PE-11"
    s = act(s, E, "discard:2C,4C,6C,7C,8C,9C,TC,JC")  # asks 5: 11 of 16
    s = act(s, S, "discard:3S,6S,7S,8S,9S")  # asks 2: 13 of 16
    assert max(len(x.split(",")) for x in legal(s)) == 3 + 3
    with pytest.raises(IllegalActionError) as err:
        act(s, W, "discard:2D,3D,4D,6D,7D,8D,9D")  # would ask 4
    assert err.value.rule == "PE-14" and "only 3 more" in err.value.message
    s = act(s, W, "discard:2D,3D,4D,6D,7D,8D")
    assert [h.bit_count() for h in s.hands] == [6, 6, 6, 6] and s.widow_up == 0


# -- the lazy legal set of a discard (PE-10 .. PE-14) ---------------------------------------


def brute_force_discards(state: PedroState) -> list[int]:
    """Every legal discard code, straight from the rules: each subset of the hand checked
    against PE-10/PE-11 (at least three, never a counting trump), PE-12 (more than six trumps;
    the ``all_non_trumps`` variant) and PE-14 (the widow gives at most 16 cards in all)."""
    hand = state.hands[state.to_act]
    t = state.trump
    room = 16 - state.requested
    held = [c for c in range(52) if hand >> c & 1]
    trumps = hand & TRUMPS[t]
    nt = trumps.bit_count()
    plain = hand & ~trumps
    out = []
    for bits in range(1 << len(held)):
        d = sum(1 << c for k, c in enumerate(held) if bits >> k & 1)
        if state.rules.discard_rule == "at_least_three":
            ok = not d & COUNTING[t] and 3 <= d.bit_count() <= 3 + room
        elif nt > 6:  # every non-trump, and non-counting trumps down to six
            ok = d & plain == plain and not d & COUNTING[t] and (hand & ~d).bit_count() == 6
        elif 9 - nt <= 3 + room:  # every non-trump
            ok = d == plain
        else:  # the widow is short: as many non-trumps as it can replace
            ok = not d & ~plain and d.bit_count() == 3 + room
        if ok:
            out.append(DISCARD_BASE + d)
    return sorted(out)


def discard_position(
    rule: str, trump: int, nt: int, order: list[int], requested: int, seat: int
) -> PedroState:
    """The fixed deal at its discards, ``seat`` to act holding ``nt`` trumps (cards picked in
    ``order``) after ``requested`` widow cards were asked for."""
    s = to_discards(PedroRules(discard_rule=rule)).copy()
    trumps = [c for c in order if TRUMPS[trump] >> c & 1][:nt]
    plain = [c for c in order if not TRUMPS[trump] >> c & 1][: 9 - nt]
    hands = list(s.hands)
    hands[seat] = sum(1 << c for c in trumps + plain)
    s.hands = tuple(hands)
    s.trump = trump
    s.requested = requested
    s.to_act = seat
    return s


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.sampled_from(["at_least_three", "all_non_trumps"]),
    trump=st.integers(0, 3),
    nt=st.integers(0, 9),
    order=st.permutations(range(52)),
    requested=st.one_of(st.integers(0, 16), st.sampled_from([13, 14, 15, 16])),
    seat=st.integers(0, 3),
    picks=st.lists(st.integers(-500, 500), max_size=20),
    masks=st.lists(st.integers(0, (1 << 52) - 1), max_size=20),
)
def test_pe10_pe11_pe12_pe14_lazy_discard_set_is_the_rules_list(
    rule: str,
    trump: int,
    nt: int,
    order: list[int],
    requested: int,
    seat: int,
    picks: list[int],
    masks: list[int],
) -> None:
    """PE-10, PE-11, PE-12, PE-14: the lazy legal set of a discard (any trump count, up to
    nine; the widow running short; both ``discard_rule`` variants) lists exactly the subsets
    the rules allow, in code order; its len, indexing (negative too), ``in``, ``index`` and
    ``apply`` agree with that list."""
    s = discard_position(rule, trump, nt, order, requested, seat)
    lazy = GAME.legal_actions(s)
    want = brute_force_discards(s)
    assert isinstance(lazy, DiscardSets)
    assert list(lazy) == want and len(lazy) == len(want) and lazy == want
    assert [lazy[i] for i in range(len(lazy))] == want
    assert list(reversed(lazy)) == want[::-1] and lazy[1:7] == want[1:7]
    for i in picks:
        if -len(want) <= i < len(want):
            assert lazy[i] == want[i]
            assert lazy.index(want[i]) == i % len(want)
        else:
            with pytest.raises(IndexError):
                lazy[i]
    hand = s.hands[seat]
    for code in (*want[:5], *(DISCARD_BASE + (m & (hand | m & -m)) for m in masks)):
        legal_here = code in set(want)
        assert (code in lazy) == legal_here
        try:
            GAME.apply(s, seat, code)
        except IllegalActionError as err:
            assert not legal_here and err.rule in ("PE-10", "PE-11", "PE-12", "PE-14")
        else:
            assert legal_here


def test_pe10_lazy_discard_set_in_play_and_its_edges() -> None:
    """PE-10: at every discard of 200 seeded random deals (both ``discard_rule`` variants)
    the lazy set lists what the rules allow; out-of-range indices raise IndexError; codes that
    are not discards are not in it; its repr names the pool."""
    rng = random.Random(20)
    pack = list(PACK_52)
    for k in range(200):
        rules = PedroRules(discard_rule=("at_least_three", "all_non_trumps")[k % 2])
        rng.shuffle(pack)
        s = GAME.new_hand(GAME.deal(pack, k % 4), k % 4, rules)
        while not GAME.is_terminal(s):
            options = GAME.legal_actions(s)
            if s.phase == pedro.DISCARD:
                assert list(options) == brute_force_discards(s)
                assert options[-1] == max(options) and options[0] == min(options)
            s = GAME.apply(s, s.to_act, options[rng.randrange(len(options))]).state
    lazy = GAME.legal_actions(to_discards())
    assert lazy == [DISCARD_BASE + sum(1 << c for c in cards("3C KH 4S"))]
    assert repr(lazy) == "<DiscardSets: 1 codes, 3 of [3C KH 4S]>"
    for bad in (1, -2, 10**6):
        with pytest.raises(IndexError):
            lazy[bad]
    for other in (0, 51, DISCARD_BASE, DISCARD_BASE - 1, DISCARD_BASE + (1 << 52), "x", None):
        assert other not in lazy
    with pytest.raises(AttributeError):
        lazy.pool = 0  # type: ignore[misc]


FINGERPRINT = "3e3d63a28e6092a92714a60921c73b0f56f94a1885aea3a44998d7acc3d93f29"


def test_random_hands_fingerprint_unchanged() -> None:
    """Regression pin: 504 seeded random deals (six rule sets, every discard_rule) give the
    same actions, full legal sets and results as before the discard sets became lazy."""
    variants = [
        PedroRules(),
        PedroRules(discard_rule="all_non_trumps"),
        PedroRules(dealer_robs_pack=True),
        PedroRules(discard_rule="all_non_trumps", dealer_robs_pack=True),
        PedroRules(all_pass="dealer_forced", min_bid=6),
        PedroRules(all_pass="dealer_free", low_point="played_by"),
    ]
    assert playout_digest(GAME, variants, 84, 1000, facts=False) == FINGERPRINT


def test_kept_legal_sets_and_result_match_the_rules() -> None:
    """What apply keeps with a state (the playable cards, the legal discards, the result) is
    what the rules give for a copy of it, which keeps none of them (PE-10 .. PE-22)."""
    for v, rules in enumerate([PedroRules(), PedroRules(discard_rule="all_non_trumps")]):
        rng = random.Random(50 + v)
        pack = list(PACK_52)
        for k in range(40):
            rng.shuffle(pack)
            s = GAME.new_hand(GAME.deal(pack, k % 4), k % 4, rules)
            facts: tuple[Any, ...] = ()
            while not GAME.is_terminal(s):
                options = GAME.legal_actions(s)
                assert list(options) == list(GAME.legal_actions(s.copy()))
                if s.phase == pedro.DISCARD:
                    assert list(options) == list(DiscardSets(*GAME._discard_spec(s)))
                step = GAME.apply(s, s.to_act, options[rng.randrange(len(options))])
                s, facts = step.state, step.facts
            ended = [f for f in facts if isinstance(f, HandEnded)]
            assert ended and GAME.result(s) == ended[0].result == GAME.result(s.copy())


@pytest.mark.parametrize(
    "change",
    [
        {0: 51},  # 51 twice, 0 missing
        {51: -1},  # -1 would index 51's bit
        {51: 52},  # not a card
        {10: 10 - 52},  # a negative card standing for one 52 higher
        {0: -52},
    ],
)
def test_pe5_new_hand_refuses_a_deal_that_is_not_the_pack(change: dict[int, int]) -> None:
    """PE-5: the deal must be the 52 cards, each once (the fast check agrees with
    check_deal)."""
    pack = list(PACK_52)
    for i, c in change.items():
        pack[pack.index(i)] = c
    for dealer in range(4):
        # RecordError is a ValueError; check_deal names a card above the pack's by its
        # name, which it has not (IndexError), as before the fast check
        with pytest.raises((ValueError, IndexError)):
            GAME.new_hand(GAME.deal(pack, dealer), dealer, DEFAULT)
    good = GAME.new_hand(GAME.deal(list(PACK_52), 2), 2, DEFAULT)
    assert sum(good.hands) + good.widow_left == (1 << 52) - 1


def test_pe13_variant_dealer_robs_pack() -> None:
    """PE-13 variant: the dealer, served last, picks from the rest of the widow."""
    rules = PedroRules(dealer_robs_pack=True)
    s = to_discards(rules)
    s = act(s, N, "discard:KH,3C,4S")
    s = act(s, E, "discard:2C,4C,5C")
    s = act(s, S, "discard:2S,3S,5S")
    s = act(s, W, "discard:2D,3D,4D,6D")
    assert s.phase == pedro.TAKE and GAME.current_seat(s) == W
    assert sorted(legal(s)) == sorted(f"take:{c}" for c in WIDOW.split())
    assert "widow" in GAME.view(s, W) and "widow" not in GAME.view(s, N)
    s = act(s, W, "take:AS")
    assert s.phase == pedro.PLAY and s.hands[W] >> parse_card("AS") & 1
    assert s.widow_up.bit_count() == 15
    with pytest.raises(IllegalActionError):
        act(to_discards(rules), N, "take:AS")


# -- play (PE-15 .. PE-18) -----------------------------------------------------------------


def mid_play(hands: dict[int, str], trump: int, leader: int, done: int) -> PedroState:
    """A play-phase state with ``done`` tricks behind it and ``leader`` to lead."""
    s = start().copy()
    s.phase = pedro.PLAY
    s.trump = trump
    s.maker = S
    s.high = 6
    s.hands = tuple(sum(1 << c for c in cards(hands[p])) for p in range(4))
    s.to_act = leader
    s.led = -1
    s.trick = ()
    s.tricks = tuple(TrickTaken(i + 1, (), leader) for i in range(done))
    return s


def test_pe15_maker_leads_six_tricks_of_four() -> None:
    """PE-15: the maker leads the first trick; six tricks are played."""
    s = discard_round({N: 3, E: 3, S: 3, W: 3})
    assert GAME.current_seat(s) == N == s.maker
    count = 0
    while not GAME.is_terminal(s):
        s = GAME.apply(s, GAME.current_seat(s) or 0, GAME.legal_actions(s)[0]).state
        count += 1
    assert count == 24 and len(s.tricks) == 6 and all(len(t.plays) == 4 for t in s.tricks)


def test_pe16_p_t2_seed_example_trick_five_and_six() -> None:
    """P-T2 (seed): diamonds trump, S leads ♠7; trumping allowed while holding spades; the
    ♥5 is the left pedro; S's ♦K catches it in trick 6 for 5 points to N–S."""
    s = mid_play({W: "6C AH", N: "8D JS", E: "5H 9D", S: "KD 7S"}, D, S, 4)
    s = act(s, S, "play:7S")
    assert legal(s) == ["play:6C", "play:AH"]
    s = act(s, W, "play:6C")
    assert sorted(legal(s)) == ["play:8D", "play:JS"]
    s = act(s, N, "play:8D")
    assert sorted(legal(s)) == ["play:5H", "play:9D"]
    # had E played the left pedro, N's 8D would have won (8 > left pedro)
    assert POWER[D][SP][parse_card("8D")] > POWER[D][SP][parse_card("5H")]
    step = GAME.apply(s, E, parse_card("9D"))
    trick = step.facts[0]
    assert isinstance(trick, TrickTaken) and trick.winner == E and trick.points == 0
    s = act(step.state, E, "play:5H")  # a trump lead
    assert legal(s) == ["play:KD"]
    s = act(s, S, "play:KD")
    assert legal(s) == ["play:AH"]  # ♥A is not a trump: any card
    s = act(s, W, "play:AH")
    step = GAME.apply(s, N, parse_card("JS"))
    assert step.facts[0].winner == S and step.facts[0].points == 5  # type: ignore[union-attr]
    assert step.state.taken == (5, 0) and GAME.is_terminal(step.state)


def test_pe16_p_t3_plain_lead_follow_or_trump_not_a_third_suit() -> None:
    """P-T3: clubs trump, ♥ led: {♥3, ♣9, ♠A} may play ♥3 or ♣9, not ♠A."""
    s = mid_play({N: "3H 9C AS", E: "KH", S: "2D", W: "4D"}, C, E, 5)
    s = act(s, E, "play:KH")
    assert s.to_act == S
    s = act(act(s, S, "play:2D"), W, "play:4D")
    assert legal(s) == ["play:9C", "play:3H"]
    with pytest.raises(IllegalActionError) as err:
        act(s, N, "play:AS")
    assert err.value.rule == "PE-16" and "follow suit or trump" in err.value.message


def test_pe16_p_t4_left_pedro_lead_is_a_trump_lead() -> None:
    """P-T4: clubs trump, ♠5 led is trump: {♣2, ♠K, ♥A} must play ♣2; ♠K does not follow."""
    s = mid_play({N: "5S", E: "2C KS AH", S: "2D", W: "4D"}, C, N, 5)
    s = act(s, N, "play:5S")
    assert legal(s) == ["play:2C"]
    with pytest.raises(IllegalActionError) as err:
        act(s, E, "play:KS")
    assert err.value.rule == "PE-16" and "trump was led" in err.value.message
    s = mid_play({N: "5S", E: "KS AH", S: "2D", W: "4D"}, C, N, 5)
    assert sorted(legal(act(s, N, "play:5S"))) == ["play:AH", "play:KS"]  # no trump: any card


def test_pe17_p_t5_right_pedro_over_left_trick_worth_ten() -> None:
    """P-T5 / PE-17: spades trump, ♠5 ♣5 ♠4 ♦A: the right pedro wins 10 points."""
    s = mid_play({N: "5S", E: "5C", S: "4S", W: "AD"}, SP, N, 5)
    for seat, c in ((N, "5S"), (E, "5C"), (S, "4S")):
        s = act(s, seat, f"play:{c}")
    step = GAME.apply(s, W, parse_card("AD"))
    assert step.facts[0].winner == N and step.facts[0].points == 10  # type: ignore[union-attr]
    assert step.state.taken == (10, 0)


def test_pe17_highest_of_led_suit_wins_without_trump() -> None:
    """PE-17: no trump played: the highest card of the suit led wins (2♥ led, A♠ off-suit)."""
    s = mid_play({N: "2H", E: "AS", S: "QH", W: "3H"}, C, N, 5)
    for seat, c in ((N, "2H"), (E, "AS"), (S, "QH")):
        s = act(s, seat, f"play:{c}")
    assert GAME.apply(s, W, parse_card("3H")).facts[0].winner == S  # type: ignore[union-attr]


def test_pe18_pe4_points_go_to_the_trick_winner_and_low_point_variant() -> None:
    """PE-18 / PE-4: the 2 of trump scores for the side winning its trick; the Pitch/PIDRO
    variant gives it to the side that played it."""
    hands = {N: "2S", E: "AS", S: "3H", W: "4H"}
    for rule, expect in (("trick_winner", (0, 2)), ("played_by", (1, 1))):
        s = mid_play(hands, SP, N, 5)
        s.rules = PedroRules(low_point=rule)
        for seat, c in ((N, "2S"), (E, "AS"), (S, "3H"), (W, "4H")):
            s = act(s, seat, f"play:{c}")
        assert s.taken == expect


# -- scoring and match (PE-19 .. PE-23) ----------------------------------------------------


def scored(bid: int, p_m: int, p_d: int, rules: PedroRules = DEFAULT) -> HandResult:
    """The result when makers N–S bid ``bid`` and took ``p_m`` against ``p_d``."""
    s = mid_play({N: "", E: "", S: "", W: ""}, H, N, 6)
    s.rules = rules
    s.high = bid
    s.taken = (p_m, p_d)
    s.phase = pedro.OVER
    return GAME.result(s)


def test_pe19_pe21_p_t9_made_bid() -> None:
    """P-T9: bid 8, makers 9, defenders 5: makers +9, defenders 0 (+5 defenders_score_own)."""
    assert scored(8, 9, 5).points == (9, 0)
    assert scored(8, 9, 5, PedroRules(defenders_score_own=True)).points == (9, 5)
    assert scored(8, 9, 5).detail["made"] is True


def test_pe20_pe22_p_t10_failed_bid() -> None:
    """P-T10: bid 8, 7–7: seed defenders +8; POKERWINER +15; PIDRO makers −8, defenders +7."""
    assert scored(8, 7, 7).points == (0, 8)
    assert scored(8, 7, 7, PedroRules(failed_bid="fail_opponents_own_plus_bid")).points == (0, 15)
    assert scored(8, 7, 7, PedroRules(failed_bid="fail_minus_bid")).points == (-8, 7)


def test_pe19_p_t11_exactly_made_and_p_t12_maximum() -> None:
    """P-T11: bid 6, take 6: +6. P-T12: bid 14, take all 14: +14 (not 28)."""
    assert scored(6, 6, 8).points == (6, 0)
    assert scored(14, 14, 0).points == (14, 0)


def test_pe23_p_t15_end_of_game() -> None:
    """P-T15: target 50, 45–48; the 45 side bids 6 and takes 8: 53–48, they win."""
    assert GAME.new_match(DEFAULT, N) == MatchState(scores=(0, 0), dealer=N)
    match = MatchState(scores=(45, 48), dealer=N)
    after = GAME.after_hand(match, scored(6, 8, 6), DEFAULT)
    assert after.scores == (53, 48) and after.over and after.winner == 0
    not_yet = GAME.after_hand(MatchState(scores=(40, 48), dealer=N), scored(6, 8, 6), DEFAULT)
    assert not not_yet.over and not_yet.winner is None


def test_pe23_both_reach_target_bidders_first() -> None:
    """PE-23: with defenders_score_own both may cross: the makers win (default), or the
    higher total (variant); defenders alone crossing on a made bid win."""
    rules = PedroRules(defenders_score_own=True)
    match = MatchState(scores=(45, 48), dealer=N)
    result = scored(6, 6, 8, rules)  # N–S (makers) +6 → 51, E–W +8 → 56
    assert GAME.after_hand(match, result, rules).winner == 0
    higher = PedroRules(defenders_score_own=True, both_reach_target="higher_score")
    assert GAME.after_hand(match, result, higher).winner == 1
    low = MatchState(scores=(10, 48), dealer=N)
    assert GAME.after_hand(low, result, rules).winner == 1


def test_pe23_target_score_is_agreed() -> None:
    """PE-23: play runs to an agreed target, "for example 50" (§4.2: WP 42 or 51, PIDRO 62,
    JC-CINCH 11). P-T15's 45–48 plus a made 8 wins at 50, not at 62; at 11 a made 6 from
    5–3 wins."""
    pidro = PedroRules(target_score=62)
    after = GAME.after_hand(MatchState(scores=(45, 48), dealer=N), scored(6, 8, 6), pidro)
    assert after.scores == (53, 48) and not after.over and after.winner is None
    pitch = PedroRules(target_score=11)
    after = GAME.after_hand(MatchState(scores=(5, 3), dealer=N), scored(6, 6, 8, pitch), pitch)
    assert after.scores == (11, 3) and after.over and after.winner == 0


def test_pe23_no_deal_after_the_match_is_over() -> None:
    """PE-23: play continues *until* one side reaches the target; a match that is over
    takes no more deals. Adding one, a thrown-in deal (PE-9) included, is refused with a
    rules error naming the rule, not a bare KeyError."""
    rules = PedroRules(defenders_score_own=True)
    over = GAME.after_hand(MatchState(scores=(45, 48), dealer=N), scored(6, 6, 8, rules), rules)
    assert over.over and over.scores == (51, 56)
    void = HandResult((0, 0), {"redeal": True}, void=True)
    for result in (void, scored(6, 8, 6, rules)):
        with pytest.raises(NotYourTurnError) as err:
            GAME.after_hand(over, result, rules)
        assert err.value.rule == "PE-23"
        assert "the match is over (N–S won, 51–56)" in err.value.message


def test_p_t16_points_left_in_widow_cannot_be_won() -> None:
    """P-T16: 5♥ left in the face-up widow: at most 9 points in play; a bid of 10 fails.
    Invariant: p_m + p_d + widow points = 14; discards never hold points."""
    hands = (
        "AH JH TH 2H KH 3C 4S 6S 7S",
        "2C 4C 5C 6C 7C 8C 9C TC JC",
        "2S 3S 5S 8S 9S TS JS QS KS",
        "2D 3D 4D 6D 7D 8D 9D TD JD",
    )
    deal = Deal(
        hands=tuple(cards(h) for h in hands),
        stock=cards("QH 9H 8H 7H 6H 4H 3H QC KC AC QD KD AD AS 5D 5H"),
    )
    s = GAME.new_hand(deal, W, DEFAULT)
    s = act(s, N, "bid:10")
    for seat in (E, S, W):
        s = act(s, seat, "pass")
    s = act(s, N, "name:H")
    for seat in (N, E, S, W):
        s = GAME.apply(s, seat, GAME.legal_actions(s)[0]).state  # three cards each
    assert s.widow_up >> parse_card("5H") & 1
    while not GAME.is_terminal(s):
        s = GAME.apply(s, GAME.current_seat(s) or 0, GAME.legal_actions(s)[-1]).state
    result = GAME.result(s)
    assert result.detail["widow_points"] == 10  # 5H and 5D both stayed in the widow
    assert sum(s.taken) == 4 and not result.detail["made"] and result.points == (0, 10)
    assert all(not d & COUNTING[H] for d in s.discards)


# -- bad inputs, turns, hidden information -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "bid",
        "bid:15",
        "bid:-1",
        "bid:x",
        "bid:",
        "name:X",
        "name:",
        "play:1H",
        "play:",
        "discard:",
        "discard:7C,7C",
        "discard:7C,,8C",
        "take:ZZ",
        "double",
        "PASS",
        "play:JH ",
    ],
)
def test_malformed_actions_are_invalid(text: str) -> None:
    """Syntax errors raise InvalidActionError quoting the text (docs/hand-record.md)."""
    with pytest.raises(InvalidActionError):
        GAME.parse_action(text)


def test_notation_round_trips_and_discards_are_canonical() -> None:
    """Actions round-trip; a discard names its cards in canonical order (`discard:7C,8C,9D`)."""
    code = GAME.parse_action("discard:9d,8C,7c")
    assert GAME.format_action(code) == "discard:7C,8C,9D"
    for text in ("pass", "bid:0", "bid:14", "name:S", "take:AS", "play:TH"):
        assert GAME.format_action(GAME.parse_action(text)) == text
    assert GAME.parse_action("play:10h") == parse_card("TH")
    assert len(GAME.all_actions()) < 400


def test_illegal_and_out_of_turn_actions_change_nothing() -> None:
    """Refused actions raise the right error, name the rule, and leave the state unchanged."""
    s = to_discards()
    before = GAME.audit_view(s)
    with pytest.raises(NotYourTurnError) as turn:
        act(s, E, "discard:2C,4C,5C")
    assert turn.value.rule == "PE-10"
    with pytest.raises(IllegalActionError) as bad:
        act(s, N, "play:KH")
    assert bad.value.rule == "PE-10" and "'play:KH'" in bad.value.message
    with pytest.raises(IllegalActionError):
        act(s, N, "bid:7")
    assert GAME.audit_view(s) == before
    over = GAME.apply(act(act(act(start(), N, "pass"), E, "pass"), S, "pass"), W, 64).state
    with pytest.raises(NotYourTurnError):
        act(over, N, "bid:3")


def test_views_hide_other_seats_cards() -> None:
    """A seat sees its own cards, every discard and the shown widow, never another seat's
    unplayed cards nor the hidden widow (the refill is face down)."""
    s = discard_round({N: 3, E: 4, S: 5, W: 3})
    for seat in range(4):
        view = json.dumps(GAME.view(s, seat))
        for other in range(4):
            held = [CARD_NAMES[c] for c in PACK_52 if s.hands[other] >> c & 1]
            for name in held:
                assert (f'"{name}"' in view) == (other == seat), (seat, other, name)
    spectator = json.dumps(GAME.view(s, None))
    assert not any(f'"{CARD_NAMES[c]}"' in spectator for c in PACK_52 if s.hands[N] >> c & 1)
    # before the refill the widow is hidden from everybody
    early = to_discards()
    assert all(
        f'"{n}"' not in json.dumps(GAME.view(early, seat))
        for seat in range(4)
        for n in WIDOW.split()
    )


# -- records -------------------------------------------------------------------------------


def test_golden_hand_record_replays() -> None:
    """The golden hand record replays legally and its result matches."""
    data = json.loads((GOLDEN / "hand_001.json").read_text(encoding="utf-8"))
    code, out = verify_data(data, legal=True)
    assert code == 0, out
    assert out["result"] == data["result"]
    assert all(step["action"] in step["legal"] for step in out["steps"])


def test_golden_match_record_replays() -> None:
    """The golden match record replays hand by hand to its recorded winner."""
    data = json.loads((GOLDEN / "match_001.json").read_text(encoding="utf-8"))
    code, out = verify_data(data)
    assert code == 0, out
    assert out["result"]["winner"] == data["result"]["winner"] and out["result"]["over"]


def test_tampered_record_is_refused_naming_the_rule() -> None:
    """A record with an illegal discard stops there with the rule id."""
    data = json.loads((GOLDEN / "hand_001.json").read_text(encoding="utf-8"))
    actions = data["actions"]
    i = next(k for k, a in enumerate(actions) if a["action"].startswith("discard:"))
    actions[i]["action"] = "discard:" + ",".join(actions[i]["action"][8:].split(",")[:2])
    code, out = verify_data(data)
    assert code == 1 and out["error"]["rule"] == "PE-10"
