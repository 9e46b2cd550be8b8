"""Pedro (Cinch), as ``rules/euchre-pedro-ulti.md`` §2 defines it (seed 001, Lithuanian).

Seats 0..3 are N, E, S, W; play goes 0 → 1 → 2 → 3. Teams are N–S (0) and E–W (1).
The deal: nine cards each in threes from dealer+1 (PE-5); ``stock`` is the 16-card widow, in
the order the dealer serves it (PE-13).

Phases: the auction (one round of point bids, PE-6), the maker naming trump (PE-8), the
discards (each seat in turn from dealer+1 turns up at least three cards, PE-10), the dealer
choosing from the widow (only with ``dealer_robs_pack``), play (six tricks, PE-15), over.
The refill (PE-13) is done by the referee, not an action.

Sources, as the reference names them (§2, §4.2): the seed; WP-CINCH (Wikipedia "Cinch",
after Foster's Complete Hoyle, 1897); KATZ and DENEXA (modern Cinch/Pedro rules); PIDRO;
POKERWINER; JC-CINCH. Every point where they differ is a parameter of :class:`PedroRules`.

A discard is one action naming the whole set, ``discard:7C,8C,9D`` (``docs/hand-record.md``).
Its code is :data:`DISCARD_BASE` plus the card mask, so it round-trips without the state; the
legal set at a discard is every allowed subset (at most 466), given lazily as
:class:`DiscardSets` (length, indexing and membership computed, not listed).
:meth:`Pedro.all_actions` cannot list the billions of possible sets: it lists every other code
and a fixed family of discards (each single card, and three consecutive ranks of one suit),
which is what the conformance checker tries.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping, Sequence
from math import comb
from operator import itemgetter
from typing import Any, ClassVar, Final, Generic, TypeVar, overload

from referee.rules.bowers import LEFT, bower_tables, left_bower
from referee.rules.cards import (
    ACE,
    CARD_NAMES,
    FIVE,
    FOUR,
    JACK,
    PACK_52,
    RANK_OF,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
    TEN,
    THREE,
    TWO,
    Card,
    CardSet,
    card,
    cards_in,
    parse_card,
)
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import (
    JSON,
    VERB_BASE,
    Action,
    Announced,
    Deal,
    HandEnded,
    HandResult,
    LazyActions,
    MatchState,
    Step,
    TrickTaken,
)
from referee.rules.games import invariants
from referee.rules.params import RuleSet, param
from referee.rules.phased import Phased, parse_suit, played, word_action
from referee.rules.seats import Seat
from referee.rules.tricks import answer, winner_index


@dataclasses.dataclass(frozen=True)
class PedroRules(RuleSet):
    """Pedro's rule parameters (§2 and §4.2); defaults follow the seed, then the reference."""

    min_bid: int = param(1, "PE-7", "lowest bid (KATZ/DENEXA: 1; PIDRO: 6)", minimum=1, maximum=14)
    fourteen_overcall: bool = param(
        False, "PE-7", "a bid of 14 may be topped by another 14 (PIDRO)"
    )
    all_pass: str = param(
        "redeal",
        "PE-9",
        "when the first three pass: the dealer may pass too and dealer+1 deals again (seed); "
        "the dealer must bid, 6 or more (PIDRO, 'dealer_forced'); or the dealer may also "
        "name trump with no minimum, bid:0 (KATZ, 'dealer_free')",
        choices=("redeal", "dealer_forced", "dealer_free"),
    )
    discard_rule: str = param(
        "at_least_three",
        "PE-12",
        "at least three cards, never a counting trump (seed); or every non-trump, trumps only "
        "beyond six (KATZ; PIDRO's kill rule gives the same sets), 'all_non_trumps'",
        choices=("at_least_three", "all_non_trumps"),
    )
    dealer_robs_pack: bool = param(
        False,
        "PE-13",
        "the dealer, served last, picks cards from the rest of the widow instead of drawing "
        "blind (KATZ, DENEXA, WP)",
    )
    low_point: str = param(
        "trick_winner",
        "PE-4",
        "the point for the 2 of trump goes to the side winning its trick (seed) or to the side "
        "of the player who played it (Pitch/PIDRO, 'played_by')",
        choices=("trick_winner", "played_by"),
    )
    defenders_score_own: bool = param(
        False,
        "PE-21",
        "on a made bid the defenders also score the points they took (PIDRO, KATZ-style, JC-CINCH)",
    )
    failed_bid: str = param(
        "defenders_score_bid",
        "PE-22",
        "on a failed bid: the defenders score the bid (seed); the defenders score their own "
        "points plus the bid (POKERWINER, 'fail_opponents_own_plus_bid'); the makers score "
        "minus the bid and the defenders their own points (PIDRO, 'fail_minus_bid')",
        choices=("defenders_score_bid", "fail_opponents_own_plus_bid", "fail_minus_bid"),
    )
    target_score: int = param(50, "PE-23", "points that win the match (seed: e.g. 50)", minimum=1)
    both_reach_target: str = param(
        "makers_win",
        "PE-23",
        "when both sides reach the target in one hand: the bidding side counts first and wins "
        "(JC-CINCH, PIDRO), or the higher total wins (makers on a tie), 'higher_score'",
        choices=("makers_win", "higher_score"),
    )


class Phase(enum.IntEnum):
    """Where the deal stands."""

    BID = 0
    NAME = 1
    DISCARD = 2
    TAKE = 3
    PLAY = 4
    OVER = 5


BID, NAME, DISCARD, TAKE, PLAY, OVER = (int(p) for p in Phase)

# Action codes (cards 0..51 are plays).
PASS: Final = VERB_BASE
BID_BASE: Final = VERB_BASE + 1  # + bid 0..14 (0 only for the KATZ dealer)
NAME_BASE: Final = VERB_BASE + 16  # + suit
TAKE_BASE: Final = 2 * VERB_BASE  # + card (dealer_robs_pack)
DISCARD_BASE: Final = 4 * VERB_BASE  # + card mask (above every other code)
MAX_BID: Final = 14
_ACTIONS: Final = (
    "a Pedro action (pass, bid:<0..14>, name:<suit>, discard:<card>,<card>,..., take:<card>, "
    "play:<card>)"
)
WIDOW: Final = 16
HAND: Final = 6

# -- trump tables (PE-3, PE-4, PE-17) -------------------------------------------------------


TABLES: Final = bower_tables(
    PACK_52, FIVE, range(TWO, ACE + 1), (TWO, THREE, FOUR, LEFT, *range(FIVE, ACE + 1))
)
"""``TABLES[trump]``: A K Q J 10 9 8 7 6 5 of trump, the left pedro (a trump), 4 3 2; the
others A K Q J 10 9 8 7 6 5 4 3 2, the left pedro's suit without its five (PE-2, PE-3)."""
RIGHT_PEDRO: Final = tuple(card(FIVE, t) for t in SUITS)
LEFT_PEDRO: Final = tuple(left_bower(FIVE, t) for t in SUITS)
EFF_SUIT: Final = tuple(t.suit_of for t in TABLES)
"""``EFF_SUIT[trump][card]``: the effective suit (the left pedro is trump, PE-3)."""
EFF_MASK: Final = tuple(t.suit_cards for t in TABLES)
"""``EFF_MASK[trump][suit]``: the cards whose effective suit is ``suit``."""
TRUMPS: Final = tuple(t.trumps for t in TABLES)
"""``TRUMPS[trump]``: the 14 trumps."""
FOLLOW: Final = tuple(tuple(EFF_MASK[t][s] | TRUMPS[t] for s in SUITS) for t in SUITS)
"""``FOLLOW[trump][led]``: what a seat holding the led suit may play, that suit or a trump
(PE-16: on a trump lead, the trumps)."""
POINTS: Final = tuple(
    tuple(
        5
        if c in (RIGHT_PEDRO[t], LEFT_PEDRO[t])
        else 1
        if SUIT_OF[c] == t and RANK_OF[c] in (ACE, JACK, TEN, TWO)
        else 0
        for c in range(52)
    )
    for t in SUITS
)
"""``POINTS[trump][card]``: A, J, 10, 2 of trump 1 each, both pedros 5 (PE-4)."""
COUNTING: Final = tuple(sum(1 << c for c in range(52) if POINTS[t][c]) for t in SUITS)
"""``COUNTING[trump]``: the six counting trumps, which may never be discarded (PE-11)."""
LOW: Final = tuple(card(TWO, t) for t in SUITS)
PEDROS: Final = tuple((1 << RIGHT_PEDRO[t]) | (1 << LEFT_PEDRO[t]) for t in SUITS)


POWER: Final = tuple(t.power for t in TABLES)
"""``POWER[trump][led][card]``: higher wins the trick (PE-17)."""

_name = CARD_NAMES.__getitem__


_BLOCK_NAMES: Final[tuple[list[tuple[str, ...] | None], ...]] = tuple([None] * 8192 for _ in SUITS)
"""``_BLOCK_NAMES[suit][block]``: the names of the cards of a 13-bit suit block (filled on first
use)."""


def _block_names(s: int, block: int) -> tuple[str, ...]:
    found = _BLOCK_NAMES[s][block] = tuple(map(_name, cards_in(block << 13 * s)))
    return found


def _names_of(m: CardSet) -> list[str]:
    """The names of the cards of ``m``, lowest index first (as ``cards_in``)."""
    n0, n1, n2, n3 = _BLOCK_NAMES
    b0 = m & 8191
    b1 = m >> 13 & 8191
    b2 = m >> 26 & 8191
    b3 = m >> 39
    return [
        *(x0 if (x0 := n0[b0]) is not None else _block_names(0, b0)),
        *(x1 if (x1 := n1[b1]) is not None else _block_names(1, b1)),
        *(x2 if (x2 := n2[b2]) is not None else _block_names(2, b2)),
        *(x3 if (x3 := n3[b3]) is not None else _block_names(3, b3)),
    ]


def _getter(idx: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A function taking the entries ``idx`` of a sequence, always as a tuple."""
    if len(idx) > 1:
        return itemgetter(*idx)
    if idx:
        i = idx[0]
        return lambda seq: (seq[i],)
    return lambda seq: ()


_Rows = tuple[tuple[Callable[[Sequence[int]], tuple[int, ...]], ...], Callable[[Any], Any]]
_ROWS: dict[tuple[int, int, int, int], _Rows] = {}


def _rows(n_lo: int, n_hi: int, kmin: int, kmax: int) -> _Rows:
    """For subsets of ``n_lo`` low and ``n_hi`` high positions with ``kmin..kmax`` members:
    per number ``a`` of high members, the getter of the low subsets that fit; and the getter
    putting those rows in the order of the high subsets (position masks)."""
    key = (n_lo, n_hi, kmin, kmax)
    found = _ROWS.get(key)
    if found is None:
        lows = range(1 << n_lo)
        per_a = tuple(
            _getter([q for q in lows if kmin - a <= q.bit_count() <= kmax - a])
            for a in range(n_hi + 1)
        )
        order = _getter([h.bit_count() for h in range(1 << n_hi)])
        found = _ROWS[key] = (per_a, order)
    return found


_SUBSETS: Final[tuple[list[tuple[int, ...] | None], ...]] = tuple([None] * 8192 for _ in SUITS)
"""``_SUBSETS[suit][block]``: every subset of the cards of one 13-bit suit block, as card
masks in ascending order (filled on first use)."""


def _subsets(s: int, block: int) -> tuple[int, ...]:
    out = [0]
    for c in cards_in(block << 13 * s):
        b = 1 << c
        out += [x + b for x in out]
    found = _SUBSETS[s][block] = tuple(out)
    return found


def _discard_codes(forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> list[Action]:
    """Every ``DISCARD_BASE + (forced | S)`` with ``S ⊆ pool``, ``kmin ≤ |S| ≤ kmax``, sorted.

    The subsets of the pool are the product of the subsets of its four suit blocks, highest
    suit outermost: ``hi`` (spades, hearts) times ``lo`` (diamonds, clubs), entry ``p`` of
    that product being the subset with position mask ``p``, in ascending order. For each high
    part only the low parts that bring the size within ``kmin..kmax`` are added.
    """
    m0 = pool & 8191
    m1 = pool >> 13 & 8191
    m2 = pool >> 26 & 8191
    m3 = pool >> 39
    sub = _SUBSETS
    s0 = sub[0][m0] or _subsets(0, m0)
    s1 = sub[1][m1] or _subsets(1, m1)
    s2 = sub[2][m2] or _subsets(2, m2)
    s3 = sub[3][m3] or _subsets(3, m3)
    base = DISCARD_BASE + forced
    lo = [x + y for x in s1 for y in s0]
    hi = [base + x + y for x in s3 for y in s2]
    n_lo = (m0 | m1 << 13).bit_count()
    per_a, order = _rows(n_lo, (m2 | m3 << 13).bit_count(), kmin, kmax)
    rows = order([g(lo) for g in per_a])
    return [x + y for x, row in zip(hi, rows, strict=True) for y in row]


_CUM: Final = tuple(
    tuple(sum(comb(n, t) for t in range(max(k, 0))) for k in range(-53, 55)) for n in range(53)
)
"""``_CUM[n][k + 53]``: how many subsets of ``n`` cards have fewer than ``k`` members
(``-53 ≤ k ≤ 54``; 0 below 1, ``2**n`` above ``n``): the cached sums of binomials behind
:class:`DiscardSets`, padded so that no lookup needs clipping."""


def _n_sets(n: int, lo: int, hi: int) -> int:
    """How many subsets of ``n ≤ 52`` cards have ``lo..hi`` members (``-53 ≤ lo``,
    ``hi ≤ 53``)."""
    row = _CUM[n]
    return row[hi + 54] - row[lo + 53] if lo <= hi else 0


def _discard_allowed(d: int, forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> bool:
    """Whether the card mask ``d`` is ``forced | S`` with ``S ⊆ pool`` and
    ``kmin ≤ |S| ≤ kmax`` (``forced`` and ``pool`` disjoint): a few bit operations."""
    free = d ^ forced
    return d >= 0 and d & forced == forced and not free & ~pool and kmin <= free.bit_count() <= kmax


_RANKED: Final[list[list[list[tuple[int, ...] | None]]]] = [
    [[None] * 13 for _ in range(13)] for _ in range(13)
]
"""``_RANKED[n][kmin][kmax]``: the position masks of ``n`` positions with ``kmin..kmax``
members, ascending (filled on first use, for ``kmin, kmax ≤ n ≤ 12``)."""

_POP13: Final = tuple(m.bit_count() for m in range(8192))
"""``_POP13[m]``: the cards in a 13-bit suit block."""
_LOW13: Final = tuple((1 << c) - 1 for c in range(14))
"""``_LOW13[c]``: the lowest ``c`` bits."""


def _ranked(d: DiscardSets) -> tuple[int, ...]:
    n = d.pool.bit_count()
    found = _RANKED[n][d.kmin][d.kmax] = tuple(
        q for q in range(1 << n) if d.kmin <= q.bit_count() <= d.kmax
    )
    return found


class DiscardSets(LazyActions):
    """The legal discards of the seat to act (PE-10 .. PE-14) as a lazy sorted sequence.

    The codes are ``DISCARD_BASE + (forced | S)`` for every ``S ⊆ pool`` with
    ``kmin ≤ |S| ≤ kmax``, in ascending order: the list :func:`_discard_codes` builds, without
    building it (as python-chess's ``LegalMoveGenerator``). ``len`` is a sum of binomials;
    ``[i]`` unranks the i-th code, deciding the pool's cards from the highest down; ``in`` and
    :meth:`index` are bit operations; iterating builds the list. Immutable; equal to any
    sequence (not a string) holding the same codes in the same order.
    """

    __slots__ = ("_forced", "_kmax", "_kmin", "_offset", "_pool")

    _forced: CardSet
    _pool: CardSet
    _kmin: int
    _kmax: int
    _offset: int

    base: ClassVar[int] = DISCARD_BASE
    """The code of the empty set: a discard's code is ``base`` plus its card mask."""

    def __init__(self, forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> None:
        if forced & pool or (forced | pool) >> 52 or forced < 0 or pool < 0:
            raise ValueError("forced and pool must be disjoint card masks")
        _fill(self, forced, pool, kmin, kmax)

    # Read-only (as fractions.Fraction's numerator): the set never changes once made.
    @property
    def forced(self) -> CardSet:
        """Cards every allowed discard includes (``all_non_trumps``: the non-trumps, PE-12)."""
        return self._forced

    @property
    def pool(self) -> CardSet:
        """Cards that may be added to ``forced`` (disjoint from it)."""
        return self._pool

    @property
    def kmin(self) -> int:
        """Fewest cards taken from ``pool`` (at least 0)."""
        return self._kmin

    @property
    def kmax(self) -> int:
        """Most cards taken from ``pool`` (at most ``|pool|``)."""
        return self._kmax

    def __reduce__(self) -> tuple[type[DiscardSets], tuple[int, int, int, int]]:
        return DiscardSets, (self._forced, self._pool, self._kmin, self._kmax)

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if index.__class__ is int and 0 <= index < self._len:
            i = index
        elif isinstance(index, slice):
            return self._codes()[index]
        else:
            i = index.__index__()
            size = self._len
            if i < 0:
                i += size
            if not 0 <= i < size:
                raise IndexError(f"discard index {index} out of range for {size} legal discards")
        p = self._pool
        n = p.bit_count()
        if n <= 12:  # the usual case: the i-th position mask, then its cards
            q = (_RANKED[n][self._kmin][self._kmax] or _ranked(self))[i]
            sub = _SUBSETS
            m = p & 8191
            c = _POP13[m]
            code = (sub[0][m] or _subsets(0, m))[q & _LOW13[c]]
            q >>= c
            m = p >> 13 & 8191
            c = _POP13[m]
            code += (sub[1][m] or _subsets(1, m))[q & _LOW13[c]]
            q >>= c
            m = p >> 26 & 8191
            c = _POP13[m]
            code += (sub[2][m] or _subsets(2, m))[q & _LOW13[c]]
            m = p >> 39
            return self._offset + code + (sub[3][m] or _subsets(3, m))[q >> c]
        # The pool's cards from the highest down, j cards below the current one: leaving it
        # out (the cards above as decided) comes first, _n_sets(j, lo, hi) sets (inlined, the
        # table indices offset); once i is 0 and no more cards are needed, the rest is out.
        p = self._pool
        cum = _CUM
        lo = self._kmin + 53
        hi = self._kmax + 54
        m = 0
        j = p.bit_count()
        while hi > 54 and j:
            j -= 1
            top = 1 << (p.bit_length() - 1)
            p ^= top
            row = cum[j]
            before = row[hi] - row[lo]
            if i >= before:
                i -= before
                m |= top
                lo -= 1
                hi -= 1
            elif not i and lo <= 53:
                break
        return self._offset + m

    def __contains__(self, code: object) -> bool:
        return isinstance(code, int) and _discard_allowed(
            code - DISCARD_BASE, self._forced, self._pool, self._kmin, self._kmax
        )

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``value``, ranked with binomials (no search)."""
        if value not in self:
            raise ValueError(f"{value!r} is not a legal discard")
        free = value - self._offset
        cards = cards_in(self._pool)
        lo = self._kmin
        hi = self._kmax
        rank = 0
        for j in range(len(cards) - 1, -1, -1):
            if free >> cards[j] & 1:
                rank += _n_sets(j, lo, hi)
                lo -= 1
                hi -= 1
        first, last, _ = slice(start, stop).indices(self._len)
        if not first <= rank < last:
            raise ValueError(f"{value!r} is not a legal discard in [{start}:{stop}]")
        return rank

    def __repr__(self) -> str:
        pool = " ".join(_names_of(self._pool))
        forced = " ".join(_names_of(self._forced))
        sizes = f"{self._kmin}" if self._kmin == self._kmax else f"{self._kmin}..{self._kmax}"
        plus = f" plus {forced}" if forced else ""
        return f"<DiscardSets: {self._len} codes, {sizes} of [{pool}]{plus}>"

    def _codes(self) -> list[Action]:
        return _discard_codes(self._forced, self._pool, self._kmin, self._kmax)


def _discard_sets(forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> DiscardSets:
    """``DiscardSets(forced, pool, kmin, kmax)`` for ``forced`` and ``pool`` disjoint card
    masks (as :meth:`Pedro._discard_spec` gives), without the constructor's checks."""
    return _fill(_new_state(DiscardSets), forced, pool, kmin, kmax)


def _fill(d: DiscardSets, forced: CardSet, pool: CardSet, kmin: int, kmax: int) -> DiscardSets:
    """Set ``d``'s fields, clamping ``kmin``/``kmax`` to ``0..|pool|``."""
    n = pool.bit_count()
    if kmin < 0:
        kmin = 0
    if kmax > n:
        kmax = n
    d._forced = forced
    d._pool = pool
    d._kmin = kmin
    d._kmax = kmax
    d._offset = DISCARD_BASE + forced
    d._len = _n_sets(n, kmin, kmax)
    return d


def _discard_spec(hand: CardSet, f: _Fixed) -> tuple[CardSet, CardSet, int, int]:
    """The legal discards from ``hand`` as ``forced | S``, ``S ⊆ pool``,
    ``kmin ≤ |S| ≤ kmax`` (:meth:`Pedro._discard_spec`)."""
    t = f.trump
    room = WIDOW - f.requested  # PE-14
    if f.rules.discard_rule == "at_least_three":
        pool = hand & ~COUNTING[t]  # PE-11
        return 0, pool, 3, min(pool.bit_count(), 3 + room)  # PE-10
    trumps = hand & TRUMPS[t]
    nt = trumps.bit_count()
    plain = hand & ~trumps
    if nt > HAND:  # PE-12: non-counting trumps down to six
        return plain, trumps & ~COUNTING[t], nt - HAND, nt - HAND
    size = min(9 - nt, 3 + room)
    if size == 9 - nt:
        return plain, 0, 0, 0
    return 0, plain, size, size


def _discards_of(hand: CardSet, f: _Fixed) -> DiscardSets:
    """The legal discards from ``hand`` (PE-10 .. PE-14)."""
    return _discard_sets(*_discard_spec(hand, f))


_BID_LISTS: dict[int, tuple[PedroRules, tuple[list[Action], ...]]] = {}
"""By ``id(rules)``: the rules (kept, so that the id is not reused) and their bid lists."""


def _bid_lists(rules: PedroRules) -> tuple[list[Action], ...]:
    """The legal bids (never to be changed: hand out copies) for each high bid -1..14 (entry
    ``high + 1``), then for the dealer when the other three passed (entry 16)."""
    found = _BID_LISTS.get(id(rules))
    if found is None or found[0] is not rules:
        if len(_BID_LISTS) >= 256:
            _BID_LISTS.clear()
        lists = tuple(_bid_list(h, rules, False) for h in range(-1, MAX_BID + 1))
        found = _BID_LISTS[id(rules)] = (rules, (*lists, _bid_list(-1, rules, True)))
    return found[1]


def _bid_list(high: int, rules: PedroRules, dealer_alone: bool) -> list[Action]:
    low = max(rules.min_bid, high + 1)
    if high == MAX_BID and rules.fourteen_overcall:
        low = MAX_BID
    bids = [BID_BASE + b for b in range(low, MAX_BID + 1)]
    if dealer_alone:
        if rules.all_pass == "dealer_forced":
            return [BID_BASE + b for b in range(max(6, rules.min_bid), MAX_BID + 1)]
        if rules.all_pass == "dealer_free":
            return [PASS, BID_BASE, *bids]
    return [PASS, *bids]


_FIXED_FIELDS: Final = (
    "rules",
    "dealer",
    "widow",
    "bids",
    "high",
    "maker",
    "trump",
    "discards",
    "requested",
    "widow_left",
    "widow_up",
)


class _Fixed:
    """The part of a deal that play never changes: the rules, the dealer, the widow, the
    auction, trump, the discards and the widow's cards, with the per-trump tables the play
    path reads (``eff_mask`` .. ``power``, from ``trump``; ``trump`` -1 reads the last row) and
    the auction's bid lists (``bid_lists``, from ``rules``).

    Immutable once shared: every change before play copies it (:meth:`copy`) and sets the
    copy's fields, then :meth:`tables`; the card play shares one, so copying a
    :class:`PedroState` in play assigns few attributes.
    """

    __slots__ = (
        *_FIXED_FIELDS,
        "bid_lists",
        "eff_mask",
        "eff_suit",
        "follow",
        "played_by",
        "points",
        "power",
    )

    rules: PedroRules
    dealer: Seat
    widow: tuple[Card, ...]
    bids: tuple[tuple[Seat, int], ...]
    high: int
    maker: Seat
    trump: int
    discards: tuple[CardSet, ...]
    requested: int
    widow_left: CardSet
    widow_up: CardSet
    bid_lists: tuple[list[Action], ...]
    """``_bid_lists(rules)``: the legal bids (lists never changed: hand out copies)."""
    eff_mask: tuple[CardSet, ...]
    """``EFF_MASK[trump]``."""
    eff_suit: tuple[int, ...]
    """``EFF_SUIT[trump]``."""
    follow: tuple[CardSet, ...]
    """``FOLLOW[trump]``."""
    power: tuple[tuple[int, ...], ...]
    """``POWER[trump]``."""
    points: tuple[int, ...]
    """``POINTS[trump]``."""
    played_by: bool
    """Whether the low point goes to the side that played the 2 (``low_point``, PE-4)."""

    def copy(self) -> _Fixed:
        """A copy to change (its tables as this one's)."""
        f = _new_state(_Fixed)
        f.rules = self.rules
        f.dealer = self.dealer
        f.widow = self.widow
        f.bids = self.bids
        f.high = self.high
        f.maker = self.maker
        f.trump = self.trump
        f.discards = self.discards
        f.requested = self.requested
        f.widow_left = self.widow_left
        f.widow_up = self.widow_up
        f.bid_lists = self.bid_lists
        f.eff_mask = self.eff_mask
        f.eff_suit = self.eff_suit
        f.follow = self.follow
        f.power = self.power
        f.points = self.points
        f.played_by = self.played_by
        return f

    def tables(self) -> _Fixed:
        """Set the tables from ``trump`` and ``rules``; return self."""
        t = self.trump
        self.bid_lists = _bid_lists(self.rules)
        self.eff_mask = EFF_MASK[t]
        self.eff_suit = EFF_SUIT[t]
        self.follow = FOLLOW[t]
        self.power = POWER[t]
        self.points = POINTS[t]
        self.played_by = self.rules.low_point == "played_by"
        return self


T = TypeVar("T")


class _Shared(Generic[T]):
    """A :class:`PedroState` attribute kept in its :class:`_Fixed` (setting it copies that)."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, state: None, owner: type) -> _Shared[T]: ...

    @overload
    def __get__(self, state: PedroState, owner: type) -> T: ...

    def __get__(self, state: PedroState | None, owner: type) -> _Shared[T] | T:
        if state is None:
            return self
        value: T = getattr(state.fx, self.name)
        return value

    def __set__(self, state: PedroState, value: T) -> None:
        f = state.fx.copy()
        setattr(f, self.name, value)
        state.fx = f.tables()


class PedroState:
    """One Pedro deal. Treat as immutable: :meth:`Pedro.apply` returns a new one.

    The fields play never changes live in ``fx`` (a :class:`_Fixed`) and read through as
    ``rules``, ``dealer``, ``widow``, ``bids``, ``high``, ``maker``, ``trump``, ``discards``,
    ``requested``, ``widow_left`` and ``widow_up`` (setting one gives the state a new ``fx``).
    """

    __slots__ = (
        "ds",
        "fx",
        "hands",
        "led",
        "legal",
        "phase",
        "res",
        "taken",
        "to_act",
        "trick",
        "tricks",
    )

    fx: _Fixed
    phase: int
    to_act: Seat
    hands: tuple[CardSet, ...]
    led: int
    trick: tuple[tuple[Seat, Card], ...]
    tricks: tuple[TrickTaken, ...]
    taken: tuple[int, int]
    """Points each team has won in tricks (PE-18)."""
    legal: CardSet
    """In play, the cards the seat to act may play, set by :meth:`Pedro.apply` (unset in a
    state built otherwise, and never copied: :meth:`copy` gives a state to change)."""
    ds: DiscardSets
    """At a discard, the legal discards of the seat to act, set by :meth:`Pedro.apply` (as
    ``legal``: unset in a state built otherwise, never copied)."""
    res: HandResult
    """Once the deal is over, its result, set by :meth:`Pedro.apply` with the ``HandEnded``
    fact and returned by :meth:`Pedro.result` (as ``legal``: never copied)."""

    rules = _Shared[PedroRules]("The rule parameters.")
    dealer = _Shared[Seat]("The dealer.")
    widow = _Shared[tuple[Card, ...]]("The 16-card widow, in the order it is served.")
    bids = _Shared[tuple[tuple[Seat, int], ...]]("``(seat, bid)`` in order; ``-1`` is a pass.")
    high = _Shared[int]("The highest bid so far (-1: none).")
    maker = _Shared[Seat]("The seat of the highest bid (-1: none).")
    trump = _Shared[int]("The trump suit (-1: not named yet).")
    discards = _Shared[tuple[CardSet, ...]]("Each seat's discard (a card mask).")
    requested = _Shared[int]("Widow cards asked for so far by the discards (PE-13, PE-14).")
    widow_left = _Shared[CardSet]("The widow cards not yet served.")
    widow_up = _Shared[CardSet]("The rest of the widow, shown face up (PE-13).")

    def copy(self) -> PedroState:
        """A shallow copy (every field is immutable; ``fx`` is shared)."""
        s = _new_state(PedroState)
        s.fx = self.fx
        s.phase = self.phase
        s.to_act = self.to_act
        s.hands = self.hands
        s.led = self.led
        s.trick = self.trick
        s.tricks = self.tricks
        s.taken = self.taken
        return s

    def __repr__(self) -> str:
        return f"<PedroState phase={Phase(self.phase).name} to_act={self.to_act}>"


_new_state = object.__new__

_BITS: Final = tuple(1 << c for c in range(52))
_BIT: Final = _BITS.__getitem__
_PACK_SUM: Final = sum(PACK_52)
_FULL: Final = (1 << 52) - 1
_PLAYED: Final = tuple(tuple(((p, c),) for c in range(52)) for p in range(4))
"""``_PLAYED[seat][card]``: ``((seat, card),)``, added to a trick (shared immutable tuples)."""
_BID_MADE: Final = tuple(tuple(((p, b),) for b in range(-1, MAX_BID + 1)) for p in range(4))
"""``_BID_MADE[seat][bid + 1]``: ``((seat, bid),)``, added to the bids (-1: a pass)."""


def _deal_getter(dealer: int, seat: int) -> Callable[[Sequence[Card]], tuple[Card, ...]]:
    """Seat's nine cards of the pack: three rounds of three from dealer+1 (PE-5)."""
    i = 3 * ((seat - dealer - 1) % 4)
    return itemgetter(*range(i, i + 3), *range(i + 12, i + 15), *range(i + 24, i + 27))


_DEAL: Final = tuple(tuple(_deal_getter(d, s) for s in range(4)) for d in range(4))
_TEAM_NAMES: Final = ("N–S", "E–W")


_new_tuple = tuple.__new__
"""``_new_tuple(Step, (state, facts))``: a Step (or a fact: every fact is a named tuple)
without the named tuple's Python-level constructor (hot path)."""


class Pedro(Phased):
    """Pedro (Cinch): 52 cards, point bids, 14 trumps with two pedros, discard and refill."""

    name: ClassVar[str] = "pedro"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: 14 points a deal (PE-4), a failed bid more.
    difference_scale: ClassVar[tuple[int, ...]] = (1, 2, 4, 6, 9, 13, 18, 24)

    aliases: ClassVar[tuple[str, ...]] = ("cinch",)
    title: ClassVar[str] = "Pedro (Cinch)"
    num_seats: ClassVar[int] = 4
    partnerships: ClassVar[bool] = True
    match_length: ClassVar[str] = "target_score"
    #: Seen only by the acting seat while the hand runs: the cards kept and discarded.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"discard", "take"})
    pack: ClassVar[tuple[Card, ...]] = PACK_52
    rules_class: ClassVar[type[RuleSet]] = PedroRules
    PHASES: ClassVar[type[enum.IntEnum]] = Phase
    OVER: ClassVar[int] = OVER
    TURN_RULES: ClassVar[Mapping[int, str]] = {
        BID: "PE-6",
        NAME: "PE-8",
        DISCARD: "PE-10",
        TAKE: "PE-13",
        PLAY: "PE-15",
        OVER: "PE-15",
    }
    EXPECTED: ClassVar[Mapping[int, tuple[str, str]]] = {
        BID: ("pass or bid:<points> (the auction)", "PE-6"),
        NAME: ("name:<suit> (the maker names trump)", "PE-8"),
        DISCARD: ("discard:<card>,<card>,... (at least three cards)", "PE-10"),
        TAKE: ("take:<card> (the dealer picks from the widow)", "PE-13"),
        PLAY: ("play:<card>", "PE-16"),
    }

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """Three rounds of three cards from dealer+1 (PE-5); the last 16 are the widow."""
        p = tuple(pack)
        if len(p) == 52:
            g = _DEAL[dealer % 4]
            return Deal(hands=(g[0](p), g[1](p), g[2](p), g[3](p)), stock=p[36:52])
        hands: list[tuple[Card, ...]] = [(), (), (), ()]  # short: new_hand will say so
        for k in range(4):
            i = 3 * k
            hands[(dealer + 1 + k) % 4] = p[i : i + 3] + p[i + 12 : i + 15] + p[i + 24 : i + 27]
        return Deal(hands=tuple(hands), stock=p[36:52])

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> PedroState:
        assert isinstance(rules, PedroRules)
        dealt = deal.hands
        stock = deal.stock
        hands: Sequence[CardSet] | None = None
        if len(dealt) == 4 and len(stock) == WIDOW:
            d0, d1, d2, d3 = dealt
            if len(d0) == len(d1) == len(d2) == len(d3) == 9:
                try:  # every card's bit, in one call
                    bits = itemgetter(*d0, *d1, *d2, *d3, *stock)(_BITS)
                except (IndexError, TypeError):  # not a card: check_deal names it
                    pass
                else:  # the usual case: nine different cards each, the union is the pack,
                    # and no card is negative (one would stand for a card 52 higher)
                    h0 = sum(bits[:9])
                    h1 = sum(bits[9:18])
                    h2 = sum(bits[18:27])
                    h3 = sum(bits[27:36])
                    widow_left = sum(bits[36:])
                    if (
                        h0 | h1 | h2 | h3 | widow_left == _FULL
                        and h0.bit_count() == h1.bit_count() == 9
                        and h2.bit_count() == h3.bit_count() == 9
                        and widow_left.bit_count() == WIDOW
                        and sum(d0) + sum(d1) + sum(d2) + sum(d3) + sum(stock) == _PACK_SUM
                    ):
                        hands = (h0, h1, h2, h3)
        if hands is None:  # check_deal names the problem
            hands = check_deal(deal, PACK_52, (9, 9, 9, 9), WIDOW, "pedro")
            widow_left = sum(map(_BIT, stock))
        f = _new_state(_Fixed)
        f.rules = rules
        f.dealer = dealer
        f.widow = deal.stock
        f.bids = ()
        f.high = -1
        f.maker = -1
        f.trump = -1
        f.discards = (0, 0, 0, 0)
        f.requested = 0
        f.widow_left = widow_left
        f.widow_up = 0
        s = _new_state(PedroState)
        s.fx = f.tables()
        s.phase = BID
        s.to_act = (dealer + 1) % 4
        s.hands = tuple(hands)
        s.led = -1
        s.trick = ()
        s.tricks = ()
        s.taken = (0, 0)
        return s

    # -- play ------------------------------------------------------------------------------

    def legal_actions(self, state: PedroState) -> Sequence[Action]:
        phase = state.phase
        if phase == PLAY:
            try:
                m = state.legal
            except AttributeError:
                m = self._playable(state)
            return cards_in(m)
        if phase == BID:
            f = state.fx
            high = f.high
            return (
                f.bid_lists[16] if high < 0 and len(f.bids) == 3 else f.bid_lists[high + 1]
            ).copy()
        if phase == DISCARD:  # lazy: up to 466 sets
            try:
                return state.ds
            except AttributeError:
                return _discard_sets(*self._discard_spec(state))
        if phase == NAME:
            return [NAME_BASE, NAME_BASE + 1, NAME_BASE + 2, NAME_BASE + 3]
        if phase == TAKE:
            return [TAKE_BASE + c for c in cards_in(state.fx.widow_left)]
        return []

    def _dealer_alone(self, state: PedroState) -> bool:
        return state.high < 0 and len(state.bids) == 3

    def _playable(self, state: PedroState) -> CardSet:
        """PE-16: on a plain lead follow suit or trump; on a trump lead play trump if able."""
        hand = state.hands[state.to_act]
        led = state.led
        if led < 0:
            return hand
        f = state.fx
        return answer(hand, f.eff_mask[led], f.follow[led], 0, 0, False)

    def _discard_spec(self, state: PedroState) -> tuple[CardSet, CardSet, int, int]:
        """The legal discards as ``forced | S``, ``S ⊆ pool``, ``kmin ≤ |S| ≤ kmax``."""
        return _discard_spec(state.hands[state.to_act], state.fx)

    def apply(self, state: PedroState, seat: Seat, action: Action) -> Step:
        phase = state.phase
        if seat != state.to_act or phase == OVER:
            raise self._not_your_turn(state, seat, action)
        if phase == PLAY:  # the hot path, inline
            try:
                legal = state.legal
            except AttributeError:
                legal = self._playable(state)
            if not (action >= 0 and legal >> action & 1):  # PE-16 (legal holds cards only)
                raise self._illegal(state, action)
            hands = state.hands
            f = state.fx
            h0, h1, h2, h3 = hands
            hand = hands[seat] ^ 1 << action
            if seat == 0:
                new = (hand, h1, h2, h3)
            elif seat == 1:
                new = (h0, hand, h2, h3)
            elif seat == 2:
                new = (h0, h1, hand, h3)
            else:
                new = (h0, h1, h2, hand)
            before = state.trick
            s = _new_state(PedroState)
            s.fx = f
            s.hands = new
            s.phase = PLAY
            if len(before) < 3:
                s.to_act = nxt = (seat + 1) & 3
                led = state.led
                if led < 0:
                    led = f.eff_suit[action]
                s.led = led
                # the next seat's playable cards (PE-16, as in _playable)
                s.legal = answer(new[nxt], f.eff_mask[led], f.follow[led], 0, 0, False)
                s.trick = before + _PLAYED[seat][action]
                s.tricks = state.tricks
                s.taken = state.taken
                return _new_tuple(Step, (s, ()))
            # the trick is complete (PE-17, PE-18): the first card of the highest power wins
            (p0, c0), (p1, c1), (p2, c2) = before
            winner = (p0, p1, p2, seat)[winner_index(f.power[state.led], (c0, c1, c2, action))]
            points = f.points
            total = points[c0] + points[c1] + points[c2] + points[action]
            t0, t1 = state.taken
            if winner & 1:
                t1 += total
            else:
                t0 += total
            trick = before + _PLAYED[seat][action]
            if f.played_by:
                low = LOW[f.trump]
                for p, x in trick:
                    if x == low and (p ^ winner) & 1:  # the point goes to the side that played it
                        if winner & 1:
                            t1 -= 1
                            t0 += 1
                        else:
                            t0 -= 1
                            t1 += 1
            s.taken = (t0, t1)
            tricks = state.tricks
            fact = _new_tuple(TrickTaken, (len(tricks) + 1, trick, winner, total))
            s.tricks = tricks = (*tricks, fact)
            s.trick = ()
            s.led = -1
            s.to_act = winner
            s.legal = new[winner]
            if len(tricks) == HAND:
                s.phase = OVER
                s.res = res = self._score(s)
                return _new_tuple(Step, (s, (fact, _new_tuple(HandEnded, (res,)))))
            return _new_tuple(Step, (s, (fact,)))
        if phase == BID:
            return self._bid(state, seat, action)
        if phase == NAME:
            if not NAME_BASE <= action < NAME_BASE + 4:
                raise self._illegal(state, action)
            s = state.copy()
            s.fx = f = state.fx.copy()
            f.trump = action - NAME_BASE
            f.tables()
            s.phase = DISCARD
            s.to_act = nxt = (f.dealer + 1) % 4
            s.ds = _discards_of(s.hands[nxt], f)
            named = _new_tuple(
                Announced,
                ("trump", {"trump": SUIT_LETTERS[f.trump], "maker": f.maker, "bid": f.high}),
            )
            return _new_tuple(Step, (s, (named,)))
        if phase == DISCARD:
            return self._discard(state, seat, action)
        return self._take(state, seat, action)

    def _bid(self, state: PedroState, seat: Seat, action: Action) -> Step:
        g = state.fx
        high = g.high
        if high < 0 and len(g.bids) == 3:  # the dealer alone (PE-9)
            ok = action in g.bid_lists[16]
        else:  # PE-6, PE-7: pass, or strictly higher within min_bid..14
            r = g.rules
            b = action - BID_BASE
            ok = action == PASS or (
                r.min_bid <= b <= MAX_BID
                and (b > high or (b == high == MAX_BID and r.fourteen_overcall))
            )
        if not ok:
            raise self._illegal(state, action)
        s = state.copy()
        s.fx = f = g.copy()
        bid = -1 if action == PASS else action - BID_BASE
        f.bids = g.bids + _BID_MADE[seat][bid + 1]
        if bid >= 0:
            f.high = bid
            f.maker = seat
        if len(f.bids) < 4:
            s.to_act = (seat + 1) & 3
            return _new_tuple(Step, (s, ()))
        if f.maker < 0:  # PE-9: thrown in, dealer+1 deals
            s.phase = OVER
            return _new_tuple(Step, (s, (HandEnded(self.result(s)),)))
        s.phase = NAME
        s.to_act = f.maker
        fact = _new_tuple(Announced, ("contract", {"maker": f.maker, "bid": f.high}))
        return _new_tuple(Step, (s, (fact,)))

    def _discard(self, state: PedroState, seat: Seat, action: Action) -> Step:
        d = action - DISCARD_BASE
        try:
            ds = state.ds
        except AttributeError:
            ds = _discard_sets(*self._discard_spec(state))
        if action not in ds:
            raise self._illegal(state, action)
        s = state.copy()
        s.fx = f = state.fx.copy()
        hands = list(state.hands)
        hands[seat] &= ~d
        s.hands = tuple(hands)
        discards = list(f.discards)
        discards[seat] = d
        f.discards = tuple(discards)
        f.requested += d.bit_count() - 3
        fact = _new_tuple(Announced, ("discard", {"seat": seat, "cards": _names_of(d)}))
        dealer = f.dealer
        if seat != dealer:
            s.to_act = nxt = (seat + 1) & 3
            s.ds = _discards_of(hands[nxt], f)
            return _new_tuple(Step, (s, (fact,)))
        # PE-13: the dealer serves each seat from dealer+1, the dealer last, to six cards.
        widow = f.widow  # each card's bit, in one call:
        bits = itemgetter(*widow)(_BITS) if len(widow) > 1 else tuple(map(_BIT, widow))
        at = 0
        served = [0, 0, 0, 0]
        for k in range(1, 4 if f.rules.dealer_robs_pack else 5):
            p = (dealer + k) & 3
            need = HAND - hands[p].bit_count()
            hands[p] |= sum(bits[at : at + need])
            served[p] = need
            at += need
        s.hands = tuple(hands)
        f.widow_left &= ~sum(bits[:at])
        refill = _new_tuple(Announced, ("refill", {"served": served}))
        if hands[seat].bit_count() < HAND:
            s.phase = TAKE  # the dealer robs the pack (variant)
            return _new_tuple(Step, (s, (fact, refill)))
        return _new_tuple(Step, (s, (fact, refill, self._start_play(s))))

    def _take(self, state: PedroState, seat: Seat, action: Action) -> Step:
        c = action - TAKE_BASE
        if not (0 <= c < 52 and state.fx.widow_left >> c & 1):
            raise self._illegal(state, action)
        s = state.copy()
        s.fx = f = state.fx.copy()
        hands = list(state.hands)
        hands[seat] |= 1 << c
        s.hands = tuple(hands)
        f.widow_left &= ~(1 << c)
        if hands[seat].bit_count() < HAND:
            return _new_tuple(Step, (s, ()))
        return _new_tuple(Step, (s, (self._start_play(s),)))

    def _start_play(self, s: PedroState) -> Announced:
        """PE-13: the rest of the widow is shown face up; PE-15: the maker leads (``s.fx``
        is ``s``'s own, not yet shared)."""
        f = s.fx
        f.widow_up = f.widow_left
        f.widow_left = 0
        s.phase = PLAY
        s.to_act = f.maker
        s.legal = s.hands[f.maker]
        return _new_tuple(Announced, ("widow", {"cards": _names_of(f.widow_up)}))

    # -- scoring (PE-19 .. PE-22) ----------------------------------------------------------


    def check_result(self, result: HandResult, rules: RuleSet) -> None:
        """The invariants every scored deal satisfies (the conformance suite checks them over
        random deals). :raises ConformanceError: one is broken."""
        invariants.pedro(result, rules)
    def result(self, state: PedroState) -> HandResult:
        if state.phase == OVER:
            try:
                return state.res  # as the HandEnded fact gave it
            except AttributeError:
                pass
        return self._score(state)

    def _score(self, state: PedroState) -> HandResult:
        """The deal's result (PE-19 .. PE-22)."""
        f = state.fx
        maker = f.maker
        if maker < 0:
            return HandResult((0, 0), {"redeal": True}, void=True)
        r = f.rules
        makers = maker & 1
        bid = f.high
        p_m = state.taken[makers]
        p_d = state.taken[1 - makers]
        made = p_m >= bid
        points = [0, 0]
        if made:  # PE-19, PE-21
            points[makers] = p_m
            if r.defenders_score_own:
                points[1 - makers] = p_d
        elif r.failed_bid == "fail_opponents_own_plus_bid":  # PE-22
            points[1 - makers] = p_d + bid
        elif r.failed_bid == "fail_minus_bid":
            points[makers] = -bid
            points[1 - makers] = p_d
        else:  # PE-20
            points[1 - makers] = bid
        widow_points = 0
        t = f.trump
        if t >= 0:
            up = f.widow_up & COUNTING[t]
            pedros = up & PEDROS[t]
            widow_points = 5 * pedros.bit_count() + (up ^ pedros).bit_count()
        detail: dict[str, JSON] = {
            "maker": maker,
            "bid": bid,
            "trump": SUIT_LETTERS[t] if t >= 0 else None,
            "points_taken": list(state.taken),
            "widow_points": widow_points,
            "made": made,
        }
        return HandResult((points[0], points[1]), detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: PedroState, seat: Seat | None) -> dict[str, JSON]:
        out = self._frame(state)
        out |= {
            "bids": [{"seat": p, "bid": b if b >= 0 else "pass"} for p, b in state.bids],
            "high_bid": state.high if state.high >= 0 else None,
            "maker": state.maker if state.maker >= 0 else None,
            "trump": SUIT_LETTERS[state.trump] if state.trump >= 0 else None,
            "discards": [[CARD_NAMES[c] for c in cards_in(d)] for d in state.discards],
            "widow_size": state.widow_left.bit_count(),
            "widow_up": [CARD_NAMES[c] for c in cards_in(state.widow_up)],
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in state.trick],
            "tricks": [t.to_json() for t in state.tricks],
            "points_taken": list(state.taken),
        }
        robbing = state.phase == TAKE and seat == state.dealer  # the dealer picks (PE-13)
        widow = _names_of(state.widow_left) if robbing else None
        return self._own(out, state, seat, state.hands, widow=widow)

    def audit_view(self, state: PedroState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.hands]
        out["widow"] = [CARD_NAMES[c] for c in state.widow if state.widow_left >> c & 1]
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            return word_action(text, {"pass": PASS}, _ACTIONS)
        if verb == "play":
            return parse_card(arg)
        if verb == "bid":
            if not (arg.isdigit() and arg.isascii() and int(arg) <= MAX_BID):
                raise InvalidActionError(f"{arg!r} is not a bid: write a number 0..14")
            return BID_BASE + int(arg)
        if verb == "name":
            return NAME_BASE + parse_suit(arg)
        if verb == "discard":
            m = 0
            for part in arg.split(","):
                c = parse_card(part)
                if m >> c & 1:
                    raise InvalidActionError(f"{text!r} names {CARD_NAMES[c]} twice")
                m |= 1 << c
            return DISCARD_BASE + m
        if verb == "take":
            return TAKE_BASE + parse_card(arg)
        raise InvalidActionError(f"{text!r} is not a Pedro action: unknown verb {verb!r}")

    def format_action(self, action: Action) -> str:
        if 0 <= action < 52:
            return "play:" + CARD_NAMES[action]
        if action == PASS:
            return "pass"
        if BID_BASE <= action <= BID_BASE + MAX_BID:
            return f"bid:{action - BID_BASE}"
        if NAME_BASE <= action < NAME_BASE + 4:
            return "name:" + SUIT_LETTERS[action - NAME_BASE]
        if TAKE_BASE <= action < TAKE_BASE + 52:
            return "take:" + CARD_NAMES[action - TAKE_BASE]
        m = action - DISCARD_BASE
        if 0 < m < 1 << 52:
            return "discard:" + ",".join(CARD_NAMES[c] for c in cards_in(m))
        raise KeyError(action)

    def all_actions(self) -> list[Action]:
        """Every code except most discards (see the module docstring): plays, pass, bids,
        names, takes, and a fixed family of 96 discards."""
        family = [1 << c for c in PACK_52]
        family += [7 << (13 * s + r) for s in SUITS for r in range(11)]
        return sorted(
            [
                *PACK_52,
                PASS,
                *(BID_BASE + b for b in range(MAX_BID + 1)),
                *(NAME_BASE + s for s in SUITS),
                *(TAKE_BASE + c for c in PACK_52),
                *(DISCARD_BASE + m for m in family),
            ]
        )

    def card_locations(self, state: PedroState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        discarded = 0
        for d in state.discards:
            discarded |= d
        where["played"] = played(state.tricks, (c for _, c in state.trick))
        where["discards"] = discarded
        where["widow"] = state.widow_left
        where["widow_up"] = state.widow_up
        return where

    # -- match level (PE-5, PE-9, PE-23) ---------------------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0), dealer=first_dealer)

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        assert isinstance(rules, PedroRules)
        if match.over:
            won = "no side" if match.winner is None else _TEAM_NAMES[match.winner]
            raise NotYourTurnError(
                f"no deal may be added: the match is over ({won} won, "
                f"{match.scores[0]}–{match.scores[1]})",
                "PE-23",
            )
        scores = (match.scores[0] + result.points[0], match.scores[1] + result.points[1])
        reached = [t for t in (0, 1) if scores[t] >= rules.target_score]
        winner: int | None = reached[0] if reached else None
        if len(reached) == 2:
            makers = int(result.detail["maker"]) & 1
            winner = makers
            if rules.both_reach_target == "higher_score" and scores[0] != scores[1]:
                winner = 0 if scores[0] > scores[1] else 1
        return MatchState(
            scores=scores,
            dealer=(match.dealer + 1) % 4,
            hands_played=match.hands_played + 1,
            over=winner is not None,
            winner=winner,
        )

    # -- errors ----------------------------------------------------------------------------

    def _illegal(self, state: PedroState, action: Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        text = self._text(action)
        phase = state.phase
        seat = state.to_act
        if phase == BID and BID_BASE <= action <= BID_BASE + MAX_BID:
            return self._illegal_bid(state, text, action - BID_BASE)
        if phase == BID and action == PASS:
            return IllegalActionError(
                "'pass': the other three passed and the dealer must bid (all_pass is "
                "dealer_forced)",
                "PE-9",
            )
        if phase == DISCARD and action > DISCARD_BASE and action - DISCARD_BASE < 1 << 52:
            return self._illegal_discard(state, text, action - DISCARD_BASE)
        if phase == TAKE and TAKE_BASE <= action < TAKE_BASE + 52:
            return IllegalActionError(
                f"{text!r}: {CARD_NAMES[action - TAKE_BASE]} is not in the rest of the widow",
                "PE-13",
            )
        if phase == PLAY and 0 <= action < 52:
            hand = state.hands[seat]
            if not hand >> action & 1:
                return IllegalActionError(
                    f"{text!r}: you do not hold {CARD_NAMES[action]}", "PE-16"
                )
            t = state.trump
            trumps = " ".join(CARD_NAMES[c] for c in cards_in(hand & TRUMPS[t]))
            if state.led == t:
                return IllegalActionError(
                    f"{text!r}: trump was led and you hold trump {trumps} "
                    "(the left pedro counts as trump)",
                    "PE-16",
                )
            follow = " ".join(CARD_NAMES[c] for c in cards_in(hand & EFF_MASK[t][state.led]))
            return IllegalActionError(
                f"{text!r}: must follow suit or trump: {SUIT_NAMES[state.led]} was led and "
                f"you hold {follow}",
                "PE-16",
            )
        return self._not_now(state, text)

    def _illegal_bid(self, state: PedroState, text: str, bid: int) -> IllegalActionError:
        r = state.rules
        if self._dealer_alone(state) and r.all_pass == "dealer_forced":
            return IllegalActionError(
                f"{text!r}: the other three passed, the dealer must bid at least "
                f"{max(6, r.min_bid)}",
                "PE-9",
            )
        if bid < r.min_bid:
            return IllegalActionError(f"{text!r}: the lowest bid is {r.min_bid}", "PE-7")
        if state.high == MAX_BID:
            return IllegalActionError(f"{text!r}: a bid of 14 cannot be overcalled", "PE-7")
        return IllegalActionError(
            f"{text!r}: a bid must be strictly higher than the current bid of {state.high}",
            "PE-6",
        )

    def _illegal_discard(self, state: PedroState, text: str, d: CardSet) -> IllegalActionError:
        hand = state.hands[state.to_act]
        t = state.trump
        if d & ~hand:
            missing = " ".join(CARD_NAMES[c] for c in cards_in(d & ~hand))
            return IllegalActionError(f"{text!r}: you do not hold {missing}", "PE-10")
        if d & COUNTING[t]:
            bad = " ".join(CARD_NAMES[c] for c in cards_in(d & COUNTING[t]))
            return IllegalActionError(
                f"{text!r}: {bad} counts and may never be turned up (A, J, 10, 2 of trump and "
                "both pedros)",
                "PE-11",
            )
        if d.bit_count() < 3:
            return IllegalActionError(
                f"{text!r}: turn up at least three cards, not {d.bit_count()}", "PE-10"
            )
        if state.rules.discard_rule == "all_non_trumps":
            forced, _, kmin, _ = self._discard_spec(state)
            size = forced.bit_count() + kmin
            return IllegalActionError(
                f"{text!r}: turn up exactly {size} cards: every non-trump, and trumps only "
                "beyond six (discard_rule is all_non_trumps)",
                "PE-12",
            )
        room = WIDOW - state.requested
        return IllegalActionError(
            f"{text!r}: the widow can give only {room} more cards, so turn up at most {3 + room}",
            "PE-14",
        )


GAME: Final = Pedro()
