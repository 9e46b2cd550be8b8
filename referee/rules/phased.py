"""What a game played in phases answers the same way in every phase: whose turn it is, that
the deal is over, the words of a refusal, the frame of a view, the cards already played.

A game mixes in :class:`Phased` and declares its phases as data, one :class:`Phase` row each
(its name, the rule that says who acts, what it expects and its verbs), and the one that ends
the deal (``OVER``); the messages are written once here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol

from referee.rules.cards import SUIT_LETTERS, Card, CardSet, Suit, cards_in, mask_of, names
from referee.rules.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from referee.rules.game import (
    JSON,
    Action,
    HandResult,
    MatchState,
    TrickTaken,
    actions_of,
    cards_taken,
)
from referee.rules.params import RuleSet
from referee.rules.seats import Seat

__all__ = [
    "Phase",
    "Phased",
    "PhasedState",
    "action_text",
    "known",
    "not_your_turn",
    "parse_suit",
    "played",
    "word_action",
]


class Phase(NamedTuple):
    """One phase of a deal, as data."""

    name: str
    """Its name in views (``"play"``)."""
    turn_rule: str = ""
    """The rule that says who acts (quoted when another seat tries to)."""
    expects: str = ""
    """What may be done, in words (quoted when an action of another phase is tried)."""
    rule: str = ""
    """The rule that says so."""
    verbs: tuple[str, ...] = ()
    """The verbs of its actions (what a dispute replay explains there)."""


class PhasedState(Protocol):
    """What :class:`Phased` reads of a state."""

    @property
    def phase(self) -> int: ...

    @property
    def to_act(self) -> Seat: ...

    @property
    def dealer(self) -> Seat: ...


class _Game(Protocol):
    """What :class:`Phased`'s views read of the game mixing it in."""

    name: ClassVar[str]
    PHASES: ClassVar[Sequence[Phase]]
    OVER: ClassVar[int]

    def current_seat(self, state: Any) -> Seat | None: ...

    def result(self, state: Any) -> HandResult: ...


class Phased:
    """The Game-protocol answers common to every phase game (mixed into the game class)."""

    PHASES: ClassVar[Sequence[Phase]]
    """The phases, by number (a state's ``phase``)."""
    OVER: ClassVar[int]
    """The phase of a deal that is over."""

    def current_seat(self, state: PhasedState) -> Seat | None:
        return None if state.phase == self.OVER else state.to_act

    def is_terminal(self, state: PhasedState) -> bool:
        return state.phase == self.OVER

    def format_action(self, action: Action) -> str:
        raise NotImplementedError

    def all_actions(self) -> Sequence[Action]:
        raise NotImplementedError

    def phase_actions(self, state: PhasedState) -> list[Action]:
        """The actions of the phase ``state`` is in (its ``verbs``), those a dispute replay
        explains (:func:`referee.rules.game.explained_actions`)."""
        return actions_of(self, self.PHASES[state.phase].verbs)

    def _known(self, action: Action) -> bool:
        """Whether ``action`` is an action code of this game."""
        return known(self.format_action, action)

    def _text(self, action: Action) -> str:
        """The action in notation, or its code when it is no action of this game."""
        return action_text(self.format_action, action)

    def _not_your_turn(self, state: PhasedState, seat: Seat, action: Action, rule: str = ""
                       ) -> NotYourTurnError:  # fmt: skip
        """The refusal of ``action`` by ``seat`` out of turn, naming ``rule`` or the phase's
        rule of turns."""
        rule = rule or self.PHASES[state.phase].turn_rule
        return not_your_turn(self._text(action), state.phase == self.OVER, state.to_act, seat, rule)

    def _not_now(self, state: PhasedState, text: str) -> IllegalActionError:
        """The refusal of an action of another phase: what this phase expects."""
        p = self.PHASES[state.phase]
        return IllegalActionError(f"{text!r} is not allowed now: expected {p.expects}", p.rule)

    def _frame(self: _Game, state: PhasedState) -> dict[str, JSON]:
        """The head of every view: the game, the phase, the dealer, the seat to act."""
        return {
            "game": self.name,
            "phase": self.PHASES[state.phase].name,
            "dealer": state.dealer,
            "to_act": self.current_seat(state),
        }

    def _own(
        self: _Game,
        out: dict[str, JSON],
        state: PhasedState,
        seat: Seat | None,
        hands: Sequence[CardSet],
        **secret: JSON,
    ) -> dict[str, JSON]:
        """The rest of ``seat``'s view: its seat, its hand and what only it knows (``secret``,
        where not ``None``); the result once the deal is over."""
        if seat is not None:
            out["seat"] = seat
            out["hand"] = names(cards_in(hands[seat]))
            out.update((k, v) for k, v in secret.items() if v is not None)
        if state.phase == self.OVER:
            out["result"] = self.result(state).to_json()
        return out


def known(format_action: Callable[[Action], str], action: Action) -> bool:
    """Whether ``format_action`` writes ``action``: whether it is an action code of the game."""
    try:
        format_action(action)
    except (KeyError, IndexError):
        return False
    return True


def action_text(format_action: Callable[[Action], str], action: Action) -> str:
    """The action in notation, or its code when it is no action of the game."""
    return format_action(action) if known(format_action, action) else str(action)


def not_your_turn(what: str, over: bool, to_act: Seat, seat: Seat, rule: str) -> NotYourTurnError:
    """The refusal of action ``what`` by ``seat`` when the deal is ``over`` or ``to_act`` acts."""
    if over:
        return NotYourTurnError(f"{what!r}: the deal is over", rule)
    return NotYourTurnError(f"{what!r}: it is seat {to_act}'s turn, not seat {seat}'s", rule)


def played(tricks: Iterable[TrickTaken], trick: Iterable[Card]) -> CardSet:
    """The cards of the completed ``tricks`` and of the ``trick`` in play."""
    return cards_taken(tricks) | mask_of(trick)


def parse_suit(text: str) -> Suit:
    """A suit letter, C, D, H or S (either case). :raises InvalidActionError: otherwise."""
    suit = SUIT_LETTERS.find(text.upper()) if len(text) == 1 else -1
    if suit < 0:
        raise InvalidActionError(f"{text!r} is not a suit: write C, D, H or S")
    return suit


def word_action(text: str, words: Mapping[str, Action], what: str) -> Action:
    """The action written as the one word ``text`` (``words``: each word's code).
    :raises InvalidActionError: for any other word, saying what the actions are (``what``)."""
    code = words.get(text)
    if code is None:
        raise InvalidActionError(f"{text!r} is not {what}")
    return code


# -- declarations, notation and the match, written once for the phase games -------------------

Verb = tuple[str, Action, Action, Callable[[str], int], Callable[[int], str]]
"""An action written ``verb:argument``: the verb, its codes ``lo`` to ``hi`` (excluded), how
the argument reads (a number added to ``lo``) and how it is written (from the code - ``lo``)."""


def parse_verbs(text: str, words: Mapping[str, Action], verbs: Sequence[Verb], what: str) -> Action:
    """The action ``text`` names: one of ``words``, or ``verb:argument`` for one of ``verbs``.
    :raises InvalidActionError: otherwise (``what`` says what the actions are)."""
    verb, sep, arg = text.partition(":")
    if not sep:
        return word_action(text, words, what)
    for name, lo, _, read, _ in verbs:
        if name == verb:
            return lo + read(arg)
    raise InvalidActionError(f"{text!r} is not {what.partition(' (')[0]}: unknown verb {verb!r}")


def format_verbs(action: Action, words: Mapping[Action, str], verbs: Sequence[Verb]) -> str:
    """``action`` in notation (:func:`parse_verbs` reads it back). :raises KeyError: for a
    code of no action."""
    for name, lo, hi, _, write in verbs:
        if lo <= action < hi:
            return f"{name}:{write(action - lo)}"
    return words[action]


class TeamMatch(Phased):
    """A phase game of four seats in two partnerships, played to a target score."""

    num_seats: ClassVar[int] = 4
    partnerships: ClassVar[bool] = True
    match_length: ClassVar[str] = "target_score"
    carry: ClassVar[tuple[int, ...]] = ()
    """What a new match carries from deal to deal (``MatchState.carry``)."""

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState:
        return MatchState(scores=(0, 0), dealer=first_dealer, carry=self.carry)


def next_match(
    match: MatchState,
    points: Sequence[int],
    target: int,
    both: Callable[[tuple[int, ...]], int] | None = None,
) -> MatchState:
    """The match after a deal that scored ``points`` per team, the next seat dealing; over once
    a team reaches ``target``, which wins (``both(scores)`` when both do, else the first)."""
    scores = tuple(a + b for a, b in zip(match.scores, points, strict=True))
    reached = [t for t, score in enumerate(scores) if score >= target]
    winner = (both(scores) if both and len(reached) > 1 else reached[0]) if reached else None
    return MatchState(
        scores=scores,
        dealer=(match.dealer + 1) % 4,
        hands_played=match.hands_played + 1,
        over=winner is not None,
        winner=winner,
    )

