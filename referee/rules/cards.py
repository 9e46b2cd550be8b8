"""Cards, packs and card sets, in the record notation of ``docs/hand-record.md``.

A card is an ``int``: ``suit * 13 + rank``, with suits ``C D H S`` = 0..3 and ranks
``2 .. A`` = 0..12. A set of cards is an ``int`` bitmask (bit ``card`` set), as python-chess
keeps bitboards: a hand, a suit or the cards already played are each one integer, and
following suit is one ``&``.

>>> parse_card("10h") == card(TEN, HEARTS)
True
>>> card_name(parse_card("jd"))
'JD'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, TypeAlias

from referee.rules.errors import InvalidActionError

Card: TypeAlias = int
Suit: TypeAlias = int
Rank: TypeAlias = int
CardSet: TypeAlias = int
"""A set of cards as a bitmask: bit ``c`` is set when card ``c`` is in the set."""

CLUBS: Final[Suit] = 0
DIAMONDS: Final[Suit] = 1
HEARTS: Final[Suit] = 2
SPADES: Final[Suit] = 3
SUITS: Final[tuple[Suit, ...]] = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS: Final = "CDHS"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS: Final = ("♣", "♦", "♥", "♠")

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
RANK_LETTERS: Final = "23456789TJQKA"

# Hungarian display names (Ulti). Records use the letters above (docs/hand-record.md).
HUNGARIAN_SUIT_NAMES: Final = {HEARTS: "piros", DIAMONDS: "tök", SPADES: "zöld", CLUBS: "makk"}


def card(rank: Rank, suit: Suit) -> Card:
    """The card of ``rank`` and ``suit``."""
    return suit * 13 + rank


SUIT_OF: Final[tuple[Suit, ...]] = tuple(c // 13 for c in range(52))
RANK_OF: Final[tuple[Rank, ...]] = tuple(c % 13 for c in range(52))
CARD_NAMES: Final[tuple[str, ...]] = tuple(
    RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13] for c in range(52)
)
SUIT_MASKS: Final[tuple[CardSet, ...]] = tuple(0x1FFF << (13 * s) for s in SUITS)
"""``SUIT_MASKS[s]``: every card of suit ``s``."""

_BY_NAME: Final[dict[str, Card]] = {name: c for c, name in enumerate(CARD_NAMES)}


def suit_of(c: Card) -> Suit:
    """The printed suit of a card."""
    return c // 13


def card_name(c: Card) -> str:
    """Canonical notation: ``TH``, ``JD``, ``5S``."""
    return CARD_NAMES[c]


def named_in(action: str) -> list[str]:
    """The cards an action in record notation names, in order (``discard:7C,8D``: ``7C`` and
    ``8D``; ``play:TH``: ``TH``); none when its argument is not a list of cards (``bid:80C``,
    ``kontra:ulti``, ``pass``)."""
    arg = action.partition(":")[2]
    named = arg.split(",") if arg else []
    return named if named and all(n in _BY_NAME for n in named) else []


def parse_card(text: str) -> Card:
    """Read a card, accepting ``10`` for ``T`` and lower case.

    :raises InvalidActionError: for anything else, quoting the text.
    """
    key = text.strip().upper()
    if key.startswith("10"):
        key = "T" + key[2:]
    found = _BY_NAME.get(key)
    if found is None or text != text.strip():
        raise InvalidActionError(
            f"{text!r} is not a card: write rank then suit, e.g. 'TH', '10h' or 'JD'"
        )
    return found


def bit(c: Card) -> CardSet:
    """The one-card set ``{c}``."""
    return 1 << c


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The set holding ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _suit_table(suit: Suit) -> tuple[tuple[Card, ...], ...]:
    base = 13 * suit
    return tuple(tuple(base + r for r in range(13) if (m >> r) & 1) for m in range(1 << 13))


_C0: Final = _suit_table(CLUBS)
_C1: Final = _suit_table(DIAMONDS)
_C2: Final = _suit_table(HEARTS)
_C3: Final = _suit_table(SPADES)


def cards_in(m: CardSet) -> list[Card]:
    """The cards of a set, lowest index first (four table lookups, one per suit)."""
    return [*_C0[m & 0x1FFF], *_C1[(m >> 13) & 0x1FFF], *_C2[(m >> 26) & 0x1FFF], *_C3[m >> 39]]


def iter_cards(m: CardSet) -> Iterator[Card]:
    """Iterate the cards of a set, lowest index first."""
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def count(m: CardSet) -> int:
    """Number of cards in a set."""
    return m.bit_count()


def names(cards: Iterable[Card]) -> list[str]:
    """Canonical names of ``cards``, in the order given."""
    return [CARD_NAMES[c] for c in cards]


def make_pack(lowest: Rank) -> tuple[Card, ...]:
    """All cards of rank ``lowest`` and up, in each suit, in index order."""
    return tuple(card(r, s) for s in SUITS for r in range(lowest, ACE + 1))


PACK_52: Final = make_pack(TWO)
"""The full French pack (Pedro)."""
PACK_32: Final = make_pack(SEVEN)
"""7 to ace in four suits (Belot, Coinche)."""
PACK_24: Final = make_pack(NINE)
"""9 to ace in four suits (Euchre)."""
HUNGARIAN_32: Final = PACK_32
"""The Hungarian pack (Ulti), written in the same notation: 7 8 9 10 alsó felső király ász."""
