"""The bower tables (:mod:`referee.rules.bowers`, issue 18): one construction gives Euchre's
left bower (EU-3, E-T1) and Pedro's left pedro (PE-3, P-T1)."""

from __future__ import annotations

import doctest

from referee.rules import bowers
from referee.rules.bowers import LEFT, bower_tables, left_bower, same_colour
from referee.rules.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    FIVE,
    FOUR,
    HEARTS,
    JACK,
    KING,
    NINE,
    PACK_24,
    PACK_52,
    QUEEN,
    SPADES,
    TEN,
    THREE,
    TWO,
    card_name,
    cards_in,
    parse_card,
)
from referee.rules.tricks import TRUMP_POWER, TrickTables

EUCHRE = bower_tables(
    PACK_24, JACK, range(NINE, ACE + 1), (NINE, TEN, QUEEN, KING, ACE, LEFT, JACK)
)
PEDRO = bower_tables(
    PACK_52, FIVE, range(TWO, ACE + 1), (TWO, THREE, FOUR, LEFT, *range(FIVE, ACE + 1))
)


def high_to_low(tables: TrickTables, cards: int, led: int) -> str:
    power = tables.power[led]
    return " ".join(card_name(c) for c in sorted(cards_in(cards), key=lambda c: -power[c]))


def test_doctests() -> None:
    assert doctest.testmod(bowers).failed == 0


def test_same_colour_pairs() -> None:
    assert [same_colour(s) for s in (CLUBS, DIAMONDS, HEARTS, SPADES)] == [
        SPADES, HEARTS, DIAMONDS, CLUBS]
    assert left_bower(JACK, HEARTS) == parse_card("JD")
    assert left_bower(FIVE, SPADES) == parse_card("5C")


def test_euchre_e_t1_eu3() -> None:
    """E-T1 / EU-3: hearts trump: HJ > DJ > HA > HK > HQ > HT > H9; diamonds keep five cards."""
    hearts = EUCHRE[HEARTS]
    assert high_to_low(hearts, hearts.trumps, SPADES) == "JH JD AH KH QH TH 9H"
    assert high_to_low(hearts, hearts.suit_cards[DIAMONDS], DIAMONDS) == "AD KD QD TD 9D"
    assert hearts.suit_of[parse_card("JD")] == HEARTS
    assert hearts.power[DIAMONDS][parse_card("9H")] >= TRUMP_POWER  # any trump beats the led suit


def test_pedro_p_t1_pe3() -> None:
    """P-T1 / PE-3: hearts trump has 14 cards, 5D directly below 5H; diamonds keep twelve."""
    hearts = PEDRO[HEARTS]
    expected = "AH KH QH JH TH 9H 8H 7H 6H 5H 5D 4H 3H 2H"
    assert high_to_low(hearts, hearts.trumps, CLUBS) == expected
    assert len(cards_in(hearts.suit_cards[DIAMONDS])) == 12
    assert PEDRO[SPADES].suit_of[parse_card("5C")] == SPADES
