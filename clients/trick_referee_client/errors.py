"""Exceptions for the referee's errors, mapped from the gRPC status and its ``ErrorInfo``.

Every error the referee sends carries one ``google.rpc.ErrorInfo`` (domain
``referee.cardgames``); :func:`from_rpc_error` turns it into the matching class below, so a
program can ``except IllegalAction as e: print(e.rule, e.message)``.
"""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

DOMAIN = "referee.cardgames"


class RefereeError(Exception):
    """An error answer from the referee (or the transport).

    ``code`` is the gRPC status code name, ``reason`` the ``ErrorInfo`` reason (empty when
    the status had none), ``message`` the human text, ``metadata`` the ``ErrorInfo`` metadata.
    """

    reason_name = ""

    def __init__(
        self, message: str, *, code: str = "UNKNOWN", reason: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason or self.reason_name
        self.metadata = dict(metadata or {})

    def to_json(self) -> dict[str, object]:
        """The error as a JSON-ready object (what ``--json`` prints)."""
        return {"code": self.code, "reason": self.reason, "message": self.message,
                "metadata": self.metadata}

    def __str__(self) -> str:
        return f"{self.reason or self.code}: {self.message}"


class InvalidAction(RefereeError):
    """The action text is not valid syntax."""

    reason_name = "INVALID_ACTION"


class MalformedRequest(RefereeError):
    """A missing or bad request field."""

    reason_name = "MALFORMED_REQUEST"


class UnknownGame(RefereeError):
    """No such game is registered."""

    reason_name = "UNKNOWN_GAME"


class InvalidRules(RefereeError):
    """An unknown or ill-typed rule parameter."""

    reason_name = "INVALID_RULES"


class NotYourTurn(RefereeError):
    """Another seat is to act."""

    reason_name = "NOT_YOUR_TURN"


class IllegalAction(RefereeError):
    """The rules forbid the action now; ``rule`` names the rule (e.g. ``EU-18``)."""

    reason_name = "ILLEGAL_ACTION"

    @property
    def rule(self) -> str:
        return self.metadata.get("rule", "")

    def __str__(self) -> str:
        return f"illegal action: {self.message}" + (f" ({self.rule})" if self.rule else "")


class MatchOver(RefereeError):
    """The match is over."""

    reason_name = "MATCH_OVER"


class HandNotFinished(RefereeError):
    """The hand is still running (records and deal checks wait for its end)."""

    reason_name = "HAND_NOT_FINISHED"


class CommandIdReused(RefereeError):
    """The command id was already used for another action."""

    reason_name = "COMMAND_ID_REUSED"


class MatchNotFound(RefereeError):
    """No such match."""

    reason_name = "MATCH_NOT_FOUND"


class HandNotFound(RefereeError):
    """No such hand in the match."""

    reason_name = "HAND_NOT_FOUND"


class BadToken(RefereeError):
    """The token is missing or not valid for this match."""

    reason_name = "BAD_TOKEN"


class PermissionDenied(RefereeError):
    """The token is valid but lacks the right (e.g. a spectator acting)."""

    reason_name = "PERMISSION_DENIED"


class HandInProgress(PermissionDenied):
    """The hand is still being played: only the auditor may replay it before its end."""

    reason_name = "HAND_IN_PROGRESS"


class InvalidRuling(RefereeError):
    """A ruling with an unknown kind, wrong points or no reason."""

    reason_name = "INVALID_RULING"


class TournamentNotFound(RefereeError):
    """No such tournament (or the standings view has not seen it yet)."""

    reason_name = "TOURNAMENT_NOT_FOUND"


class ActionIndexOutOfRange(RefereeError):
    """A replay index past the hand's end; ``actions`` is the hand's action count if known."""

    reason_name = "ACTION_INDEX_OUT_OF_RANGE"

    @property
    def actions(self) -> int | None:
        value = self.metadata.get("actions")
        return int(value) if value is not None and value.isdigit() else None


class VersionConflict(RefereeError):
    """The match moved on; ``current_version`` is its version when known: re-read and retry."""

    reason_name = "VERSION_CONFLICT"

    @property
    def current_version(self) -> int | None:
        value = self.metadata.get("actualVersion")
        return int(value) if value is not None and value.lstrip("-").isdigit() else None


class ClaimRefused(RefereeError):
    """The referee checked the claim and it does not hold against every defence: nothing
    changed, and nothing about the cards is said (docs/claims.md)."""

    reason_name = "CLAIM_REFUSED"


class ClaimNotAllowed(RefereeError):
    """No claim or concession now: not in a hand's trick play, a claim by a seat that is not
    to act, or a number of tricks out of range."""

    reason_name = "CLAIM_NOT_ALLOWED"


class ClaimPending(RefereeError):
    """A seat put an unchecked claim to the other sides: the table waits for their answer
    (docs/claims.md)."""

    reason_name = "CLAIM_PENDING"


class UndoNotAllowed(RefereeError):
    """No undo request or answer now: the match's undo policy is off, the last action is
    not the caller's, no request is pending, or the caller's side asked (docs/undo.md)."""

    reason_name = "UNDO_NOT_ALLOWED"


class UndoPending(RefereeError):
    """A seat asked to withdraw its last action: the table waits for the other sides'
    answer before anything else is played (docs/undo.md)."""

    reason_name = "UNDO_PENDING"


class StoreUnavailable(RefereeError):
    """The referee's store is unreachable."""

    reason_name = "STORE_UNAVAILABLE"


class Internal(RefereeError):
    """The referee failed (no details are sent)."""

    reason_name = "INTERNAL"


class Unavailable(RefereeError):
    """The referee cannot be reached (transport error, no ``ErrorInfo``)."""

    reason_name = "UNAVAILABLE"


class ViewNotReady(Unavailable):
    """The read side has not projected the match yet (eventually consistent): retry shortly.
    Idempotent reads retry it like any UNAVAILABLE."""

    reason_name = "VIEW_NOT_READY"


class ServerStopping(Unavailable):
    """The referee is shutting down (a restart, a rolling update): the stream was ended for
    that, not because its match ended. ``resume_from`` is where to resume; the SDK's streams
    resume by themselves."""

    reason_name = "SERVER_STOPPING"

    @property
    def resume_from(self) -> int | None:
        value = self.metadata.get("resumeFrom")
        return int(value) if value is not None and value.isdigit() else None


class ResumeExhausted(Unavailable):
    """A stream ended before its match did and could not be reopened within its budget (the
    SDK's ``resume_for``): the referee stayed unreachable. Not sent by the referee."""

    reason_name = "RESUME_EXHAUSTED"


class DeadlineExceeded(RefereeError):
    """The call did not finish before its deadline."""

    reason_name = "DEADLINE_EXCEEDED"


BY_REASON: dict[str, type[RefereeError]] = {
    cls.reason_name: cls
    for cls in (
        InvalidAction, MalformedRequest, UnknownGame, InvalidRules, NotYourTurn, IllegalAction,
        MatchOver, HandNotFinished, CommandIdReused, MatchNotFound, HandNotFound, BadToken,
        PermissionDenied, VersionConflict, StoreUnavailable, Internal, HandInProgress,
        InvalidRuling, TournamentNotFound, ActionIndexOutOfRange, ViewNotReady, ServerStopping,
        ClaimRefused, ClaimNotAllowed, UndoNotAllowed, UndoPending,
        ClaimPending,
    )
}
"""ErrorInfo reason -> exception class."""

BY_CODE: dict[grpc.StatusCode, type[RefereeError]] = {
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.UNAUTHENTICATED: BadToken,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.ABORTED: VersionConflict,
    grpc.StatusCode.NOT_FOUND: MatchNotFound,
    grpc.StatusCode.OUT_OF_RANGE: ActionIndexOutOfRange,
    grpc.StatusCode.INTERNAL: Internal,
}
"""Fallback by status code, for errors without an ``ErrorInfo`` (proxies, transport)."""


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` in ``err``'s rich status, if any."""
    try:
        status = rpc_status.from_call(err)
    except (ValueError, AttributeError):
        return None
    if status is None:
        return None
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    return None


#: Words of gRPC's own UNAVAILABLE details when no connection could be made.
_NOT_CONNECTED = ("failed to connect", "connection refused", "dns resolution failed",
                  "name resolution", "errors resolving", "no route to host", "connect failed")


def from_rpc_error(err: grpc.RpcError, address: str | None = None) -> RefereeError:
    """The :class:`RefereeError` subclass for a failed call; with the ``address`` dialled, a
    connection that could not be made says to check that ``referee serve`` runs there."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    message = (err.details() if hasattr(err, "details") else None) or str(code)
    info = error_info(err)
    if info is not None and info.reason:
        cls = BY_REASON.get(info.reason, RefereeError)
        return cls(message, code=code.name, reason=info.reason, metadata=dict(info.metadata))
    if (address and code == grpc.StatusCode.UNAVAILABLE
            and any(w in message.lower() for w in _NOT_CONNECTED)):
        message = f"cannot connect to {address}: is `referee serve` running at {address}? " \
                  f"({message})"
    cls = BY_CODE.get(code, RefereeError)
    return cls(message, code=code.name)
