"""What Bulgarian Belot and Coinche are alike as games: the phases of a deal, and the answers to
the Game contract (:mod:`referee.rules.game`) that the two give the same way.

Both deal 32 cards to four seats in two partnerships, bid, then play eight tricks
(``rules/belot-coinche.md`` §0.1); a match runs to a target score.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import ClassVar, Final, NamedTuple, Protocol, TypeAlias

from referee.rules.cards import KING, PACK_32, QUEEN, RANK_OF, Card, parse_card
from referee.rules.compiled import mypyc_attr
from referee.rules.errors import InvalidActionError
from referee.rules.game import Action
from referee.rules.seats import Seat


class Phase(enum.IntEnum):
    """Where the deal stands."""

    AUCTION = 0
    PLAY = 1
    OVER = 2


# Plain ints, ``Final`` so that compiled code (setup.py) reads them as constants.
AUCTION: Final = 0
PLAY: Final = 1
OVER: Final = 2
assert tuple(Phase) == (AUCTION, PLAY, OVER)


class Dealing(Protocol):
    """What :class:`BeloteGame` reads of a deal's state."""

    @property
    def phase(self) -> int: ...

    @property
    def to_act(self) -> Seat: ...


class Notation(NamedTuple):
    """How a game reads and writes its actions (``docs/hand-record.md``)."""

    parse: Callable[[str], Action]
    format: Callable[[Action], str]
    every: Callable[[], list[Action]]
    """All the game's action codes, sorted."""


Reader: TypeAlias = Callable[[str, str, str], Action]
"""Reads the argument of one verb: ``reader(text, verb, argument)``."""


def read_action(
    text: str, game: str, usage: str, verbs: Mapping[str, Action], readers: Mapping[str, Reader]
) -> Action:
    """Read ``text``: a bare verb of ``verbs``, or ``verb:argument`` read by ``readers[verb]``.

    :raises InvalidActionError: for anything else, naming the ``game`` and its ``usage``.
    """
    verb, sep, arg = text.partition(":")
    if not sep:
        code = verbs.get(text)
        if code is None:
            raise InvalidActionError(f"{text!r} is not a {game} action ({usage})")
        return code
    reader = readers.get(verb)
    if reader is None:
        raise InvalidActionError(f"{text!r} is not a {game} action: unknown verb {verb!r}")
    return reader(text, verb, arg)


def read_king_or_queen(text: str, arg: str, why: str) -> Card:
    """The card ``arg`` names, which must be a king or a queen (the belot / belote pair,
    BG-A7, CO-A4).

    :raises InvalidActionError: quoting ``text`` and saying ``why`` otherwise.
    """
    c = parse_card(arg)
    if RANK_OF[c] not in (KING, QUEEN):
        raise InvalidActionError(f"{text!r}: {why}")
    return c


@mypyc_attr(allow_interpreted_subclasses=True)
class BeloteGame:
    """The base of :class:`~referee.rules.games.belot.Belot` and
    :class:`~referee.rules.games.coinche.Coinche`."""

    num_seats: ClassVar[int] = 4
    partnerships: ClassVar[bool] = True
    match_length: ClassVar[str] = "target_score"
    pack: ClassVar[tuple[Card, ...]] = PACK_32
    notation: ClassVar[Notation]
    """The game's notation (its parse_action, format_action and all_actions)."""

    def current_seat(self, state: Dealing) -> Seat | None:
        return None if state.phase == OVER else state.to_act

    def is_terminal(self, state: Dealing) -> bool:
        return state.phase == OVER

    def parse_action(self, text: str) -> Action:
        return self.notation.parse(text)

    def format_action(self, action: Action) -> str:
        return self.notation.format(action)

    def all_actions(self) -> list[Action]:
        return self.notation.every()

