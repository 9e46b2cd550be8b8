"""The ``Game`` protocol every game module implements, and the values it trades in.

Names follow OpenSpiel (``current_seat``, ``legal_actions``, ``apply``, ``is_terminal``), shapes
follow scalachess: states are values, and ``apply`` returns a new state with the facts the
action caused; the state passed in is never changed.

Actions are ``int`` codes (fast to compare and to hash); ``parse_action`` and ``format_action``
convert them from and to the record notation (``play:JH``, ``pass``, ``name:S``). Card plays
are the card itself (``0..51``); other verbs use codes from :data:`VERB_BASE` up, per game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol, TypeAlias, TypeVar

from referee.rules.cards import CARD_NAMES, Card, CardSet, named_in, parse_card
from referee.rules.params import RuleSet
from referee.rules.seats import Seat

Action: TypeAlias = int
VERB_BASE = 64
"""Action codes below this are card plays; the code is the card."""

JSON: TypeAlias = Any
"""A JSON-ready value (dicts, lists, str, int, bool, None)."""


@dataclasses.dataclass(frozen=True)
class Deal:
    """The cards as dealt: ``hands[s]`` is what seat ``s`` holds at its first decision,
    ``stock`` the rest of the pack in order (each game says how it is used)."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]


# Facts are named tuples: the cheapest immutable value CPython builds, and every trick builds
# one. ``HandResult`` is a frozen dataclass with a hand-written ``__init__`` that fills
# ``__dict__`` directly (the generated one calls ``object.__setattr__`` once per field).


@dataclasses.dataclass(frozen=True, init=False)
class HandResult:
    """The outcome of one deal.

    ``points`` are this deal's points per team (per seat in Ulti), before any match-level
    adjustment. ``void`` marks a deal that was thrown in (all passed). ``detail`` holds
    game-specific, JSON-ready facts (tricks, card points, declarations, contract made).
    """

    points: tuple[int, ...]
    detail: Mapping[str, JSON]
    void: bool

    def __init__(
        self, points: tuple[int, ...], detail: Mapping[str, JSON] | None = None, void: bool = False
    ) -> None:
        self.__dict__.update(points=points, detail={} if detail is None else detail, void=void)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"points": list(self.points)}
        if self.void:
            out["void"] = True
        out.update(self.detail)
        return out


class TrickTaken(NamedTuple):
    """Fact: a trick was completed. ``plays`` are ``(seat, card)`` in play order; ``points``
    the card points it holds in games that count them (0 otherwise)."""

    number: int
    plays: tuple[tuple[Seat, Card], ...]
    winner: Seat
    points: int = 0

    def to_json(self) -> dict[str, JSON]:
        """``{"number", "plays": [{"seat", "card"}], "winner", "points"}``."""
        return {
            "number": self.number,
            "plays": [{"seat": p, "card": CARD_NAMES[c]} for p, c in self.plays],
            "winner": self.winner,
            "points": self.points,
        }


def cards_taken(tricks: Iterable[TrickTaken]) -> CardSet:
    """The cards in completed tricks, as a set (for ``card_locations``)."""
    m = 0
    for t in tricks:
        for _, c in t.plays:
            m |= 1 << c
    return m


class Announced(NamedTuple):
    """Fact: something became public other than a card play (trump fixed, contract won,
    a declaration shown, cards discarded face up). ``what`` is a short key, ``data`` JSON."""

    what: str
    data: Mapping[str, JSON]


class HandEnded(NamedTuple):
    """Fact: the deal is over with this result."""

    result: HandResult


Fact: TypeAlias = TrickTaken | Announced | HandEnded


class LazyActions(Sequence[Action]):
    """A sorted legal set that is counted, indexed and tested without being built: for the
    decisions where the set is large and a referee looks at one member of it (as python-chess's
    ``LegalMoveGenerator``). Subclasses set ``_len`` and give ``__getitem__``, ``__contains__``,
    ``_rank`` (a member's position) and ``_codes()`` (the whole list, built); the rest is here.
    Immutable; equal to any sequence (not a string) holding the same codes in the same order."""

    _len: int

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[Action]:
        return iter(self._codes())

    def __reversed__(self) -> Iterator[Action]:
        return reversed(self._codes())

    def count(self, value: Any) -> int:
        return 1 if value in self else 0

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``value``, computed (:meth:`_rank`), not searched for."""
        if value not in self:
            raise ValueError(f"{value!r} is not a legal discard")
        rank = self._rank(value)
        first, last, _ = slice(start, stop).indices(self._len)
        if not first <= rank < last:
            raise ValueError(f"{value!r} is not a legal discard in [{start}:{stop}]")
        return rank

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes | bytearray):
            return len(other) == self._len and self._codes() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def _codes(self) -> list[Action]:
        """The whole list, in order."""
        raise NotImplementedError

    def _rank(self, value: Action) -> int:
        """The position of ``value``, a member."""
        raise NotImplementedError


class Step(NamedTuple):
    """What ``apply`` returns: the new state and the facts the action caused."""

    state: Any
    facts: tuple[Fact, ...]


@dataclasses.dataclass(frozen=True)
class MatchState:
    """Match-level score keeping between deals.

    ``scores`` per team (per seat in Ulti); ``dealer`` deals the next hand; ``carry`` holds
    game-defined points carried into the next deal (Belot's hanging points); ``winner`` is set
    once the match is over (``None`` while it runs, and for a tie where the game allows one).
    """

    scores: tuple[int, ...]
    dealer: Seat
    hands_played: int = 0
    carry: tuple[int, ...] = ()
    over: bool = False
    winner: int | None = None

    def to_json(self) -> dict[str, JSON]:
        return {
            "scores": list(self.scores),
            "dealer": self.dealer,
            "hands_played": self.hands_played,
            "carry": list(self.carry),
            "over": self.over,
            "winner": self.winner,
        }


S = TypeVar("S")


class Game(Protocol[S]):
    """One trick-taking game. Implementations are stateless; all state is in ``S``."""

    name: ClassVar[str]
    """Registry key, e.g. ``"euchre"``."""
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    num_seats: ClassVar[int]
    partnerships: ClassVar[bool]
    """True when the seats play in pairs sitting opposite: seats ``s`` and ``s + sides`` are
    partners, ``sides = num_seats // 2`` (``s`` and ``s + 2`` at four seats), and ``points``
    and scores are per team, team ``s % sides``; otherwise per seat. See :func:`sides_of`."""
    match_length: ClassVar[str]
    """The rule parameter that says how long a match lasts (a target score, a number of
    deals): ``{match_length: 1}`` is the shortest match."""
    hidden_verbs: ClassVar[frozenset[str]]
    """Verbs whose action only the acting seat (and the auditor) may read while the hand
    runs: they name cards the other seats have not seen (a discard). See :func:`is_public`."""
    pack: ClassVar[tuple[Card, ...]]
    rules_class: ClassVar[type[RuleSet]]

    # -- dealing ---------------------------------------------------------------------------
    def deal(self, pack: Sequence[Card], dealer: Seat) -> Deal:
        """Split a shuffled pack into hands and stock, as this game deals."""
        ...

    def new_hand(self, deal: Deal, dealer: Seat, rules: RuleSet) -> S:
        """The state at the first decision. :raises RecordError: if the deal is not this
        game's pack in the right shape."""
        ...

    # -- play ------------------------------------------------------------------------------
    def current_seat(self, state: S) -> Seat | None:
        """The seat to act, or ``None`` when the deal is over."""
        ...

    def legal_actions(self, state: S) -> Sequence[Action]:
        """Every legal action of the seat to act, sorted by code; empty when over.

        Usually a list. Where the set is large (Pedro's discard sets) it may be a lazy
        sequence with ``len``, indexing, ``in`` and iteration, as python-chess's
        ``LegalMoveGenerator`` is: nothing is built until asked for."""
        ...

    def apply(self, state: S, seat: Seat, action: Action) -> Step:
        """Check and apply one action by ``seat``.

        :raises NotYourTurnError: if ``seat`` is not the seat to act.
        :raises IllegalActionError: if the rules forbid ``action`` now (message names the rule).
        """
        ...

    def is_terminal(self, state: S) -> bool: ...

    def result(self, state: S) -> HandResult:
        """The deal's outcome. Only meaningful when terminal."""
        ...

    # -- information -----------------------------------------------------------------------
    def view(self, state: S, seat: Seat | None) -> dict[str, JSON]:
        """What ``seat`` may see (``None``: a spectator): its own cards and public facts, never
        another seat's unplayed cards while the deal runs."""
        ...

    def audit_view(self, state: S) -> dict[str, JSON]:
        """Everything, including every hand and hidden stock (auditors, finished deals)."""
        ...

    # -- notation --------------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        """:raises InvalidActionError: if ``text`` is not an action of this game."""
        ...

    def format_action(self, action: Action) -> str: ...

    def all_actions(self) -> Sequence[Action]:
        """Every action code of the game, legal or not anywhere (for conformance tests)."""
        ...

    def card_locations(self, state: S) -> dict[str, CardSet]:
        """Where every card of the pack is now, as disjoint sets whose union is the pack."""
        ...

    # -- match level -----------------------------------------------------------------------
    def new_match(self, rules: RuleSet, first_dealer: Seat) -> MatchState: ...

    def after_hand(self, match: MatchState, result: HandResult, rules: RuleSet) -> MatchState:
        """Scores, next dealer and match end after a deal with ``result``."""
        ...


def is_public(game: Game[Any], text: str) -> bool:
    """Whether every seat may read the action ``text`` (record notation) when it is taken:
    card plays and bids are public, a verb of ``game.hidden_verbs`` is not."""
    return text.partition(":")[0] not in game.hidden_verbs


def default_action(game: Game[Any], state: Any) -> Action:
    """The action the referee takes for a seat whose time ran out (a match's ``auto``
    timeout policy): the first legal action whose verb is one of the game's
    ``default_verbs`` (optional; by default ``("pass",)``), in that order of preference,
    else the first of the game's legal actions (in play: the first legal card in the
    game's order). Deterministic: the same state always gives the same action.

    :raises ValueError: the state has no legal action (the hand is over)."""
    legal = game.legal_actions(state)
    if not legal:
        raise ValueError("no legal action: the hand is over")
    by_verb: dict[str, Action] = {}
    for action in legal:
        by_verb.setdefault(game.format_action(action).partition(":")[0], action)
    for verb in getattr(game, "default_verbs", ("pass",)):
        if verb in by_verb:
            return by_verb[verb]
    return legal[0]


def explained_actions(game: Game[Any], state: Any) -> list[Action]:
    """The actions a dispute replay explains at ``state`` (why the rules refuse each): those
    the seat to act could name in this phase, by the game's optional ``phase_actions(state)``
    (by default every action of the game), less the legal ones and those that name a card
    the seat does not hold (a play, a discard, a declaration of cards it lacks). Empty when
    nobody is to act."""
    seat = game.current_seat(state)
    if seat is None:
        return []
    lacking = ~game.card_locations(state).get(f"hand{seat}", 0)
    legal = set(game.legal_actions(state))
    hook: Callable[[Any], Iterable[Action]] | None = getattr(game, "phase_actions", None)
    candidates = game.all_actions() if hook is None else hook(state)
    named = named_cards(game)
    return [a for a in candidates if a not in legal and not named.get(a, 0) & lacking]


class _Notated(Protocol):
    def format_action(self, action: Action) -> str: ...

    def all_actions(self) -> Sequence[Action]: ...


_INDEX: dict[type, tuple[dict[Action, CardSet], dict[str, tuple[Action, ...]]]] = {}


def _index(game: _Notated) -> tuple[dict[Action, CardSet], dict[str, tuple[Action, ...]]]:
    """``game``'s actions read once from their notation (``verb`` or ``verb:argument``): the
    cards each names (``play:7C``, ``discard:7C,8D``; none for ``bid:80C``), and the actions
    of each verb, in the game's order."""
    found = _INDEX.get(type(game))
    if found is None:
        named: dict[Action, CardSet] = {}
        by_verb: dict[str, list[Action]] = {}
        for a in game.all_actions():
            text = game.format_action(a)
            by_verb.setdefault(text.partition(":")[0], []).append(a)
            mask = sum(1 << parse_card(c) for c in named_in(text))
            if mask:
                named[a] = mask
        found = _INDEX[type(game)] = (named, {v: tuple(c) for v, c in by_verb.items()})
    return found


def named_cards(game: _Notated) -> dict[Action, CardSet]:
    """The cards each action of ``game`` names, for the actions that name any (do not
    change the dict: it is worked out once per game)."""
    return _index(game)[0]


def actions_of(game: _Notated, verbs: Iterable[str]) -> list[Action]:
    """The actions of ``game`` whose verb is one of ``verbs``, sorted."""
    by_verb = _index(game)[1]
    return sorted(a for v in verbs for a in by_verb.get(v, ()))


def forfeit_winner(game: Game[Any], scores: Sequence[int], seat: Seat) -> int:
    """The side that wins a match forfeited by ``seat`` (its time ran out under a forfeit
    policy): with two sides the other one; with more, the other side with the highest score
    (the lower side number on a tie)."""
    loser = side_of(game, seat)
    others = [s for s in range(sides_of(game)) if s != loser]
    return max(others, key=lambda s: (scores[s], -s))


#: The default difference scale of duplicate comparison (see :func:`scaled_difference`).
DIFFERENCE_SCALE = (1, 2, 3, 5, 8, 13, 21, 34, 55, 89)


def scaled_difference(game: Game[Any], difference: int) -> int:
    """A difference of hand scores on a duplicate board on the game's comparison scale (as
    bridge's IMPs): the number of the game's ``difference_scale`` thresholds (optional; by
    default :data:`DIFFERENCE_SCALE`) that ``|difference|`` reaches, with its sign. So a
    swing counts for more than a small edge, but not in proportion, whatever the size of the
    game's scores."""
    scale: tuple[int, ...] = getattr(game, "difference_scale", DIFFERENCE_SCALE)
    steps = sum(1 for t in scale if abs(difference) >= t)
    return steps if difference >= 0 else -steps


def sides_of(game: Game[Any]) -> int:
    """How many sides score (the length of ``points`` and of the match scores): the teams of a
    partnership game (``num_seats // 2``), otherwise one per seat."""
    return game.num_seats // 2 if game.partnerships else game.num_seats


def side_of(game: Game[Any], seat: Seat) -> int:
    """The side that seat ``seat`` scores for: its team (``seat % sides``) or itself."""
    return seat % sides_of(game)
