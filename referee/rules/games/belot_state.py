"""Bulgarian Belot's state: the action codes, the deal's packed hands and its unchanging
part (the ctx), the tables of dealing and the legal cards (BG-P*, BG-A7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from referee.rules.cards import SUIT_MASKS, SUIT_OF, Card, CardSet
from referee.rules.game import VERB_BASE, Action
from referee.rules.games.belote_declarations import bg_points, bg_resolve
from referee.rules.games.belote_family import ALL_TRUMPS, CARD_POINTS, KING_QUEEN, NO_TRUMPS
from referee.rules.games.belote_play import play_rules
from referee.rules.games.belote_rules import BelotRules
from referee.rules.games.belote_state import BeloteState, Ctx, deal_ctx, next_ctx
from referee.rules.seats import Seat

# -- action codes (cards 0..51 are plays) ---------------------------------------------------

PASS: Final = VERB_BASE
BID_BASE: Final = VERB_BASE + 1  # + mode: C D H S NT AT (BG-C2 order)
CONTRA: Final = VERB_BASE + 7
RECONTRA: Final = VERB_BASE + 8
SURCONTRA: Final = VERB_BASE + 9
BELOT_BASE: Final = 2 * VERB_BASE  # + card: play the card announcing belot (BG-A7)
DECLARE_BASE: Final = 3 * VERB_BASE  # + index in belote_declarations.COMBO_MASKS

MODE_NAMES: Final = ("C", "D", "H", "S", "NT", "AT")
MODE_TITLES: Final = ("clubs", "diamonds", "hearts", "spades", "no trumps", "all trumps")
VERBS: Final = {"pass": PASS, "contra": CONTRA, "recontra": RECONTRA, "surcontra": SURCONTRA}
VERB_NAMES: Final = {code: verb for verb, code in VERBS.items()}
LEVEL_AFTER: Final = {CONTRA: 2, RECONTRA: 4, SURCONTRA: 8}
LEVEL_NAMES: Final = {1: None, 2: "contra", 4: "recontra", 8: "surcontra"}


def decl_points(code: Action, rules: BelotRules) -> int:
    """Value of a declaration (BG-A1; ``bg_seq8``)."""
    return bg_points(code - DECLARE_BASE, rules)


def resolve_declarations(declared: Sequence[tuple[Seat, Action]], rules: BelotRules) -> list[int]:
    """Points each declaration ``(seat, code)`` scores after the contests (BG-A5, BG-A6, V8:
    :func:`belote_declarations.bg_resolve`)."""
    return bg_resolve([(seat, code - DECLARE_BASE) for seat, code in declared], rules)


# -- the auction and the contract ----------------------------------------------------------


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
        tuple(tuple(_calls_for(top, level, ours, freeze, sur) for ours in (True, False))
              for level in range(9))
        for top in range(-1, 6)
    )
    for freeze in (False, True)
    for sur in (False, True)
)
"""``_AUCTION[2 * freeze + surcontra][contract + 1][level][(seat ^ bidder) & 1]``: the legal
calls of ``seat``, as :attr:`Ctx.auction` holds them."""

_BELOT_CARDS: Final = tuple(
    KING_QUEEN[m] if m < NO_TRUMPS else (sum(KING_QUEEN) if m == ALL_TRUMPS else 0)
    for m in range(6)
)
"""Per mode, the cards that can carry a belot (BG-A7)."""


def make_ctx(
    base: Ctx,
    calls: tuple[tuple[Seat, Action], ...],
    contract: int,
    bidder: Seat,
    level: int,
    passes: int,
    play: bool = True,
) -> Ctx:
    """``base`` after an auction call: the fixed fields of the deal, the auction so far, its
    legal calls, and the contract's play tables when ``play`` and there is a contract."""
    c = next_ctx(base, calls, contract, contract, bidder, level, passes)
    c.auction = c.table[contract + 1][level]
    if play:
        if contract >= 0:
            c.play = rules_of_play = play_rules(contract)
            c.power = rules_of_play.power
            c.points = CARD_POINTS[contract]
        c.kq = (_BELOT_CARDS[contract],) * 4
        c.decl_ok = contract != NO_TRUMPS or c.rules.bg_nt_declarations
    return c


def first_ctx(rules: BelotRules, dealer: Seat, stock: tuple[Card, ...], rest: int, dealt: int
              ) -> Ctx:
    """The ctx of a new deal."""
    table = _AUCTION[(2 if rules.bg_double_freezes_auction else 0) + rules.bg_surcontra]
    return make_ctx(deal_ctx(rules, dealer, (dealer + 1) & 3, stock, rest, dealt, table),
                    (), -1, -1, 1, 0)


def _ctx_property(name: str, doc: str) -> Any:
    """A :class:`BelotState` attribute kept in its ctx (setting it rebuilds the ctx)."""

    def get(self: BelotState) -> Any:
        return getattr(self.ctx, name)

    def put(self: BelotState, value: Any) -> None:
        ctx = self.ctx
        fields = {f: getattr(ctx, f) for f in ("calls", "contract", "bidder", "level", "passes")}
        fields[name] = value
        self.ctx = make_ctx(ctx, **fields)

    return property(get, put, doc=doc)


class BelotState(BeloteState):
    """One Belot deal (:class:`belote_state.BeloteState`). The fields of its ctx read through
    as ``rules``, ``dealer``, ``stock``, ``rest``, ``calls``, ``contract``, ``bidder``,
    ``level`` and ``passes``; setting one of the auction's rebuilds the ctx."""

    rules = property(lambda self: self.ctx.rules, doc="The rule parameters.")
    dealer = property(lambda self: self.ctx.dealer, doc="The dealer.")
    stock = property(lambda self: self.ctx.stock, doc="The 12 cards dealt after the auction.")
    rest = property(lambda self: self.ctx.rest, doc="The stock packed as ``hands`` is.")
    calls = _ctx_property("calls", "The auction's calls so far, ``(seat, call)``.")
    contract = _ctx_property("contract", "The contract's mode, -1 before a bid.")
    bidder = _ctx_property("bidder", "The seat that bid the contract, -1 before a bid.")
    level = _ctx_property("level", "1, 2 (contra), 4 (recontra) or 8 (surcontra).")
    passes = _ctx_property("passes", "Passes since the last bid or double.")


def belot_cards(state: BeloteState, hand: CardSet, playable: CardSet) -> CardSet:
    """BG-A7: playable K/Q whose partner is still in hand, played as a lead, following suit,
    or (suit contract) as a trump. None in no trumps (BG-A2)."""
    x = hand & state.ctx.kq[0]
    pairs = x & (x >> 1)  # the queen's bit of each complete K+Q pair (Q, K are adjacent bits)
    out = (pairs | (pairs << 1)) & playable
    if out and state.ctx.contract == ALL_TRUMPS and state.trick:
        out &= SUIT_MASKS[SUIT_OF[state.trick[0]]]
    return out
