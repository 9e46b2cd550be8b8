"""Coinche (Belote contrée), as ``rules/belot-coinche.md`` §2 defines it (seed 003, French).

Seats 0..3 in turn order; teams 0–2 and 1–3. Coinche differs from Bulgarian Belot by its
parameters and a few hooks, on the modules they share: the card tables (:mod:`belote_family`),
the legal cards (:mod:`belote_play`, with Coinche's undertrump_required and
ta_raise_over_partner), the announcements (:mod:`belote_declarations`) and the game base and
notation skeleton (:mod:`belote_game`), on the trick-taking kernel (:mod:`referee.rules.tricks`).
Coinche's own: the auction and the deal here, its rule parameters (:mod:`coinche_rules`), the
SA / TA values and the seed's scoring formulas (:mod:`coinche_scoring`), its state
(:mod:`coinche_state`) and words (:mod:`coinche_text`).

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
from typing import ClassVar, Final

from referee.rules.cards import CARD_NAMES, PACK_32, SUIT_OF, SUITS, Card, CardSet, cards_in
from referee.rules.dealing import check_deal
from referee.rules.game import (
    JSON,
    Action,
    Announced,
    Deal,
    Fact,
    HandEnded,
    HandResult,
    MatchState,
    Step,
)
from referee.rules.games import invariants
from referee.rules.games.belote_declarations import (
    COMBO_MASKS,
    FR_KINDS,
    co_announceable,
    co_resolve,
    co_value,
)
from referee.rules.games.belote_family import (
    BELOT_PARTNER,
    CARDS_C,
    CARDS_D,
    CARDS_H,
    CARDS_S,
    KING_QUEEN,
    LAST_TRICK_BONUS,
    PACK_MASK,
)
from referee.rules.games.belote_game import AUCTION, OVER, PLAY, BeloteGame, Notation, Phase
from referee.rules.games.belote_play import legal_cards, play_rules, team_tally
from referee.rules.games.coinche_rules import CoincheRules
from referee.rules.games.coinche_scoring import card_points_table, score
from referee.rules.games.coinche_state import (
    ANNOUNCE_BASE,
    BELOTE_BASE,
    BID_BASE,
    CAPOT_LI,
    COINCHE,
    DEALERS,
    GENERALE_LI,
    LEVEL_NAMES,
    NEW_CONTRACT,
    NEW_FIXED,
    NEW_STATE,
    NUMERIC_VALUES,
    PASS,
    REBELOTE_BASE,
    SA,
    STEP,
    SURCOINCHE,
    TA,
    TRICK_TAKEN,
    CoincheState,
    Contract,
    Fixed,
    auction_cache,
    bid_code,
    fast_hands,
    new_tuple,
    playable_cards,
)
from referee.rules.games.coinche_text import (
    all_actions,
    contract_json,
    format_action,
    illegal,
    not_your_turn,
    parse_action,
)
from referee.rules.params import RuleSet
from referee.rules.seats import Seat
from referee.rules.tricks import Trick, play

__all__ = [  # the game, and the rules, scoring and announcement functions it is made of
    "AUCTION",
    "GAME",
    "OVER",
    "PLAY",
    "Coinche",
    "CoincheRules",
    "CoincheState",
    "Phase",
    "card_points_table",
    "combo_value",
    "resolve_announcements",
    "score",
]

# -- announcements (CO-A1 .. CO-A3: belote_declarations) ----------------------------------


def combo_kind(index: int) -> str:
    """The public name of a combination: tierce, cinquante, cent, carre."""
    return FR_KINDS[index]


combo_value: Final = co_value
"""CO-A1: a combination's points (:func:`belote_declarations.co_value`)."""
resolve_announcements: Final = co_resolve
"""CO-A3: the announcement contest (:func:`belote_declarations.co_resolve`)."""


# -- the game ------------------------------------------------------------------------------------


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
    notation: ClassVar[Notation] = Notation(parse_action, format_action, all_actions)
    rules_class: ClassVar[type[RuleSet]] = CoincheRules

    # -- dealing (CO-D1 .. CO-D4) ------------------------------------------------------------

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """8 cards each in packets of 3, 2, 3 from ``dealer + 1`` (CO-D2), in the order
        received."""
        if len(pack) >= 32 and 0 <= dealer < 4:
            g0, g1, g2, g3 = DEALERS[dealer]
            return Deal(hands=(g0(pack), g1(pack), g2(pack), g3(pack)), stock=())
        got: list[list[Card]] = [[], [], [], []]
        i = 0
        for size in (3, 2, 3):
            for k in range(1, 5):
                got[(dealer + k) % 4].extend(pack[i : i + size])
                i += size
        return Deal(hands=tuple(tuple(h) for h in got), stock=())

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> CoincheState:
        assert isinstance(rules, CoincheRules)
        k = rules.cards_before_auction
        fx = NEW_FIXED(Fixed)
        fx.rules = rules
        fx.dealer = dealer
        fx.first = (dealer + (1 if rules.first_hand_offset == "+1" else 3)) % 4
        fx.calls = auction_cache(rules)
        if k < 8 and deal.stock and len(deal.stock) == 4 * (8 - k):
            start = check_deal(deal, PACK_32, (k, k, k, k), 4 * (8 - k), "coinche")
            full = list(start)
            for i in range(4):
                for c in deal.stock[i * (8 - k) : (i + 1) * (8 - k)]:
                    full[(dealer + 1 + i) % 4] |= 1 << c
        else:
            fast = fast_hands(deal)
            full = (
                fast if fast is not None else check_deal(deal, PACK_32, (8, 8, 8, 8), 0, "coinche")
            )
            start = full if k == 8 else [sum(1 << c for c in h[:k]) for h in deal.hands]
        fx.full = tuple(full)
        fx.start = tuple(start)
        fx.pending = sum(full) - sum(start)
        s = NEW_STATE(CoincheState)
        s._fx = fx
        s.phase = AUCTION
        s.to_act = fx.first
        s._auc = ((), -1, -1, 1, 0)
        s.calls = None
        s.ct = None
        s.decl = ((), (0, 0, 0, 0), 0, 0)
        s.played = 0
        s.trick = None
        s.tricks = ()
        s.pm = -1
        return s

    def position(
        self,
        rules: CoincheRules,
        bid: str,
        bidder: Seat,
        hands: Mapping[Seat, Sequence[Card]],
        trick: Sequence[tuple[Seat, Card]],
        *,
        dealer: Seat = 3,
    ) -> CoincheState:
        """A play position for analysis and tests (like a FEN): contract ``bid`` (``"80H"``) by
        ``bidder``, ``hands`` what the listed seats hold now, ``trick`` the cards played to the
        current trick in order. Every other card counts as played in earlier tricks."""
        code = self.parse_action("bid:" + bid)
        full = [0, 0, 0, 0]
        played = 0
        for seat, cs in hands.items():
            for c in cs:
                full[seat] |= 1 << c
        for seat, c in trick:
            full[seat] |= 1 << c
            played |= 1 << c
        rest = PACK_MASK & ~sum(full)
        full[0] |= rest
        fx = NEW_FIXED(Fixed)
        fx.rules = rules
        fx.dealer = dealer
        fx.first = (dealer + 1) % 4
        fx.calls = auction_cache(rules)
        fx.full = fx.start = tuple(full)
        fx.pending = 0
        s = NEW_STATE(CoincheState)
        s._fx = fx
        s._auc = ((), code, bidder, 1, 3)
        s.calls = None
        s.ct = None
        s.decl = ((), (0, 0, 0, 0), 0, 0)
        s.tricks = ()
        s.played = 0
        s.trick = None
        ct = self._start_play(s).state.ct  # the contract the auction formed
        assert isinstance(ct, Contract)
        s.played = played | rest
        s.to_act = trick[0][0] if trick else (dealer + 1) % 4
        for seat, c in trick:
            s.played &= ~(1 << c)
            s.to_act = seat
            s.pm = 1 << c  # the position is taken as given: its trick is played unchecked
            s = self.apply(s, seat, c).state
        s.pm = self._playable(s, ct)
        return s

    # -- play ------------------------------------------------------------------------------------

    def legal_actions(self, state: CoincheState) -> list[Action]:
        phase = state.phase
        if phase == PLAY:
            pm = state.pm
            out = [
                *CARDS_C[(pm >> 5) & 0xFF],
                *CARDS_D[(pm >> 18) & 0xFF],
                *CARDS_H[(pm >> 31) & 0xFF],
                *CARDS_S[(pm >> 44) & 0xFF],
            ]
            ct = state.ct
            assert ct is not None
            if not state.tricks:
                out.extend(self._announcements(state, state.to_act))
            bc = pm & ct.belcards[state.to_act]
            if bc:
                out.extend(self._belote_codes(state, bc))
            return out
        if phase == AUCTION:
            calls = state.calls
            if calls is None:
                calls = state.calls = self._calls(state, state.to_act)
            return list(calls)
        return []

    def _calls(self, state: CoincheState, seat: Seat) -> tuple[Action, ...]:
        """CO-B1 .. CO-B8: the calls open to ``seat`` in the auction."""
        r = state._fx.rules
        _, top, bidder, level, _ = state._auc
        bids_open = top < 0 or level == 1 or (level == 2 and not r.coinche_freezes)
        li = -1 if top < 0 else (top - BID_BASE) // 6
        same_team = top >= 0 and (seat - bidder) % 2 == 0
        can_coinche = (
            top >= 0 and level == 1 and not same_team and (r.capot_doublable or li < CAPOT_LI)
        )
        can_sur = level == 2 and same_team
        cache = state._fx.calls
        key = (top if bids_open else -2) * 4 + 2 * can_coinche + can_sur
        found = cache.get(key)
        if found is None:
            codes = [PASS]
            if can_coinche:
                codes.append(COINCHE)
            if can_sur:
                codes.append(SURCOINCHE)
            if bids_open:
                max_li = (r.max_bid - 80) // 10
                levels = [*range(max_li + 1), CAPOT_LI]
                if r.generale:
                    levels.append(GENERALE_LI)
                top_d = -1 if top < 0 else (top - BID_BASE) % 6
                for lv in levels:
                    for d in range(6):
                        if lv > li or (lv == li and r.ranked_denominations and d > top_d):
                            codes.append(bid_code(lv, d))
            found = cache[key] = tuple(sorted(codes))
        return found

    def _playable(self, s: CoincheState, ct: Contract) -> CardSet:
        """CO-P1 .. CO-P6: the cards the seat to act may play."""
        return playable_cards(s, ct)

    def _announcements(self, s: CoincheState, seat: Seat) -> list[Action]:
        """CO-A1, CO-A2: combinations still open to ``seat`` during trick 1."""
        ct = s.ct
        assert ct is not None
        avail = ct.full[seat] & ~s.played & ~s.decl[1][seat]
        return [ANNOUNCE_BASE + i for i in co_announceable(avail)]

    def _belote_codes(self, s: CoincheState, bc: CardSet) -> list[Action]:
        """CO-A4: ``belote`` with the first of K/Q of a trump suit, ``rebelote`` with the
        second when ``belote`` was said with the first."""
        out: list[Action] = []
        rebel: list[Action] = []
        said = s.decl[2]
        for c in cards_in(bc):
            other = BELOT_PARTNER[c]
            if not (s.played >> other) & 1:
                out.append(BELOTE_BASE + c)
            elif (said >> other) & 1:
                rebel.append(REBELOTE_BASE + c)
        return out + rebel

    def apply(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        ct = state.ct
        if ct is None or state.phase != PLAY or seat != state.to_act or not 0 <= action < 64:
            return self._apply_other(state, seat, action)
        if not (state.pm >> action) & 1:
            raise illegal(state, seat, action)
        # play the card (CO-C3); the new state comes with the next seat's playable cards (pm)
        c = action
        facts: tuple[Fact, ...] = ()
        s = NEW_STATE(CoincheState)
        s.ct = ct
        played = s.played = state.played | (1 << c)
        s.decl = state.decl
        trick = state.trick
        if trick is not None:
            trick = play(trick, ct.power[trick.led], seat, c)
            lead, cards, led, win_seat, win_card = trick
            if len(cards) == 4:  # the trick is complete (CO-C3)
                c0, c1, c2, c3 = cards
                pts = ct.points
                tpts = pts[c0] + pts[c1] + pts[c2] + pts[c3]
                tricks = state.tricks
                n = len(tricks) + 1
                if n == 8:
                    tpts += LAST_TRICK_BONUS
                plays = ((lead, c0), ((lead + 1) & 3, c1), ((lead + 2) & 3, c2), (seat, c3))
                taken = new_tuple(TRICK_TAKEN, (n, plays, win_seat, tpts))
                s.tricks = (*tricks, taken)
                s.trick = None
                s.to_act = win_seat
                if n == 8:
                    s.phase = OVER
                    s.pm = 0
                    return Step(s, (taken, HandEnded(self.result(s))))
                s.phase = PLAY
                s.pm = ct.full[win_seat] & ~played  # CO-P1
                return new_tuple(STEP, (s, (taken,)))
        else:
            led, win_seat, win_card = SUIT_OF[c], seat, c
            trick = new_tuple(Trick, (seat, (c,), led, seat, c))
            if len(state.tricks) == 1 and state.decl[0]:
                facts = (self._reveal(state, ct),)
        s.trick = trick
        s.phase = PLAY
        s.tricks = state.tricks
        nxt = s.to_act = (seat + 1) & 3
        # the next seat's playable cards (CO-P2 .. CO-P6)
        s.pm = legal_cards(ct.play, ct.full[nxt] & ~played, nxt, led, win_card, win_seat)
        return new_tuple(STEP, (s, facts))

    def _apply_other(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        """Everything but a plain card play by the seat to act: calls, announcements,
        belote / rebelote, and the refusals."""
        ct = state.ct
        phase = state.phase
        if phase == OVER or seat != state.to_act:
            if (
                phase == AUCTION
                and action == COINCHE
                and state.fx.rules.coinche_out_of_turn
                and COINCHE in self._calls(state, seat)
            ):
                return self._auction(state, seat, action)
            raise not_your_turn(state, seat, action)
        if phase == AUCTION:
            calls = state.calls
            if calls is None:
                calls = state.calls = self._calls(state, seat)
            if action not in calls:
                raise illegal(state, seat, action)
            return self._auction(state, seat, action)
        if action not in self.legal_actions(state):
            raise illegal(state, seat, action)
        assert ct is not None
        if action >= BELOTE_BASE:  # CO-A4: the card is played saying belote or rebelote
            anns, used, bel, rebel = state.decl
            said = state.copy()
            if action >= REBELOTE_BASE:
                c = action - REBELOTE_BASE
                fact = Announced("rebelote", {"seat": seat, "card": CARD_NAMES[c]})
                said.decl = (anns, used, bel, rebel | (1 << c))
            else:
                c = action - BELOTE_BASE
                fact = Announced("belote", {"seat": seat, "card": CARD_NAMES[c]})
                said.decl = (anns, used, bel | (1 << c), rebel)
            step = self.apply(said, seat, c)
            return new_tuple(STEP, (step.state, (fact, *step.facts)))
        # announce: the kind is public now, the cards when trick 2 starts (CO-A2)
        index = action - ANNOUNCE_BASE
        s = state.copy()
        anns, used, bel, rebel = state.decl
        new_used = list(used)
        new_used[seat] |= COMBO_MASKS[index]
        s.decl = ((*anns, (seat, index)), tuple(new_used), bel, rebel)
        return Step(s, (Announced("announce", {"seat": seat, "kind": combo_kind(index)}),))

    def _auction(self, state: CoincheState, seat: Seat, action: Action) -> Step:
        s = NEW_STATE(CoincheState)
        s._fx = state._fx
        s.calls = None
        s.ct = None
        s.phase = AUCTION
        s.decl = state.decl
        s.played = state.played
        s.trick = state.trick
        s.tricks = state.tricks
        s.pm = -1
        calls, top, bidder, level, passes = state._auc
        calls = (*calls, (seat, action))
        s.to_act = (seat + 1) & 3
        if action == PASS:
            passes += 1
            s._auc = (calls, top, bidder, level, passes)
            if top < 0 and passes == 4:  # CO-B6c: thrown in
                s.phase = OVER
                return Step(s, (HandEnded(self.result(s)),))
            if top >= 0 and passes == 3:  # CO-B6b
                return self._start_play(s)
            return new_tuple(STEP, (s, ()))
        if action == COINCHE:  # CO-B4
            s._auc = (calls, top, bidder, 2, 0)
            return Step(s, (Announced("coinche", {"seat": seat}),))
        if action == SURCOINCHE:  # CO-B5: ends the auction at once
            s._auc = (calls, top, bidder, 4, 0)
            return self._start_play(s, (Announced("surcoinche", {"seat": seat}),))
        # a bid (CO-B2, CO-B3); with coinche_freezes off it cancels a coinche
        s._auc = (calls, action, seat, 1, 0)
        return Step(s, ())

    def _start_play(self, s: CoincheState, facts: tuple[Fact, ...] = ()) -> Step:
        r = s._fx.rules
        _, top, bidder, level, _ = s._auc
        li, denom = divmod(top - BID_BASE, 6)
        ct = NEW_CONTRACT(Contract)
        ct.fx = s._fx
        ct.auc = s._auc
        ct.full = s._fx.full
        ct.play = play = play_rules(
            denom,
            undertrump=r.undertrump_required,
            raise_over_partner=r.ta_raise_over_partner,
        )
        ct.denom = denom
        ct.li = li
        ct.value = (
            r.capot_value
            if li == CAPOT_LI
            else r.generale_value
            if li == GENERALE_LI
            else NUMERIC_VALUES[li]
        )
        ct.bidder = bidder
        ct.level = level
        ct.power = play.power
        ct.points = card_points_table(denom, r)
        trumps = () if denom == SA else SUITS if denom == TA else (denom,)
        belcards = []
        for seat in range(4):
            m = 0
            for t in trumps:
                if s._fx.full[seat] & KING_QUEEN[t] == KING_QUEEN[t]:
                    m |= KING_QUEEN[t]
            belcards.append(m)
        ct.belcards = tuple(belcards)
        s.ct = ct
        s.phase = PLAY
        # the first hand leads whoever won the auction (§0.1, CO-D3)
        first = s.to_act = ct.fx.first
        s.pm = ct.full[first] & ~s.played  # CO-P1
        fact = Announced("contract", contract_json(ct))
        return Step(s, (*facts, fact))

    def _reveal(self, state: CoincheState, ct: Contract) -> Announced:
        """CO-A2: the announcements are shown and resolved as trick 2 starts."""
        r = state.fx.rules
        anns = state.decl[0]
        a0, a1, team = co_resolve(anns, ct.denom, r)
        return Announced(
            "announcements",
            {
                "shown": [self._ann_json(seat, i, ct.denom, r) for seat, i in anns],
                "scoring_team": team,
                "points": [a0, a1],
            },
        )

    def _ann_json(self, seat: Seat, index: int, denom: int, r: CoincheRules) -> dict[str, JSON]:
        return {
            "seat": seat,
            "kind": combo_kind(index),
            "cards": [CARD_NAMES[c] for c in cards_in(COMBO_MASKS[index])],
            "points": co_value(index, denom, r),
        }

    # -- scoring ------------------------------------------------------------------------------


    def check_result(self, result: HandResult, rules: RuleSet) -> None:
        """The invariants every scored deal satisfies (the conformance suite checks them over
        random deals). :raises ConformanceError: one is broken."""
        invariants.coinche(result, rules)
    def result(self, state: CoincheState) -> HandResult:
        res: HandResult | None = getattr(state, "res", None)
        if res is None:
            res = state.res = self._result(state)
        return res

    def _result(self, state: CoincheState) -> HandResult:
        ct = state.ct
        if ct is None:
            return HandResult((0, 0), {"redeal": True}, void=True)
        r = state.fx.rules
        anns, _, _, rebel = state.decl
        taker = ct.bidder & 1
        card, tricks, _ = team_tally(state.tricks)
        for team in (0, 1):
            if tricks[team] == 8:  # capot (CO-S1)
                card[team], card[1 - team] = r.capot_card_points, 0
        a0, a1, _ = co_resolve(anns, ct.denom, r)
        bel = [0, 0]
        if r.belote_must_be_said:
            for c in cards_in(rebel):
                bel[self._holder(state, c) & 1] += 20
        else:
            for seat in range(4):
                bel[seat & 1] += 20 * (ct.belcards[seat].bit_count() // 2)
        kind = "capot" if ct.li == CAPOT_LI else "generale" if ct.li == GENERALE_LI else "numeric"
        all_tricks = state.won[ct.bidder] == 8 if kind == "generale" else tricks[taker] == 8
        made, points = score(
            r,
            value=ct.value,
            kind=kind,
            level=ct.level,
            card=(card[0], card[1]),
            ann=(a0, a1),
            bel=(bel[0], bel[1]),
            taker=taker,
            all_tricks=all_tricks,
        )
        detail: dict[str, JSON] = {
            "contract": contract_json(ct),
            "made": made,
            "tricks": list(tricks),
            "card_points": card,
            "announcements": [self._ann_json(s, i, ct.denom, r) for s, i in anns],
            "announcement_points": [a0, a1],
            "belote": bel,
            "capot": 8 in tricks,
        }
        return HandResult(points, detail)

    def _holder(self, state: CoincheState, c: Card) -> Seat:
        for seat in range(4):
            if (state.fx.full[seat] >> c) & 1:
                return seat
        raise AssertionError(c)

    # -- views --------------------------------------------------------------------------------

    def view(self, state: CoincheState, seat: Seat | None) -> dict[str, JSON]:
        ct = state.ct
        calls, top, bidder, level, _ = state.auc
        anns, _, bel, rebel = state.decl
        trick = state.trick
        revealed = (
            len(state.tricks) > 1
            or (len(state.tricks) == 1 and trick is not None)
            or state.phase == OVER
        )
        out: dict[str, JSON] = {
            "game": self.name,
            "phase": Phase(state.phase).name.lower(),
            "dealer": state.fx.dealer,
            "first_hand": state.fx.first,
            "to_act": self.current_seat(state),
            "calls": [{"seat": p, "action": self.format_action(a)} for p, a in calls],
            "standing_bid": self.format_action(top)[4:] if top >= 0 else None,
            "bidder": bidder if bidder >= 0 else None,
            "coinche": LEVEL_NAMES[level],
            "contract": contract_json(ct) if ct is not None else None,
            "hand_sizes": [state.hand(p).bit_count() for p in range(4)],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in trick.plays()]
            if trick is not None
            else [],
            "tricks": [t.to_json() for t in state.tricks],
            "card_points": list(state.points),
            "announcements": [
                self._ann_json(p, i, ct.denom, state.fx.rules)
                if revealed and ct is not None
                else {"seat": p, "kind": combo_kind(i)}
                for p, i in anns
            ],
            "belote": [CARD_NAMES[c] for c in cards_in(bel)],
            "rebelote": [CARD_NAMES[c] for c in cards_in(rebel)],
        }
        if seat is not None:
            out["seat"] = seat
            out["hand"] = [CARD_NAMES[c] for c in cards_in(state.hand(seat))]
            if ct is not None:
                out["my_announcements"] = [
                    self._ann_json(p, i, ct.denom, state.fx.rules) for p, i in anns if p == seat
                ]
        if state.phase == OVER:
            out["result"] = self.result(state).to_json()
        return out

    def audit_view(self, state: CoincheState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(state.hand(p))] for p in range(4)]
        out["dealt"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.fx.full]
        if state.ct is not None:
            out["announcements"] = [
                self._ann_json(p, i, state.ct.denom, state.fx.rules) for p, i in state.decl[0]
            ]
        return out

    def card_locations(self, state: CoincheState) -> dict[str, CardSet]:
        where = {f"hand{p}": state.hand(p) for p in range(4)}
        where["played"] = state.played
        where["not_yet_dealt"] = state.fx.pending if state.ct is None else 0
        return where

    # -- match level (CO-D1, CO-G1 .. CO-G3) ----------------------------------------------------

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0), dealer=first_dealer)

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        assert isinstance(rules, CoincheRules)
        a, b = (x + y for x, y in zip(match.scores, result.points, strict=True))
        same = result.void and rules.redeal_same_dealer
        over = max(a, b) >= rules.target_score and (a != b or rules.tie_at_target == "draw")
        return MatchState(
            scores=(a, b),
            dealer=match.dealer if same else (match.dealer + 1) % 4,
            hands_played=match.hands_played + 1,
            over=over,
            winner=(0 if a > b else 1 if b > a else None) if over else None,
        )


GAME: Final = Coinche()
