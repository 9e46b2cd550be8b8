"""What Bulgarian Belot and Coinche are alike as games: the phases of a deal, and the answers to
the Game contract (:mod:`referee.rules.game`) that the two give the same way.

Both deal 32 cards to four seats in two partnerships, bid, then play eight tricks
(``rules/belot-coinche.md`` §0.1); a match runs to a target score.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Final, Protocol

from referee.rules.cards import PACK_32, Card
from referee.rules.compiled import mypyc_attr
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


@mypyc_attr(allow_interpreted_subclasses=True)
class BeloteGame:
    """The base of :class:`~referee.rules.games.belot.Belot` and
    :class:`~referee.rules.games.coinche.Coinche`."""

    num_seats: ClassVar[int] = 4
    partnerships: ClassVar[bool] = True
    match_length: ClassVar[str] = "target_score"
    pack: ClassVar[tuple[Card, ...]] = PACK_32

    def current_seat(self, state: Dealing) -> Seat | None:
        return None if state.phase == OVER else state.to_act

    def is_terminal(self, state: Dealing) -> bool:
        return state.phase == OVER

    def format_action(self, action: Action) -> str:
        """The action in record notation (each game says how)."""
        raise NotImplementedError

    def _text(self, action: Action) -> str:
        """The action's notation for a message, or its code if it is no action of the game."""
        try:
            return self.format_action(action)
        except (KeyError, IndexError):
            return str(action)
