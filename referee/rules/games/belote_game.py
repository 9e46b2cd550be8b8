"""What Bulgarian Belot and Coinche are alike as games: the phases of a deal, and the answers to
the Game contract (:mod:`referee.rules.game`) that the two give the same way.

Both deal 32 cards to four seats in two partnerships, bid, then play eight tricks
(``rules/belot-coinche.md`` §0.1); a match runs to a target score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from referee.rules import game
from referee.rules.cards import CARD_NAMES, PACK_32, SUIT_OF, Card, CardSet, cards_in, names
from referee.rules.compiled import mypyc_attr
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError
from referee.rules.games import invariants
from referee.rules.games.belote_declarations import N_COMBOS
from referee.rules.games.belote_family import CARDS_C, CARDS_D, CARDS_H, CARDS_S, PACK_MASK, TABLES
from referee.rules.games.belote_state import (
    AUCTION,
    CALLS,
    LANE_BITS,
    OVER,
    PHASE_NAMES,
    PLAY,
    BeloteState,
    Ctx,
    deal_ctx,
    packed_deal,
    playable_cards,
    unlane,
)
from referee.rules.games.belote_text import Notation, Vocabulary
from referee.rules.params import RuleSet
from referee.rules.phased import Phase, TeamMatch
from referee.rules.seats import Seat
from referee.rules.tricks import ClaimOrder, claim_order

__all__ = ["AUCTION", "OVER", "PLAY", "BeloteGame"]

new_tuple: Final = tuple.__new__
STEP: Final = game.Step
TRICK_TAKEN: Final = game.TrickTaken
"""``Final`` aliases: compiled code reads them as constants, not from the module's dict."""
ORDER: Final = tuple(range(32))
"""The positions in the pack (what a deal's getters take from a short pack)."""


def phases(turns: tuple[str, str, str], auction: tuple[str, ...], play: tuple[str, ...]
           ) -> tuple[Phase, ...]:  # fmt: skip
    """A game's ``PHASES`` (:data:`belote_state.PHASE_NAMES`): the rule of turns of each, the
    verbs of the auction and of the play."""
    verbs = (auction, play, ())
    return tuple(Phase(n, t, verbs=v) for n, t, v in zip(PHASE_NAMES, turns, verbs, strict=True))


@mypyc_attr(allow_interpreted_subclasses=True)
class BeloteGame(TeamMatch):
    """The base of :class:`~referee.rules.games.belot.Belot` and
    :class:`~referee.rules.games.coinche.Coinche`: the card play, declarations and belots,
    written once on the one state encoding (:mod:`belote_state`); each game adds its deal,
    auction, scoring, views and words through the hooks below."""

    pack: ClassVar[tuple[Card, ...]] = PACK_32
    OVER: ClassVar[int] = OVER
    name: ClassVar[str]
    rules_class: ClassVar[type[RuleSet]]
    notation: ClassVar[Notation]
    """The game's notation (its parse_action, format_action and all_actions) and its words."""
    state_class: ClassVar[type[BeloteState]] = BeloteState
    last_ten: ClassVar[int] = 0
    """The last-trick bonus counted in the last trick's points (Coinche), or 0."""
    getters: ClassVar[tuple[tuple[Any, ...], ...]]
    """The deal's packets (:func:`deal_getters`); the cards after them are the stock."""
    doubles: ClassVar[Mapping[game.Action, int]]
    """The level each double sets (contra, recontra ...; coinche, surcoinche)."""
    doubles_said: ClassVar[bool] = False
    """Whether a double is a fact (Coinche's coinche and surcoinche)."""
    closing: ClassVar[int] = 0
    """The level that ends the auction at once (a surcoinche, CO-B5), or 0."""
    calls_params: ClassVar[tuple[str, ...]]
    """The rule parameters :meth:`_calls_for` reads: rules alike in these share one table
    of the calls met so far (:meth:`_deal_ctx`)."""
    words: Vocabulary
    """The notation's words."""
    declare_base: game.Action
    """The code of combination 0 (``belote_declarations.COMBO_MASKS``); codes past the
    combinations and below :data:`VERB_BASE` plus 64 are cards said with a belot."""
    bid_base: game.Action
    """The code of the lowest bid: a bid's code less it, modulo 6, is its contract's mode."""

    def __init__(self) -> None:
        self.words = words = self.notation.words
        self.declare_base = words.declare_base
        self.bid_base = min(words.bids)

    # Phased's answers again, on the state's own type: asked at every decision, they cost
    # several times less compiled than Phased's generic ones (4% of a hand, by callgrind).
    def current_seat(self, state: BeloteState) -> Seat | None:  # type: ignore[override]
        return None if state.phase == OVER else state.to_act

    def is_terminal(self, state: BeloteState) -> bool:  # type: ignore[override]
        return state.phase == OVER

    def parse_action(self, text: str) -> game.Action:
        return self.notation.parse(text)

    def format_action(self, action: game.Action) -> str:
        return self.notation.format(action)

    def all_actions(self) -> list[game.Action]:
        return self.notation.every()

    # -- the deal -------------------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> game.Deal:
        """The packets of :attr:`getters` to each seat in turn from ``dealer + 1``, each hand in
        the order received; the rest of the 32 cards are the stock (BG-D2, CO-D2)."""
        got = self.getters[dealer & 3]
        hand_size = len(got[0](ORDER))
        stock = tuple(pack[4 * hand_size : 32])
        if len(pack) >= 32:
            return game.Deal(hands=tuple(g(pack) for g in got), stock=stock)
        n = len(pack)
        return game.Deal(
            hands=tuple(tuple(pack[i] for i in g(ORDER) if i < n) for g in got), stock=stock
        )

    def new_hand(self, deal: game.Deal, dealer: Seat, rules: RuleSet) -> BeloteState:
        """The state at the start of the auction: the hands and stock of :meth:`_dealt`."""
        assert isinstance(rules, self.rules_class)
        held, rest, first = self._dealt(deal, dealer, rules)
        base = self._deal_ctx(rules, dealer, first, deal.stock, rest, held | rest)
        return self._new_state(self._ctx(base, (), -1, -1, 1, 0), held)

    def _dealt(self, deal: game.Deal, dealer: Seat, rules: Any) -> tuple[int, int, Seat]:
        """``deal``'s cards held in the auction and those dealt after it, packed
        (:meth:`_packed`), and the first hand."""
        raise NotImplementedError

    def _deal_ctx(self, rules: Any, dealer: Seat, first: Seat, stock: tuple[Card, ...],
                  rest: int, dealt: int) -> Ctx:  # fmt: skip
        """A deal's fixed fields (:func:`belote_state.deal_ctx`), with the calls met so far
        under rules alike in :attr:`calls_params` (a bounded number of tables, however many
        rule sets the matches use)."""
        key = (self.name, *(getattr(rules, p) for p in self.calls_params))
        return deal_ctx(rules, dealer, first, stock, rest, dealt, CALLS.setdefault(key, {}))

    def _packed(self, deal: game.Deal, size: int, each: int, dealer: Seat) -> tuple[int, int]:
        """``deal``'s hands of ``size`` cards and its stock, ``each`` a seat in turn from the
        dealer's left, packed (:func:`belote_state.packed_deal`).

        :raises RecordError: the deal is not the pack, each card once (``check_deal``)."""
        got = packed_deal(deal, size, each, dealer + 1)
        if got is None:
            check_deal(deal, PACK_32, (size, size, size, size), 4 * each, self.name)
            raise AssertionError("check_deal accepts what packed_deal refuses")
        return got

    def _new_state(self, ctx: Ctx, hands: int) -> BeloteState:
        """The state at the start of the auction: ``hands`` the cards held in it, packed."""
        cls = self.state_class
        s = cls.__new__(cls)
        s.ctx = ctx
        s.hands = hands
        s.phase = AUCTION
        s.to_act = ctx.first
        s.leader = -1
        s.trick = ()
        s.best = -1
        s.winner = -1
        s.tricks = ()
        s.decls = ()
        s.belots = ()
        return s

    def _ctx(self, b: Ctx, calls: tuple[tuple[Seat, game.Action], ...], top: game.Action,
             bidder: Seat, level: int, passes: int, play: bool = False) -> Ctx:  # fmt: skip
        """``b``'s deal after an auction call (``top`` the standing bid, -1 for none): its calls
        (:meth:`_calls_open`), and the contract's tables when ``play`` (:meth:`_tables`)."""
        c = deal_ctx(b.rules, b.dealer, b.first, b.stock, b.rest, b.dealt, b.table)
        c.calls, c.top, c.bidder, c.level, c.passes = calls, top, bidder, level, passes
        c.contract = -1 if top < 0 else (top - self.bid_base) % 6
        c.auction = (self._calls_open(c, top >= 0), self._calls_open(c, False))
        if play and top >= 0:
            self._tables(c)
        return c

    def _start_play(self, s: BeloteState, facts: tuple[game.Fact, ...] = ()) -> game.Step:
        """The auction is over with a contract (``s.ctx`` has its tables): the cards dealt
        after it (BG-D2, CO-D4); the first hand leads (BG-D3, CO-D3)."""
        ctx = s.ctx
        s.hands |= ctx.rest
        s.phase = PLAY
        s.to_act = s.leader = ctx.first
        return new_tuple(STEP, (s, (*facts, game.Announced("contract", self._contract_json(ctx)))))

    # -- the play -------------------------------------------------------------------------

    def legal_actions(self, state: BeloteState) -> list[game.Action]:
        phase = state.phase
        if phase == PLAY:
            legal = state.legal = playable_cards(state)
            out = [
                *CARDS_C[(legal >> 5) & 0xFF],
                *CARDS_D[(legal >> 18) & 0xFF],
                *CARDS_H[(legal >> 31) & 0xFF],
                *CARDS_S[(legal >> 44) & 0xFF],
            ]
            seat = state.to_act
            if not state.tricks or legal & state.ctx.kq[seat]:  # what else may come with a card
                self._extras(state, seat, legal, out)
            return out
        if phase == AUCTION:
            return list(self._calls(state, state.to_act))
        return []

    def apply(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        if state.phase != PLAY or seat != state.to_act or not 0 <= action < game.VERB_BASE:
            return self._apply_other(state, seat, action)
        try:
            legal = state.legal
        except AttributeError:  # legal_actions() not asked on this state
            legal = playable_cards(state)
        if not (legal >> action) & 1:
            raise self._illegal(state, seat, action)
        return self._play(state, seat, action, (), state.belots)

    def _announce(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        """In play, anything but a plain card: a declaration (BG-A3, CO-A2), or a card played
        saying belot, belote or rebelote (BG-A7, CO-A4)."""
        if action not in self.legal_actions(state):
            raise self._illegal(state, seat, action)
        index = action - self.declare_base
        if not 0 <= index < N_COMBOS:
            said = (*state.belots, (seat, action))
            return self._play(state, seat, action & 63, (self._said(seat, action),), said)
        s = state.copy()
        s.decls = (*state.decls, (seat, index))
        what = {"seat": seat, "kind": self.words.kinds[index]}
        return STEP(s, (game.Announced(self.words.declared, what),))

    def _play(self, state: BeloteState, seat: Seat, c: Card, facts: tuple[game.Fact, ...],
              belots: tuple[tuple[Seat, game.Action], ...]) -> game.Step:  # fmt: skip
        """Play ``c`` (BG-T1, CO-C3), the cards said with it being ``belots``."""
        ctx = state.ctx
        cls = type(state)
        s = cls.__new__(cls)
        s.ctx = ctx
        s.phase = PLAY
        s.hands = state.hands ^ LANE_BITS[seat][c]
        s.decls = state.decls
        s.belots = belots
        trick = state.trick
        if not trick:
            if len(state.tricks) == 1 and state.decls:
                facts = (*facts, *self._reveal(state))
            s.trick = (c,)
            s.leader = s.winner = seat
            s.best = c
            s.to_act = (seat + 1) & 3
            s.tricks = state.tricks
            return new_tuple(STEP, (s, facts))
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
            return new_tuple(STEP, (s, facts))
        c0, c1, c2 = trick
        pts = ctx.points
        n = len(state.tricks) + 1
        plays = ((lead, c0), ((lead + 1) & 3, c1), ((lead + 2) & 3, c2), (seat, c))
        points = pts[c0] + pts[c1] + pts[c2] + pts[c] + (self.last_ten if n == 8 else 0)
        taken = new_tuple(TRICK_TAKEN, (n, plays, winner, points))
        s.tricks = state.tricks + (taken,)  # noqa: RUF005 (concatenation is cheaper)
        s.trick = ()
        s.best = -1
        s.leader = s.to_act = winner
        if n == 8:
            s.phase = OVER
            return new_tuple(STEP, (s, (*facts, taken, game.HandEnded(self.result(s)))))
        return new_tuple(STEP, (s, (*facts, taken)))

    # -- results and views ----------------------------------------------------------------

    def result(self, state: BeloteState) -> game.HandResult:
        """The deal's score (:meth:`_result`); a deal thrown in, all passing, scores nothing
        and is dealt again (BG-B6, CO-B6)."""
        try:
            return state.cached
        except AttributeError:
            if len(state.tricks) < 8:
                out = state.cached = game.HandResult((0, 0), {"redeal": True}, void=True)
            else:
                out = state.cached = self._result(state)
            return out

    def check_result(self, result: game.HandResult, rules: RuleSet) -> None:
        """The invariants every scored deal satisfies (:mod:`invariants`, by the game's name;
        the conformance suite checks them over random deals). :raises ConformanceError: one
        is broken."""
        getattr(invariants, self.name)(result, rules)

    def _view(self, state: BeloteState, seat: Seat | None, fields: dict[str, game.JSON],
              **secret: game.JSON) -> dict[str, game.JSON]:  # fmt: skip
        """A view (``Phased._frame`` and ``Phased._own``, ``secret`` what only ``seat``
        knows): the hand sizes, the trick in play, the tricks and the game's ``fields``."""
        hands = [state.hand(p) for p in range(4)]
        out = self._frame(state)
        out["hand_sizes"] = [h.bit_count() for h in hands]
        out["trick"] = [
            {"seat": (state.leader + i) & 3, "card": CARD_NAMES[c]}
            for i, c in enumerate(state.trick)
        ]
        out["tricks"] = [t.to_json() for t in state.tricks]
        out.update(fields)
        return self._own(out, state, seat, hands, **secret)

    # -- claims (referee.rules.claims) -------------------------------------------------------

    def claim_order(self, state: BeloteState) -> ClaimOrder:
        """The cards in play by trick power under the contract (BG-T1, CO-C3). A claim is of
        tricks, so the king and queen of trumps are equivalent neighbours like any others:
        the belot / belote they may carry (BG-A7, CO-A4) is points, never a trick."""
        in_play = unlane(state.hands)
        for c in state.trick:
            in_play |= 1 << c
        return claim_order(TABLES[state.ctx.contract], in_play)

    def claim_card(self, action: game.Action) -> Card | None:
        """The card an action of the play plays: a card said with belot, belote or
        rebelote is that card (BG-A7, CO-A4); a declaration (BG-A3, CO-A2) plays none and
        changes no trick (None: a claim's search leaves it out)."""
        if 0 <= action - self.declare_base < N_COMBOS:
            return None
        return action & 63

    def view(self, state: BeloteState, seat: Seat | None) -> dict[str, game.JSON]:
        raise NotImplementedError

    def _audit(self, state: BeloteState) -> dict[str, game.JSON]:
        """The view of an auditor: every hand."""
        out = self.view(state, None)
        out["hands"] = [names(cards_in(state.hand(p))) for p in range(4)]
        return out

    def card_locations(self, state: BeloteState) -> dict[str, CardSet]:
        where = {f"hand{s}": state.hand(s) for s in range(4)}
        dealt = state.phase == PLAY or (state.phase == OVER and state.ctx.contract >= 0)
        undealt = 0 if dealt else unlane(state.ctx.rest)
        where["played"] = PACK_MASK & ~unlane(state.hands) & ~undealt
        where[self.words.undealt] = undealt
        return where

    # -- the hooks of each game -----------------------------------------------------------

    def _calls(self, state: BeloteState, seat: Seat) -> tuple[game.Action, ...]:
        """The calls open to ``seat`` in the auction (:meth:`_calls_open`)."""
        ctx = state.ctx
        calls: tuple[game.Action, ...] = ctx.auction[(seat ^ ctx.bidder) & 1]
        return calls

    def _apply_other(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        """Everything but a legal card play by the seat to act: the turn, the auction, and in
        play :meth:`_announce`."""
        if state.phase == OVER or seat != state.to_act:
            return self._out_of_turn(state, seat, action)
        if state.phase == PLAY:
            return self._announce(state, seat, action)
        if action not in self._calls(state, seat):
            raise self._illegal(state, seat, action)
        return self._auction(state, seat, action)

    def _out_of_turn(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        """An action when the deal is over or by a seat not to act: refused, naming the phase's
        rule of turns (BG-B7, CO-D3, CO-C3, CO-B6)."""
        raise self._not_your_turn(state, seat, action)

    def _auction(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        """A legal call of the seat to act: a pass, a double or a bid (BG-B1 .. BG-B6, CO-B1 ..
        CO-B6). Three passes after a bid end the auction, four without one throw the deal in."""
        ctx = state.ctx
        top, bidder, level, passes = ctx.top, ctx.bidder, ctx.level, 0
        facts: tuple[game.Fact, ...] = ()
        if action == game.VERB_BASE:  # pass
            passes = ctx.passes + 1
        elif action in self.doubles:
            level = self.doubles[action]
            if self.doubles_said:
                facts = (game.Announced(self.format_action(action), {"seat": seat}),)
        else:
            top, bidder, level = action, seat, 1
        ends = (top >= 0 and passes == 3) or level == self.closing
        s = state.copy()
        s.ctx = self._ctx(ctx, (*ctx.calls, (seat, action)), top, bidder, level, passes, ends)
        s.to_act = (seat + 1) & 3
        if ends:
            return self._start_play(s, facts)
        if top < 0 and passes == 4:
            s.phase = OVER
            return STEP(s, (game.HandEnded(self.result(s)),))
        return STEP(s, facts)

    def _calls_open(self, ctx: Ctx, ours: bool) -> tuple[game.Action, ...]:
        """The calls open under ``ctx`` to the bidder's team (``ours``) or the other
        (:meth:`_calls_for`), worked out once per situation under the same rules."""
        key = (ctx.top * 16 + ctx.level) * 2 + ours
        table: dict[int, tuple[game.Action, ...]] = ctx.table
        found = table.get(key)
        if found is None:
            found = table[key] = tuple(sorted(self._calls_for(ctx, ours)))
        return found

    def _calls_for(self, ctx: Ctx, ours: bool) -> list[game.Action]:
        raise NotImplementedError

    def _tables(self, ctx: Ctx) -> None:
        """Set the play tables of ``ctx``'s contract (``play``, ``power``, ``points``, ``kq``,
        ``decl_ok``, ``value``)."""
        raise NotImplementedError

    def _extras(self, state: BeloteState, seat: Seat, legal: CardSet, out: list[game.Action]
                ) -> None:  # fmt: skip
        """Add to ``out`` (the playable cards) the declarations and belots ``seat`` may make."""
        raise NotImplementedError

    def _said(self, seat: Seat, action: game.Action) -> game.Announced:
        """The fact of a card played saying belot, belote or rebelote."""
        raise NotImplementedError

    def _reveal(self, state: BeloteState) -> tuple[game.Fact, ...]:
        """The facts of the declarations shown as trick 2 starts."""
        return ()

    def _contract_json(self, ctx: Ctx) -> dict[str, game.JSON]:
        raise NotImplementedError

    def _illegal(self, state: BeloteState, seat: Seat, action: game.Action) -> IllegalActionError:
        """Why the seat to act may not do ``action`` (the game's words), naming the rule."""
        return self.words.refuse(state, seat, action)

    def _result(self, state: BeloteState) -> game.HandResult:
        """The score of a deal played out (eight tricks)."""
        raise NotImplementedError
