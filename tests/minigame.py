"""A small trick-taking game that exists only in the tests (issue 17, item 3): proof that the
``Game`` contract is all the service, the projections and the clients need to know.

Six seats in three partnerships (seats ``s`` and ``s + 3``, so ``sides = 3``), unlike any
registered game. The 24-card pack (9 to ace), four cards each, nothing left over. The seat
after the dealer leads; each seat must follow suit if it can; the highest card of the led suit
wins the trick (no trumps) and leads the next. Each trick is a point for the winner's side; the
first side to reach ``target_score`` with more points than every other side wins the match.

Register it only inside a test (:func:`registered`): it must never be named in product code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from referee.rules import registry
from referee.rules.cards import (
    CARD_NAMES,
    PACK_24,
    RANK_OF,
    SUIT_MASKS,
    SUIT_OF,
    Card,
    CardSet,
    cards_in,
    parse_card,
)
from referee.rules.dealing import check_deal
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import (
    JSON,
    VERB_BASE,
    Action,
    Deal,
    Fact,
    Game,
    HandEnded,
    HandResult,
    MatchState,
    Step,
    TrickTaken,
    cards_taken,
)
from referee.rules.params import RuleSet, param
from referee.rules.seats import Seat

SEATS = 6
SIDES = 3
HAND = 4


@dataclasses.dataclass(frozen=True)
class TriadsRules(RuleSet):
    target_score: int = param(5, "TR-9", "points that win the match", minimum=1)


@dataclasses.dataclass(frozen=True)
class TriadsState:
    rules: TriadsRules
    dealer: Seat
    to_act: Seat | None
    hands: tuple[CardSet, ...]
    trick: tuple[tuple[Seat, Card], ...] = ()
    tricks: tuple[TrickTaken, ...] = ()
    won: tuple[int, ...] = (0,) * SIDES


class Triads:
    """Triads: six seats, three partnerships, follow suit, highest of the led suit wins."""

    name: ClassVar[str] = "triads"
    aliases: ClassVar[tuple[str, ...]] = ("triad",)
    title: ClassVar[str] = "Triads (test-only)"
    num_seats: ClassVar[int] = SEATS
    partnerships: ClassVar[bool] = True
    match_length: ClassVar[str] = "target_score"
    hidden_verbs: ClassVar[frozenset[str]] = frozenset()
    pack: ClassVar[tuple[Card, ...]] = PACK_24
    rules_class: ClassVar[type[RuleSet]] = TriadsRules

    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        hands = [tuple(pack[HAND * i : HAND * i + HAND]) for i in range(SEATS)]
        return Deal(hands=tuple(hands[(s - dealer - 1) % SEATS] for s in range(SEATS)), stock=())

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> TriadsState:
        assert isinstance(rules, TriadsRules)
        hands = check_deal(deal, PACK_24, (HAND,) * SEATS, 0, self.name)
        return TriadsState(rules, dealer, (dealer + 1) % SEATS, tuple(hands))

    def current_seat(self, state: TriadsState) -> Seat | None:
        return state.to_act

    def is_terminal(self, state: TriadsState) -> bool:
        return state.to_act is None

    def _playable(self, state: TriadsState, seat: Seat) -> CardSet:
        hand = state.hands[seat]
        if state.trick:
            follow = hand & SUIT_MASKS[SUIT_OF[state.trick[0][1]]]
            if follow:
                return follow
        return hand

    def legal_actions(self, state: TriadsState) -> list[Action]:
        if state.to_act is None:
            return []
        return cards_in(self._playable(state, state.to_act))

    def apply(self, state: TriadsState, seat: Seat, action: Action) -> Step:
        if state.to_act is None:
            raise NotYourTurnError("the deal is over", "TR-5")
        if seat != state.to_act:
            raise NotYourTurnError(f"it is seat {state.to_act}'s turn, not seat {seat}'s", "TR-5")
        if not 0 <= action < VERB_BASE or not state.hands[seat] >> action & 1:
            raise IllegalActionError(f"{self._text(action)!r}: you do not hold that card", "TR-6")
        if not self._playable(state, seat) >> action & 1:
            raise IllegalActionError(f"{self._text(action)!r}: must follow suit", "TR-6")
        hands = list(state.hands)
        hands[seat] &= ~(1 << action)
        trick = (*state.trick, (seat, action))
        if len(trick) < SEATS:
            s = dataclasses.replace(state, hands=tuple(hands), trick=trick,
                                    to_act=(seat + 1) % SEATS)
            return Step(s, ())
        led = SUIT_OF[trick[0][1]]
        winner = max((p for p in trick if SUIT_OF[p[1]] == led), key=lambda p: RANK_OF[p[1]])[0]
        taken = TrickTaken(len(state.tricks) + 1, trick, winner)
        won = list(state.won)
        won[winner % SIDES] += 1
        over = len(state.tricks) + 1 == HAND
        s = dataclasses.replace(state, hands=tuple(hands), trick=(), tricks=(*state.tricks, taken),
                                won=tuple(won), to_act=None if over else winner)
        facts: tuple[Fact, ...] = (taken, HandEnded(self.result(s))) if over else (taken,)
        return Step(s, facts)

    def result(self, state: TriadsState) -> HandResult:
        return HandResult(state.won, {"tricks": list(state.won)})

    def check_result(self, result: HandResult, rules: RuleSet) -> None:
        """Every trick goes to one side: the points are the tricks, HAND in all."""
        if sum(result.points) != HAND:
            raise AssertionError(f"{sum(result.points)} tricks scored, not {HAND}")

    def view(self, state: TriadsState, seat: Seat | None) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "game": self.name,
            "phase": "over" if state.to_act is None else "play",
            "dealer": state.dealer,
            "to_act": state.to_act,
            "hand_sizes": [h.bit_count() for h in state.hands],
            "trick": [{"seat": p, "card": CARD_NAMES[c]} for p, c in state.trick],
            "tricks": [t.to_json() for t in state.tricks],
            "tricks_won": list(state.won),
        }
        if seat is not None:
            out["seat"] = seat
            out["hand"] = [CARD_NAMES[c] for c in cards_in(state.hands[seat])]
        if state.to_act is None:
            out["result"] = self.result(state).to_json()
        return out

    def audit_view(self, state: TriadsState) -> dict[str, JSON]:
        out = self.view(state, None)
        out["hands"] = [[CARD_NAMES[c] for c in cards_in(h)] for h in state.hands]
        return out

    def parse_action(self, text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if verb != "play" or not sep:
            raise InvalidActionError(f"{text!r} is not a Triads action (play:<card>)")
        c = parse_card(arg)
        if c not in PACK_24:
            raise InvalidActionError(f"{text!r}: {CARD_NAMES[c]} is not in the Triads pack")
        return c

    def format_action(self, action: Action) -> str:
        return "play:" + CARD_NAMES[action]

    def _text(self, action: Action) -> str:
        return self.format_action(action) if 0 <= action < len(CARD_NAMES) else str(action)

    def all_actions(self) -> list[Action]:
        return sorted(PACK_24)

    def card_locations(self, state: TriadsState) -> dict[str, CardSet]:
        where = {f"hand{s}": h for s, h in enumerate(state.hands)}
        played = cards_taken(state.tricks)
        for _, c in state.trick:
            played |= 1 << c
        where["played"] = played
        return where

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0,) * SIDES, dealer=first_dealer)

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        assert isinstance(rules, TriadsRules)
        scores = tuple(a + b for a, b in zip(match.scores, result.points, strict=True))
        top = max(scores)
        leaders = [t for t in range(SIDES) if scores[t] == top]
        over = top >= rules.target_score and len(leaders) == 1
        return MatchState(scores=scores, dealer=(match.dealer + 1) % SEATS,
                          hands_played=match.hands_played + 1, over=over,
                          winner=leaders[0] if over else None)


GAME = Triads()


@contextmanager
def registered() -> Iterator[Any]:
    """The game in the registry (``GAMES`` and its aliases) for the duration, then removed."""
    registry.register(GAME)
    try:
        yield GAME
    finally:
        registry.unregister(GAME.name)


_CONFORMS: Game[TriadsState] = GAME
"""A static check: mypy proves ``Triads`` implements the ``Game`` protocol."""
