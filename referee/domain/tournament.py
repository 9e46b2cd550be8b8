"""The ``Tournament`` aggregate: entrants and the matches attached to it (duplicate boards).

Pairing and scheduling stay with the platform; the referee only records who sits where in
which match, and which matches share a board (the same fixed deals), so standings and the
duplicate comparison can be projected from the log.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate, event


class Tournament(Aggregate):
    """One tournament: its entrants (teams or players) and attached matches."""

    @event("Created")
    def __init__(self, name: str, game: str) -> None:
        self.name = name
        self.game = game
        self.entrants: dict[str, str] = {}
        self.matches: dict[str, dict[str, Any]] = {}

    @event("EntrantRegistered")
    def register(self, entrant: str, members: list[str]) -> None:
        """Register a team or player under a unique ``entrant`` name."""
        self.entrants[entrant] = ",".join(members)

    @event("MatchAttached")
    def attach(self, match_id: str, sides: list[str], board: str) -> None:
        """Attach a match: ``sides[i]`` is the entrant playing side ``i`` (team, or seat in
        Ulti); matches with the same non-empty ``board`` were dealt the same fixed packs."""
        self.matches[match_id] = {"sides": list(sides), "board": board}
