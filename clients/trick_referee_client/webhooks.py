"""What the SDK answers about webhooks (docs/webhooks.md): endpoints and their delivery log,
as plain dataclasses built from the ``WebhookService`` messages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from trick_referee_client.api.v1 import webhooks_pb2 as wpb

STATES = {wpb.DELIVERY_STATE_PENDING: "pending", wpb.DELIVERY_STATE_DELIVERED: "delivered",
          wpb.DELIVERY_STATE_FAILED: "failed", wpb.DELIVERY_STATE_CANCELLED: "cancelled"}
"""Delivery states by their enum value, as the SDK and the CLI name them."""


def _time(message: Any, field: str) -> datetime | None:
    if not message.HasField(field):
        return None
    when: datetime = getattr(message, field).ToDatetime(tzinfo=UTC)
    return when


@dataclass(frozen=True)
class WebhookEndpoint:
    """A registered endpoint; its secret is never shown again, only a fingerprint."""

    endpoint_id: str
    url: str
    match_id: str
    tournament_id: str
    secret_fingerprint: str
    event_types: list[str]
    created: datetime | None
    disabled: str
    """Why nothing is sent to it any more ("": active)."""

    @classmethod
    def of(cls, m: wpb.WebhookEndpoint) -> WebhookEndpoint:
        return cls(m.endpoint_id, m.url, m.match_id, m.tournament_id, m.secret_fingerprint,
                   list(m.event_types), _time(m, "created"), m.disabled)


@dataclass(frozen=True)
class WebhookAttempt:
    time: datetime | None
    status: int
    """The HTTP status (0: no answer: a timeout, a refused connection)."""
    error: str
    duration_ms: int


@dataclass(frozen=True)
class WebhookDelivery:
    """One event sent to one endpoint: its ``webhook-id`` and every attempt."""

    message_id: str
    endpoint_id: str
    event_type: str
    match_id: str
    tournament_id: str
    state: str
    """pending, delivered, failed or cancelled."""
    attempts: list[WebhookAttempt]
    created: datetime | None
    next_attempt: datetime | None
    done: datetime | None
    error: str

    @classmethod
    def of(cls, m: wpb.WebhookDelivery) -> WebhookDelivery:
        return cls(m.message_id, m.endpoint_id, m.event_type, m.match_id, m.tournament_id,
                   STATES.get(m.state, "unspecified"),
                   [WebhookAttempt(_time(a, "time"), a.status, a.error, a.duration_ms)
                    for a in m.attempts],
                   _time(m, "created"), _time(m, "next_attempt"), _time(m, "done"), m.error)


def state_value(name: str) -> int:
    """The enum value of a state name ("" : any). :raises ValueError: for another name."""
    if not name:
        return int(wpb.DELIVERY_STATE_UNSPECIFIED)
    for value, known in STATES.items():
        if known == name:
            return int(value)
    raise ValueError(f"unknown delivery state {name!r}: one of {', '.join(STATES.values())}")
