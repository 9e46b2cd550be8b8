"""Code shared by the belote family (Bulgarian Belot, Coinche): the 32-card pack, the three card
orders, the card point values, trick power tables and sequence / carré detection.

Everything here is game-neutral and table-driven (``rules/belot-coinche.md`` §0.2, §0.3, BG-A1,
CO-A1). Contracts are identified by a *mode*: ``0..3`` is a suit contract with that suit as
trump (``CLUBS .. SPADES``), :data:`NO_TRUMPS` and :data:`ALL_TRUMPS` the two others.

Names here are a public interface for the belote-family games: add, never rename.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from referee.rules.cards import (
    ACE,
    EIGHT,
    JACK,
    KING,
    NINE,
    PACK_32,
    QUEEN,
    RANK_OF,
    SEVEN,
    SUIT_OF,
    SUITS,
    TEN,
    Card,
    CardSet,
    card,
)
from referee.rules.tricks import TrickTables, by_rank, trick_tables, winner_index

Mode: TypeAlias = int
"""``0..3`` a suit contract (the trump suit), ``4`` no trumps, ``5`` all trumps."""

NO_TRUMPS: Final[Mode] = 4
ALL_TRUMPS: Final[Mode] = 5
MODES: Final[tuple[Mode, ...]] = (0, 1, 2, 3, NO_TRUMPS, ALL_TRUMPS)

PACK_MASK: Final[CardSet] = sum(1 << c for c in PACK_32)
"""The 32-card pack as a set."""

RANKS: Final[tuple[int, ...]] = (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE)
"""The ranks of the pack in SEQUENCE order (7 8 9 10 J Q K A)."""

TRUMP_ORDER: Final[tuple[int, ...]] = (SEVEN, EIGHT, QUEEN, KING, TEN, ACE, NINE, JACK)
"""Lowest to highest in a trump suit (and every suit in all trumps)."""
PLAIN_ORDER: Final[tuple[int, ...]] = (SEVEN, EIGHT, NINE, JACK, QUEEN, KING, TEN, ACE)
"""Lowest to highest in a non-trump suit (and every suit in no trumps)."""
TRUMP_STRENGTH: Final[tuple[int, ...]] = tuple(
    TRUMP_ORDER.index(r) if r in TRUMP_ORDER else -1 for r in range(13)
)
"""``TRUMP_STRENGTH[rank]``: 0 (7) .. 7 (J) in TRUMP order; -1 for ranks not in the pack."""
TRUMP_VALUES: Final[dict[int, int]] = {
    JACK: 20, NINE: 14, ACE: 11, TEN: 10, KING: 4, QUEEN: 3, EIGHT: 0, SEVEN: 0
}
"""Card points of a trump (§0.3); a trump suit totals 62."""
PLAIN_VALUES: Final[dict[int, int]] = {
    ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2, NINE: 0, EIGHT: 0, SEVEN: 0
}
"""Card points of a non-trump (§0.3); a plain suit totals 30."""

LAST_TRICK_BONUS: Final = 10
"""Points for winning the last trick ("last ten", "dix de der")."""


def _points(mode: Mode, c: Card) -> int:
    if not (PACK_MASK >> c) & 1:
        return 0
    return (TRUMP_VALUES if mode in (ALL_TRUMPS, SUIT_OF[c]) else PLAIN_VALUES)[RANK_OF[c]]


CARD_POINTS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_points(m, c) for c in range(52)) for m in MODES
)
"""``CARD_POINTS[mode][card]``: the card's points under the Bulgarian / suit-contract values
(a no-trumps deal counts 120, all trumps 248, a suit contract 152, before last ten)."""


def _tables(mode: Mode) -> TrickTables:
    if mode < NO_TRUMPS:
        return trick_tables(PACK_32, by_rank(PLAIN_ORDER, TRUMP_ORDER, mode), mode)
    return trick_tables(PACK_32, by_rank(TRUMP_ORDER if mode == ALL_TRUMPS else PLAIN_ORDER))


TABLES: Final[tuple[TrickTables, ...]] = tuple(_tables(m) for m in MODES)
"""``TABLES[mode]``: the trick tables of a contract (BG-C3, BG-C4, BG-T1, CO-C3). All trumps
and no trumps have no trump suit: a card off the led suit never wins there."""


def trick_winner_index(mode: Mode, cards: tuple[Card, ...] | list[Card]) -> int:
    """Index in ``cards`` (in play order, the lead first) of the card that wins the trick."""
    return winner_index(TABLES[mode].power[SUIT_OF[cards[0]]], cards)


# -- sequences and carrés (BG-A1, CO-A1) -------------------------------------------------------

SEQUENCES: Final[tuple[tuple[int, int, int], ...]] = tuple(
    (s, low, length)
    for s in SUITS
    for length in range(3, 9)
    for low in range(0, 9 - length)
)
"""Every possible sequence of 3 to 8 cards as ``(suit, lowest index in RANKS, length)``."""
SEQUENCE_MASKS: Final[tuple[CardSet, ...]] = tuple(
    sum(1 << card(RANKS[i], s) for i in range(low, low + n)) for s, low, n in SEQUENCES
)
"""``SEQUENCE_MASKS[i]``: the cards of ``SEQUENCES[i]``."""

CARRE_RANKS: Final[tuple[int, ...]] = (NINE, TEN, JACK, QUEEN, KING, ACE)
"""Ranks whose four cards make a carré / kare (four 7s or 8s do not)."""
RANK_MASKS: Final[tuple[CardSet, ...]] = tuple(
    sum(1 << card(r, s) for s in SUITS) for r in range(13)
)
"""``RANK_MASKS[rank]``: the four cards of ``rank``."""


def sequence_points(length: int) -> int:
    """Bulgarian and French value of a run: 3 → 20, 4 → 50, 5 or more → 100."""
    return 20 if length == 3 else 50 if length == 4 else 100


def sequence_key(low: int, length: int) -> tuple[int, int]:
    """Comparison key of a run: longer first, then the higher top card (BG-A5, CO-A3)."""
    return (length, low + length - 1)


KING_QUEEN: Final[tuple[CardSet, ...]] = tuple(
    (1 << card(KING, s)) | (1 << card(QUEEN, s)) for s in SUITS
)
"""``KING_QUEEN[suit]``: the belot / belote pair of ``suit``."""

BELOT_PARTNER: Final[tuple[int, ...]] = tuple(
    card(QUEEN, SUIT_OF[c]) if RANK_OF[c] == KING
    else card(KING, SUIT_OF[c]) if RANK_OF[c] == QUEEN
    else -1
    for c in range(52)
)
"""``BELOT_PARTNER[c]``: the queen for a king, the king for a queen, -1 otherwise."""

PATTERN_CARDS: Final[tuple[tuple[tuple[Card, ...], ...], ...]] = tuple(
    tuple(tuple(card(RANKS[k], s) for k in range(8) if (p >> k) & 1) for p in range(256))
    for s in SUITS
)
"""``PATTERN_CARDS[suit][pattern]``: the cards of ``suit`` whose bits are set in ``pattern``, the
suit's 7 .. A taken from bit ``13 * suit + 5`` (5, 18, 31, 44) of a set: a set of the pack to
a sorted list in four lookups."""
CARDS_C: Final = PATTERN_CARDS[0]
CARDS_D: Final = PATTERN_CARDS[1]
CARDS_H: Final = PATTERN_CARDS[2]
CARDS_S: Final = PATTERN_CARDS[3]
assert tuple(13 * s + RANKS[0] for s in SUITS) == (5, 18, 31, 44)
