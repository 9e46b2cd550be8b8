"""Pedro's discards as a lazy legal set: every ``forced | S`` with ``S`` a subset of a pool of
cards of ``kmin`` to ``kmax`` cards, counted, indexed and tested without being listed (a seat
may have up to 466 legal discards; PE-10 .. PE-14 say which, ``pedro.py`` computes them)."""

from __future__ import annotations

from math import comb
from operator import attrgetter
from typing import Any, ClassVar, Final

from referee.rules.cards import CardSet, cards_in, names
from referee.rules.game import VERB_BASE, Action, LazyActions

__all__ = ["DISCARD_BASE", "DiscardSets"]

DISCARD_BASE: Final = 4 * VERB_BASE
"""A discard's code: this plus its card mask (above every other code of the game)."""

_CUM: Final = tuple(
    tuple(sum(comb(n, t) for t in range(max(k, 0))) for k in range(-53, 55)) for n in range(53)
)
"""``_CUM[n][k + 53]``: how many subsets of ``n`` cards have fewer than ``k`` members
(``-53 ≤ k ≤ 54``), padded so that no lookup needs clipping."""


def _n_sets(n: int, lo: int, hi: int) -> int:
    """How many subsets of ``n ≤ 52`` cards have ``lo..hi`` members (``-53 ≤ lo``,
    ``hi ≤ 53``)."""
    row = _CUM[n]
    return row[hi + 54] - row[lo + 53] if lo <= hi else 0


class DiscardSets(LazyActions):
    """The legal discards of the seat to act as a lazy sorted sequence of codes
    ``DISCARD_BASE + (forced | S)``, ``S ⊆ pool`` and ``kmin ≤ |S| ≤ kmax`` (``forced``: the
    cards every discard includes, ``all_non_trumps``' non-trumps, PE-12; ``pool`` the cards
    that may be added, disjoint from it). ``len`` is a sum of binomials, ``[i]`` unranks the
    i-th code deciding the pool's cards from the highest down, ``index`` ranks, ``in`` is bit
    operations; iterating builds the list. Immutable (the four fields are read-only)."""

    __slots__ = ("_forced", "_kmax", "_kmin", "_pool")

    _forced: CardSet
    _pool: CardSet
    _kmin: int
    _kmax: int

    base: ClassVar[int] = DISCARD_BASE
    """The code of the empty set: a discard's code is ``base`` plus its card mask."""
    forced: Final = property(attrgetter("_forced"))
    pool: Final = property(attrgetter("_pool"))
    kmin: Final = property(attrgetter("_kmin"))
    kmax: Final = property(attrgetter("_kmax"))

    def __init__(self, forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> None:
        if forced & pool or (forced | pool) >> 52 or forced < 0 or pool < 0:
            raise ValueError("forced and pool must be disjoint card masks")
        n = pool.bit_count()  # kmin and kmax clamped to 0..|pool|
        self._forced = forced
        self._pool = pool
        self._kmin = kmin = max(kmin, 0)
        self._kmax = kmax = min(kmax, n)
        self._len = _n_sets(n, kmin, kmax)

    def __reduce__(self) -> tuple[type[DiscardSets], tuple[int, int, int, int]]:
        return DiscardSets, (self._forced, self._pool, self._kmin, self._kmax)

    def __getitem__(self, index: Any) -> Any:  # an Action; a list of them for a slice
        if isinstance(index, slice):
            return self._codes()[index]
        i = index.__index__()
        size = self._len
        if i < 0:
            i += size
        if not 0 <= i < size:
            raise IndexError(f"discard index {index} out of range for {size} legal discards")
        # leaving the top card out comes first: _n_sets(j, lo, hi) sets of the j cards below
        # (inlined, the table's indices offset)
        cards = cards_in(self._pool)
        cum = _CUM
        lo = self._kmin + 53
        hi = self._kmax + 54
        m = DISCARD_BASE + self._forced
        for j in range(len(cards) - 1, -1, -1):
            row = cum[j]
            before = row[hi] - row[lo]
            if i >= before:
                i -= before
                m += 1 << cards[j]
                lo -= 1
                hi -= 1
        return m

    def __contains__(self, code: object) -> bool:
        if not isinstance(code, int):
            return False
        d = code - DISCARD_BASE
        free = d ^ self._forced
        return (
            d >= 0
            and d & self._forced == self._forced
            and not free & ~self._pool
            and self._kmin <= free.bit_count() <= self._kmax
        )

    def _rank(self, value: Action) -> int:
        """Ranked with binomials."""
        free = value - DISCARD_BASE - self._forced
        cards = cards_in(self._pool)
        lo = self._kmin
        hi = self._kmax
        rank = 0
        for j in range(len(cards) - 1, -1, -1):
            if free >> cards[j] & 1:
                rank += _n_sets(j, lo, hi)
                lo -= 1
                hi -= 1
        return rank

    def __repr__(self) -> str:
        pool = " ".join(names(cards_in(self._pool)))
        forced = " ".join(names(cards_in(self._forced)))
        sizes = f"{self._kmin}" if self._kmin == self._kmax else f"{self._kmin}..{self._kmax}"
        plus = f" plus {forced}" if forced else ""
        return f"<DiscardSets: {self._len} codes, {sizes} of [{pool}]{plus}>"

    def _codes(self) -> list[Action]:
        if self._pool.bit_count() > 16:  # too many subsets to filter: unrank each
            return [self[i] for i in range(self._len)]
        subsets = [0]  # every subset of the pool, ascending: each card doubles the list
        for c in cards_in(self._pool):
            subsets += [x + (1 << c) for x in subsets]
        base = DISCARD_BASE + self._forced
        lo, hi = self._kmin, self._kmax
        return [base + x for x in subsets if lo <= x.bit_count() <= hi]
