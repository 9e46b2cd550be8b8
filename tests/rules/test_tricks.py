"""The trick-taking kernel (:mod:`referee.rules.tricks`, issue 18): the tables it builds
agree with the orders of the rule references, the trick keeps its winner (BG-T1, EU-20, UL-26),
and :func:`answer` gives each game's legal cards from the duties the game picks (BG-P*, CO-P*,
EU-19, UL-24)."""

from __future__ import annotations

import doctest
import random

import pytest

from referee.rules import tricks
from referee.rules.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    HUNGARIAN_32,
    JACK,
    NINE,
    PACK_24,
    PACK_32,
    SPADES,
    SUIT_MASKS,
    SUIT_OF,
    SUITS,
    card,
    parse_card,
)
from referee.rules.games.belote_family import PLAIN_ORDER, TRUMP_ORDER
from referee.rules.tricks import (
    NO_TRUMP,
    TRUMP_POWER,
    Trick,
    answer,
    beat,
    by_rank,
    follow_suit,
    lead,
    play,
    trick_tables,
    winner_index,
)


def mask(text: str) -> int:
    return sum(1 << parse_card(t) for t in text.split())


def c(text: str) -> int:
    return parse_card(text)


# Belote tables: hearts trump (BG-C3), and all trumps (BG-C4)
HEARTS_T = trick_tables(PACK_32, by_rank(PLAIN_ORDER, TRUMP_ORDER, HEARTS), HEARTS)
ALL_T = trick_tables(PACK_32, by_rank(TRUMP_ORDER))
NONE_T = trick_tables(PACK_32, by_rank(PLAIN_ORDER))


def euchre_tables(trump: int) -> tricks.TrickTables:
    """EU-3: the right bower (J of trump) and the left bower (J of the same colour) head the
    trumps; the left bower is a trump."""
    left = card(JACK, 3 - trump)

    def strength(x: int) -> int:
        if x == card(JACK, trump):
            return 7
        if x == left:
            return 6
        return x % 13 - NINE

    return trick_tables(PACK_24, strength, trump, lambda x: trump if x == left else SUIT_OF[x])


def test_doctests() -> None:
    assert doctest.testmod(tricks).failed == 0


def test_orders_and_powers_BG_C3_BG_C4() -> None:
    # TRUMP order 7 8 Q K 10 A 9 J; PLAIN order 7 8 9 J Q K 10 A (§0.2)
    assert HEARTS_T.strength[c("JH")] == 7 and HEARTS_T.strength[c("9H")] == 6
    assert HEARTS_T.strength[c("AS")] == 7 and HEARTS_T.strength[c("9S")] == 2
    assert HEARTS_T.power[SPADES][c("7H")] == TRUMP_POWER > HEARTS_T.power[SPADES][c("AS")]
    assert HEARTS_T.power[SPADES][c("AC")] == -1  # off suit never wins
    assert HEARTS_T.trumps == SUIT_MASKS[HEARTS] & mask("7H 8H 9H TH JH QH KH AH")
    assert ALL_T.trumps == 0 and ALL_T.power[CLUBS][c("JD")] == -1
    assert ALL_T.above[c("AS")] == mask("9S JS")
    assert NONE_T.above[c("KD")] == mask("TD AD")
    assert HEARTS_T.strength[c("2C")] == -1 and HEARTS_T.above[c("2C")] == 0  # not in the pack


def test_effective_suit_bowers_EU_3() -> None:
    t = euchre_tables(HEARTS)
    assert t.suit_of[c("JD")] == HEARTS and t.suit_of[c("JC")] == CLUBS
    assert t.suit_cards[HEARTS] == mask("9H TH JH QH KH AH JD")
    assert t.suit_cards[DIAMONDS] == mask("9D TD QD KD AD")
    assert t.above[c("AH")] == mask("JD JH") and t.above[c("JD")] == mask("JH")
    # a diamond lead: holding only the left bower is not holding diamonds (EU-19)
    hand = mask("JD 9C AS")
    assert follow_suit(hand, t.suit_cards[DIAMONDS]) == hand
    assert follow_suit(hand, t.suit_cards[HEARTS]) == mask("JD")


def test_trick_keeps_the_first_highest_card_BG_T1_BG_P7() -> None:
    t = HEARTS_T
    trick = lead(t, 2, c("TS"))
    assert trick == Trick(2, (c("TS"),), SPADES, 2, c("TS"))
    trick = play(trick, t.power[trick.led], 3, c("AC"))  # off suit: does not win
    trick = play(trick, t.power[trick.led], 0, c("AS"))
    trick = play(trick, t.power[trick.led], 1, c("7H"))  # any trump wins
    assert trick.winner == 1 and trick.best == c("7H")
    assert trick.plays() == ((2, c("TS")), (3, c("AC")), (0, c("AS")), (1, c("7H")))
    assert winner_index(t.power[SPADES], trick.cards) == 3
    # no trumps: the lead's suit only; the first of equal powers keeps the trick
    assert winner_index(NONE_T.power[CLUBS], [c("7C"), c("AH"), c("8C")]) == 2


def test_plays_pass_over_a_lone_players_partner_EU_16() -> None:
    trick = Trick(3, (c("9H"), c("TH"), c("JH")), HEARTS, 3, c("9H"))
    assert trick.plays(skip=1) == ((3, c("9H")), (0, c("TH")), (2, c("JH")))


def test_beat_raises_if_able_BG_P3() -> None:
    follow = mask("7H AH")
    assert beat(follow, HEARTS_T.above[c("TH")]) == mask("AH")
    assert beat(follow, HEARTS_T.above[c("9H")]) == follow  # nothing beats: any of the suit


@pytest.mark.parametrize(
    ("hand", "trick", "undertrump", "legal", "why"),
    [
        ("8C JC KC JH 8S TS", "TC", False, "8C JC KC", "BG-P2/P4 plain follow, no raise"),
        ("7H AH 7D", "TH", False, "AH", "BG-P3 / CO-P3 raise in trumps"),
        ("7H 8H 7D", "AH", False, "7H 8H", "BG-P3 cannot beat: any trump"),
        ("QH 7D KC", "QS", False, "QH", "BG-P5c must trump"),
        ("9H JH QC", "QS QH", False, "9H JH", "BG-P5d over-trump"),
        ("7H 7D QC", "QS JH", False, "7H 7D QC", "BG-P5d cannot over-trump: free"),
        ("7H 7D QC", "QS JH", True, "7H", "CO-P5d pisser: a lower trump"),
        ("7D QC", "QS JH", True, "7D QC", "void in trumps: any card"),
    ],
)
def test_answer_belote_duties(hand: str, trick: str, undertrump: bool, legal: str, why: str
                              ) -> None:
    t = HEARTS_T
    cards = [c(x) for x in trick.split()]
    led = SUIT_OF[cards[0]]
    best = cards[winner_index(t.power[led], cards)]
    raise_led = led == t.trump
    got = answer(
        mask(hand),
        t.suit_cards[led],
        t.above[best] if raise_led else t.suit_cards[led],
        t.trumps,
        t.above[best] if SUIT_OF[best] == t.trump else t.trumps,
        undertrump,
    )
    assert got == mask(legal), why


def test_answer_partner_winning_frees_a_void_seat_BG_P5a() -> None:
    hand = mask("7H 7D QC")
    t = HEARTS_T
    assert answer(hand, t.suit_cards[SPADES], t.suit_cards[SPADES], 0, 0, True) == hand


def test_answer_may_trump_instead_of_following_PE_16() -> None:
    # Pedro: a seat holding the led suit may play it or a trump
    hand = mask("7S AS 2H 9C")
    t = trick_tables(
        [card(r, s) for s in SUITS for r in range(13)], by_rank(range(13)), HEARTS
    )
    legal = answer(hand, t.suit_cards[SPADES], t.suit_cards[SPADES] | t.trumps, 0, 0, False)
    assert legal == mask("7S AS 2H")


def test_answer_matches_ultis_legal_cards_UL_24() -> None:
    """Ulti (UL-24): follow and beat the led suit's best card, else trump and over-trump, else
    a lower trump; after a trump on a plain lead the followers need not beat (unless the
    variant says so). The kernel's answer with those duties gives Ulti's legal sets."""
    from referee.rules.games.ulti.game import ABOVE, STRENGTH, legal_cards

    rng = random.Random(18)
    for _ in range(3000):
        dealt = rng.sample(HUNGARIAN_32, 13)
        trick = dealt[: rng.randrange(1, 3)]
        hand = sum(1 << x for x in dealt[3:])
        trump = rng.choice([NO_TRUMP, *SUITS])
        must_beat = rng.random() < 0.5
        strength, above = STRENGTH[trump < 0], ABOVE[trump < 0]
        led = SUIT_OF[trick[0]]
        best_led, best_trump = trick[0], -1
        for x in trick:
            if SUIT_OF[x] == led and strength[x] > strength[best_led]:
                best_led = x
            if SUIT_OF[x] == trump and (best_trump < 0 or strength[x] > strength[best_trump]):
                best_trump = x
        trumps = SUIT_MASKS[trump] if trump >= 0 else 0
        raise_to = (
            SUIT_MASKS[led] if best_trump >= 0 and led != trump and not must_beat
            else above[best_led]
        )
        over = above[best_trump] if best_trump >= 0 else trumps
        assert answer(hand, SUIT_MASKS[led], raise_to, trumps, over, True) == legal_cards(
            hand, trick, trump, must_beat_after_trumped=must_beat
        )


def test_tables_refuse_a_strength_as_high_as_a_trump() -> None:
    with pytest.raises(AssertionError):
        trick_tables(PACK_24, lambda x: TRUMP_POWER, HEARTS)


def test_by_rank_trump_order_only_for_the_trump() -> None:
    s = by_rank(PLAIN_ORDER, TRUMP_ORDER, SPADES)
    assert s(card(NINE, SPADES)) == 6 and s(card(NINE, CLUBS)) == 2
    assert s(card(ACE, HEARTS)) == 7 and s(card(ACE, SPADES)) == 5
