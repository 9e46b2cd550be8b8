"""Coinche's state: the action codes, what a deal fixes (the cards dealt, the contract and
its tables) and the state of a deal, with the tables of dealing and of the auction."""

from __future__ import annotations

from operator import itemgetter
from typing import Final, TypeAlias

from referee.rules.cards import (
    CardSet,
)
from referee.rules.compiled import mypyc_attr
from referee.rules.game import (
    VERB_BASE,
    Action,
    Deal,
    HandResult,
    Step,
    TrickTaken,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    NO_TRUMPS,
    PACK_MASK,
)
from referee.rules.games.belote_game import Phase
from referee.rules.games.belote_play import PlayRules, legal_cards, team_tally
from referee.rules.games.coinche_rules import CoincheRules
from referee.rules.seats import Seat
from referee.rules.tricks import Trick

SA: Final = NO_TRUMPS
TA: Final = ALL_TRUMPS
DENOM_NAMES: Final = ("C", "D", "H", "S", "SA", "TA")
DENOM_WORDS: Final = ("clubs", "diamonds", "hearts", "spades", "sans atout", "tout atout")



# -- action codes (cards 0..51 are plays) -----------------------------------------------------

PASS: Final = VERB_BASE
COINCHE: Final = VERB_BASE + 1
SURCOINCHE: Final = VERB_BASE + 2
BID_BASE: Final = VERB_BASE + 3  # + level index * 6 + denomination
NUMERIC_VALUES: Final = tuple(range(80, 190, 10))  # 80 .. 180
CAPOT_LI: Final = len(NUMERIC_VALUES)  # 11
GENERALE_LI: Final = CAPOT_LI + 1  # 12
N_LEVELS: Final = GENERALE_LI + 1
ANNOUNCE_BASE: Final = 160  # + combination index
BELOTE_BASE: Final = 256  # + card
REBELOTE_BASE: Final = 320  # + card

VERBS: Final = {"pass": PASS, "coinche": COINCHE, "surcoinche": SURCOINCHE}
VERB_NAMES: Final = {code: verb for verb, code in VERBS.items()}
LEVEL_NAMES: Final = {1: "none", 2: "coinche", 4: "surcoinche"}


def bid_code(li: int, denom: int) -> Action:
    """The code of a bid at level index ``li`` (0 = 80 .. 10 = 180, 11 capot, 12 generale)."""
    return BID_BASE + li * 6 + denom


def li_text(li: int) -> str:
    return (
        "capot" if li == CAPOT_LI else "generale" if li == GENERALE_LI else str(NUMERIC_VALUES[li])
    )


# -- state ---------------------------------------------------------------------------------------



Auction: TypeAlias = tuple[tuple[tuple[Seat, Action], ...], int, Seat, int, int]
"""``(calls, top, bidder, level, passes)``: the calls so far, the standing bid's code (-1 for
none), its bidder, 1 / 2 (coinche) / 4 (surcoinche), consecutive passes."""


@mypyc_attr(serializable=True, acyclic=True)
class Fixed:
    """What does not change during a deal: rules, dealer, the cards dealt."""

    rules: CoincheRules
    dealer: Seat
    first: Seat
    start: tuple[CardSet, ...]  # held during the auction
    full: tuple[CardSet, ...]  # held from the play on (8 cards)
    pending: CardSet  # dealt after the auction (cards_before_auction < 8)
    calls: dict[int, tuple[Action, ...]]  # the legal-calls cache for these rules


@mypyc_attr(serializable=True, acyclic=True)
class Contract:
    """Everything that stays fixed from the play on: the deal (``fx``), the finished auction
    and the contract with its lookup tables. A play state carries only this one reference for
    all of it, so a new state per card assigns few fields."""

    fx: Fixed
    auc: Auction  # the auction as it ended
    full: tuple[CardSet, ...]  # fx.full
    denom: int
    li: int
    value: int
    bidder: Seat
    level: int
    play: PlayRules  # what decides the legal cards (CO-P*, with the CO-P3 and CO-P5d variants)
    power: tuple[tuple[int, ...], ...]  # play.power (POWER[denom])
    points: tuple[int, ...]
    belcards: tuple[CardSet, ...]  # per seat: K and Q of each trump suit where it holds both


Decl: TypeAlias = tuple[tuple[tuple[Seat, int], ...], tuple[CardSet, ...], CardSet, CardSet]
"""``(anns, used, bel, rebel)``: announcements as ``(seat, combination)`` in order, the cards
each seat has used in them, cards played saying belote, cards played saying rebelote."""


@mypyc_attr(serializable=True, acyclic=True)
class CoincheState:
    """One Coinche deal. Treat as immutable: :meth:`Coinche.apply` returns a new one."""

    _fx: Fixed  # set during the auction only; from the play on it is ct.fx
    _auc: Auction  # likewise; from the play on it is ct.auc
    calls: tuple[Action, ...] | None  # auction: the legal calls of to_act once computed
    phase: int
    to_act: Seat
    ct: Contract | None
    decl: Decl
    played: CardSet
    trick: Trick | None  # the trick in play (the kernel's), None between tricks
    tricks: tuple[TrickTaken, ...]
    res: HandResult  # the result, set when first computed (read with getattr)
    pm: CardSet  # play: the cards to_act may play (computed with the state); else -1

    @property
    def fx(self) -> Fixed:
        """Rules, dealer and the cards dealt."""
        ct = self.ct
        return self._fx if ct is None else ct.fx

    @property
    def auc(self) -> Auction:
        """The auction so far (as it ended, from the play on)."""
        ct = self.ct
        return self._auc if ct is None else ct.auc

    @property
    def points(self) -> tuple[int, int]:
        """Card points won per team so far, last ten included."""
        a, b = team_tally(self.tricks)[0]
        return a, b

    @property
    def won(self) -> tuple[int, int, int, int]:
        """Tricks won per seat so far."""
        w = [0, 0, 0, 0]
        for t in self.tricks:
            w[t.winner] += 1
        return w[0], w[1], w[2], w[3]

    def copy(self) -> CoincheState:
        """A shallow copy (every field is immutable)."""
        s = NEW_STATE(CoincheState)
        s.ct = ct = self.ct
        if ct is None:
            s._fx = self._fx
            s._auc = self._auc
        s.calls = None
        s.phase = self.phase
        s.to_act = self.to_act
        s.decl = self.decl
        s.played = self.played
        s.trick = self.trick
        s.tricks = self.tricks
        s.pm = self.pm
        return s

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` holds now."""
        ct = self.ct
        if ct is not None:
            return ct.full[seat] & ~self.played
        return self._fx.start[seat]

    def __repr__(self) -> str:
        return f"<CoincheState phase={Phase(self.phase).name} to_act={self.to_act}>"


NEW_STATE: Final = CoincheState.__new__
NEW_FIXED: Final = Fixed.__new__
NEW_CONTRACT: Final = Contract.__new__
"""Allocators: ``NEW_STATE(CoincheState)`` is a bare instance whose fields the caller sets
(``object.__new__`` from source; compiled, the class's own allocator)."""
new_tuple: Final = tuple.__new__
STEP: Final = Step
TRICK_TAKEN: Final = TrickTaken
"""``Final`` aliases: compiled code reads them as constants, not from the module's dict."""


def auction_cache(rules: CoincheRules) -> dict[int, tuple[Action, ...]]:
    key = (rules.max_bid, rules.generale, rules.ranked_denominations)
    cache = AUCTION_CACHES.get(key)
    if cache is None:
        cache = AUCTION_CACHES[key] = {}
    return cache


def _deal_order(dealer: Seat) -> tuple[tuple[int, ...], ...]:
    """Per seat, the pack positions of its 8 cards: packets of 3, 2, 3 from ``dealer + 1``."""
    got: list[list[int]] = [[], [], [], []]
    i = 0
    for size in (3, 2, 3):
        for k in range(1, 5):
            got[(dealer + k) % 4].extend(range(i, i + size))
            i += size
    return tuple(tuple(h) for h in got)


DEALERS: Final = tuple(
    tuple(itemgetter(*positions) for positions in _deal_order(d)) for d in range(4)
)
"""``DEALERS[dealer][seat](pack)``: the cards ``seat`` receives, in the order received."""

AUCTION_CACHES: dict[tuple[int, bool, bool], dict[int, tuple[Action, ...]]] = {}
"""Per (max_bid, generale, ranked_denominations): the legal calls per auction situation."""


def fast_hands(deal: Deal) -> list[CardSet] | None:
    """The hands as sets when ``deal`` is a well-formed 8-card deal, else ``None`` (then
    :func:`check_deal` says what is wrong)."""
    if deal.stock or len(deal.hands) != 4:
        return None
    out = []
    union = 0
    for h in deal.hands:
        if len(h) != 8:
            return None
        m = 0
        for c in h:
            m |= 1 << c
        out.append(m)
        union |= m
    return out if union == PACK_MASK else None


def playable_cards(s: CoincheState, ct: Contract) -> CardSet:
    """CO-P1 .. CO-P6: the cards the seat to act may play."""
    seat = s.to_act
    hand = ct.full[seat] & ~s.played
    trick = s.trick
    if trick is None:
        return hand  # CO-P1
    return legal_cards(ct.play, hand, seat, trick.led, trick.best, trick.winner)
