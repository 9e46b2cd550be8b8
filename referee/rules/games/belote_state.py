"""The one state encoding of the belote family (Bulgarian Belot and Coinche).

A deal's state is a :class:`BeloteState`: the four hands packed in one ``int`` (64 bits a seat,
:data:`LANE_BITS`), the trick in play (its cards, leader, best card and winner), the completed
tricks, the declarations and the belots said. What the play never changes (the rules, the
dealer, the cards dealt after the auction, the auction and its contract, the contract's
tables) is one immutable :class:`Ctx`, built anew by each auction call and shared by every
state of the card play, so that a card played assigns few fields.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Final

from referee.rules.cards import SUIT_OF, Card, CardSet
from referee.rules.compiled import mypyc_attr
from referee.rules.game import Action, Deal, HandResult, TrickTaken
from referee.rules.games.belote_declarations import COMBO_MASKS
from referee.rules.games.belote_family import PACK_MASK
from referee.rules.games.belote_play import PlayRules, legal_cards
from referee.rules.seats import Seat

# The phases (each game's ``PHASES``), ``Final`` so that compiled code reads them as constants.
AUCTION: Final = 0
PLAY: Final = 1
OVER: Final = 2
PHASE_NAMES: Final = ("auction", "play", "over")
"""The phases' names, by number (in views and a state's repr)."""

LOW: Final = (1 << 64) - 1
"""One seat's lane of the packed hands."""
LANE_BITS: Final = tuple(tuple(1 << (c + (s << 6)) for c in range(64)) for s in range(4))
"""Per seat, per card 0..63: the card's bit in the packed hands."""


STOCK_LANES: Final = {
    each: tuple(tuple(LANE_BITS[(f + i // each) & 3] for i in range(4 * each)) for f in range(4))
    for each in (0, 1, 2, 3)
}
"""``STOCK_LANES[each][first & 3][i]``: :data:`LANE_BITS` of the seat the ``i``-th card of a
stock dealt ``each`` a seat in turn from ``first`` goes to."""


def packed_deal(deal: Deal, size: int, each: int, first: Seat) -> tuple[int, int] | None:
    """``deal``'s hands (``size`` cards a seat) and its stock (``each`` cards a seat in turn
    from ``first``), packed as the state holds them, when the deal is each card of the pack
    once; else ``None`` (then ``dealing.check_deal`` says what is wrong)."""
    hands = deal.hands
    lanes = STOCK_LANES[each][first & 3]
    if len(hands) != 4 or len(deal.stock) != len(lanes):
        return None
    held = rest = 0
    try:
        for lane, h in zip(LANE_BITS, hands, strict=True):
            if len(h) != size:
                return None
            for c in h:
                held |= lane[c]
        for lane, c in zip(lanes, deal.stock, strict=True):
            rest |= lane[c]
    except (IndexError, TypeError):
        return None
    return (held, rest) if unlane(held | rest) == PACK_MASK else None


def deal_getters(packets: tuple[int, ...]) -> tuple[tuple[Any, ...], ...]:
    """Per ``dealer % 4``, per seat: the getter of its cards from the pack, each packet of
    ``packets`` dealt to every seat in turn from ``dealer + 1``, in the order received."""
    out = []
    for dealer in range(4):
        got: list[list[int]] = [[], [], [], []]
        i = 0
        for size in packets:
            for k in range(1, 5):
                got[(dealer + k) & 3].extend(range(i, i + size))
                i += size
        out.append(tuple(itemgetter(*h) for h in got))
    return tuple(out)


def unlane(packed: int) -> CardSet:
    """The union of the four lanes of packed hands."""
    return (packed | (packed >> 64) | (packed >> 128) | (packed >> 192)) & LOW


def pack(hands: tuple[CardSet, ...] | list[CardSet]) -> int:
    """Four hands as sets, packed 64 bits a seat."""
    return hands[0] | hands[1] << 64 | hands[2] << 128 | hands[3] << 192


@mypyc_attr(serializable=True, acyclic=True)
class Ctx:
    """The part of a deal that the card play never changes. Immutable once built."""

    rules: Any
    dealer: Seat
    first: Seat
    """The first hand: it speaks first and leads to trick 1."""
    stock: tuple[Card, ...]
    """The cards dealt after the auction, in the order of the deal."""
    rest: int
    """The same, packed as the hands: OR-ed into them when the play starts."""
    dealt: int
    """Every seat's cards from the play on, packed (the hands as dealt in full)."""
    calls: tuple[tuple[Seat, Action], ...]
    """The auction's calls so far, ``(seat, call)``."""
    top: Action
    """The standing bid's code, -1 before a bid."""
    contract: int
    """The contract's mode (``belote_family.MODES``), -1 before a bid."""
    bidder: Seat
    level: int
    """1, 2 (doubled), 4 (redoubled) or 8."""
    passes: int
    """Passes since the last bid or double."""
    table: Any
    """The legal calls met so far under rules that call alike (:data:`CALLS`)."""
    auction: Any
    """The game's legal calls now, where it looks them up once per call."""
    play: PlayRules
    """The contract's play rules (the play tables are set once the auction ends)."""
    power: tuple[tuple[int, ...], ...]
    """``play.power``: per led suit, the power of each card."""
    points: tuple[int, ...]
    """Per card, its points under the contract."""
    kq: tuple[CardSet, ...]
    """Per seat, the kings and queens that may carry a belot / belote."""
    decl_ok: bool
    """Whether declarations are made under the contract."""
    value: int
    """The contract's value where the game has one."""


@mypyc_attr(serializable=True, acyclic=True, allow_interpreted_subclasses=True)
class BeloteState:
    """One deal. Treat as immutable: the game's ``apply`` returns a new one."""

    ctx: Ctx
    phase: int
    to_act: Seat
    hands: int
    leader: Seat
    trick: tuple[Card, ...]
    best: Card
    winner: Seat
    tricks: tuple[TrickTaken, ...]
    decls: tuple[tuple[Seat, int], ...]
    """Declarations / announcements, ``(seat, combination index)`` in the order made."""
    belots: tuple[tuple[Seat, Action], ...]
    """The cards played saying belot, belote or rebelote: ``(seat, action)``."""
    cached: HandResult
    """The result, once computed (unset until then)."""
    legal: CardSet
    """The playable cards of the seat to act, once computed (unset until then)."""

    def copy(self) -> BeloteState:
        """A shallow copy (every field is immutable), without the cached result and legal set."""
        s = type(self).__new__(type(self))
        s.ctx, s.phase, s.to_act = self.ctx, self.phase, self.to_act
        s.hands, s.tricks = self.hands, self.tricks
        s.leader, s.trick = self.leader, self.trick
        s.best, s.winner = self.best, self.winner
        s.decls, s.belots = self.decls, self.belots
        return s

    @property
    def dealer(self) -> Seat:
        """The dealer."""
        return self.ctx.dealer

    @property
    def auc(self) -> tuple[tuple[tuple[Seat, Action], ...], int, Seat, int, int]:
        """``(calls, top, bidder, level, passes)``: the calls so far, the standing bid's code
        (-1 for none), its bidder, the level of doubling, consecutive passes."""
        c = self.ctx
        return c.calls, c.top, c.bidder, c.level, c.passes

    @property
    def ct(self) -> Ctx | None:
        """The ctx with the contract's tables, from the play on; ``None`` before."""
        return None if self.phase == AUCTION or self.ctx.top < 0 else self.ctx

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` holds now."""
        return (self.hands >> (seat << 6)) & LOW

    def declared(self, seat: Seat) -> CardSet:
        """The cards ``seat`` has shown in its declarations (a card counts in one only)."""
        used = 0
        for who, i in self.decls:
            if who == seat:
                used |= COMBO_MASKS[i]
        return used

    @property
    def pm(self) -> CardSet:
        """The cards the seat to act may play, computed once per state."""
        try:
            return self.legal
        except AttributeError:
            legal = self.legal = playable_cards(self)
            return legal

    def __repr__(self) -> str:
        return f"<{type(self).__name__} phase={PHASE_NAMES[self.phase]} to_act={self.to_act}>"


def playable_cards(state: BeloteState) -> CardSet:
    """BG-P1 .. BG-P7, CO-P1 .. CO-P6: the cards the seat to act may play
    (:func:`belote_play.legal_cards`)."""
    seat = state.to_act
    hand = (state.hands >> (seat << 6)) & LOW
    trick = state.trick
    if not trick:
        return hand
    return legal_cards(state.ctx.play, hand, seat, SUIT_OF[trick[0]], state.best, state.winner)


NEW_CTX: Final = Ctx.__new__


def deal_ctx(rules: Any, dealer: Seat, first: Seat, stock: tuple[Card, ...], rest: int,
             dealt: int, table: Any) -> Ctx:  # fmt: skip
    """A ctx of a deal's fixed fields (``BeloteGame._ctx`` adds the auction's); ``table`` the
    calls met so far under its rules (``BeloteGame._calls_table``)."""
    c = NEW_CTX(Ctx)
    c.rules, c.dealer, c.first, c.stock, c.rest, c.dealt = rules, dealer, first, stock, rest, dealt
    c.table = table
    return c


CALLS: Final[dict[tuple[Any, ...], dict[int, tuple[Action, ...]]]] = {}
"""Per game and the values of its ``calls_params``, the legal calls met so far by situation
(``BeloteGame._calls_open``)."""
