"""The ``Tournament`` aggregate: entrants and the matches attached to it (duplicate boards).

Pairing and scheduling stay with the platform; the referee only records who sits where in
which match, and which matches share a board (the same fixed deals), so standings and the
duplicate comparison can be projected from the log.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4, uuid5

from eventsourcing.domain import Aggregate, event

#: The namespace of the ids derived from idempotency keys.
COMMANDS = UUID("8d4f2a52-6b0e-4c55-9a3e-0d9b7f1c2e64")


class Tournament(Aggregate):
    """One tournament: its entrants (teams or players) and attached matches."""

    @staticmethod
    def create_id(name: str, game: str, command_id: str = "") -> UUID:
        """A random id, or, for a creation with an idempotency key, one derived from it (a
        retried creation then names the same tournament)."""
        return uuid5(COMMANDS, f"tournament:{command_id}") if command_id else uuid4()

    @event("Created")
    def __init__(self, name: str, game: str, command_id: str = "",
                 abandonment: str = "forfeit") -> None:
        self.command_id = command_id
        #: How a match the arbiter ends as abandoned is scored
        #: (``referee.domain.result.ABANDONMENT_POLICIES``).
        self.abandonment = abandonment
        self.final = False
        self.released: list[str] = []
        self.name = name
        self.game = game
        self.entrants: dict[str, str] = {}
        self.matches: dict[str, dict[str, Any]] = {}
        #: Commands recorded with an idempotency key: key -> (what, its arguments, version).
        self.commands: dict[str, tuple[str, tuple[Any, ...], int]] = {}

    def _remember(self, command_id: str, what: str, *args: Any) -> None:
        if command_id:
            self.commands[command_id] = (what, args, self.version + 1)

    @event("EntrantRegistered")
    def register(self, entrant: str, members: list[str], command_id: str = "") -> None:
        """Register a team or player under a unique ``entrant`` name."""
        self._remember(command_id, "register", entrant, list(members))
        self.entrants[entrant] = ",".join(members)

    @event("ResultsFinalized")
    def finalize(self, by: str, command_id: str = "") -> None:
        """Close the correction window: the results of the matches over now are final."""
        self._remember(command_id, "finalize")
        self.final = True

    @event("BoardReleased")
    def release(self, board: str, command_id: str = "") -> None:
        """Let everyone with access to its tables read ``board`` before all have played it."""
        self._remember(command_id, "release", board)
        self.released.append(board)

    @event("MatchAttached")
    def attach(self, match_id: str, sides: list[str], board: str, command_id: str = "") -> None:
        """Attach a match: ``sides[i]`` is the entrant playing side ``i`` (team, or seat in
        Ulti); matches with the same non-empty ``board`` were dealt the same fixed packs."""
        self._remember(command_id, "attach", match_id, list(sides), board)
        self.matches[match_id] = {"sides": list(sides), "board": board}
