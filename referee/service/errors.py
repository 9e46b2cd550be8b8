"""The one error table: exception class -> gRPC code and ``google.rpc.ErrorInfo`` reason.

Every refusal carries exactly one ``ErrorInfo`` (domain :data:`DOMAIN`, lowerCamelCase
metadata keys, ``rule`` when the rules refused); ``STORE_UNAVAILABLE`` also carries a
``google.rpc.RetryInfo`` (:data:`RETRY_DELAY`). Unknown exceptions become INTERNAL with no
details, and are logged.
"""

from __future__ import annotations

import logging
from typing import NoReturn

import grpc
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.domain import errors as d
from referee.rules import errors as r

DOMAIN = "referee.cardgames"
log = logging.getLogger("referee.service")

class ServerStoppingError(d.RefereeError):
    """The server is shutting down (SIGTERM): a stream it ends before its subject did. The
    client resumes elsewhere or after the restart, from ``resumeFrom`` (the last version sent;
    for a stream without versions, the items sent)."""

    reason = "SERVER_STOPPING"

    def __init__(self, position: int, unit: str = "version") -> None:
        super().__init__(f"server shutting down; resume from {unit} {position}",
                         resumeFrom=position)


# (exception class, code, reason or None to use the exception's own ``reason``). First match
# wins, so subclasses come before their bases.
ERROR_TABLE: tuple[tuple[type[BaseException], grpc.StatusCode, str | None], ...] = (
    (d.ReplayNotAllowedError, grpc.StatusCode.PERMISSION_DENIED, "HAND_IN_PROGRESS"),
    (d.InvalidRulingError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULING"),
    (d.TournamentNotFoundError, grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND"),
    (d.ActionIndexOutOfRangeError, grpc.StatusCode.OUT_OF_RANGE, "ACTION_INDEX_OUT_OF_RANGE"),
    (d.ViewNotReadyError, grpc.StatusCode.UNAVAILABLE, "VIEW_NOT_READY"),
    (d.InvalidWebhookError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_WEBHOOK"),
    (d.WebhookLimitError, grpc.StatusCode.FAILED_PRECONDITION, "TOO_MANY_WEBHOOKS"),
    (d.WebhookNotFoundError, grpc.StatusCode.NOT_FOUND, "WEBHOOK_NOT_FOUND"),
    (ServerStoppingError, grpc.StatusCode.UNAVAILABLE, "SERVER_STOPPING"),
    (r.InvalidActionError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ACTION"),
    (r.NotYourTurnError, grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
    (r.IllegalActionError, grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION"),
    (d.LimitExceededError, grpc.StatusCode.INVALID_ARGUMENT, "LIMIT_EXCEEDED"),
    (d.UnknownGameError, grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME"),
    (d.InvalidRulesError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULES"),
    (d.InvalidTimeControlError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_TIME_CONTROL"),
    (d.InvalidPolicyError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_POLICY"),
    (d.MalformedRequestError, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    (d.MatchNotFoundError, grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND"),
    (d.HandNotFoundError, grpc.StatusCode.NOT_FOUND, "HAND_NOT_FOUND"),
    (d.UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"),
    (d.PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED"),
    (d.CreateNotAllowedError, grpc.StatusCode.PERMISSION_DENIED, "ORGANISER_REQUIRED"),
    (d.RateLimitedError, grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"),
    (d.StreamLimitError, grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS"),
    (d.MatchOverError, grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER"),
    (d.TimedOutError, grpc.StatusCode.FAILED_PRECONDITION, "TIMED_OUT"),
    (d.ResultsFinalError, grpc.StatusCode.FAILED_PRECONDITION, "RESULTS_FINAL"),
    (d.BoardInPlayError, grpc.StatusCode.FAILED_PRECONDITION, "BOARD_IN_PLAY"),
    (d.ClockPausedError, grpc.StatusCode.FAILED_PRECONDITION, "CLOCK_PAUSED"),
    (d.ClockStateError, grpc.StatusCode.FAILED_PRECONDITION, "CLOCK_STATE"),
    (d.HandNotFinishedError, grpc.StatusCode.FAILED_PRECONDITION, "HAND_NOT_FINISHED"),
    (d.ClaimRefusedError, grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_REFUSED"),
    (d.ClaimNotAllowedError, grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_NOT_ALLOWED"),
    (d.UndoNotAllowedError, grpc.StatusCode.FAILED_PRECONDITION, "UNDO_NOT_ALLOWED"),
    (d.UndoPendingError, grpc.StatusCode.FAILED_PRECONDITION, "UNDO_PENDING"),
    (d.ClaimPendingError, grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_PENDING"),
    (d.CommandIdReusedError, grpc.StatusCode.FAILED_PRECONDITION, "COMMAND_ID_REUSED"),
    (d.VersionConflictError, grpc.StatusCode.ABORTED, "VERSION_CONFLICT"),
    (d.ChainBrokenError, grpc.StatusCode.DATA_LOSS, "CHAIN_BROKEN"),
    (IntegrityError, grpc.StatusCode.ABORTED, "VERSION_CONFLICT"),
    (d.StoreUnavailableError, grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE"),
    (OperationalError, grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE"),
    (InterfaceError, grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE"),
)

#: Reasons whose status also carries a ``google.rpc.RetryInfo``: retry after this many seconds
#: (``RATE_LIMITED`` says its own, from the error's ``retryAfterMs``).
RETRY_DELAY: dict[str, float] = {"STORE_UNAVAILABLE": 1.0, "SERVER_STOPPING": 0.5,
                                 "VIEW_NOT_READY": 0.2,
                                 "RATE_LIMITED": 1.0}


def to_status(exc: BaseException) -> grpc.Status:
    """The rich status for ``exc`` (INTERNAL with no details for anything unknown)."""
    for cls, code, reason in ERROR_TABLE:
        if isinstance(exc, cls):
            metadata: dict[str, str] = {}
            message = str(exc)
            if isinstance(exc, r.RulesError):
                message = exc.message
                if exc.rule:
                    metadata["rule"] = exc.rule
            elif isinstance(exc, d.RefereeError):
                message = exc.message
                metadata.update(exc.metadata)
            elif code is grpc.StatusCode.UNAVAILABLE:
                message = "the event store is unavailable; retry"
            elif code is grpc.StatusCode.ABORTED:
                message = "another command changed the match first; re-read and retry"
            return _status(code, message, reason or "UNKNOWN", metadata)
    log.exception("internal error", exc_info=exc)
    return _status(grpc.StatusCode.INTERNAL, "internal error", "INTERNAL", {})


def _status(
    code: grpc.StatusCode, message: str, reason: str, metadata: dict[str, str]
) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if code is grpc.StatusCode.INVALID_ARGUMENT and "field" in metadata:
        violation = any_pb2.Any()  # which field, for form-filling clients
        violation.Pack(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=metadata["field"],
                                                        description=message)]))
        details.append(violation)
    delay = RETRY_DELAY.get(reason)
    if "retryAfterMs" in metadata:
        delay = int(metadata["retryAfterMs"]) / 1000
    if delay is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(
            seconds=int(delay), nanos=round(delay % 1 * 1e9))))
        details.append(retry)
    st = status_pb2.Status(code=code.value[0], message=message, details=details)
    return rpc_status.to_status(st)


async def abort(context: grpc.aio.ServicerContext, exc: BaseException) -> NoReturn:
    """End the call with the status for ``exc``."""
    await context.abort_with_status(to_status(exc))
    raise AssertionError("unreachable")  # abort_with_status raises


def malformed(message: str, **metadata: object) -> d.MalformedRequestError:
    return d.MalformedRequestError(message, **metadata)


