"""Bowers: the card of the trump's same-colour suit that counts as a trump.

Euchre's left bower is the jack of the suit of the trump's colour (EU-3); Pedro's left pedro
is the five (PE-3). Each belongs to the trump suit for following and for winning tricks, and
is missing from its printed suit. Both games build their per-trump tables here, once, with the
trick-taking kernel (:mod:`referee.rules.tricks`): only the bower's rank and the two rank
orders differ.

>>> from referee.rules.cards import ACE, HEARTS, JACK, NINE, PACK_24, QUEEN, KING, TEN
>>> from referee.rules.cards import DIAMONDS, card_name, cards_in, parse_card
>>> euchre = bower_tables(PACK_24, JACK, range(NINE, ACE + 1),
...                       (NINE, TEN, QUEEN, KING, ACE, LEFT, JACK))
>>> hearts = euchre[HEARTS]
>>> hearts.suit_of[parse_card("JD")] == HEARTS  # the left bower is a trump
True
>>> [card_name(c) for c in sorted(cards_in(hearts.trumps), key=hearts.strength.__getitem__)]
['9H', 'TH', 'QH', 'KH', 'AH', 'JD', 'JH']
>>> len(cards_in(hearts.suit_cards[DIAMONDS]))  # diamonds without its jack
5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from referee.rules.cards import SUIT_OF, SUITS, Card, Rank, Suit, card
from referee.rules.tricks import TrickTables, by_rank, trick_tables

__all__ = ["LEFT", "bower_tables", "left_bower", "same_colour"]

LEFT: Final = -1
"""In a trump order: where the left bower ranks."""


def same_colour(suit: Suit) -> Suit:
    """The other suit of the same colour: clubs and spades, diamonds and hearts."""
    return 3 - suit


def left_bower(rank: Rank, trump: Suit) -> Card:
    """The card of ``rank`` in the suit of the trump's colour: a trump under ``trump``."""
    return card(rank, same_colour(trump))


def bower_tables(
    pack: Sequence[Card], rank: Rank, plain_order: Iterable[Rank], trump_order: Sequence[Rank]
) -> tuple[TrickTables, ...]:
    """The kernel's tables for each trump suit (index: the trump), where the card of ``rank``
    of the same-colour suit is a trump. Orders are lowest first: ``plain_order`` for every
    other suit, ``trump_order`` for the trumps, with :data:`LEFT` where the left bower ranks."""
    plain = tuple(plain_order)
    at_left = list(trump_order).index(LEFT)
    return tuple(_tables(pack, rank, plain, trump_order, at_left, t) for t in SUITS)


def _tables(
    pack: Sequence[Card],
    rank: Rank,
    plain: tuple[Rank, ...],
    trump_order: Sequence[Rank],
    at_left: int,
    trump: Suit,
) -> TrickTables:
    left = left_bower(rank, trump)
    order = by_rank(plain, trump_order, trump)  # LEFT keeps its place among the trump ranks

    def strength(c: Card) -> int:
        return at_left if c == left else order(c)

    def suit_of(c: Card) -> Suit:
        return trump if c == left else SUIT_OF[c]

    return trick_tables(pack, strength, trump, suit_of)
