"""Coinche (Belote contrée), as ``rules/belot-coinche.md`` §2 defines it (seed 003, French).

Seats 0..3 in turn order; teams 0–2 and 1–3. Coinche differs from Bulgarian Belot by its
parameters and a few hooks on the Belote-family base (:mod:`belote_game`); its own state and
words are ``coinche_*``.

The deal (CO-D2): eight cards to each seat in packets of 3, 2, 3 from ``dealer + 1``;
``deal.hands[s]`` lists the cards in the order received and ``deal.stock`` is empty. With
``cards_before_auction = k < 8`` (the seed's literal reading, CO-D4) a seat holds only the first
``k`` cards of its hand during the auction; a record may instead give ``k`` cards per hand and
the other ``32 - 4k`` in ``stock``, ``8 - k`` per seat in deal order from ``dealer + 1``.

Phases: the auction, the play (announcements and belote are said during play), over.
Sources: the seed; https://www.pagat.com/jass/coinche.html; FFB rules as quoted in the
Avo-k/colver rules survey (see the reference §2.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, TypeAlias

from referee.rules import game
from referee.rules.cards import CARD_NAMES, SUITS, Card, CardSet, cards_in, names
from referee.rules.games.belote_declarations import (
    FR_KINDS,
    co_announceable,
    co_resolve,
    co_value,
    combo_json,
)
from referee.rules.games.belote_family import (
    ALL_TRUMPS,
    BELOT_PARTNER,
    KING_QUEEN,
    NO_TRUMPS,
    PACK_MASK,
)
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, phases
from referee.rules.games.belote_play import play_rules, team_tally
from referee.rules.games.belote_rules import CoincheRules
from referee.rules.games.belote_scoring import card_points_table, score
from referee.rules.games.belote_state import (
    LOW,
    BeloteState,
    Ctx,
    deal_getters,
    pack,
    playable_cards,
)
from referee.rules.games.belote_text import Notation
from referee.rules.games.coinche_state import (
    ANNOUNCE_BASE,
    BELOTE_BASE,
    BID_BASE,
    CAPOT_LI,
    COINCHE,
    GENERALE_LI,
    LEVEL_NAMES,
    NUMERIC_VALUES,
    PASS,
    REBELOTE_BASE,
    SURCOINCHE,
    bid_code,
)
from referee.rules.games.coinche_text import NOTATION, contract_json
from referee.rules.params import RuleSet
from referee.rules.phased import Phase
from referee.rules.seats import Seat

__all__ = [  # the game, and the rules, scoring and announcement functions it is made of
    "AUCTION",
    "GAME",
    "OVER",
    "PLAY",
    "Coinche",
    "CoincheRules",
    "CoincheState",
    "card_points_table",
    "combo_value",
    "resolve_announcements",
    "score",
]

combo_value: Final = co_value
"""CO-A1: a combination's points (:func:`belote_declarations.co_value`)."""
resolve_announcements: Final = co_resolve
"""CO-A3: the announcement contest (:func:`belote_declarations.co_resolve`)."""
CoincheState: TypeAlias = BeloteState
"""One Coinche deal: the family's state."""


class Coinche(BeloteGame):
    """Coinche / belote contrée: 32 cards, contract bidding 80..160 / capot, coinche x2 and
    surcoinche x4, announcements, belote-rebelote, 82-point floor, to 701."""

    name: ClassVar[str] = "coinche"
    #: The duplicate comparison's scale (``referee.rules.game.scaled_difference``):
    #: 162 card points and contracts of 80 to 500 (CO-S1..S5).
    difference_scale: ClassVar[tuple[int, ...]] = (10, 20, 40, 70, 100, 150, 200, 300, 400, 500)

    aliases: ClassVar[tuple[str, ...]] = ("belote_contree", "contree", "belote-contree")
    title: ClassVar[str] = "Coinche (Belote contrée)"
    #: Seen only by the acting seat while the hand runs: announcements name the cards they show.
    hidden_verbs: ClassVar[frozenset[str]] = frozenset({"announce", "belote", "rebelote"})
    notation: ClassVar[Notation] = NOTATION
    PHASES: ClassVar[Sequence[Phase]] = phases(
        ("CO-D3", "CO-C3", "CO-B6"), ("pass", "bid", "coinche", "surcoinche"),
        ("play", "announce", "belote", "rebelote"),
    )
    rules_class: ClassVar[type[RuleSet]] = CoincheRules
    doubles: ClassVar[Mapping[game.Action, int]] = {COINCHE: 2, SURCOINCHE: 4}
    doubles_said: ClassVar[bool] = True
    closing: ClassVar[int] = 4  # a surcoinche ends the auction (CO-B5)
    calls_params: ClassVar[tuple[str, ...]] = (
        "coinche_freezes", "capot_doublable", "max_bid", "generale", "ranked_denominations"
    )
    last_ten: ClassVar[int] = 10  # dix de der, in the last trick's points (CO-C1)
    getters: ClassVar[tuple[tuple[Any, ...], ...]] = deal_getters((3, 2, 3))  # CO-D2

    # -- dealing (CO-D1 .. CO-D4) ------------------------------------------------------------

    def _dealt(self, deal: game.Deal, dealer: Seat, rules: Any) -> tuple[int, int, Seat]:
        k = rules.cards_before_auction
        if k < 8 and deal.stock and len(deal.stock) == 4 * (8 - k):  # k cards, then the rest
            held, rest = self._packed(deal, k, 8 - k, dealer)
        else:
            held, rest = self._packed(deal, 8, 0, dealer)
            if k < 8:  # the first k cards of each hand in the auction (CO-D4)
                full = held
                held = pack([sum(1 << c for c in h[:k]) for h in deal.hands])
                rest = full ^ held
        return held, rest, (dealer + (1 if rules.first_hand_offset == "+1" else 3)) % 4

    def position(
        self,
        rules: CoincheRules,
        bid: str,
        bidder: Seat,
        hands: Mapping[Seat, Sequence[Card]],
        trick: Sequence[tuple[Seat, Card]],
        *,
        dealer: Seat = 3,
    ) -> BeloteState:
        """A play position for analysis and tests (like a FEN): contract ``bid`` (``"80H"``) by
        ``bidder``, ``hands`` what the listed seats hold now, ``trick`` the cards played to the
        current trick in order. Every other card counts as played in earlier tricks."""
        code = self.parse_action("bid:" + bid)
        full = [0, 0, 0, 0]
        for seat, cs in hands.items():
            for c in cs:
                full[seat] |= 1 << c
        for seat, c in trick:
            full[seat] |= 1 << c
        held = pack(full)
        full[0] |= PACK_MASK & ~sum(full)
        base = self._deal_ctx(rules, dealer, (dealer + 1) % 4, (), 0, pack(full))
        s = self._new_state(self._ctx(base, (), code, bidder, 1, 3, True), held)
        self._start_play(s)
        s.to_act = trick[0][0] if trick else (dealer + 1) % 4
        for seat, c in trick:
            s.to_act = seat
            s.legal = 1 << c  # the position is taken as given: its trick is played unchecked
            s = self.apply(s, seat, c).state
        return s

    # -- the auction (CO-B1 .. CO-B8) --------------------------------------------------------

    def _calls_for(self, ctx: Ctx, same_team: bool) -> list[game.Action]:
        """CO-B1 .. CO-B8: the calls open to the bidder's team (``same_team``) or the other."""
        r = ctx.rules
        top, level = ctx.top, ctx.level
        bids_open = top < 0 or level == 1 or (level == 2 and not r.coinche_freezes)
        li = -1 if top < 0 else (top - BID_BASE) // 6
        can_coinche = (
            top >= 0 and level == 1 and not same_team and (r.capot_doublable or li < CAPOT_LI)
        )
        codes = [PASS]
        if can_coinche:
            codes.append(COINCHE)
        if level == 2 and same_team:
            codes.append(SURCOINCHE)
        if bids_open:
            levels = [*range((r.max_bid - 80) // 10 + 1), CAPOT_LI]
            if r.generale:
                levels.append(GENERALE_LI)
            top_d = -1 if top < 0 else (top - BID_BASE) % 6
            for lv in levels:
                for d in range(6):
                    if lv > li or (lv == li and r.ranked_denominations and d > top_d):
                        codes.append(bid_code(lv, d))
        return codes

    def _tables(self, ctx: Ctx) -> None:
        r = ctx.rules
        li, denom = divmod(ctx.top - BID_BASE, 6)
        ctx.play = play_rules(
            denom, undertrump=r.undertrump_required, raise_over_partner=r.ta_raise_over_partner
        )
        ctx.power = ctx.play.power
        ctx.points = card_points_table(denom, r)
        ctx.value = (*NUMERIC_VALUES, r.capot_value, r.generale_value)[li]
        trumps = () if denom == NO_TRUMPS else SUITS if denom == ALL_TRUMPS else (denom,)
        dealt = [(ctx.dealt >> (seat << 6)) & LOW for seat in range(4)]
        ctx.kq = tuple(sum(KING_QUEEN[t] for t in trumps if h & KING_QUEEN[t] == KING_QUEEN[t])
                       for h in dealt)  # fmt: skip
        ctx.decl_ok = True

    def _out_of_turn(self, state: BeloteState, seat: Seat, action: game.Action) -> game.Step:
        if state.phase == AUCTION and action == COINCHE:  # CO-B4
            if state.ctx.rules.coinche_out_of_turn and COINCHE in self._calls(state, seat):
                return self._auction(state, seat, action)  # V26: a coinche 'a la volee'
            raise self._not_your_turn(state, seat, action, "CO-B4")
        return super()._out_of_turn(state, seat, action)

    def _contract_json(self, ctx: Ctx) -> dict[str, game.JSON]:
        return contract_json(ctx)

    # -- play (CO-P*, CO-A*) -----------------------------------------------------------------

    def _playable(self, state: BeloteState, ct: Ctx | None) -> CardSet:
        """CO-P1 .. CO-P6: the cards the seat to act may play (computed afresh)."""
        return playable_cards(state)

    def _extras(
        self, state: BeloteState, seat: Seat, legal: CardSet, out: list[game.Action]
    ) -> None:
        if not state.tricks:  # CO-A1, CO-A2: combinations still open during trick 1
            avail = state.hand(seat) & ~state.declared(seat)
            out.extend(ANNOUNCE_BASE + i for i in co_announceable(avail))
        bc = legal & state.ctx.kq[seat]
        if bc:  # CO-A4: belote with the first of K/Q of trumps, rebelote with the second
            hand = state.hand(seat)
            said = sum(1 << (a & 63) for _, a in state.belots if a < REBELOTE_BASE)
            rebel: list[game.Action] = []
            for c in cards_in(bc):
                other = BELOT_PARTNER[c]
                if (hand >> other) & 1:
                    out.append(BELOTE_BASE + c)
                elif (said >> other) & 1:
                    rebel.append(REBELOTE_BASE + c)
            out.extend(rebel)

    def _said(self, seat: Seat, action: game.Action) -> game.Announced:
        what = "rebelote" if action >= REBELOTE_BASE else "belote"
        return game.Announced(what, {"seat": seat, "card": CARD_NAMES[action & 63]})

    def _reveal(self, state: BeloteState) -> tuple[game.Fact, ...]:
        """CO-A2: the announcements are shown and resolved as trick 2 starts."""
        ctx = state.ctx
        a0, a1, team = co_resolve(state.decls, ctx.contract, ctx.rules)
        shown: list[game.JSON] = [self._ann_json(seat, i, ctx) for seat, i in state.decls]
        data = {"shown": shown, "scoring_team": team, "points": [a0, a1]}
        return (game.Announced("announcements", data),)

    def _ann_json(self, seat: Seat, index: int, ctx: Ctx) -> dict[str, game.JSON]:
        return combo_json(seat, index, FR_KINDS[index], co_value(index, ctx.contract, ctx.rules))

    # -- scoring ------------------------------------------------------------------------------

    def _result(self, state: BeloteState) -> game.HandResult:
        ctx = state.ctx
        r = ctx.rules
        anns = state.decls
        taker = ctx.bidder & 1
        card, tricks, _ = team_tally(state.tricks)
        for team in (0, 1):
            if tricks[team] == 8:  # capot (CO-S1)
                card[team], card[1 - team] = r.capot_card_points, 0
        a0, a1, _ = co_resolve(anns, ctx.contract, r)
        bel = [0, 0]
        if r.belote_must_be_said:
            for seat, a in state.belots:
                if a >= REBELOTE_BASE:
                    bel[seat & 1] += 20
        else:
            for seat in range(4):
                bel[seat & 1] += 20 * (ctx.kq[seat].bit_count() // 2)
        li = (ctx.top - BID_BASE) // 6
        kind = "capot" if li == CAPOT_LI else "generale" if li == GENERALE_LI else "numeric"
        if kind == "generale":
            all_tricks = sum(t.winner == ctx.bidder for t in state.tricks) == 8
        else:
            all_tricks = tricks[taker] == 8
        made, points = score(
            r, value=ctx.value, kind=kind, level=ctx.level, card=(card[0], card[1]), ann=(a0, a1),
            bel=(bel[0], bel[1]), taker=taker, all_tricks=all_tricks,
        )
        detail: dict[str, game.JSON] = {
            "contract": contract_json(ctx),
            "made": made,
            "tricks": list(tricks),
            "card_points": card,
            "announcements": [self._ann_json(s, i, ctx) for s, i in anns],
            "announcement_points": [a0, a1],
            "belote": bel,
            "capot": 8 in tricks,
        }
        return game.HandResult(points, detail)

    # -- views --------------------------------------------------------------------------------

    def view(self, state: BeloteState, seat: Seat | None) -> dict[str, game.JSON]:
        ctx = state.ctx
        ct = ctx if state.phase != AUCTION and ctx.top >= 0 else None
        anns = state.decls
        bel = sum(1 << (a & 63) for _, a in state.belots if a < REBELOTE_BASE)
        rebel = sum(1 << (a & 63) for _, a in state.belots if a >= REBELOTE_BASE)
        n = len(state.tricks)
        revealed = n > 1 or (n == 1 and bool(state.trick)) or state.phase == OVER
        fields: dict[str, game.JSON] = {
            "first_hand": ctx.first,
            "calls": [{"seat": p, "action": self.format_action(a)} for p, a in ctx.calls],
            "standing_bid": self.format_action(ctx.top)[4:] if ctx.top >= 0 else None,
            "bidder": ctx.bidder if ctx.bidder >= 0 else None,
            "coinche": LEVEL_NAMES[ctx.level],
            "contract": contract_json(ct) if ct is not None else None,
            "card_points": list(team_tally(state.tricks)[0]),
            "announcements": [
                self._ann_json(p, i, ct)
                if revealed and ct is not None
                else {"seat": p, "kind": FR_KINDS[i]}
                for p, i in anns
            ],
            "belote": names(cards_in(bel)),
            "rebelote": names(cards_in(rebel)),
        }
        mine = None if ct is None else [self._ann_json(p, i, ct) for p, i in anns if p == seat]
        return self._view(state, seat, fields, my_announcements=mine)

    def audit_view(self, state: BeloteState) -> dict[str, game.JSON]:
        ctx = state.ctx
        out = self._audit(state)
        out["dealt"] = [names(cards_in((ctx.dealt >> (p << 6)) & LOW)) for p in range(4)]
        if state.phase != AUCTION and ctx.top >= 0:
            out["announcements"] = [self._ann_json(p, i, ctx) for p, i in state.decls]
        return out

    # -- match level (CO-D1, CO-G1 .. CO-G3) ----------------------------------------------------

    def after_hand(
        self, match: game.MatchState, result: game.HandResult, rules: RuleSet
    ) -> game.MatchState:
        assert isinstance(rules, CoincheRules)
        a, b = (x + y for x, y in zip(match.scores, result.points, strict=True))
        same = result.void and rules.redeal_same_dealer
        over = max(a, b) >= rules.target_score and (a != b or rules.tie_at_target == "draw")
        return game.MatchState(
            scores=(a, b),
            dealer=match.dealer if same else (match.dealer + 1) % 4,
            hands_played=match.hands_played + 1,
            over=over,
            winner=(0 if a > b else 1 if b > a else None) if over else None,
        )


GAME: Final = Coinche()
