"""Undo by consent (issue 20, item 3; docs/undo.md): a seat asks to withdraw its last action,
the other sides agree or refuse. Only in a match whose ``undo`` table policy is ``consent``;
every request and answer is an event, and so is the withdrawal (the log stays append-only)."""

from __future__ import annotations

from uuid import UUID

from referee.application.answers import Answer
from referee.application.claiming import SeatCommands


class Undoing(SeatCommands):
    """``RequestUndo`` and ``AnswerUndo``."""

    def request(self, match_id: UUID, token: str, command_id: str = "") -> Answer:
        """The seat of ``token`` asks to withdraw its last action (the clocks stop).

        :raises UndoNotAllowedError: the undo policy is off, or the last action of the
            running hand is not this seat's own."""
        return self._run(match_id, token, command_id, "undo",
                         lambda match, seat: match.request_undo(seat, command_id),
                         "ask to withdraw an action")

    def answer(self, match_id: UUID, token: str, agree: bool, command_id: str = "") -> Answer:
        """The seat of ``token`` answers the pending request for its side: ``agree`` or
        refuse. The last agreement withdraws the action; a refusal ends the request.

        :raises UndoNotAllowedError: nothing pending, or the seat may not answer it."""
        text = "undo:agree" if agree else "undo:refuse"
        return self._run(match_id, token, command_id, text,
                         lambda match, seat: match.answer_undo(seat, agree, command_id),
                         "answer an undo request")
