"""Bulgarian Belot (Бридж-белот), as ``rules/belot-coinche.md`` §1 defines it (seed 000).

Seats 0..3 in turn order (the real game goes counter-clockwise); teams are 0–2 (team 0) and
1–3 (team 1). The first hand is ``dealer + 1``: it speaks first and leads to trick 1 (BG-D3).

The deal (BG-D2): 3 then 2 cards to each seat from the first hand, so ``deal.hands[s]`` are the
5 cards seat ``s`` holds in the auction. ``deal.stock`` is the 12 cards dealt after a contract:
``stock[3*i : 3*i + 3]`` go to seat ``(dealer + 1 + i) % 4``. After an all-pass auction they
stay undealt (BG-B6).

Phases: the auction, the play (declarations are made at trick 1, before a seat's first card),
over. Scoring (BG-S*, BG-R*) is :func:`belote_scoring.score_deal`; the match (hanging points,
151, "с капо не се излиза") is :meth:`Belot.after_hand`. ``MatchState.carry`` is ``(pot,
valat_pending)``. Belot's own codes and words are ``belot_*``; the rest is the family's.
Sources beyond the seed: belot-rules.hit.bg (mirrored in NikolayIT/BelotGameEngine), pagat.com.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from referee.rules import game
from referee.rules.cards import SUIT_LETTERS, SUIT_MASKS, SUIT_OF, CardSet, cards_in, names
from referee.rules.games.belot_state import (
    BELOT_BASE,
    BELOT_CARDS,
    BID_BASE,
    CONTRA,
    DECLARE_BASE,
    LEVEL_AFTER,
    LEVEL_NAMES,
    MODE_NAMES,
    PASS,
    RECONTRA,
    SURCONTRA,
    decl_points,
    resolve_declarations,
)
from referee.rules.games.belot_text import NOTATION
from referee.rules.games.belote_declarations import (
    BG_KINDS,
    bg_declarable,
    bg_resolve,
    combo_json,
    combo_names,
)
from referee.rules.games.belote_family import ALL_TRUMPS, CARD_POINTS, LAST_TRICK_BONUS, NO_TRUMPS
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, phases
from referee.rules.games.belote_play import play_rules, team_tally
from referee.rules.games.belote_rules import BelotRules
from referee.rules.games.belote_scoring import DealScore, round_all, round_team, score_deal
from referee.rules.games.belote_state import LOW, BeloteState, Ctx, deal_getters
from referee.rules.games.belote_text import Notation
from referee.rules.params import RuleSet
from referee.rules.phased import Phase
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
    "decl_points",
    "resolve_declarations",
    "round_all",
    "round_team",
    "score_deal",
]


def _ctx_property(name: str, doc: str) -> Any:
    """A :class:`BelotState` attribute kept in its ctx (setting it rebuilds the ctx)."""

    def put(self: BelotState, value: Any) -> None:
        c = self.ctx
        new = {f: getattr(c, f) for f in ("calls", "top", "bidder", "level", "passes")}
        if name == "contract":
            new["top"] = -1 if value < 0 else BID_BASE + value
        else:
            new[name] = value
        self.ctx = GAME._ctx(c, **new, play=True)

    return property(lambda self: getattr(self.ctx, name), put, doc=doc)


class BelotState(BeloteState):
    """One Belot deal (:class:`belote_state.BeloteState`). The auction's fields of its ctx read
    through as ``calls``, ``contract``, ``bidder``, ``level`` and ``passes``; setting one
    rebuilds the ctx (as a test sets up a position)."""

    calls = _ctx_property("calls", "The auction's calls so far, ``(seat, call)``.")
    contract = _ctx_property("contract", "The contract's mode, -1 before a bid.")
    bidder = _ctx_property("bidder", "The seat that bid the contract, -1 before a bid.")
    level = _ctx_property("level", "1, 2 (contra), 4 (recontra) or 8 (surcontra).")
    passes = _ctx_property("passes", "Passes since the last bid or double.")


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
    notation: ClassVar[Notation] = NOTATION
    PHASES: ClassVar[Sequence[Phase]] = phases(
        ("BG-B7",) * 3, ("pass", "bid", "contra", "recontra", "surcontra"),
        ("play", "declare", "belot"),
    )
    rules_class: ClassVar[type[RuleSet]] = BelotRules
    state_class: ClassVar[type[BeloteState]] = BelotState
    carry: ClassVar[tuple[int, ...]] = (0, 0)  # the pot and a valat pending (BG-S6, BG-G2)

    # -- dealing (BG-D1 .. BG-D3) ----------------------------------------------------------

    getters: ClassVar[tuple[tuple[Any, ...], ...]] = deal_getters((3, 2))  # BG-D2

    def _dealt(self, deal: game.Deal, dealer: Seat, rules: Any) -> tuple[int, int, Seat]:
        return (*self._packed(deal, 5, 3, dealer), (dealer + 1) & 3)

    # -- the auction (BG-B1 .. BG-B6) -----------------------------------------------------

    doubles: ClassVar[Mapping[game.Action, int]] = LEVEL_AFTER
    calls_params: ClassVar[tuple[str, ...]] = ("bg_double_freezes_auction", "bg_surcontra")

    def _calls_for(self, ctx: Ctx, ours: bool) -> list[game.Action]:
        """BG-B1 .. BG-B5: pass, a higher contract, contra, recontra (and surcontra)."""
        level = ctx.level
        out = [PASS]
        if not (ctx.rules.bg_double_freezes_auction and level > 1):
            out.extend(range(BID_BASE + ctx.contract + 1, BID_BASE + 6))
        if ctx.top >= 0:
            if level == 1 and not ours:
                out.append(CONTRA)
            elif level == 2 and ours:
                out.append(RECONTRA)
            elif level == 4 and not ours and ctx.rules.bg_surcontra:
                out.append(SURCONTRA)
        return out

    def _tables(self, ctx: Ctx) -> None:
        mode = ctx.contract
        ctx.play = play_rules(mode)
        ctx.power = ctx.play.power
        ctx.points = CARD_POINTS[mode]
        ctx.kq = (BELOT_CARDS[mode],) * 4
        ctx.decl_ok = mode != NO_TRUMPS or ctx.rules.bg_nt_declarations

    def _contract_json(self, ctx: Ctx) -> dict[str, game.JSON]:
        return {"contract": MODE_NAMES[ctx.contract], "declarer": ctx.bidder, "level": ctx.level}

    # -- play (BG-P*, BG-A*) ----------------------------------------------------------------

    def _extras(
        self, state: BeloteState, seat: Seat, legal: CardSet, out: list[game.Action]
    ) -> None:
        ctx = state.ctx
        hand = (state.hands >> (seat << 6)) & LOW
        x = hand & ctx.kq[seat]
        pairs = x & (x >> 1)  # the queen's bit of each K+Q pair in hand (Q, K: adjacent bits)
        if pairs:  # BG-A7: either card of the pair, as it may be played; none in no trumps
            said = (pairs | (pairs << 1)) & legal
            if ctx.contract == ALL_TRUMPS and state.trick:  # all trumps: not on a discard
                said &= SUIT_MASKS[SUIT_OF[state.trick[0]]]
            out.extend(BELOT_BASE + c for c in cards_in(said))
        if not state.tricks and ctx.decl_ok:  # BG-A1, BG-A3, BG-A4, with the first card
            out.extend(DECLARE_BASE + i for i in bg_declarable(hand, state.declared(seat)))

    def _said(self, seat: Seat, action: game.Action) -> game.Announced:
        return game.Announced("belot", {"seat": seat, "suit": SUIT_LETTERS[SUIT_OF[action & 63]]})

    # -- scoring ---------------------------------------------------------------------------

    def _result(self, state: BeloteState) -> game.HandResult:
        ctx = state.ctx
        mode = ctx.contract
        rules = ctx.rules
        cards, won, last = team_tally(state.tricks)
        decls = state.decls
        decl_team = [0, 0]
        declarations: list[game.JSON] = []
        if decls:
            for (seat, i), p in zip(decls, bg_resolve(decls, rules), strict=True):
                decl_team[seat & 1] += p
                declarations.append(combo_json(seat, i, BG_KINDS[i], p))
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
        score = score_deal(mode, level, ctx.bidder & 1, (raw[0], raw[1]), valat is not None, rules)
        detail: dict[str, game.JSON] = {
            "contract": MODE_NAMES[mode],
            "declarer": ctx.bidder,
            "level": level,
            "tricks": won,
            "card_points": cards,
            "last_trick": last,
            "declarations": declarations,
            "belots": self._belots(state),
            "raw": raw,
            "valat": valat,
            "outcome": score.outcome,
            "hanging": score.hanging,
            "pot_winner": score.pot_winner,
        }
        return game.HandResult(score.points, detail)

    # -- views -----------------------------------------------------------------------------

    def _belots(self, state: BeloteState) -> list[game.JSON]:
        return [{"seat": who, "suit": SUIT_LETTERS[SUIT_OF[a & 63]]} for who, a in state.belots]

    def view(self, state: BeloteState, seat: Seat | None) -> dict[str, game.JSON]:
        over = state.phase == OVER
        ctx = state.ctx
        fields: dict[str, game.JSON] = {
            "calls": [{"seat": p, "call": self.format_action(a)} for p, a in ctx.calls],
            "contract": MODE_NAMES[ctx.contract] if ctx.contract >= 0 else None,
            "declarer": ctx.bidder if ctx.bidder >= 0 else None,
            "doubled": LEVEL_NAMES[ctx.level],
            "declarations": [
                {"seat": who, "kind": BG_KINDS[i]}
                | ({"cards": combo_names(i)} if over or who == seat else {})
                for who, i in state.decls
            ],
            "belots": self._belots(state),
        }
        return self._view(state, seat, fields)

    def audit_view(self, state: BeloteState) -> dict[str, game.JSON]:
        out = self._audit(state)
        out["stock"] = names(state.ctx.stock)
        out["declarations"] = [
            {"seat": who, "kind": BG_KINDS[i], "cards": combo_names(i)} for who, i in state.decls
        ]
        return out

    # -- match level (BG-D4, BG-S6, BG-G1 .. BG-G3) ----------------------------------------

    def after_hand(
        self, match: game.MatchState, result: game.HandResult, rules: RuleSet
    ) -> game.MatchState:
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
        return game.MatchState(
            scores=(scores[0], scores[1]),
            dealer=dealer,
            hands_played=match.hands_played + 1,
            carry=(pot, pending),
            over=over,
            winner=leader if over else None,
        )


GAME: Final = Belot()
