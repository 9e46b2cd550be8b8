"""Bulgarian Belot (Бридж-белот), as ``rules/belot-coinche.md`` §1 defines it (seed 000).

Seats 0..3 in turn order (the real game goes counter-clockwise); teams are 0–2 (team 0) and
1–3 (team 1). The first hand is ``dealer + 1``: it speaks first and leads to trick 1 (BG-D3).

The deal (BG-D2): 3 then 2 cards to each seat from the first hand, so ``deal.hands[s]`` are the
5 cards seat ``s`` holds in the auction. ``deal.stock`` is the 12 cards dealt after a contract:
``stock[3*i : 3*i + 3]`` go to seat ``(dealer + 1 + i) % 4``. After an all-pass auction they
stay undealt (BG-B6).

Phases: the auction, the play (declarations are made at trick 1, before a seat's first card),
over. Scoring (BG-S*, BG-R*) is :func:`score_deal`; the match (hanging points, 151, "с капо не
се излиза") is :meth:`Belot.after_hand`. ``MatchState.carry`` is ``(pot, valat_pending)``.
Sources beyond the seed: belot-rules.hit.bg (mirrored in NikolayIT/BelotGameEngine), pagat.com.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final

from referee.rules.cards import (
    CARD_NAMES,
    KING,
    PACK_32,
    QUEEN,
    RANK_OF,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    SUITS,
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
    Fact,
    HandEnded,
    HandResult,
    MatchState,
    Step,
    TrickTaken,
    cards_taken,
)
from referee.rules.games.belot_rules import BelotRules
from referee.rules.games.belot_scoring import DealScore, round_all, round_team, score_deal
from referee.rules.games.belote_declarations import (
    BG_KINDS,
    COMBO_BY_MASK,
    COMBO_CARDS,
    COMBO_MASKS,
    N_SEQ,
    bg_declarable,
    bg_points,
    bg_resolve,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    CARD_POINTS,
    CARRE_RANKS,
    KING_QUEEN,
    LAST_TRICK_BONUS,
    NO_TRUMPS,
    RANKS,
)
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, Phase
from referee.rules.games.belote_play import PlayRules, legal_cards, play_rules, team_tally
from referee.rules.params import RuleSet
from referee.rules.seats import Seat

__all__ = [  # the game, and the rules, scoring and declaration functions it is made of
    "AUCTION",
    "GAME",
    "OVER",
    "PLAY",
    "Belot",
    "BelotRules",
    "BelotState",
    "DealScore",
    "Phase",
    "decl_points",
    "resolve_declarations",
    "round_all",
    "round_team",
    "score_deal",
]

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
_VERBS: Final = {"pass": PASS, "contra": CONTRA, "recontra": RECONTRA, "surcontra": SURCONTRA}
_VERB_NAMES: Final = {code: verb for verb, code in _VERBS.items()}
_LEVEL_AFTER: Final = {CONTRA: 2, RECONTRA: 4, SURCONTRA: 8}
_LEVEL_NAMES: Final = {1: None, 2: "contra", 4: "recontra", 8: "surcontra"}

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

    Immutable once built by :func:`_make_ctx`; every auction call builds a new one, while the
    card play shares one, so copying a :class:`BelotState` in play assigns few attributes.
    Between auction calls only the auction's fields are set (through ``auction``); the play
    tables (``play`` .. ``decl_ok``) are set for the play, by :func:`_make_ctx`.
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

def _make_ctx(
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
    return _make_ctx(**fields)


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
_tuple_new = tuple.__new__


def _step(state: BelotState, facts: tuple[Fact, ...]) -> Step:
    """``Step(state, facts)`` without the NamedTuple constructor's overhead."""
    return _tuple_new(Step, (state, facts))


def _seq_byte(hand: CardSet, suit: int) -> int:
    """The 8 cards of ``suit`` in SEQUENCE order as bits 0..7 (7 = bit 0)."""
    return (hand >> (13 * suit + RANKS[0])) & 0xFF


def _playable(state: BelotState, seat: Seat, hand: CardSet) -> CardSet:
    """BG-P1 .. BG-P7: the cards ``seat`` may play (:func:`belote_play.legal_cards`)."""
    trick = state.trick
    if not trick:
        return hand
    return legal_cards(state.ctx.play, hand, seat, SUIT_OF[trick[0]], state.best, state.winner)


def _belot_cards(state: BelotState, hand: CardSet, playable: CardSet) -> CardSet:
    """BG-A7: playable K/Q whose partner is still in hand, played as a lead, following suit,
    or (suit contract) as a trump. None in no trumps (BG-A2)."""
    x = hand & state.ctx.belot_mask
    pairs = x & (x >> 1)  # the queen's bit of each complete K+Q pair (Q, K are adjacent bits)
    out = (pairs | (pairs << 1)) & playable
    if out and state.ctx.contract == ALL_TRUMPS and state.trick:
        out &= SUIT_MASKS[SUIT_OF[state.trick[0]]]
    return out


_CARRE_BITS: Final = sum(1 << r for r in CARRE_RANKS)
"""The ranks of a kare, as the bits of one suit."""
_SEQ_SHIFTS: Final = tuple((su, 13 * su + RANKS[0]) for su in SUITS)
"""Per suit, where :func:`_seq_byte` takes its 8 cards from."""

_STOCK_SHIFTS: Final = tuple(
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
_DEAL_GETTERS: Final = tuple(tuple(itemgetter(*p) for p in order) for order in _DEAL_ORDER)
""":data:`_DEAL_ORDER` as item getters."""
_STOCK_GETTER: Final = itemgetter(*range(20, 32))

_LANE_BITS: Final = tuple(tuple(1 << (c + (s << 6)) for c in range(64)) for s in range(4))
"""Per seat, per card 0..63: the card's bit in the packed hands."""
_STOCK_LANES: Final = tuple(tuple(_LANE_BITS[(d + 1 + i) & 3] for i in range(4)) for d in range(4))
"""Per ``dealer & 3``: :data:`_LANE_BITS` of the seats the stock's four threes go to (BG-D2)."""


def _make_deal(hands: tuple[tuple[Card, ...], ...], stock: tuple[Card, ...]) -> Deal:
    """``Deal(hands=hands, stock=stock)`` without the frozen dataclass's ``__init__``."""
    d = _new_state(Deal)
    d.__dict__.update(hands=hands, stock=stock)
    return d


class Belot(BeloteGame):
    """Bulgarian Belot: 32 cards, 3+2 then 3, six contracts, contra, declarations, to 151."""

    name: ClassVar[str] = "belot"
    aliases: ClassVar[tuple[str, ...]] = ("bulgarian_belot", "belote_bg", "бридж-белот")
    title: ClassVar[str] = "Bulgarian Belot (Бридж-белот)"
    #: Seen only by the acting seat while the hand runs: declarations name the cards they show.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"declare", "belot"})
    rules_class: ClassVar[type[RuleSet]] = BelotRules

    # -- dealing (BG-D1 .. BG-D3) ----------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """3 then 2 cards to each seat from the first hand; the last 12 are dealt 3 each,
        in the same order, after the auction (BG-D2)."""
        if len(pack) >= 32:
            g0, g1, g2, g3 = _DEAL_GETTERS[dealer % 4]
            return _make_deal((g0(pack), g1(pack), g2(pack), g3(pack)), _STOCK_GETTER(pack))
        by_turn = [
            tuple(pack[3 * i : 3 * i + 3]) + tuple(pack[12 + 2 * i : 14 + 2 * i]) for i in range(4)
        ]
        hands = tuple(by_turn[(s - dealer - 1) % 4] for s in range(4))
        return Deal(hands=hands, stock=tuple(pack[20:32]))

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> BelotState:
        assert isinstance(rules, BelotRules)
        dealt = deal.hands
        stock = deal.stock
        ok = (
            len(dealt) == 4
            and len(dealt[0]) == len(dealt[1]) == len(dealt[2]) == len(dealt[3]) == 5
            and len(stock) == 12
        )
        fast = False
        if ok:  # the usual case: cards 0..63, each a bit of its seat's lane by table
            try:
                (
                    (a0, b0, c0, d0, e0),
                    (a1, b1, c1, d1, e1),
                    (a2, b2, c2, d2, e2),
                    (a3, b3, c3, d3, e3),
                ) = dealt
                h0, h1, h2, h3 = _LANE_BITS
                packed = (
                    h0[a0] | h0[b0] | h0[c0] | h0[d0] | h0[e0]
                    | h1[a1] | h1[b1] | h1[c1] | h1[d1] | h1[e1]
                    | h2[a2] | h2[b2] | h2[c2] | h2[d2] | h2[e2]
                    | h3[a3] | h3[b3] | h3[c3] | h3[d3] | h3[e3]
                )  # fmt: skip
                s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11 = stock
                r0, r1, r2, r3 = _STOCK_LANES[dealer & 3]
                rest = (
                    r0[s0] | r0[s1] | r0[s2] | r1[s3] | r1[s4] | r1[s5]
                    | r2[s6] | r2[s7] | r2[s8] | r3[s9] | r3[s10] | r3[s11]
                )  # fmt: skip
                u = packed | rest
                # 32 cards whose union over the four lanes is the pack: each card once
                fast = (u | (u >> 64) | (u >> 128) | (u >> 192)) & LOW == PACK_MASK
            except (IndexError, TypeError):  # not cards 0..63: the checks below say why
                pass
        if not fast:
            packed = rest = union = 0
            if ok:  # the checks and order of check_deal(), fused with packing the hands
                for seat, (a, b, c, d, e) in enumerate(dealt):
                    m = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                    union |= m
                    packed |= m << (seat << 6)
                for c, sh in zip(stock, _STOCK_SHIFTS[dealer & 3], strict=True):
                    b = 1 << c
                    union |= b
                    rest |= b << sh
                ok = union == PACK_MASK  # 32 cards that make the pack: each card once
            if not ok:  # check_deal names the problem
                hands = check_deal(deal, PACK_32, (5, 5, 5, 5), 12, "belot")
                packed = rest = 0
                for seat in range(4):
                    packed |= hands[seat] << (seat << 6)
                for i, c in enumerate(stock):
                    rest |= 1 << (c + (((dealer + 1 + i // 3) & 3) << 6))
        s = BelotState()
        s.ctx = _make_ctx(rules, dealer, stock, rest, (), -1, -1, 1, 0)
        s.hands = packed
        s.phase = AUCTION
        s.to_act = (dealer + 1) & 3
        s.leader = -1
        s.trick = ()
        s.best = -1
        s.winner = -1
        s.tricks = ()
        s.decls = ()
        s.belots = ()
        return s

    # -- play ------------------------------------------------------------------------------

    def legal_actions(self, state: BelotState) -> list[Action]:
        phase = state.phase
        if phase == PLAY:
            ctx = state.ctx
            seat = state.to_act
            hand = (state.hands >> (seat << 6)) & LOW
            trick = state.trick
            legal = state.legal = (
                legal_cards(ctx.play, hand, seat, SUIT_OF[trick[0]], state.best, state.winner)
                if trick
                else hand  # BG-P1
            )
            out = [
                *_CARDS_C[(legal >> 5) & 0xFF],
                *_CARDS_D[(legal >> 18) & 0xFF],
                *_CARDS_H[(legal >> 31) & 0xFF],
                *_CARDS_S[(legal >> 44) & 0xFF],
            ]
            x = hand & ctx.belot_mask
            if x and x & (x >> 1):  # a K+Q pair in hand (BG-A7)
                for c in cards_in(_belot_cards(state, hand, legal)):
                    out.append(BELOT_BASE + c)
            if not state.tricks and ctx.decl_ok:
                out.extend(self._declarable(state, seat, hand))
            return out
        if phase == AUCTION:
            ctx = state.ctx
            return list(ctx.auction[(state.to_act ^ ctx.bidder) & 1])
        return []

    def _declarable(self, state: BelotState, seat: Seat, hand: CardSet) -> list[Action]:
        """BG-A1, BG-A3, BG-A4: the declarations ``seat`` may still make with its first card."""
        used = 0
        for who, code in state.decls:
            if who == seat:
                used |= DECL_MASK[code]
        return [DECLARE_BASE + i for i in bg_declarable(hand, used)]

    def apply(self, state: BelotState, seat: Seat, action: Action) -> Step:
        phase = state.phase
        if phase == OVER or seat != state.to_act:
            raise self._not_your_turn(state, seat, action)
        if phase != PLAY:
            return self._call(state, seat, action)
        if not 0 <= action < VERB_BASE:
            return self._announce(state, seat, action)
        try:
            playable = state.legal
        except AttributeError:  # legal_actions() not asked on this state
            playable = _playable(state, seat, (state.hands >> (seat << 6)) & LOW)
        if not (playable >> action) & 1:
            raise self._illegal(state, action)
        return self._play(state, seat, action, False)

    def _announce(self, state: BelotState, seat: Seat, action: Action) -> Step:
        """In play, anything but a plain card: a card with a belot, or a declaration."""
        if BELOT_BASE <= action < BELOT_BASE + 52:
            c = action - BELOT_BASE
            hand = (state.hands >> (seat << 6)) & LOW
            playable = _playable(state, seat, hand)
            if not (_belot_cards(state, hand, playable) >> c) & 1:
                raise self._illegal(state, action)
            return self._play(state, seat, c, True)
        if action not in self.legal_actions(state):
            raise self._illegal(state, action)
        s = state.copy()  # a declaration (BG-A3)
        s.decls = (*state.decls, (seat, action))
        return _step(s, (Announced("declaration", {"seat": seat, "kind": decl_kind(action)}),))

    def _call(self, state: BelotState, seat: Seat, action: Action) -> Step:
        """An auction call (BG-B1 .. BG-B6)."""
        ctx = state.ctx
        if action not in ctx.auction[(seat ^ ctx.bidder) & 1]:
            raise self._illegal(state, action)
        contract = ctx.contract
        bidder = ctx.bidder
        level = ctx.level
        passes = 0
        if action == PASS:
            passes = ctx.passes + 1
        elif action in _LEVEL_AFTER:
            level = _LEVEL_AFTER[action]
        else:
            contract = action - BID_BASE
            bidder = seat
            level = 1
        calls = ctx.calls + (action,)  # noqa: RUF005 (concatenation is cheaper)
        s = BelotState()
        # the play tables once the auction ends (BG-B6 (a)), the auction's fields until then
        s.ctx = _make_ctx(
            ctx.rules, ctx.dealer, ctx.stock, ctx.rest, calls, contract, bidder, level, passes,
            ctx.table, action == PASS and contract >= 0 and passes == 3,
        )  # fmt: skip
        s.phase = AUCTION
        s.to_act = (seat + 1) & 3
        s.hands = state.hands
        s.leader = state.leader
        s.trick = state.trick
        s.best = state.best
        s.winner = state.winner
        s.tricks = state.tricks
        s.decls = state.decls
        s.belots = state.belots
        if action == PASS:
            if contract < 0 and passes == 4:  # BG-B6 (b)
                s.phase = OVER
                return _tuple_new(Step, (s, (HandEnded(self.result(s)),)))
            if contract >= 0 and passes == 3:  # BG-B6 (a)
                return _tuple_new(Step, (s, self._start_play(s)))
        return _tuple_new(Step, (s, ()))

    def _start_play(self, s: BelotState) -> tuple[Fact, ...]:
        """The last three cards each (BG-D2); the first hand leads (BG-D3)."""
        ctx = s.ctx
        s.hands |= ctx.rest
        s.phase = PLAY
        first = (ctx.dealer + 1) & 3
        s.to_act = first
        s.leader = first
        return (
            Announced(
                "contract",
                {
                    "contract": MODE_NAMES[ctx.contract],
                    "declarer": ctx.bidder,
                    "level": ctx.level,
                },
            ),
        )

    def _play(self, state: BelotState, seat: Seat, c: Card, belot: bool) -> Step:
        """Play ``c``, announcing a belot with it when ``belot``."""
        ctx = state.ctx
        s = BelotState()
        s.ctx = ctx
        s.phase = PLAY
        s.hands = state.hands ^ _LANE_BITS[seat][c]
        s.decls = state.decls
        facts: tuple[Fact, ...] = ()
        if belot:
            s.belots = (*state.belots, (seat, c))
            facts = (Announced("belot", {"seat": seat, "suit": SUIT_LETTERS[SUIT_OF[c]]}),)
        else:
            s.belots = state.belots
        trick = state.trick
        if not trick:
            s.trick = (c,)
            s.leader = seat
            s.best = c
            s.winner = seat
            s.to_act = (seat + 1) & 3
            s.tricks = state.tricks
            return _tuple_new(Step, (s, facts))
        power = ctx.power[SUIT_OF[trick[0]]]
        if power[c] > power[state.best]:
            s.best = c
            s.winner = winner = seat
        else:
            s.best = state.best
            s.winner = winner = state.winner
        lead = s.leader = state.leader
        if len(trick) < 3:
            s.trick = trick + (c,)  # noqa: RUF005 (concatenation is cheaper)
            s.to_act = (seat + 1) & 3
            s.tricks = state.tricks
            return _tuple_new(Step, (s, facts))
        pts = ctx.points
        taken = TrickTaken(
            len(state.tricks) + 1,
            (
                (lead, trick[0]),
                ((lead + 1) & 3, trick[1]),
                ((lead + 2) & 3, trick[2]),
                ((lead + 3) & 3, c),
            ),
            winner,
            pts[trick[0]] + pts[trick[1]] + pts[trick[2]] + pts[c],
        )
        s.tricks = tricks = state.tricks + (taken,)  # noqa: RUF005 (concatenation is cheaper)
        s.trick = ()
        s.best = -1
        s.leader = s.to_act = winner
        if len(tricks) == 8:
            s.phase = OVER
            return _tuple_new(Step, (s, (*facts, taken, HandEnded(self.result(s)))))
        return _tuple_new(Step, (s, (*facts, taken)))

    # -- scoring ---------------------------------------------------------------------------

    def result(self, state: BelotState) -> HandResult:
        try:
            return state.cached
        except AttributeError:
            out = state.cached = self._result(state)
            return out

    def _result(self, state: BelotState) -> HandResult:
        ctx = state.ctx
        tricks = state.tricks
        mode = ctx.contract
        if mode < 0 or len(tricks) < 8:
            return HandResult((0, 0), {"redeal": True}, void=True)
        rules = ctx.rules
        b = ctx.bidder & 1
        cards, won, last = team_tally(tricks)
        decls = state.decls
        decl_team = [0, 0]
        declarations: list[JSON] = []
        if decls:
            decl_pts = resolve_declarations(decls, rules)
            for (seat, code), p in zip(decls, decl_pts, strict=True):
                decl_team[seat & 1] += p
                declarations.append(
                    {
                        "seat": seat,
                        "kind": decl_kind(code),
                        "cards": list(_DECL_NAMES[code]),
                        "points": p,
                    }
                )
        bel = [0, 0]
        for seat, _ in state.belots:
            bel[seat & 1] += 20
        raw0 = cards[0] + (LAST_TRICK_BONUS if last == 0 else 0)
        raw1 = cards[1] + (LAST_TRICK_BONUS if last == 1 else 0)
        if mode == NO_TRUMPS:
            raw = [2 * raw0 + decl_team[0], 2 * raw1 + decl_team[1]]  # BG-S1 (+ V9)
        else:
            raw = [raw0 + decl_team[0] + bel[0], raw1 + decl_team[1] + bel[1]]
        valat = None
        for t in (0, 1):
            if won[t] == 8:
                valat = t
                raw[t] += 90
        level = ctx.level
        score = score_deal(mode, level, b, (raw[0], raw[1]), valat is not None, rules)
        detail: dict[str, JSON] = {
            "contract": MODE_NAMES[mode],
            "declarer": ctx.bidder,
            "level": level,
            "tricks": won,
            "card_points": cards,
            "last_trick": last,
            "declarations": declarations,
            "belots": [
                {"seat": seat, "suit": SUIT_LETTERS[SUIT_OF[c]]} for seat, c in state.belots
            ],
            "raw": raw,
            "valat": valat,
            "outcome": score.outcome,
            "hanging": score.hanging,
            "pot_winner": score.pot_winner,
        }
        return HandResult(score.points, detail)

    # -- views -----------------------------------------------------------------------------

    def view(self, state: BelotState, seat: Seat | None) -> dict[str, JSON]:
        over = state.phase == OVER
        first = (state.dealer + 1) & 3
        out: dict[str, JSON] = {
            "game": self.name,
            "phase": Phase(state.phase).name.lower(),
            "dealer": state.dealer,
            "to_act": self.current_seat(state),
            "calls": [
                {"seat": (first + i) & 3, "call": self.format_action(a)}
                for i, a in enumerate(state.calls)
            ],
            "contract": MODE_NAMES[state.contract] if state.contract >= 0 else None,
            "declarer": state.bidder if state.bidder >= 0 else None,
            "doubled": _LEVEL_NAMES[state.level],
            "hand_sizes": [state.hand(s).bit_count() for s in range(4)],
            "trick": [
                {"seat": (state.leader + i) & 3, "card": CARD_NAMES[c]}
                for i, c in enumerate(state.trick)
            ],
            "tricks": [t.to_json() for t in state.tricks],
            "declarations": [
                {"seat": who, "kind": decl_kind(code)}
                | (
                    {"cards": [CARD_NAMES[c] for c in _decl_cards(code)]}
                    if over or who == seat
                    else {}
                )
                for who, code in state.decls
            ],
            "belots": [{"seat": who, "suit": SUIT_LETTERS[SUIT_OF[c]]} for who, c in state.belots],
        }
        if seat is not None:
            out["seat"] = seat
            out["hand"] = [CARD_NAMES[c] for c in cards_in(state.hand(seat))]
        if over:
            out["result"] = self.result(state).to_json()
        return out

    def audit_view(self, state: BelotState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(state.hand(s))] for s in range(4)]
        out["stock"] = [CARD_NAMES[c] for c in state.stock]
        out["declarations"] = [
            {
                "seat": who,
                "kind": decl_kind(code),
                "cards": [CARD_NAMES[c] for c in _decl_cards(code)],
            }
            for who, code in state.decls
        ]
        return out

    # -- notation --------------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            code = _VERBS.get(text)
            if code is None:
                raise InvalidActionError(
                    f"{text!r} is not a Belot action (pass, bid:<C|D|H|S|NT|AT>, contra, "
                    "recontra, declare:<cards>, play:<card>, belot:<card>)"
                )
            return code
        if verb == "play":
            return parse_card(arg)
        if verb == "belot":
            c = parse_card(arg)
            if RANK_OF[c] not in (KING, QUEEN):
                raise InvalidActionError(f"{text!r}: a belot is announced with a king or queen")
            return BELOT_BASE + c
        if verb == "bid":
            key = arg.upper()
            if key not in MODE_NAMES or arg != arg.strip():
                raise InvalidActionError(f"{arg!r} is not a contract: write C, D, H, S, NT or AT")
            return BID_BASE + MODE_NAMES.index(key)
        if verb == "declare":
            m = 0
            for part in arg.split(","):
                c = parse_card(part)
                if (m >> c) & 1:
                    raise InvalidActionError(f"{text!r} names {CARD_NAMES[c]} twice")
                m |= 1 << c
            code = _DECL_BY_MASK.get(m)
            if code is None:
                raise InvalidActionError(
                    f"{text!r} is not a declaration: name 3 to 8 cards in a row of one suit "
                    "(terca, kvarta, kvinta) or the four 9s, 10s, Js, Qs, Ks or As (kare)"
                )
            return code
        raise InvalidActionError(f"{text!r} is not a Belot action: unknown verb {verb!r}")

    def format_action(self, action: Action) -> str:
        if 0 <= action < VERB_BASE:
            return "play:" + CARD_NAMES[action]
        if BELOT_BASE <= action < BELOT_BASE + 52:
            return "belot:" + CARD_NAMES[action - BELOT_BASE]
        if action in DECL_MASK:
            return "declare:" + ",".join(CARD_NAMES[c] for c in _decl_cards(action))
        if BID_BASE <= action < BID_BASE + 6:
            return "bid:" + MODE_NAMES[action - BID_BASE]
        return _VERB_NAMES[action]

    def all_actions(self) -> list[Action]:
        belots = [BELOT_BASE + c for c in PACK_32 if RANK_OF[c] in (KING, QUEEN)]
        return sorted(
            [*PACK_32, *_VERBS.values(), *range(BID_BASE, BID_BASE + 6), *belots, *ALL_DECLARATIONS]
        )

    def card_locations(self, state: BelotState) -> dict[str, CardSet]:
        where = {f"hand{s}": state.hand(s) for s in range(4)}
        played = cards_taken(state.tricks)
        for c in state.trick:
            played |= 1 << c
        where["played"] = played
        dealt = state.phase == PLAY or (state.phase == OVER and state.contract >= 0)
        where["stock"] = 0 if dealt else sum(1 << c for c in state.stock)
        return where

    # -- match level (BG-D4, BG-S6, BG-G1 .. BG-G3) ----------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0), dealer=first_dealer, carry=(0, 0))

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        assert isinstance(rules, BelotRules)
        pot, pending = match.carry if len(match.carry) == 2 else (0, 0)
        dealer = (match.dealer + 1) & 3  # BG-D4, after an all-pass too
        if result.void:  # BG-B6 (b): nobody scores, the pot carries over (BG-S6)
            return dataclasses.replace(
                match, dealer=dealer, hands_played=match.hands_played + 1, carry=(pot, pending)
            )
        scores = [match.scores[0] + result.points[0], match.scores[1] + result.points[1]]
        pot_winner = result.detail.get("pot_winner")
        if isinstance(pot_winner, int):
            scores[pot_winner] += pot
            pot = 0
        hanging = result.detail.get("hanging", 0)
        pot += hanging if isinstance(hanging, int) else 0
        valat = result.detail.get("valat") is not None
        target = rules.target_score
        decided = max(scores) >= target and scores[0] != scores[1]  # BG-G1
        leader = 0 if scores[0] > scores[1] else 1
        over = False
        if rules.bg_valat_exit == "one_more_deal":  # BG-G2
            if pending:
                if not valat:
                    pending = 0
                    over = decided
            elif decided and valat:
                pending = 1
            else:
                over = decided
        elif rules.bg_valat_exit == "winner_scores_last":
            over = decided and not valat and result.points[leader] > 0
        else:
            over = decided
        return MatchState(
            scores=(scores[0], scores[1]),
            dealer=dealer,
            hands_played=match.hands_played + 1,
            carry=(pot, pending),
            over=over,
            winner=leader if over else None,
        )

    # -- errors ----------------------------------------------------------------------------

    def _not_your_turn(self, state: BelotState, seat: Seat, action: Action) -> NotYourTurnError:
        what = self._text(action)
        if state.phase == OVER:
            return NotYourTurnError(f"{what!r}: the deal is over", "BG-B7")
        return NotYourTurnError(
            f"{what!r}: it is seat {state.to_act}'s turn, not seat {seat}'s", "BG-B7"
        )

    def _known(self, action: Action) -> bool:
        try:
            self.format_action(action)
        except (KeyError, IndexError):
            return False
        return True

    def _illegal(self, state: BelotState, action: Action) -> IllegalActionError:
        """Explain why ``action`` is refused, naming the rule."""
        if not self._known(action):
            return IllegalActionError(f"action code {action} is not a Belot action", "BG-B1")
        text = self.format_action(action)
        if state.phase == AUCTION:
            return self._illegal_call(state, action, text)
        seat = state.to_act
        hand = state.hand(seat)
        if action < VERB_BASE or BELOT_BASE <= action < BELOT_BASE + 52:
            c = action - BELOT_BASE if action >= BELOT_BASE else action
            if not (hand >> c) & 1:
                return IllegalActionError(f"{text!r}: you do not hold {CARD_NAMES[c]}", "BG-P1")
            playable = _playable(state, seat, hand)
            if not (playable >> c) & 1:
                return self._illegal_card(state, seat, hand, playable, c, text)
            return self._illegal_belot(state, hand, c, text)
        if action in DECL_MASK:
            return self._illegal_declaration(state, seat, hand, action, text)
        return IllegalActionError(
            f"{text!r}: the auction is over; play a card (play:<card>)", "BG-B6"
        )

    def _illegal_call(self, state: BelotState, action: Action, text: str) -> IllegalActionError:
        top = state.contract
        if action < VERB_BASE or action >= BELOT_BASE:
            return IllegalActionError(
                f"{text!r}: the auction is on: call pass, bid:<contract>, contra or recontra "
                "(declarations and cards come after it)",
                "BG-B1",
            )
        if BID_BASE <= action < BID_BASE + 6:
            if state.rules.bg_double_freezes_auction and state.level > 1:
                return IllegalActionError(
                    f"{text!r}: after a contra no higher contract may be bid "
                    "(bg_double_freezes_auction)",
                    "BG-B5",
                )
            return IllegalActionError(
                f"{text!r}: a bid must be higher than the standing "
                f"{MODE_TITLES[top]} (clubs < diamonds < hearts < spades < no trumps < "
                "all trumps)",
                "BG-B2",
            )
        ours = top >= 0 and not (state.to_act ^ state.bidder) & 1
        if action == CONTRA:
            why = (
                "there is no contract to double"
                if top < 0
                else "your own team's contract cannot be doubled"
                if ours
                else "the contract is already doubled"
            )
            return IllegalActionError(f"'contra': {why}", "BG-B3")
        if action == RECONTRA:
            why = (
                "only a doubled contract can be redoubled"
                if top < 0 or state.level != 2
                else "only the team that bid the contract may redouble"
            )
            return IllegalActionError(f"'recontra': {why}", "BG-B4")
        why = (
            "surcontra is not played under these rules (bg_surcontra)"
            if not state.rules.bg_surcontra
            else "only the defenders may answer a recontra with surcontra"
        )
        return IllegalActionError(f"'surcontra': {why}", "BG-B1")

    def _illegal_card(
        self, state: BelotState, seat: Seat, hand: CardSet, playable: CardSet, c: Card, text: str
    ) -> IllegalActionError:
        led = SUIT_OF[state.trick[0]]
        mode = state.contract
        names = " ".join(CARD_NAMES[d] for d in cards_in(playable))
        follow = hand & SUIT_MASKS[led]
        if follow and SUIT_OF[c] != led:
            return IllegalActionError(
                f"{text!r}: must follow suit: {SUIT_NAMES[led]} were led and you hold {names}",
                "BG-P2",
            )
        if follow:
            return IllegalActionError(
                f"{text!r}: must play higher than {CARD_NAMES[state.best]} in "
                f"{SUIT_NAMES[led]} ({'all trumps' if mode == ALL_TRUMPS else 'trumps'} must "
                f"be raised, even over a partner); you may play {names}",
                "BG-P3",
            )
        if SUIT_OF[state.best] == mode:
            return IllegalActionError(
                f"{text!r}: you are out of {SUIT_NAMES[led]} and an opponent's trump "
                f"{CARD_NAMES[state.best]} is winning: you must over-trump with {names}",
                "BG-P5",
            )
        return IllegalActionError(
            f"{text!r}: you are out of {SUIT_NAMES[led]} and the opponents are winning: you "
            f"must trump with {names}",
            "BG-P5",
        )

    def _illegal_belot(
        self, state: BelotState, hand: CardSet, c: Card, text: str
    ) -> IllegalActionError:
        mode = state.contract
        if mode == NO_TRUMPS:
            return IllegalActionError(f"{text!r}: there is no belot in no trumps", "BG-A2")
        if mode != ALL_TRUMPS and SUIT_OF[c] != mode:
            return IllegalActionError(
                f"{text!r}: a belot is the king and queen of trumps ({SUIT_NAMES[mode]})", "BG-A7"
            )
        if hand & KING_QUEEN[SUIT_OF[c]] != KING_QUEEN[SUIT_OF[c]]:
            return IllegalActionError(
                f"{text!r}: a belot is announced with the first of the king and queen, while "
                "you hold both",
                "BG-A7",
            )
        return IllegalActionError(
            f"{text!r}: in all trumps a belot counts only on a lead or when following suit, "
            "not on a discard",
            "BG-A7",
        )

    def _illegal_declaration(
        self, state: BelotState, seat: Seat, hand: CardSet, code: Action, text: str
    ) -> IllegalActionError:
        if state.contract == NO_TRUMPS and not state.rules.bg_nt_declarations:
            return IllegalActionError(f"{text!r}: there are no declarations in no trumps", "BG-A2")
        if state.tricks:
            return IllegalActionError(
                f"{text!r}: declarations are made only with your card to the first trick",
                "BG-A3",
            )
        m = DECL_MASK[code]
        if hand & m != m:
            missing = " ".join(CARD_NAMES[c] for c in cards_in(m & ~hand))
            return IllegalActionError(f"{text!r}: you do not hold {missing}", "BG-A3")
        for who, other in state.decls:
            if who == seat and DECL_MASK[other] & m:
                return IllegalActionError(
                    f"{text!r}: a card counts in one declaration only, and you already "
                    f"declared {self.format_action(other)}",
                    "BG-A4",
                )
        return IllegalActionError(
            f"{text!r}: declare the whole run of consecutive cards you hold, not a part of it",
            "BG-A1",
        )


def _decl_cards(code: Action) -> tuple[Card, ...]:
    return COMBO_CARDS[code - DECLARE_BASE]


_DECL_BY_MASK: Final = {m: DECLARE_BASE + i for m, i in COMBO_BY_MASK.items()}
_DECL_NAMES: Final = {code: tuple(CARD_NAMES[c] for c in _decl_cards(code)) for code in DECL_MASK}
"""The names of the cards of each declaration code."""


_CARDS_C, _CARDS_D, _CARDS_H, _CARDS_S = (
    tuple(tuple(card(RANKS[i], su) for i in range(8) if (b >> i) & 1) for b in range(256))
    for su in SUITS
)
"""Per suit, per 8-bit pattern of its cards at bit ``13 * suit + 5`` (5, 18, 31, 44): the
cards, lowest first (``cards_in`` by table)."""
assert tuple(13 * su + RANKS[0] for su in SUITS) == (5, 18, 31, 44)


GAME: Final = Belot()
