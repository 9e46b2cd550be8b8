"""Hidden boards: a duplicate board's cards stay secret while another table plays it.

Matches attached to a tournament with the same board label were dealt the same fixed packs,
so hand ``h`` (up to the number of fixed deals) is the same deal at every such table. While
any of them has not finished hand ``h``, nobody but the auditor may read that hand's cards
beyond what they saw at their own table: records, replays, exports, deal checks and the
scoreboard's hand detail are withheld (``BOARD_IN_PLAY``). The auditor may release a board
early (``BoardReleased`` on the tournament).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from referee.application.live import LiveMatches
from referee.domain.errors import BoardInPlayError, MatchNotFoundError
from referee.domain.match import Match


class Boards:
    """Which hands of a match are a board still in play elsewhere."""

    def __init__(self, live: LiveMatches, tournament: Callable[[UUID], Any]) -> None:
        self._live, self._tournament = live, tournament

    def in_play(self, match: Match, hand: int) -> str | None:
        """The board label when ``hand`` of ``match`` is a board another table attached to
        it has not finished (and the auditor has not released it); else None."""
        if match.board is None or not 1 <= hand <= len(match.fixed_deals):
            return None
        tournament_id, board = match.board
        t = self._tournament(UUID(tournament_id))
        if t is None or board in t.released:
            return None
        for mid, attached in t.matches.items():
            if attached["board"] != board or mid == str(match.id):
                continue
            other = self._peek(UUID(mid))
            if other is not None and not _finished(other, hand):
                return board
        return None

    def hidden(self, match: Match) -> list[int]:
        """The hands of ``match`` that are boards still in play elsewhere."""
        return [h for h in range(1, len(match.hands) + 1) if self.in_play(match, h)]

    def check(self, match: Match, hand: int, auditor: bool) -> None:
        """:raises BoardInPlayError: unless the caller is the auditor or the board is free."""
        board = None if auditor else self.in_play(match, hand)
        if board is not None:
            raise BoardInPlayError(
                f"hand {hand} is duplicate board {board!r}, which another table is still "
                "playing: its cards stay hidden until every table has finished it (or the "
                "auditor releases it)", board=board, hand=hand)

    def _peek(self, match_id: UUID) -> Match | None:
        """Another table's match as this process has it (read from the store if it has not:
        never under its lock, which may be held by a reader of this very board)."""
        match = self._live.peek(match_id)
        if match is not None:
            return match
        try:
            return self._live.load(match_id)
        except MatchNotFoundError:
            return None


def _finished(match: Match, hand: int) -> bool:
    """Whether ``match`` is done with its hand ``hand`` (played it out, or ended before)."""
    if match.over:
        return True
    return len(match.hands) >= hand and match.hands[hand - 1].result is not None
