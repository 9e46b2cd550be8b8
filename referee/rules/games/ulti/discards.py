"""The talon discard of Ulti (UL-10): two cards of a 12-card hand, as one action code.

A discard's code is ``DISCARD_BASE + 52 * low + high`` for the two cards ``low < high``.
:class:`DiscardPairs` is the legal set of a hand without building it: 66 codes for 12 cards,
most of which a referee never looks at (as python-chess's ``LegalMoveGenerator``).
"""

from __future__ import annotations

from itertools import combinations
from typing import Final, overload

from referee.rules.cards import CardSet, cards_in, names
from referee.rules.game import Action, LazyActions

DISCARD_BASE: Final = 1024
"""The code of the pair ``(0, 0)``; a pair ``low < high`` is ``DISCARD_BASE + 52 * low + high``."""

_POSITIONS: Final = tuple(tuple(combinations(range(n), 2)) for n in range(33))
"""``_POSITIONS[n][i]``: the positions in a sorted ``n``-card hand of the ``i``-th pair."""


def pair_code(low: int, high: int) -> Action:
    """The code of discarding cards ``low < high``."""
    return DISCARD_BASE + 52 * low + high


def pair_of(code: Action) -> tuple[int, int] | None:
    """The two cards ``(low, high)`` of a discard code, or ``None`` if it is not one."""
    pair = code - DISCARD_BASE
    if not 0 <= pair < 52 * 52:
        return None
    low, high = divmod(pair, 52)
    return (low, high) if low < high else None


def held_pair(hand: CardSet, code: Action) -> CardSet:
    """The two cards of discard ``code`` as a set if ``hand`` holds both, else 0 (UL-10)."""
    pair = pair_of(code)
    two = 0 if pair is None else (1 << pair[0]) | (1 << pair[1])
    return two if hand & two == two else 0


class DiscardPairs(LazyActions):
    """The legal discards of a hand (UL-10) as a lazy sorted sequence of codes.

    ``len`` is ``n·(n-1)/2``, ``[i]`` picks the i-th pair from a table of positions, ``in``
    and :meth:`index` are bit operations; iterating builds the list. Immutable; equal to any
    sequence (not a string) holding the same codes in the same order.
    """

    def __init__(self, hand: CardSet) -> None:
        if hand < 0 or hand >> 52:
            raise ValueError("hand must be a card mask")
        n = hand.bit_count()
        self._hand = hand
        self._len = n * (n - 1) // 2
        self._pos = _POSITIONS[n]

    def __reduce__(self) -> tuple[type[DiscardPairs], tuple[int]]:
        return DiscardPairs, (self._hand,)

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return self._codes()[index]
        try:
            p, q = self._pos[index]  # negative indices count from the end, as in a list
        except IndexError:
            raise IndexError(
                f"discard index {index} out of range for {self._len} legal discards"
            ) from None
        cards = cards_in(self._hand)
        return pair_code(cards[p], cards[q])

    def __contains__(self, code: object) -> bool:
        return isinstance(code, int) and held_pair(self._hand, code) != 0

    def _rank(self, value: Action) -> int:
        """Counted from the hand's bits."""
        low, high = divmod(value - DISCARD_BASE, 52)
        h = self._hand
        n = h.bit_count()
        a = (h & ((1 << low) - 1)).bit_count()  # position of low
        b = (h & ((1 << high) - 1)).bit_count()  # position of high
        return a * (2 * n - a - 1) // 2 + (b - a - 1)

    def _codes(self) -> list[Action]:
        return [pair_code(a, b) for a, b in combinations(cards_in(self._hand), 2)]

    def __repr__(self) -> str:
        return f"<DiscardPairs: {self._len} codes, 2 of [{' '.join(names(cards_in(self._hand)))}]>"
