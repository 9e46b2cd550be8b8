"""Ulti, as ``rules/euchre-pedro-ulti.md`` §3 defines it (seed 004, Hungarian).

Seats 0..2 in play order (counter-clockwise at the table); the first player is
``dealer + 1`` (UL-5) and is dealt 12 cards, the talon included (UL-6); ``deal.stock`` is
empty. Cards use the shared notation: piros ``H``, tök ``D``, zöld ``S``, makk ``C``;
alsó ``J``, felső ``Q``, király ``K``.

Phases: a seat holding 12 cards discards two (``discard``), then bids (``bid``); the others in
turn pass, pick up the talon or (the holder) stand (``auction``); the declarer names trump for
a "choose" contract (``trump``); play, with a kontra round after trick 1 (``kontra``); over.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import ClassVar, Final, Generic, TypeVar

from referee.rules import cards, game
from referee.rules.cards import (
    CARD_NAMES,
    HUNGARIAN_32,
    RANK_OF,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_OF,
    SUITS,
    Card,
    CardSet,
    card,
    cards_in,
    names,
)
from referee.rules.compiled import mypyc_attr
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError
from referee.rules.games import invariants
from referee.rules.games.ulti.contracts import (
    BETLI,
    CHOOSE,
    COMPONENT_BY_NAME,
    COMPONENT_NAMES,
    COMPONENTS,
    DURCHMARS,
    LADDER,
    PIROS,
    SEED_LADDER_RANKS,
    ULTI,
    Contract,
    by_key,
)
from referee.rules.games.ulti.discards import DISCARD_BASE, DiscardPairs, held_pair, pair_code
from referee.rules.games.ulti.ruleset import UltiRules
from referee.rules.games.ulti.scoring import Tally, components, passz_not_played, settle
from referee.rules.params import RuleSet
from referee.rules.phased import Phase, Phased, Verb, format_verbs, parse_suit, parse_verbs, played
from referee.rules.seats import Seat
from referee.rules.tricks import (
    NO_TRUMP,
    ClaimOrder,
    Trick,
    TrickTables,
    answer,
    by_rank,
    claim_order,
    lead,
    play,
    trick_tables,
    winner_index,
)

# The phases (``Ulti.PHASES``), ``Final`` so that compiled code reads them as constants.
DISCARD: Final = 0
BID: Final = 1
AUCTION: Final = 2
TRUMP: Final = 3
PLAY: Final = 4
KONTRA: Final = 5
OVER: Final = 6

# -- action codes (cards 0..51 are plays) ---------------------------------------------------

PASS: Final = game.VERB_BASE
PICKUP: Final = game.VERB_BASE + 1
STAND: Final = game.VERB_BASE + 2
NAME_BASE: Final = game.VERB_BASE + 4  # + suit
BID_BASE: Final = game.VERB_BASE + 16  # + rank - 1
KONTRA_BASE: Final = 2 * game.VERB_BASE  # + component set (1..63)
REKONTRA_BASE: Final = 3 * game.VERB_BASE  # + component set (1..63)

_VERBS: Final = {"pass": PASS, "pickup": PICKUP, "stand": STAND}
_VERB_NAMES: Final = {code: verb for verb, code in _VERBS.items()}
_ACTIONS: Final = (
    "an Ulti action (pass, pickup, stand, discard:<card>,<card>, bid:<contract>, name:<suit>, "
    "kontra:<components>, rekontra:<components>, play:<card>)"
)
NAMEABLE: Final = (cards.CLUBS, cards.DIAMONDS, cards.SPADES)
"""Suits the declarer may name in a "choose" contract: makk, tök, zöld (UL-9, UL-14)."""

# -- card tables (UL-2, UL-3) ----------------------------------------------------------------

PACK_MASK: Final = sum(1 << c for c in HUNGARIAN_32)
SUIT_ORDER: Final = (
    cards.SEVEN, cards.EIGHT, cards.NINE, cards.JACK, cards.QUEEN, cards.KING, cards.TEN, cards.ACE
)
"""The ranks in suit contracts, lowest first: 7 8 9 U O K X A (UL-2)."""
TABLES: Final = (
    *(trick_tables(HUNGARIAN_32, by_rank(SUIT_ORDER), t) for t in SUITS),
    trick_tables(HUNGARIAN_32, by_rank(range(cards.SEVEN, cards.ACE + 1))),
)
"""``TABLES[trump]``: the tables of a suit contract, and at ``TABLES[NO_TRUMP]`` the colourless
order: A X K O U 9 8 7 with a trump, A K O U X 9 8 7 without (UL-2, UL-26)."""
STRENGTH: Final = (TABLES[0].strength, TABLES[NO_TRUMP].strength)
"""``STRENGTH[colourless][card]``: a card's rank in its suit, 0 the lowest (UL-2)."""
ABOVE: Final = (TABLES[0].above, TABLES[NO_TRUMP].above)
"""``ABOVE[colourless][card]``: the cards of the same suit that beat ``card``."""
CARD_POINTS: Final = tuple(10 if RANK_OF[c] in (cards.ACE, cards.TEN) else 0 for c in range(52))
SEVENS: Final = tuple(card(cards.SEVEN, s) for s in SUITS)
_SUBSETS: Final = tuple(tuple(sub for sub in range(1, 64) if sub & ~m == 0) for m in range(64))


def legal_cards(
    hand: CardSet, trick: Sequence[Card], trump: int, *, must_beat_after_trumped: bool = True
) -> CardSet:
    """The cards ``hand`` may play to ``trick`` (UL-23, UL-24); ``trump`` -1 is colourless.

    The ulti seven's hold (UL-25) is applied by the game on top of this.
    """
    if not trick:
        return hand
    t = TABLES[trump]
    started = lead(t, 0, trick[0])
    for seat, c in enumerate(trick[1:], 1):
        started = play(started, t.power[started.led], seat, c)
    return _answer(hand, started, t, must_beat_after_trumped)


def _answer(hand: CardSet, trick: Trick, t: TrickTables, must_beat: bool) -> CardSet:
    """UL-24 for a trick of one or two cards, through the kernel's answer: follow and beat the
    led suit's best card, else trump and over-trump, else a lower trump, else anything. Once a
    plain lead is trumped, its best card is the lead, and beating it is ``must_beat``."""
    w = trick.best
    trump = t.trump
    led_cards = t.suit_cards[trick.led]
    if t.suit_of[w] != trump:  # no trump in the trick (never one when colourless)
        return answer(hand, led_cards, t.above[w], t.trumps, t.trumps, True)
    led_best = w if trick.led == trump else trick.cards[0]
    beat = t.above[led_best] if must_beat or led_best == w else led_cards
    return answer(hand, led_cards, beat, t.trumps, t.above[w], True)


def trick_winner(trick: Sequence[Card], trump: int) -> int:
    """The index in ``trick`` of the winning card (UL-26)."""
    t = TABLES[trump]
    return winner_index(t.power[t.suit_of[trick[0]]], trick)


# -- the auction's legal sets (UL-9 .. UL-12) ------------------------------------------------


@mypyc_attr(serializable=True)
class _BidTables:
    """Per ladder variant and current bid rank: the legal bids, and the legal auction actions
    of a seat that does not (index ``2 * cur``) or does (``2 * cur + 1``) hold the bid."""

    def __init__(self, huwiki: bool, equal_value_overcall: bool, raise_without_talon: bool) -> None:
        ladder = [c for c in LADDER if huwiki or c.rank in SEED_LADDER_RANKS]
        rows = [
            tuple(
                BID_BASE + c.rank - 1
                for c in ladder
                if c.rank > cur
                and (equal_value_overcall or c.value > (LADDER[cur - 1].value if cur else 0))
            )
            for cur in range(len(LADDER) + 1)
        ]
        self.bids: tuple[tuple[game.Action, ...], ...] = tuple(rows)
        self.bids_set: tuple[frozenset[game.Action], ...] = tuple(frozenset(r) for r in rows)
        auction = []
        for higher in rows:
            for verb in (PASS, STAND):  # a seat not holding the bid passes, its holder stands
                more = (PICKUP, *higher) if raise_without_talon else (PICKUP,)
                auction.append(tuple(sorted((verb, *more) if higher else (verb,))))
        self.auction: tuple[tuple[game.Action, ...], ...] = tuple(auction)
        self.auction_set: tuple[frozenset[game.Action], ...] = tuple(frozenset(r) for r in auction)


def _bid_tables(rules: UltiRules) -> _BidTables:
    """The tables of ``rules``: one per value of the three parameters they read (UL-9, UL-12),
    however many rule sets matches use."""
    return _bid_tables_of(rules.ladder == "huwiki", rules.equal_value_overcall,
                          rules.raise_without_talon)


@functools.cache
def _bid_tables_of(huwiki: bool, equal_value_overcall: bool, raise_without_talon: bool
                   ) -> _BidTables:  # fmt: skip
    """The tables, built once (a compiled class is built from compiled code)."""
    return _BidTables(huwiki, equal_value_overcall, raise_without_talon)


_KONTRA_ROWS: Final = tuple(
    tuple((PASS, *(base + sub for sub in _SUBSETS[m])) for m in range(64))
    for base in (KONTRA_BASE, REKONTRA_BASE)
)
"""``_KONTRA_ROWS[rekontra][components]``: pass, or double any set of those components."""
_KONTRA_SETS: Final = tuple(tuple(frozenset(r) for r in rows) for rows in _KONTRA_ROWS)


def _kontra_row(fx: _Shared, seat: Seat) -> tuple[tuple[game.Action, ...], frozenset[game.Action]]:
    """The legal kontra decisions of ``seat`` as a sorted tuple and as a set (UL-18, UL-19):
    a defender may double what is not yet doubled against it, the declarer redouble what was."""
    kon = fx.kon
    r = seat == fx.declarer
    if r:
        rek = fx.rek
        m = (kon[0] & ~rek[0]) | (kon[1] & ~rek[1]) | (kon[2] & ~rek[2])
    else:
        m = fx.cmask & ~kon[seat]
    return _KONTRA_ROWS[r][m], _KONTRA_SETS[r][m]


_NAME_LIST: Final = tuple(NAME_BASE + s for s in NAMEABLE)
_NAME_SET: Final = frozenset(_NAME_LIST)
_NEXT: Final = (1, 2, 0)
_QUEENS: Final = sum(1 << card(cards.QUEEN, s) for s in SUITS)
"""The felsős (queens); each king is the card just above its queen (UL-16's marriages)."""
assert all(card(cards.KING, s) == card(cards.QUEEN, s) + 1 for s in SUITS)

_COMP_NAMES: Final = tuple(
    tuple(COMPONENT_NAMES[c] for c in COMPONENTS if sub & c) for sub in range(64)
)


_MARRIAGE_FACTS: Final = tuple(
    tuple(
        tuple(
            game.Announced("marriage", {"seat": s, "suit": SUIT_LETTERS[t], "value": v})
            for v in (20, 40)
        )
        for t in SUITS
    )
    for s in range(3)
)
"""``[seat][suit][is_trump]``: the 20 or 40 announced (UL-16), built once and shared."""
_FACTS: Final = {
    what: tuple(game.Announced(what, {"seat": s}) for s in range(3))
    for what in ("pass", "pickup", "stand", "discard", "no_kontra")
}
"""``_FACTS[word][seat]``: what a seat says in the auction or the kontra round."""


def _said(what: str, key: str, values: Sequence[game.JSON], seat: str = "seat"
          ) -> tuple[tuple[game.Announced, ...], ...]:  # fmt: skip
    """``[seat][i]``: the fact that a seat said ``what`` with the ``i``-th of ``values``."""
    return tuple(tuple(game.Announced(what, {seat: s, key: v}) for v in values) for s in range(3))


# The facts of a decision are built once and shared (read-only data).
_BID_FACTS: Final = _said("bid", "contract", [c.key for c in LADDER])  # [seat][rank - 1]
_TRUMP_FACTS: Final = _said("trump", "trump", SUIT_LETTERS)  # [seat][suit]
_CONTRACT_FACTS: Final = _said("contract", "contract", [c.key for c in LADDER], "declarer")
_KONTRA_FACTS: Final = tuple(  # [rekontra][seat][components] (UL-18)
    _said(verb, "components", [list(n) for n in _COMP_NAMES]) for verb in ("kontra", "rekontra")
)


# -- the state -------------------------------------------------------------------------------

T = TypeVar("T")


@mypyc_attr(serializable=True, acyclic=True)
class _Shared:
    """What a card play never changes: the rules, the auction's record and, once it ends, the
    contract (declarer, trump, marriages, kontras). States share it by reference; an auction or
    kontra decision replaces it with a changed copy. Until the auction ends the contract's
    fields read as their class defaults."""

    rules: UltiRules
    btab: _BidTables
    dealer: Seat
    talon: CardSet = 0
    discarder: Seat = -1
    cur: int = 0
    """Rank of the current bid, 0 before the first."""
    holder: Seat = -1
    passes: int = 0
    bids: tuple[tuple[Seat, int], ...] = ()
    contract: Contract | None = None
    declarer: Seat = -1
    trump: int = NO_TRUMP
    marriages: tuple[tuple[Seat, int], ...] = ()
    mfacts: tuple[tuple[game.Announced, ...], ...] = ((), (), ())
    """Per seat, the marriage facts its first card announces (UL-16)."""
    hold: CardSet = 0
    """The trump 7's bit when the declarer must keep it for trick 10 (UL-25), else 0."""
    kon: tuple[int, ...] = (0, 0, 0)
    rek: tuple[int, ...] = (0, 0, 0)
    kdone: int = 0
    cmask: int = 0
    """The components a kontra may name (UL-18)."""
    stop: int = 0
    """UL-27 early stop: 0 none, 1 when the declarer wins a trick, 2 when the declarer
    loses one."""

    def copy(self) -> _Shared:
        """A copy to change (until the auction ends, of the auction's record only: the rest
        reads as the class defaults)."""
        f: _Shared = _NEW_SHARED(_Shared)
        f.rules, f.btab, f.dealer = self.rules, self.btab, self.dealer
        f.talon, f.discarder, f.cur = self.talon, self.discarder, self.cur
        f.holder, f.passes, f.bids = self.holder, self.passes, self.bids
        f.contract = self.contract
        if self.contract is not None:
            f.declarer, f.trump, f.marriages = self.declarer, self.trump, self.marriages
            f.mfacts, f.hold, f.cmask = self.mfacts, self.hold, self.cmask
            f.kon, f.rek, f.kdone, f.stop = self.kon, self.rek, self.kdone, self.stop
        return f


class _Through(Generic[T]):
    """A field of the shared part read through the state: ``state.kon`` is ``state.fx.kon``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, state: UltiState, owner: type[UltiState]) -> T:
        value: T = getattr(state.fx, self.name)
        return value


@mypyc_attr(serializable=True, acyclic=True)
class UltiState:
    """One Ulti deal. Treat as immutable: :meth:`Ulti.apply` returns a new one.

    Only what a card play changes lives here; the rest is in ``fx``, shared between states
    (the fields declared :class:`_Through` read through)."""

    fx: _Shared
    phase: int
    to_act: Seat
    hm: int
    """The three hands in one integer: seat ``s`` holds ``hm >> 52 * s & FULL`` (see
    :attr:`hands`)."""
    lmask: CardSet
    """The legal cards of ``to_act`` in the play phase."""
    trick: Trick | None
    """The trick in progress (``None`` between tricks)."""
    tricks: tuple[game.TrickTaken, ...]
    res: game.HandResult
    """Set once the deal is over."""
    declarer: ClassVar[_Through[Seat]] = _Through("declarer")
    trump: ClassVar[_Through[int]] = _Through("trump")
    contract: ClassVar[_Through[Contract | None]] = _Through("contract")
    holder: ClassVar[_Through[Seat]] = _Through("holder")
    kon: ClassVar[_Through[tuple[int, ...]]] = _Through("kon")
    rek: ClassVar[_Through[tuple[int, ...]]] = _Through("rek")
    dealer: ClassVar[_Through[Seat]] = _Through("dealer")

    @property
    def hands(self) -> tuple[CardSet, ...]:
        """Each seat's cards."""
        hm = self.hm
        return (hm & _FULL, hm >> 52 & _FULL, hm >> 104)

    @property
    def plays(self) -> tuple[tuple[Seat, Card], ...]:
        """The trick in progress as ``(seat, card)``."""
        return () if self.trick is None else self.trick.plays(3)

    @property
    def won(self) -> tuple[int, ...]:
        """Tricks won per seat."""
        return tuple(sum(t.winner == s for t in self.tricks) for s in range(3))

    @property
    def pts(self) -> tuple[int, ...]:
        """Card points won per seat (UL-3)."""
        return tuple(sum(t.points for t in self.tricks if t.winner == s) for s in range(3))

    def __repr__(self) -> str:
        return f"<UltiState phase={Ulti.PHASES[self.phase].name} to_act={self.to_act}>"


_NEW_STATE: Final = UltiState.__new__
_NEW_SHARED: Final = _Shared.__new__
"""Allocators: ``_NEW_STATE(UltiState)`` is a bare instance whose fields the caller sets
(``object.__new__`` from source; compiled, the class's own allocator, which ``object.__new__``
may not replace)."""

_FULL: Final = (1 << 52) - 1
_OFF: Final = (0, 52, 104)
"""Where each seat's hand starts in :attr:`UltiState.hm`."""
_BIT: Final = tuple(tuple(1 << (c + off) for c in range(52)) for off in _OFF)
"""``_BIT[seat][card]``: the card's bit in :attr:`UltiState.hm`."""

_new_tuple: Final = tuple.__new__
_Step: Final = game.Step
_TrickTaken: Final = game.TrickTaken
_HandEnded: Final = game.HandEnded
"""``Final`` aliases of the facts' classes: compiled code reads ``Final`` module names as
constants instead of looking them up in the module's dict at every use."""


def _state(
    fx: _Shared,
    phase: int,
    to_act: Seat,
    hm: int,
    trick: Trick | None = None,
    tricks: tuple[game.TrickTaken, ...] = (),
) -> UltiState:
    """A state (no legal card mask: the play sets it)."""
    s: UltiState = _NEW_STATE(UltiState)
    s.fx = fx
    s.phase = phase
    s.to_act = to_act
    s.hm = hm
    s.lmask = 0
    s.trick = trick
    s.tricks = tricks
    return s


def _step(state: UltiState, *facts: game.Fact) -> game.Step:
    return _new_tuple(_Step, (state, facts))


_LEGAL_CARDS: Final[dict[CardSet, tuple[Card, ...]]] = {}
"""The legal cards as a tuple, by set: with 16,384 sets kept (about 3 MB), two thirds of the
play's legal sets are found here (measured over 20,000 random deals)."""
_LEGAL_CARDS_MAX: Final = 1 << 14


_REFUSALS: Final = {
    (AUCTION, PASS): ("you hold the current bid; stand or pick up the talon", "UL-12"),
    (AUCTION, STAND): ("only the holder of the current bid may stand; pass or pick up", "UL-12"),
    (TRUMP, NAME_BASE + cards.HEARTS): (
        "piros is trump only in a piros contract; name tök (D), zöld (S) or makk (C)", "UL-14"
    ),
}
"""Refusals that are always said the same way; as to every reason, ``Ulti._illegal`` puts the
refused action before it (``'pass': you hold the current bid; ...``)."""
_WRONG_DOUBLE: Final = {
    (True, False): "the declarer answers a kontra with rekontra",
    (True, True): "only a component the defenders doubled can be rekontra'd",
    (False, True): "only the declarer says rekontra",
}
"""``[by the declarer, a rekontra]``: a kontra decision of the other side's kind (UL-18)."""
_MUST_BEAT: Final = ("you must beat the best card of the led suit when you can",
                     "you must overtrump when you can")
_MUST_PLAY: Final = ("you must follow suit ({} was led)",
                     "you cannot follow, so you must trump ({})")
"""A held card refused, ``[void]``: the seat holds the led suit (0), or is void in it and holds
a trump (1); a card of that suit that does not beat (UL-24), or of another suit (UL-23)."""


class Ulti(Phased):
    """Ulti: 32 Hungarian cards, three players, the talon auction, one declarer against two."""

    name: ClassVar[str] = "ulti"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: contract values from 1 to 20+ units, doubled by kontras (UL-36).
    difference_scale: ClassVar[tuple[int, ...]] = (2, 4, 8, 12, 16, 24, 32, 48, 64, 96)

    aliases: ClassVar[tuple[str, ...]] = ("rabloulti", "rablóulti")
    title: ClassVar[str] = "Ulti"
    num_seats: ClassVar[int] = 3
    partnerships: ClassVar[bool] = False
    match_length: ClassVar[str] = "deals"
    #: Seen only by the acting seat while the hand runs: the two cards laid in the talon.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"discard"})
    pack: ClassVar[tuple[Card, ...]] = HUNGARIAN_32
    rules_class: ClassVar[type[RuleSet]] = UltiRules
    PHASES: ClassVar[Sequence[Phase]] = (
        Phase("discard", "UL-11", "discard:<card>,<card> (two cards become the talon)", "UL-10",
              ("discard",)),
        Phase("bid", "UL-11", "bid:<contract>", "UL-11", ("pass", "bid")),
        # a bid in the auction: UL-11's refusal says why
        Phase("auction", "UL-11", "pass, pickup or stand", "UL-12",
              ("pass", "pickup", "stand", "bid")),
        Phase("trump", "UL-11", "name:<suit> (the declarer names trump)", "UL-14", ("name",)),
        Phase("play", "UL-22", "play:<card>", "UL-23", ("play",)),
        Phase("kontra", "UL-11", "kontra:<components>, rekontra:<components> or pass", "UL-20",
              ("pass", "kontra", "rekontra")),
        Phase("over", "UL-22"),
    )
    OVER: ClassVar[int] = OVER

    # -- dealing ---------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> game.Deal:
        """Twelve cards to the first player (the talon included), ten to each other (UL-6)."""
        a, b, c = tuple(pack[0:12]), tuple(pack[12:22]), tuple(pack[22:32])
        first = (dealer + 1) % 3
        return game.Deal((a, b, c) if first == 0 else ((c, a, b) if first == 1 else (b, c, a)), ())

    def new_hand(self, deal: game.Deal, dealer: Seat, rules: RuleSet) -> UltiState:
        assert isinstance(rules, UltiRules)
        first = (dealer + 1) % 3
        sizes = tuple(12 if s == first else 10 for s in range(3))
        hands = check_deal(deal, HUNGARIAN_32, sizes, 0, "ulti")
        f: _Shared = _NEW_SHARED(_Shared)
        f.rules, f.btab, f.dealer = rules, _bid_tables(rules), dealer
        return _state(f, DISCARD, first, hands[0] | hands[1] << 52 | hands[2] << 104)

    # -- play ------------------------------------------------------------------------------

    def legal_actions(self, state: UltiState) -> Sequence[game.Action]:
        phase = state.phase
        if phase == PLAY:
            m = state.lmask
            cards = _LEGAL_CARDS.get(m)
            if cards is None:
                if len(_LEGAL_CARDS) >= _LEGAL_CARDS_MAX:
                    _LEGAL_CARDS.clear()
                cards = _LEGAL_CARDS[m] = tuple(cards_in(m))
            return cards
        if phase == DISCARD:
            return DiscardPairs(state.hm >> _OFF[state.to_act] & _FULL)
        fx = state.fx
        if phase == AUCTION:
            return fx.btab.auction[2 * fx.cur + (state.to_act == fx.holder)]
        if phase == BID:
            return fx.btab.bids[fx.cur]
        if phase == KONTRA:
            return _kontra_row(fx, state.to_act)[0]
        return _NAME_LIST if phase == TRUMP else ()

    def apply(self, state: UltiState, seat: Seat, action: game.Action) -> game.Step:
        phase = state.phase
        if phase == PLAY and seat == state.to_act:  # the hot path
            if action < 0 or not (state.lmask >> action) & 1:  # lmask: cards only, < 2**52
                raise self._illegal(state, action)
            return self._play(state, seat, action)
        if seat != state.to_act or phase == OVER:
            raise self._not_your_turn(state, seat, action)
        fx = state.fx
        if phase == DISCARD:  # UL-10, UL-11
            two = held_pair(state.hm >> _OFF[seat] & _FULL, action)
            if not two:
                raise self._illegal(state, action)
            f = fx.copy()
            f.talon = two
            f.discarder = seat
            s = _state(f, BID, seat, state.hm ^ two << _OFF[seat])
            return _step(s, _FACTS["discard"][seat])
        if phase == AUCTION:  # UL-11, UL-12
            if action not in fx.btab.auction_set[2 * fx.cur + (seat == fx.holder)]:
                raise self._illegal(state, action)
            f = fx.copy()
            if action == PICKUP:  # 12 cards, discard two, bid higher
                f.talon = 0
                s = _state(f, DISCARD, seat, state.hm | fx.talon << _OFF[seat])
                return _step(s, _FACTS["pickup"][seat])
            if action == PASS:
                f.passes += 1
                if f.passes < 2 or f.rules.auction_end != "two_passes":
                    return _step(_state(f, AUCTION, _NEXT[seat], state.hm), _FACTS["pass"][seat])
                return self._end_auction(_state(f, AUCTION, seat, state.hm), _FACTS["pass"][seat])
            s = _state(f, AUCTION, seat, state.hm)
            if action == STAND:
                return self._end_auction(s, _FACTS["stand"][seat])
            return self._bid(s, seat, action)  # a bid without the talon (raise_without_talon)
        if phase == BID:  # UL-9 .. UL-11
            if action not in fx.btab.bids_set[fx.cur]:
                raise self._illegal(state, action)
            return self._bid(_state(fx.copy(), BID, seat, state.hm), seat, action)
        if action not in (_kontra_row(fx, seat)[1] if phase == KONTRA else _NAME_SET):
            raise self._illegal(state, action)  # UL-18, UL-19; UL-14
        f = fx.copy()
        s = _state(f, phase, seat, state.hm, state.trick, state.tricks)  # no legal cards yet
        if phase == KONTRA:  # UL-18 .. UL-20
            return _step(s, self._kontra(s, seat, action))
        f.trump = action - NAME_BASE  # UL-14
        self._start_play(s)
        return _step(s, _TRUMP_FACTS[seat][f.trump])

    def _play(self, state: UltiState, seat: Seat, c: Card) -> game.Step:
        """A legal card (UL-22 .. UL-27)."""
        fx = state.fx
        t = TABLES[fx.trump]
        before = state.trick
        trick = lead(t, seat, c) if before is None else play(before, t.power[before.led], seat, c)
        tricks = state.tricks
        s = _state(fx, PLAY, _NEXT[seat], state.hm ^ _BIT[seat][c], trick, tricks)
        # UL-16: with the first card
        facts: tuple[game.Fact, ...] = () if tricks else fx.mfacts[seat]
        if len(trick.cards) < 3:
            nxt = s.to_act
            if (
                not tricks
                and nxt != fx.declarer
                and not (fx.kdone >> nxt) & 1
                and fx.rules.kontra_timing == "with_first_card"
            ):
                s.phase = KONTRA
            else:
                s.lmask = self._legal_mask(s)
            return _new_tuple(_Step, (s, facts))
        # the trick is complete (UL-26)
        number = len(tricks) + 1
        c0, c1, _ = trick.cards
        points = CARD_POINTS[c0] + CARD_POINTS[c1] + CARD_POINTS[c] + (10 if number == 10 else 0)
        winner = trick.winner  # UL-3: 10 more for the last trick
        p0 = trick.leader
        taken = _new_tuple(
            _TrickTaken, (number, ((p0, c0), (_NEXT[p0], c1), (seat, c)), winner, points)
        )
        s.tricks = (*tricks, taken)
        s.trick = None
        s.to_act = winner
        d = fx.declarer
        stop = fx.stop
        if number == 10 or (stop and (winner == d if stop == 1 else winner != d)):  # UL-27
            res = s.res = self.result(s)  # computed, as s is still in play
            s.phase = OVER
            return _new_tuple(_Step, (s, (*facts, taken, _new_tuple(_HandEnded, (res,)))))
        if number > 1:
            s.lmask = self._legal_mask(s)
            return _new_tuple(_Step, (s, (taken,)))
        contract = fx.contract
        assert contract is not None
        facts = (*facts, taken)
        if contract.open:  # UL-21
            shown = names(cards_in(s.hm >> _OFF[d] & _FULL))
            facts = (*facts, game.Announced("open_hand", {"seat": d, "hand": shown}))
        self._kontra_turn(s)
        return _new_tuple(_Step, (s, facts))

    def _bid(self, s: UltiState, seat: Seat, action: game.Action) -> game.Step:
        """UL-9 .. UL-11: the bid becomes current, the turn moves on."""
        f = s.fx
        rank = action - BID_BASE + 1
        f.cur = rank
        f.holder = seat
        f.passes = 0
        f.bids = (*f.bids, (seat, rank))
        s.phase = AUCTION
        s.to_act = _NEXT[seat]
        return _step(s, _BID_FACTS[seat][rank - 1])

    def _end_auction(self, s: UltiState, fact: game.Fact) -> game.Step:
        """UL-13 .. UL-15: the holder declares the current bid."""
        f = s.fx
        contract = f.contract = LADDER[f.cur - 1]
        d = f.declarer = f.holder
        facts = [fact, _CONTRACT_FACTS[d][contract.rank - 1]]
        if contract.rank == 1 and f.rules.passz_standing == "pay":
            s.phase = OVER
            s.res = game.HandResult(
                passz_not_played(d), {"contract": contract.key, "declarer": d, "played": False}
            )
            facts.append(game.HandEnded(s.res))
        elif contract.trump == CHOOSE:
            s.phase = TRUMP
            s.to_act = d
        else:
            if contract.trump == PIROS:
                f.trump = cards.HEARTS
                facts.append(_TRUMP_FACTS[d][cards.HEARTS])
            self._start_play(s)
        return _step(s, *facts)

    def _start_play(self, s: UltiState) -> None:
        """UL-16, UL-22: marriages are fixed from the hands; the declarer leads."""
        f = s.fx
        contract = f.contract
        assert contract is not None
        rules = f.rules
        trump = f.trump
        if trump >= 0:
            marriages = []
            mfacts: list[tuple[game.Announced, ...]] = [(), (), ()]
            for seat, hand in enumerate(s.hands):
                both = hand & hand >> 1 & _QUEENS  # the queens whose king is held too
                while both:
                    low = both & -both
                    suit = SUIT_OF[low.bit_length() - 1]
                    marriages.append((seat, suit))
                    mfacts[seat] += (_MARRIAGE_FACTS[seat][suit][suit == trump],)
                    both ^= low
            f.marriages = tuple(marriages)
            f.mfacts = (mfacts[0], mfacts[1], mfacts[2])
            if contract.mask & ULTI and rules.hold_ulti_seven:
                f.hold = 1 << SEVENS[trump]
        f.cmask = sum(comp for comp, _ in components(contract, rules))  # UL-18
        if trump < 0 and rules.early_stop:  # UL-27
            mask = contract.mask
            f.stop = 1 if mask & BETLI else (2 if mask == DURCHMARS else 0)
        s.phase = PLAY
        s.to_act = f.declarer
        s.lmask = self._legal_mask(s)

    def _legal_mask(self, s: UltiState) -> CardSet:
        """The legal cards of the seat to act (UL-23 .. UL-25)."""
        f = s.fx
        seat = s.to_act
        m = s.hm >> _OFF[seat] & _FULL
        trick = s.trick
        if trick is not None:
            m = _answer(m, trick, TABLES[f.trump], f.rules.must_beat_after_trumped)
        hold = f.hold
        if hold and seat == f.declarer and m & hold and m != hold and len(s.tricks) < 9:
            m &= ~hold  # UL-25
        return m

    def _kontra_turn(self, s: UltiState) -> None:
        """UL-20: after trick 1, each defender in play order, then the declarer if doubled;
        then the play goes on."""
        f = s.fx
        d = f.declarer
        kdone = f.kdone
        e = _NEXT[d]
        if not (kdone >> e) & 1 or not (kdone >> (e := _NEXT[e])) & 1:
            s.phase, s.to_act = KONTRA, e
        elif not (kdone >> d) & 1 and any(f.kon):
            s.phase, s.to_act = KONTRA, d
        else:
            s.phase, s.to_act = PLAY, s.tricks[-1].winner
            s.lmask = self._legal_mask(s)

    def _kontra(self, s: UltiState, seat: Seat, action: game.Action) -> game.Fact:
        """UL-18, UL-19: a legal kontra decision, recorded in ``s`` (a copy with its own ``fx``);
        returns the fact it announces."""
        f = s.fx
        assert f.contract is not None
        f.kdone |= 1 << seat
        if action == PASS:
            fact = _FACTS["no_kontra"][seat]
        elif seat == f.declarer:  # rekontra doubles each doubled component again
            sub = action - REKONTRA_BASE
            f.rek = tuple(r | (k & sub) for r, k in zip(f.rek, f.kon, strict=True))
            fact = _KONTRA_FACTS[1][seat][sub]
        else:
            sub = action - KONTRA_BASE
            bound = (
                (seat,) if f.contract.colourless else (_NEXT[f.declarer], _NEXT[_NEXT[f.declarer]])
            )
            f.kon = tuple(k | sub if e in bound else k for e, k in enumerate(f.kon))  # UL-19
            fact = _KONTRA_FACTS[0][seat][sub]
        if s.tricks:
            self._kontra_turn(s)
        else:  # with_first_card: the defender now plays to trick 1
            s.phase = PLAY
            s.lmask = self._legal_mask(s)
        return fact

    # -- scoring (UL-28 .. UL-36) ----------------------------------------------------------

    def check_result(self, result: game.HandResult, rules: RuleSet) -> None:
        """The invariants every scored deal satisfies (the conformance suite checks them over
        random deals). :raises ConformanceError: one is broken."""
        invariants.ulti(result, rules)

    def result(self, state: UltiState) -> game.HandResult:
        if state.phase == OVER:
            return state.res
        f = state.fx
        contract = f.contract
        if contract is None:
            return game.HandResult((0, 0, 0), {"unfinished": True}, void=True)
        d = f.declarer
        trump = f.trump
        tricks = state.tricks
        seven_seat = last_winner = -1
        if len(tricks) == 10:
            last_winner = tricks[9].winner
            for who, c in tricks[9].plays:
                if trump >= 0 and c == SEVENS[trump]:
                    seven_seat = who
        won = [0, 0, 0]
        cp = 0
        for _, _, w, pts in tricks:
            won[w] += 1
            if w == d:
                cp += pts
        if not f.rules.talon_to_defenders:
            cp += sum(CARD_POINTS[c] for c in cards_in(f.talon))
        tally = _new_tuple(
            Tally, (d, trump, cp, (won[0], won[1], won[2]), f.marriages, seven_seat, last_winner)
        )
        points, detail = settle(contract, tally, f.kon, f.rek, f.rules)
        detail["talon"] = names(cards_in(f.talon))
        return game.HandResult(points, detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: UltiState, seat: Seat | None) -> dict[str, game.JSON]:
        f = state.fx
        contract = f.contract
        d = f.declarer
        # UL-16: a seat's 20s and 40s are announced with its first card
        announced = range(3) if state.tricks else sorted(p for p, _ in state.plays)
        out = self._frame(state) | {
            "first": (f.dealer + 1) % 3,
            "bids": [{"seat": p, "contract": LADDER[r - 1].key} for p, r in f.bids],
            "current_bid": LADDER[f.cur - 1].key if f.cur else None,
            "holder": f.holder if f.holder >= 0 else None,
            "passes": f.passes,
            "contract": contract.key if contract else None,
            "declarer": d if d >= 0 else None,
            "trump": SUIT_LETTERS[f.trump] if f.trump >= 0 else None,
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in state.plays],
            "tricks": [t.to_json() for t in state.tricks],
            "tricks_won": list(state.won),
            "marriages": [dict(m.data) for p in announced for m in f.mfacts[p]],
            "kontra": [
                {"seat": e, "kontra": list(_COMP_NAMES[k]), "rekontra": list(_COMP_NAMES[f.rek[e]])}
                for e, k in enumerate(f.kon)
                if k
            ],
        }
        if contract is not None and contract.open and state.tricks:  # UL-21
            out["open_hand"] = names(cards_in(state.hands[d]))
        laid = names(cards_in(f.talon)) if seat == f.discarder and f.talon else None
        return self._own(out, state, seat, state.hands, talon=laid)

    def audit_view(self, state: UltiState) -> dict[str, game.JSON]:
        out = self.view(state, None)
        out["hands"] = [names(cards_in(h)) for h in state.hands]
        out["talon"] = names(cards_in(state.fx.talon))
        out["discarder"] = state.fx.discarder
        out["kontra_done"] = state.fx.kdone
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> game.Action:
        return parse_verbs(text, _VERBS, _NOTATION, _ACTIONS)

    def format_action(self, action: game.Action) -> str:
        return format_verbs(action, _VERB_NAMES, _NOTATION)

    def all_actions(self) -> list[game.Action]:
        return sorted(
            [
                *HUNGARIAN_32,
                *_VERBS.values(),
                *(NAME_BASE + s for s in SUITS),
                *(BID_BASE + c.rank - 1 for c in LADDER),
                *(base + sub for base in (KONTRA_BASE, REKONTRA_BASE) for sub in range(1, 64)),
                *(pair_code(a, b) for a, b in itertools.combinations(HUNGARIAN_32, 2)),
            ]
        )

    def claim_order(self, state: UltiState) -> ClaimOrder:
        """The cards in play by trick power under the contract (UL-2, UL-26), the ulti seven
        apart: the declarer may not play it before the last trick (UL-25), so it is never
        equivalent to the eight above it; a hand that may stop early (UL-27) is not played
        to the end (for a claim's search, referee.rules.claims)."""
        trick = state.trick
        fx = state.fx
        in_play = sum(state.hands) | (0 if trick is None else cards.mask_of(trick.cards))
        return claim_order(TABLES[fx.trump], in_play, fx.hold, to_the_end=not fx.stop)

    def card_locations(self, state: UltiState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        where["played"] = played(state.tricks, () if state.trick is None else state.trick.cards)
        where["talon"] = state.fx.talon
        return where

    # -- match level (UL-5, UL-36) ---------------------------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> game.MatchState:
        return game.MatchState(scores=(0, 0, 0), dealer=first_dealer)

    def after_hand(
        self, match: game.MatchState, result: game.HandResult, rules: RuleSet
    ) -> game.MatchState:
        """Running totals; the deal passes on (UL-5); the match ends after ``deals`` deals."""
        assert isinstance(rules, UltiRules)
        scores = tuple(a + b for a, b in zip(match.scores, result.points, strict=True))
        played = match.hands_played + 1
        over = played >= rules.deals
        leaders = [s for s in range(3) if scores[s] == max(scores)]
        winner = leaders[0] if over and len(leaders) == 1 else None
        return game.MatchState(
            scores=scores,
            dealer=(match.dealer + 1) % 3,
            hands_played=played,
            over=over,
            winner=winner,
        )

    # -- errors ----------------------------------------------------------------------------

    def _illegal(self, state: UltiState, action: game.Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        if action not in _ALL:
            return IllegalActionError(f"action code {action} is not an Ulti action", "UL-9")
        text = self.format_action(action)
        phase = state.phase
        why: tuple[str, str] | None
        if phase == PLAY and action < game.VERB_BASE:
            why = self._why_not_card(state, action)
        elif phase == KONTRA and KONTRA_BASE <= action < DISCARD_BASE:
            why = self._why_not_kontra(state, action)
        else:
            why = _REFUSALS.get((phase, action)) or self._why_not_bid(state, action)
        if why is None:
            return self._not_now(state, text)
        return IllegalActionError(f"{text!r}: {why[0]}", why[1])

    def _why_not_bid(self, state: UltiState, action: game.Action) -> tuple[str, str] | None:
        """Why an action of the auction is refused (UL-9 .. UL-14); ``None``: it belongs to
        another phase."""
        phase = state.phase
        f = state.fx
        if phase == DISCARD and action >= DISCARD_BASE:
            return "you can only discard cards you hold", "UL-10"
        if phase in (BID, AUCTION) and BID_BASE <= action < KONTRA_BASE:
            if phase == AUCTION and not f.rules.raise_without_talon:
                return "pick up the talon and discard two before bidding", "UL-11"
            cur = LADDER[f.cur - 1]
            how = "later in the ladder" if f.rules.equal_value_overcall else "higher in value"
            return f"a bid must be {how} than the current {cur.title} ({cur.value})", "UL-9"
        if phase == AUCTION and action == PICKUP:
            then = "stand" if state.to_act == f.holder else "pass"
            return f"no bid is higher than {LADDER[f.cur - 1].title}; {then}", "UL-11"
        if phase == BID and action == PASS:
            who = "whoever picks up the talon" if f.bids else "the first player"
            higher = f.btab.bids[f.cur]
            lowest = LADDER[higher[0] - BID_BASE].title if higher else "nothing"
            return f"{who} must bid (at least {lowest})", "UL-11" if f.bids else "UL-10"
        return None

    def _why_not_card(self, state: UltiState, c: Card) -> tuple[str, str]:
        """Why a card is refused (UL-23 .. UL-25)."""
        seat = state.to_act
        hand = state.hands[seat]
        if not (hand >> c) & 1:
            return f"you do not hold {CARD_NAMES[c]}", "UL-23"
        f = state.fx
        trump = f.trump
        trick = state.trick
        if (f.hold >> c) & 1 and seat == f.declarer:  # the trump 7 an ulti holds (UL-25)
            must_beat = f.rules.must_beat_after_trumped
            base = hand if trick is None else _answer(hand, trick, TABLES[trump], must_beat)
            if (base >> c) & 1:
                return ("with an ulti the trump 7 must be kept for the last trick while you "
                        "have another legal card", "UL-25")
        assert trick is not None  # a lead is free but for the seven held (UL-25)
        void = not hand & SUIT_MASKS[trick.led]
        suit = trump if void else trick.led  # the suit to play (UL-23)
        if suit < 0 or not hand & SUIT_MASKS[suit]:
            why, rule = "not a legal card here", "UL-23"
        elif SUIT_OF[c] == suit:
            why, rule = _MUST_BEAT[void], "UL-24"
        else:
            why, rule = _MUST_PLAY[void].format(cards.HUNGARIAN_SUIT_NAMES[suit]), "UL-23"
        return f"{why}; legal: {' '.join(names(cards_in(state.lmask)))}", rule

    def _why_not_kontra(self, state: UltiState, action: game.Action) -> tuple[str, str]:
        """Why a kontra or rekontra is refused (UL-18, UL-19)."""
        f = state.fx
        contract = f.contract
        assert contract is not None
        wrong = _WRONG_DOUBLE.get((state.to_act == f.declarer, action >= REKONTRA_BASE))
        if wrong is not None:
            return wrong, "UL-18"
        if (action - KONTRA_BASE) & ~f.cmask:
            return f"the contract {contract.title} has no such component", "UL-18"
        both = "" if contract.colourless else " for both defenders"
        return f"that component is already doubled{both}", "UL-19"


def _pack_card(text: str) -> Card:
    c = cards.parse_card(text)
    if not (PACK_MASK >> c) & 1:
        raise InvalidActionError(f"{text!r} is not in the Hungarian pack (ranks 7 8 9 T J Q K A)")
    return c


def _read_discard(arg: str) -> int:
    """Two different cards (UL-10), as the pair's code less ``DISCARD_BASE``."""
    parts = arg.split(",")
    if len(parts) != 2:
        raise InvalidActionError(
            f"{'discard:' + arg!r}: discard exactly two cards, e.g. 'discard:7C,8D'"
        )
    a, b = sorted(_pack_card(p) for p in parts)
    if a == b:
        raise InvalidActionError(f"{'discard:' + arg!r}: the two discarded cards must differ")
    return pair_code(a, b) - DISCARD_BASE


def _read_bid(arg: str) -> int:
    """A contract of the ladder (UL-9), as its rank less 1."""
    try:
        return by_key(arg.lower()).rank - 1
    except KeyError:
        raise InvalidActionError(
            f"{arg!r} is not an Ulti contract (e.g. passz, piros_passz, 40-100, ulti, "
            "betli, durchmars, teritett_betli; see docs/games/ulti.md)"
        ) from None


def _read_components(verb: str, arg: str) -> int:
    """The components a kontra or rekontra names (UL-18), once each, as a set."""
    sub = 0
    for name in arg.split(","):
        comp = COMPONENT_BY_NAME.get(name)
        if comp is None or sub & comp:
            raise InvalidActionError(
                f"{verb + ':' + arg!r}: name components once each, comma-separated, from "
                f"{', '.join(COMPONENT_NAMES.values())}"
            )
        sub |= comp
    return sub


def _write_components(sub: int) -> str:
    return ",".join(_COMP_NAMES[sub & 63])


_NOTATION: Final[tuple[Verb, ...]] = (
    ("play", 0, game.VERB_BASE, _pack_card, CARD_NAMES.__getitem__),
    ("name", NAME_BASE, BID_BASE, parse_suit, SUIT_LETTERS.__getitem__),
    ("bid", BID_BASE, KONTRA_BASE, _read_bid, lambda rank: LADDER[rank].key),
    ("kontra", KONTRA_BASE, REKONTRA_BASE, functools.partial(_read_components, "kontra"),
     _write_components),
    ("rekontra", REKONTRA_BASE, DISCARD_BASE, functools.partial(_read_components, "rekontra"),
     _write_components),
    ("discard", DISCARD_BASE, 1 << 64, _read_discard,
     lambda pair: ",".join(names(divmod(pair, 52)))),
)
"""Each ``verb:<argument>``: its codes, how its argument reads and is written (UL-9 .. UL-18)."""

_ALL: Final = frozenset(Ulti().all_actions())
GAME: Final = Ulti()
