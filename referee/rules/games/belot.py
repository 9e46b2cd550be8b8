"""Bulgarian Belot (Бридж-белот), as ``rules/belot-coinche.md`` §1 defines it (seed 000).

Seats 0..3 in turn order (the real game goes counter-clockwise); teams are 0–2 (team 0) and
1–3 (team 1). The first hand is ``dealer + 1``: it speaks first and leads to trick 1 (BG-D3).

The deal (BG-D2): 3 then 2 cards to each seat from the first hand, so ``deal.hands[s]`` are the
5 cards seat ``s`` holds in the auction. ``deal.stock`` is the 12 cards dealt after a contract:
``stock[3*i : 3*i + 3]`` go to seat ``(dealer + 1 + i) % 4``. After an all-pass auction they
stay undealt (BG-B6).

Phases: the auction, the play (declarations are made at trick 1, before a seat's first card),
over. Scoring (BG-S*, BG-R*) is :func:`belot_scoring.score_deal`; the match (hanging points,
151, "с капо не се излиза") is :meth:`Belot.after_hand`. ``MatchState.carry`` is ``(pot,
valat_pending)``. Shared with Coinche: the card tables, the legal cards, the declarations and
the game base (:mod:`belote_family`, :mod:`belote_play`, :mod:`belote_declarations`,
:mod:`belote_game`); Belot's own modules hold its rule parameters (:mod:`belot_rules`), state
(:mod:`belot_state`) and words (:mod:`belot_text`).
Sources beyond the seed: belot-rules.hit.bg (mirrored in NikolayIT/BelotGameEngine), pagat.com.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar, Final

from referee.rules.cards import CARD_NAMES, PACK_32, SUIT_LETTERS, SUIT_OF, Card, CardSet, cards_in
from referee.rules.dealing import check_deal
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
from referee.rules.games import invariants
from referee.rules.games.belot_rules import BelotRules
from referee.rules.games.belot_scoring import DealScore, round_all, round_team, score_deal
from referee.rules.games.belot_state import (
    BELOT_BASE,
    BID_BASE,
    DEAL_GETTERS,
    DECL_MASK,
    DECLARE_BASE,
    LANE_BITS,
    LEVEL_AFTER,
    LEVEL_NAMES,
    LOW,
    MODE_NAMES,
    PACK_MASK,
    PASS,
    STOCK_GETTER,
    STOCK_LANES,
    STOCK_SHIFTS,
    BelotState,
    belot_cards,
    decl_kind,
    decl_points,
    make_ctx,
    make_deal,
    new_step,
    new_tuple,
    playable_cards,
    resolve_declarations,
)
from referee.rules.games.belot_text import (
    DECL_NAMES,
    all_actions,
    decl_cards,
    format_action,
    illegal,
    not_your_turn,
    parse_action,
)
from referee.rules.games.belote_declarations import bg_declarable
from referee.rules.games.belote_family import (
    CARDS_C,
    CARDS_D,
    CARDS_H,
    CARDS_S,
    LAST_TRICK_BONUS,
    NO_TRUMPS,
)
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, Notation, Phase
from referee.rules.games.belote_play import legal_cards, team_tally
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

class Belot(BeloteGame):
    """Bulgarian Belot: 32 cards, 3+2 then 3, six contracts, contra, declarations, to 151."""

    name: ClassVar[str] = "belot"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: 16 to 26 rounded points a deal (BG-R), more doubled.
    difference_scale: ClassVar[tuple[int, ...]] = (1, 2, 4, 6, 9, 13, 18, 26, 36, 50)

    aliases: ClassVar[tuple[str, ...]] = ("bulgarian_belot", "belote_bg", "бридж-белот")
    title: ClassVar[str] = "Bulgarian Belot (Бридж-белот)"
    #: Seen only by the acting seat while the hand runs: declarations name the cards they show.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"declare", "belot"})
    notation: ClassVar[Notation] = Notation(parse_action, format_action, all_actions)
    rules_class: ClassVar[type[RuleSet]] = BelotRules

    # -- dealing (BG-D1 .. BG-D3) ----------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """3 then 2 cards to each seat from the first hand; the last 12 are dealt 3 each,
        in the same order, after the auction (BG-D2)."""
        if len(pack) >= 32:
            g0, g1, g2, g3 = DEAL_GETTERS[dealer % 4]
            return make_deal((g0(pack), g1(pack), g2(pack), g3(pack)), STOCK_GETTER(pack))
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
                h0, h1, h2, h3 = LANE_BITS
                packed = (
                    h0[a0] | h0[b0] | h0[c0] | h0[d0] | h0[e0]
                    | h1[a1] | h1[b1] | h1[c1] | h1[d1] | h1[e1]
                    | h2[a2] | h2[b2] | h2[c2] | h2[d2] | h2[e2]
                    | h3[a3] | h3[b3] | h3[c3] | h3[d3] | h3[e3]
                )  # fmt: skip
                s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11 = stock
                r0, r1, r2, r3 = STOCK_LANES[dealer & 3]
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
                for c, sh in zip(stock, STOCK_SHIFTS[dealer & 3], strict=True):
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
        s.ctx = make_ctx(rules, dealer, stock, rest, (), -1, -1, 1, 0)
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
                *CARDS_C[(legal >> 5) & 0xFF],
                *CARDS_D[(legal >> 18) & 0xFF],
                *CARDS_H[(legal >> 31) & 0xFF],
                *CARDS_S[(legal >> 44) & 0xFF],
            ]
            x = hand & ctx.belot_mask
            if x and x & (x >> 1):  # a K+Q pair in hand (BG-A7)
                for c in cards_in(belot_cards(state, hand, legal)):
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
            raise not_your_turn(state, seat, action)
        if phase != PLAY:
            return self._call(state, seat, action)
        if not 0 <= action < VERB_BASE:
            return self._announce(state, seat, action)
        try:
            playable = state.legal
        except AttributeError:  # legal_actions() not asked on this state
            playable = playable_cards(state, seat, (state.hands >> (seat << 6)) & LOW)
        if not (playable >> action) & 1:
            raise illegal(state, action)
        return self._play(state, seat, action, False)

    def _announce(self, state: BelotState, seat: Seat, action: Action) -> Step:
        """In play, anything but a plain card: a card with a belot, or a declaration."""
        if BELOT_BASE <= action < BELOT_BASE + 52:
            c = action - BELOT_BASE
            hand = (state.hands >> (seat << 6)) & LOW
            playable = playable_cards(state, seat, hand)
            if not (belot_cards(state, hand, playable) >> c) & 1:
                raise illegal(state, action)
            return self._play(state, seat, c, True)
        if action not in self.legal_actions(state):
            raise illegal(state, action)
        s = state.copy()  # a declaration (BG-A3)
        s.decls = (*state.decls, (seat, action))
        return new_step(s, (Announced("declaration", {"seat": seat, "kind": decl_kind(action)}),))

    def _call(self, state: BelotState, seat: Seat, action: Action) -> Step:
        """An auction call (BG-B1 .. BG-B6)."""
        ctx = state.ctx
        if action not in ctx.auction[(seat ^ ctx.bidder) & 1]:
            raise illegal(state, action)
        contract = ctx.contract
        bidder = ctx.bidder
        level = ctx.level
        passes = 0
        if action == PASS:
            passes = ctx.passes + 1
        elif action in LEVEL_AFTER:
            level = LEVEL_AFTER[action]
        else:
            contract = action - BID_BASE
            bidder = seat
            level = 1
        calls = ctx.calls + (action,)  # noqa: RUF005 (concatenation is cheaper)
        s = BelotState()
        # the play tables once the auction ends (BG-B6 (a)), the auction's fields until then
        s.ctx = make_ctx(
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
                return new_tuple(Step, (s, (HandEnded(self.result(s)),)))
            if contract >= 0 and passes == 3:  # BG-B6 (a)
                return new_tuple(Step, (s, self._start_play(s)))
        return new_tuple(Step, (s, ()))

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
        s.hands = state.hands ^ LANE_BITS[seat][c]
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
            return new_tuple(Step, (s, facts))
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
            return new_tuple(Step, (s, facts))
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
            return new_tuple(Step, (s, (*facts, taken, HandEnded(self.result(s)))))
        return new_tuple(Step, (s, (*facts, taken)))

    # -- scoring ---------------------------------------------------------------------------


    def check_result(self, result: HandResult, rules: RuleSet) -> None:
        """The invariants every scored deal satisfies (the conformance suite checks them over
        random deals). :raises ConformanceError: one is broken."""
        invariants.belot(result, rules)
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
                        "cards": list(DECL_NAMES[code]),
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
            "doubled": LEVEL_NAMES[state.level],
            "hand_sizes": [state.hand(s).bit_count() for s in range(4)],
            "trick": [
                {"seat": (state.leader + i) & 3, "card": CARD_NAMES[c]}
                for i, c in enumerate(state.trick)
            ],
            "tricks": [t.to_json() for t in state.tricks],
            "declarations": [
                {"seat": who, "kind": decl_kind(code)}
                | (
                    {"cards": [CARD_NAMES[c] for c in decl_cards(code)]}
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
                "cards": [CARD_NAMES[c] for c in decl_cards(code)],
            }
            for who, code in state.decls
        ]
        return out

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


GAME: Final = Belot()
