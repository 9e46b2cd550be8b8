"""Errors of the model and the application (the rules' own errors live in ``referee.rules``).

Each has a ``reason`` (the ``google.rpc.ErrorInfo`` reason) and ``metadata`` for programs;
``referee.service.errors`` maps the classes to gRPC codes.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base class of the referee's own refusals."""

    reason = "REFEREE_ERROR"

    def __init__(self, message: str, **metadata: object) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = {k: str(v) for k, v in metadata.items()}


class MalformedRequestError(RefereeError):
    """A request field is missing or not valid, whatever the state."""

    reason = "MALFORMED_REQUEST"


class LimitExceededError(MalformedRequestError):
    """A request field over its size limit (``referee.limits``)."""

    reason = "LIMIT_EXCEEDED"


class CreateNotAllowedError(RefereeError):
    """This server lets only its organiser create matches."""

    reason = "ORGANISER_REQUIRED"


class RateLimitedError(RefereeError):
    """Too many calls from one peer without a credential; retry after ``retryAfterMs``."""

    reason = "RATE_LIMITED"

    def __init__(self, message: str, retry_after: float, **metadata: object) -> None:
        super().__init__(message, retryAfterMs=int(retry_after * 1000), **metadata)
        self.retry_after = retry_after


class StreamLimitError(RefereeError):
    """Too many open streams from one peer."""

    reason = "TOO_MANY_STREAMS"


class UnknownGameError(MalformedRequestError):
    reason = "UNKNOWN_GAME"


class InvalidRulesError(MalformedRequestError):
    reason = "INVALID_RULES"


class MatchNotFoundError(RefereeError):
    reason = "MATCH_NOT_FOUND"


class HandNotFoundError(RefereeError):
    reason = "HAND_NOT_FOUND"


class UnauthenticatedError(RefereeError):
    """No token, or a token that belongs to nobody in this match."""

    reason = "BAD_TOKEN"


class PermissionDeniedError(RefereeError):
    """A valid token that may not do this (another seat, a spectator acting, not an auditor)."""

    reason = "PERMISSION_DENIED"


class MatchOverError(RefereeError):
    reason = "MATCH_OVER"


class HandNotFinishedError(RefereeError):
    reason = "HAND_NOT_FINISHED"


class CommandIdReusedError(RefereeError):
    """A command id already used for a different action."""

    reason = "COMMAND_ID_REUSED"


class VersionConflictError(RefereeError):
    """The match is not at the version the client expected, or a concurrent write won."""

    reason = "VERSION_CONFLICT"


class ChainBrokenError(RefereeError):
    """The match's stored events do not verify (hash chain, order, decoding): it is not
    served. ``version`` is the position of the first break."""

    reason = "CHAIN_BROKEN"


class TournamentNotFoundError(RefereeError):
    reason = "TOURNAMENT_NOT_FOUND"


class ActionIndexOutOfRangeError(RefereeError):
    """A dispute replay asked for an action index the hand does not have."""

    reason = "ACTION_INDEX_OUT_OF_RANGE"


class ReplayNotAllowedError(PermissionDeniedError):
    """A seat or spectator asked for the replay of a hand that is still being played."""

    reason = "HAND_IN_PROGRESS"


class InvalidRulingError(MalformedRequestError):
    reason = "INVALID_RULING"


class ViewNotReadyError(RefereeError):
    """The projection has not caught up with the log yet (retry shortly)."""

    reason = "VIEW_NOT_READY"


class StoreUnavailableError(RefereeError):
    """The event store cannot be reached (down, or not answering in time): retry shortly."""

    reason = "STORE_UNAVAILABLE"


class InvalidTimeControlError(MalformedRequestError):
    """A time control at CreateMatch that is not valid (``referee.domain.clock``)."""

    reason = "INVALID_TIME_CONTROL"


class TimedOutError(RefereeError):
    """The seat's time ran out: the referee recorded a timeout (its event is named)."""

    reason = "TIMED_OUT"


class ClockPausedError(RefereeError):
    """The table's clocks are paused: it waits for the arbiter to resume it."""

    reason = "CLOCK_PAUSED"


class ClockStateError(RefereeError):
    """A clock command that does not fit the table (no time control, already paused, ...)."""

    reason = "CLOCK_STATE"


class ResultsFinalError(RefereeError):
    """The match's result is final (its tournament closed the correction window): only an
    appeal ruling may change it."""

    reason = "RESULTS_FINAL"


class BoardInPlayError(RefereeError):
    """The hand is a duplicate board another table is still playing: its cards stay hidden
    (from everyone but the auditor) until every table has finished it or it is released."""

    reason = "BOARD_IN_PLAY"


class ClaimNotAllowedError(RefereeError):
    """A claim or a concession the match does not admit now: not in a hand's trick play,
    a claim by a seat not to act, a number of tricks out of range (docs/claims.md)."""

    reason = "CLAIM_NOT_ALLOWED"


class ClaimRefusedError(RefereeError):
    """A checked claim that does not hold against every defence. Its message and metadata
    name no card; ``audit`` (the defence that beats it) goes only to the rejection trail."""

    reason = "CLAIM_REFUSED"

    def __init__(self, message: str, audit: str, **metadata: object) -> None:
        super().__init__(message, **metadata)
        self.audit = audit


class InvalidPolicyError(MalformedRequestError):
    """A table policy at CreateMatch that is not valid (``referee.domain.policies``)."""

    reason = "INVALID_POLICY"


class UndoNotAllowedError(RefereeError):
    """An undo request or answer the match does not admit now: its undo policy is off, no
    action (or not the caller's) to withdraw, no request pending, a seat of the asking side
    answering (docs/undo.md)."""

    reason = "UNDO_NOT_ALLOWED"


class UndoPendingError(RefereeError):
    """A seat asked to withdraw its last action: the table waits for the other sides to
    answer before anything else is played (the match's undo policy, ``consent``)."""

    reason = "UNDO_PENDING"


class InvalidWebhookError(MalformedRequestError):
    """A webhook registration the referee cannot use: its URL (scheme, host, length), its
    secret (not ``whsec_`` and base64 of 24 to 64 bytes), its scope or event types
    (docs/webhooks.md)."""

    reason = "INVALID_WEBHOOK"


class WebhookLimitError(RefereeError):
    """A tournament or match already has as many webhook endpoints as a scope may have."""

    reason = "TOO_MANY_WEBHOOKS"


class WebhookNotFoundError(RefereeError):
    """No webhook endpoint has this id (never registered, or removed)."""

    reason = "WEBHOOK_NOT_FOUND"


class ClaimPendingError(RefereeError):
    """A seat put a claim to the other sides (the match's unchecked claims policy,
    ``consent``): the table waits for their answer before anything else is played."""

    reason = "CLAIM_PENDING"
