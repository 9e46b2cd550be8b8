"""Bulgarian Belot's state: the action codes, the deal's packed hands and its unchanging
part (the ctx), the tables of dealing and the legal cards (BG-P*, BG-A7)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final

from referee.rules.cards import PACK_32, SUIT_MASKS, SUIT_OF, Card, CardSet
from referee.rules.game import VERB_BASE, Action, Deal, Fact, HandResult, Step, TrickTaken
from referee.rules.games.belot_rules import BelotRules
from referee.rules.games.belote_declarations import (
    BG_KINDS,
    COMBO_MASKS,
    N_SEQ,
    bg_points,
    bg_resolve,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    CARD_POINTS,
    KING_QUEEN,
    NO_TRUMPS,
)
from referee.rules.games.belote_game import Phase
from referee.rules.games.belote_play import PlayRules, legal_cards, play_rules
from referee.rules.seats import Seat

# -- action codes (cards 0..51 are plays) ---------------------------------------------------

PASS: Final = VERB_BASE
BID_BASE: Final = VERB_BASE + 1  # + mode: C D H S NT AT (BG-C2 order)
CONTRA: Final = VERB_BASE + 7
RECONTRA: Final = VERB_BASE + 8
SURCONTRA: Final = VERB_BASE + 9
BELOT_BASE: Final = 2 * VERB_BASE  # + card: play the card announcing belot (BG-A7)
DECLARE_BASE: Final = 3 * VERB_BASE  # + index in belote_declarations.COMBO_MASKS
CARRE_BASE: Final = DECLARE_BASE + N_SEQ  # the first kare

MODE_NAMES: Final = ("C", "D", "H", "S", "NT", "AT")
MODE_TITLES: Final = ("clubs", "diamonds", "hearts", "spades", "no trumps", "all trumps")
VERBS: Final = {"pass": PASS, "contra": CONTRA, "recontra": RECONTRA, "surcontra": SURCONTRA}
VERB_NAMES: Final = {code: verb for verb, code in VERBS.items()}
LEVEL_AFTER: Final = {CONTRA: 2, RECONTRA: 4, SURCONTRA: 8}
LEVEL_NAMES: Final = {1: None, 2: "contra", 4: "recontra", 8: "surcontra"}

PACK_MASK: Final = sum(1 << c for c in PACK_32)
HAND_BITS: Final = 64
LOW: Final = (1 << HAND_BITS) - 1

DECL_MASK: Final = {DECLARE_BASE + i: m for i, m in enumerate(COMBO_MASKS)}
"""The cards each declaration code names (BG-A1; :mod:`belote_declarations` numbers them)."""
ALL_DECLARATIONS: Final = tuple(DECL_MASK)


def decl_kind(code: Action) -> str:
    """``terca``, ``kvarta``, ``kvinta`` or ``kare``: what the others hear (BG-A3)."""
    return BG_KINDS[code - DECLARE_BASE]


def decl_points(code: Action, rules: BelotRules) -> int:
    """Value of a declaration (BG-A1; ``bg_seq8``)."""
    return bg_points(code - DECLARE_BASE, rules)


def resolve_declarations(declared: Sequence[tuple[Seat, Action]], rules: BelotRules) -> list[int]:
    """Points each declaration ``(seat, code)`` scores after the contests (BG-A5, BG-A6, V8:
    :func:`belote_declarations.bg_resolve`)."""
    return bg_resolve([(seat, code - DECLARE_BASE) for seat, code in declared], rules)


# -- state ----------------------------------------------------------------------------------


class _DealFields:
    """The fields of a deal that the auction sets and the play never changes: a :class:`_Ctx`
    holds them, and a :class:`BelotState` reads them through."""

    __slots__ = ()

    rules: BelotRules
    dealer: Seat
    stock: tuple[Card, ...]
    rest: int
    calls: tuple[Action, ...]
    contract: int
    bidder: Seat
    level: int
    passes: int


class _Ctx(_DealFields):
    """The part of a deal that play never changes: the rules, the dealer, the stock, the auction
    so far and its contract, with the per-contract tables the play path reads.

    Immutable once built by :func:`make_ctx`; every auction call builds a new one, while the
    card play shares one, so copying a :class:`BelotState` in play assigns few attributes.
    Between auction calls only the auction's fields are set (through ``auction``); the play
    tables (``play`` .. ``decl_ok``) are set for the play, by :func:`make_ctx`.
    """

    __slots__ = (
        "auction",
        "belot_mask",
        "bidder",
        "calls",
        "contract",
        "dealer",
        "decl_ok",
        "level",
        "passes",
        "play",
        "points",
        "power",
        "rest",
        "rules",
        "stock",
        "table",
    )

    table: tuple[tuple[tuple[tuple[Action, ...], tuple[Action, ...]], ...], ...]
    """``_AUCTION[...]`` for these rules: per ``contract + 1`` and level, :attr:`auction`."""
    auction: tuple[tuple[Action, ...], tuple[Action, ...]]
    """The legal calls for a seat of the bidder's team (``[0]``) and of the other (``[1]``)."""
    play: PlayRules
    """The contract's play rules (BG-P*, BG-T1)."""
    power: tuple[tuple[int, ...], ...]
    """``play.power``: per led suit, the power of each card (BG-T1)."""
    points: tuple[int, ...]
    """``CARD_POINTS[contract]``."""
    belot_mask: CardSet
    """The cards that can carry a belot under the contract (BG-A7)."""
    decl_ok: bool
    """Whether declarations are made under the contract (BG-A2, ``bg_nt_declarations``)."""


_CTX_FIELDS: Final = (
    "rules",
    "dealer",
    "stock",
    "rest",
    "calls",
    "contract",
    "bidder",
    "level",
    "passes",
)


def _calls_for(
    top: int, level: int, ours: bool, freeze: bool, surcontra: bool
) -> tuple[Action, ...]:
    """BG-B1 .. BG-B5: pass, a higher contract, contra, recontra (and surcontra)."""
    out = [PASS]
    if not (freeze and level > 1):
        out.extend(range(BID_BASE + top + 1, BID_BASE + 6))
    if top >= 0:
        if level == 1 and not ours:
            out.append(CONTRA)
        elif level == 2 and ours:
            out.append(RECONTRA)
        elif level == 4 and not ours and surcontra:
            out.append(SURCONTRA)
    return tuple(out)


_AUCTION: Final = tuple(
    tuple(
        tuple(
            (
                _calls_for(top, level, True, flags >> 1 == 1, flags & 1 == 1),
                _calls_for(top, level, False, flags >> 1 == 1, flags & 1 == 1),
            )
            for level in range(9)
        )
        for top in range(-1, 6)
    )
    for flags in range(4)
)
"""``_AUCTION[2 * freeze + surcontra][contract + 1][level]``: the legal calls as
:attr:`_Ctx.auction` holds them."""

_BELOT_CARDS: Final = tuple(
    KING_QUEEN[m] if m < NO_TRUMPS else (sum(KING_QUEEN) if m == ALL_TRUMPS else 0)
    for m in range(6)
)
"""Per mode, the cards that can carry a belot (BG-A7)."""


def make_ctx(
    rules: BelotRules,
    dealer: Seat,
    stock: tuple[Card, ...],
    rest: int,
    calls: tuple[Action, ...],
    contract: int,
    bidder: Seat,
    level: int,
    passes: int,
    table: tuple[tuple[tuple[tuple[Action, ...], tuple[Action, ...]], ...], ...] | None = None,
    play: bool = True,
) -> _Ctx:
    """The ctx of these fields; the play tables too when ``play`` and there is a contract.
    ``table`` is the auction's table when the caller has it (else looked up)."""
    c = _Ctx()
    c.rules = rules
    c.dealer = dealer
    c.stock = stock
    c.rest = rest
    c.calls = calls
    c.contract = contract
    c.bidder = bidder
    c.level = level
    c.passes = passes
    if table is None:
        flags = (2 if rules.bg_double_freezes_auction else 0) + (1 if rules.bg_surcontra else 0)
        table = _AUCTION[flags]
    c.table = table
    c.auction = table[contract + 1][level]
    if play:
        if contract >= 0:
            c.play = rules_of_play = play_rules(contract)
            c.power = rules_of_play.power
            c.points = CARD_POINTS[contract]
        c.belot_mask = _BELOT_CARDS[contract]
        c.decl_ok = contract != NO_TRUMPS or rules.bg_nt_declarations
    return c


def _replace_ctx(ctx: _Ctx, name: str, value: object) -> _Ctx:
    fields: dict[str, Any] = {f: getattr(ctx, f) for f in _CTX_FIELDS}
    fields[name] = value
    return make_ctx(**fields)


def _ctx_property(name: str, doc: str) -> Any:
    """A :class:`BelotState` attribute kept in its :class:`_Ctx` (setting it rebuilds the ctx)."""

    def get(self: BelotState) -> Any:
        return getattr(self.ctx, name)

    def put(self: BelotState, value: Any) -> None:
        self.ctx = _replace_ctx(self.ctx, name, value)

    return property(get, put, doc=doc)


if TYPE_CHECKING:
    _Fields = _DealFields  # the ctx's fields, read through the properties below
else:
    _Fields = object


class BelotState(_Fields):
    """One Belot deal. Treat as immutable: :meth:`Belot.apply` returns a new one.

    ``hands`` packs the four hands into one int, 64 bits per seat; ``rest`` is the stock in the
    same packing, OR-ed in when the auction ends. The fields play never changes live in
    ``ctx`` (a :class:`_Ctx`) and read through as ``rules``, ``dealer``, ``stock``, ``rest``,
    ``calls``, ``contract``, ``bidder``, ``level`` and ``passes``.
    """

    __slots__ = (
        "belots",
        "best",
        "cached",
        "ctx",
        "decls",
        "hands",
        "leader",
        "legal",
        "phase",
        "to_act",
        "trick",
        "tricks",
        "winner",
    )

    ctx: _Ctx
    phase: int
    to_act: Seat
    hands: int
    leader: Seat
    trick: tuple[Card, ...]
    best: Card
    winner: Seat
    tricks: tuple[TrickTaken, ...]
    decls: tuple[tuple[Seat, Action], ...]
    belots: tuple[tuple[Seat, Card], ...]
    cached: HandResult
    """The result, once computed (unset until then)."""
    legal: CardSet
    """The playable cards of the seat to act, once computed (unset until then)."""

    if not TYPE_CHECKING:
        rules = _ctx_property("rules", "The rule parameters.")
        dealer = _ctx_property("dealer", "The dealer.")
        stock = _ctx_property("stock", "The 12 cards dealt after the auction.")
        rest = _ctx_property("rest", "The stock packed as ``hands`` is.")
        calls = _ctx_property("calls", "The auction's calls so far, the first hand's first.")
        contract = _ctx_property("contract", "The contract's mode, -1 before a bid.")
        bidder = _ctx_property("bidder", "The seat that bid the contract, -1 before a bid.")
        level = _ctx_property("level", "1, 2 (contra), 4 (recontra) or 8 (surcontra).")
        passes = _ctx_property("passes", "Passes since the last bid or double.")

    def copy(self) -> BelotState:
        """A shallow copy (every field is immutable), without the cached result and legal set."""
        s = BelotState()
        s.ctx = self.ctx
        s.phase = self.phase
        s.to_act = self.to_act
        s.hands = self.hands
        s.leader = self.leader
        s.trick = self.trick
        s.best = self.best
        s.winner = self.winner
        s.tricks = self.tricks
        s.decls = self.decls
        s.belots = self.belots
        return s

    def hand(self, seat: Seat) -> CardSet:
        """The cards ``seat`` holds now."""
        return (self.hands >> (seat << 6)) & LOW

    def __repr__(self) -> str:
        return f"<BelotState phase={Phase(self.phase).name} to_act={self.to_act}>"


_new_state = object.__new__
new_tuple = tuple.__new__


def new_step(state: BelotState, facts: tuple[Fact, ...]) -> Step:
    """``Step(state, facts)`` without the NamedTuple constructor's overhead."""
    return new_tuple(Step, (state, facts))


def playable_cards(state: BelotState, seat: Seat, hand: CardSet) -> CardSet:
    """BG-P1 .. BG-P7: the cards ``seat`` may play (:func:`belote_play.legal_cards`)."""
    trick = state.trick
    if not trick:
        return hand
    return legal_cards(state.ctx.play, hand, seat, SUIT_OF[trick[0]], state.best, state.winner)


def belot_cards(state: BelotState, hand: CardSet, playable: CardSet) -> CardSet:
    """BG-A7: playable K/Q whose partner is still in hand, played as a lead, following suit,
    or (suit contract) as a trump. None in no trumps (BG-A2)."""
    x = hand & state.ctx.belot_mask
    pairs = x & (x >> 1)  # the queen's bit of each complete K+Q pair (Q, K are adjacent bits)
    out = (pairs | (pairs << 1)) & playable
    if out and state.ctx.contract == ALL_TRUMPS and state.trick:
        out &= SUIT_MASKS[SUIT_OF[state.trick[0]]]
    return out


STOCK_SHIFTS: Final = tuple(
    tuple(((d + 1 + i // 3) & 3) << 6 for i in range(12)) for d in range(4)
)
"""Per ``dealer & 3``: where each stock card goes in the packed hands (BG-D2)."""

_DEAL_ORDER: Final = tuple(
    tuple(
        (3 * i, 3 * i + 1, 3 * i + 2, 12 + 2 * i, 13 + 2 * i)
        for i in ((s - d - 1) % 4 for s in range(4))
    )
    for d in range(4)
)
"""Per ``dealer % 4``, per seat: the pack positions of its first five cards (BG-D2)."""
DEAL_GETTERS: Final = tuple(tuple(itemgetter(*p) for p in order) for order in _DEAL_ORDER)
""":data:`_DEAL_ORDER` as item getters."""
STOCK_GETTER: Final = itemgetter(*range(20, 32))

LANE_BITS: Final = tuple(tuple(1 << (c + (s << 6)) for c in range(64)) for s in range(4))
"""Per seat, per card 0..63: the card's bit in the packed hands."""
STOCK_LANES: Final = tuple(tuple(LANE_BITS[(d + 1 + i) & 3] for i in range(4)) for d in range(4))
"""Per ``dealer & 3``: :data:`LANE_BITS` of the seats the stock's four threes go to (BG-D2)."""


def make_deal(hands: tuple[tuple[Card, ...], ...], stock: tuple[Card, ...]) -> Deal:
    """``Deal(hands=hands, stock=stock)`` without the frozen dataclass's ``__init__``."""
    d = _new_state(Deal)
    d.__dict__.update(hands=hands, stock=stock)
    return d
