"""The webhooks' outbox: endpoints the auditor registered, and one delivery per event and
endpoint, fed from the event log (docs/webhooks.md).

The ``webhooks`` view (a :class:`~referee_projections.store.DocView`, in the store's database like
every view) holds:

- ``endpoint`` rows (key: the endpoint id, parent: the match or tournament): written by the
  registration RPCs (:class:`Webhooks`), read committed by the projection;
- ``delivery`` rows (key ``<endpoint>:<log position>``, parent: the endpoint): the delivery log;
- ``due`` rows (same key): the deliveries still to attempt, with their next attempt's time;
- ``tournament_of`` rows: which tournament a match is attached to.

:class:`OutboxProjection` writes the deliveries of each event and the view's tracking position
in one transaction, so an event committed before a crash is enqueued after the restart, and
enqueued once. The sender (:mod:`referee_projections.webhook_delivery`) updates ``delivery`` and
``due`` rows as attempts end.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from referee.config import Settings
from referee.domain.errors import (
    InvalidWebhookError,
    WebhookLimitError,
    WebhookNotFoundError,
)
from referee.limits import MAX_WEBHOOK_URL
from referee_projections.store import Doc, DocView, open_view
from referee_projections.views import (
    HAND_SCORED,
    MATCH_ATTACHED,
    MATCH_ENDED,
    MATCH_FINALIZED,
    RULING_RECORDED,
    TOURNAMENT_FINALIZED,
    HandScored,
    MatchAttached,
    MatchEnded,
    RulingRecorded,
    StoredEvent,
)
from referee_projections.webhook_signing import fingerprint, new_secret, secret_key

VIEW = "webhooks"
HAND_SCORED_TYPE = "hand.scored"
MATCH_FINISHED_TYPE = "match.finished"
RULING_TYPE = "ruling.recorded"
RESULTS_FINAL_TYPE = "results.final"
EVENT_TYPES = (HAND_SCORED_TYPE, MATCH_FINISHED_TYPE, RULING_TYPE, RESULTS_FINAL_TYPE)
MAX_URL = MAX_WEBHOOK_URL
MAX_ENDPOINTS = 5
"""Endpoints one match or one tournament may have."""
MAX_PAYLOAD = 16 * 1024
"""Bytes of one webhook's body (Standard Webhooks recommends staying under 20 kB)."""
MAX_PAGE = 500
STATES = ("pending", "delivered", "failed", "cancelled")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def message_id(event: StoredEvent) -> str:
    """The ``webhook-id`` of an event: the same on every attempt and every restart, unique
    across stores (the event's aggregate and version); no ``.`` in it, as the spec asks."""
    return f"msg_{event.originator_id.hex}_{event.originator_version}"


def check_url(url: str) -> str:
    """:raises InvalidWebhookError: unless ``url`` is an absolute http(s) URL with a host."""
    if len(url) > MAX_URL:
        raise InvalidWebhookError(f"the URL has {len(url)} characters; the limit is {MAX_URL}",
                                  field="url")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError as exc:
        raise InvalidWebhookError(f"the URL is not valid: {exc}", field="url") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhookError(
            f"the URL's scheme must be http or https, not {parts.scheme or 'none'!r}",
            field="url")
    if not parts.hostname:
        raise InvalidWebhookError("the URL has no host", field="url")
    if parts.username or parts.password:
        raise InvalidWebhookError("the URL may not carry credentials (user:password@); the "
                                  "signature authenticates the referee", field="url")
    if any(c.isspace() or ord(c) < 32 for c in url):
        raise InvalidWebhookError("the URL contains spaces or control characters", field="url")
    return url


def check_event_types(types: list[str]) -> list[str]:
    """:raises InvalidWebhookError: for a type the referee does not send (none: all)."""
    unknown = [t for t in types if t not in EVENT_TYPES]
    if unknown:
        raise InvalidWebhookError(f"unknown event type {unknown[0]!r}: one of "
                                  f"{', '.join(EVENT_TYPES)}", field="event_types")
    return sorted(set(types))


def public_endpoint(doc: Doc) -> Doc:
    """An endpoint as the API shows it: never its secret."""
    return {k: v for k, v in doc.items() if k != "secret"}


class Webhooks:
    """Registration and the delivery log, over the ``webhooks`` view (the RPCs' side)."""

    def __init__(self, view: DocView) -> None:
        self.view = view

    def add(self, scope: str, scope_id: str, url: str, secret: str, event_types: list[str],
            after: int) -> tuple[Doc, str]:
        """Register an endpoint for the events of ``scope_id`` (a ``match`` or a
        ``tournament``) committed after log position ``after``; return it and the secret if
        the referee made it (else ""). :raises InvalidWebhookError, WebhookLimitError:"""
        check_url(url)
        types = check_event_types(event_types)
        made = "" if secret else new_secret()
        secret = secret or made
        secret_key(secret)
        if len(self.view.children("endpoint", scope_id)) >= MAX_ENDPOINTS:
            raise WebhookLimitError(f"this {scope} already has {MAX_ENDPOINTS} webhook endpoints "
                                    "(the limit); remove one first", limit=MAX_ENDPOINTS)
        doc: Doc = {"endpoint_id": str(uuid.uuid4()), "scope": scope, "scope_id": scope_id,
                    "url": url, "secret": secret, "fingerprint": fingerprint(secret),
                    "event_types": types, "created": _iso(time.time()), "after": after,
                    "disabled": ""}
        self.view.write_now([("endpoint", doc["endpoint_id"], scope_id, doc)])
        return public_endpoint(doc), made

    def endpoint(self, endpoint_id: str) -> Doc:
        """:raises WebhookNotFoundError:"""
        doc = self.view.read("endpoint", endpoint_id)
        if doc is None:
            raise WebhookNotFoundError(f"no webhook endpoint {endpoint_id!r}",
                                       endpointId=endpoint_id)
        return doc

    def endpoints(self, scope_id: str) -> list[Doc]:
        return [public_endpoint(d) for _, d in self.view.children("endpoint", scope_id)]

    def remove(self, endpoint_id: str) -> Doc:
        """Unregister: no new deliveries; the pending ones are cancelled when their turn
        comes. :raises WebhookNotFoundError:"""
        doc = self.endpoint(endpoint_id)
        self.view.write_now([], [("endpoint", endpoint_id)])
        return public_endpoint(doc)

    def deliveries(self, endpoint_id: str, state: str = "", after: str = "",
                   limit: int = 100) -> tuple[list[Doc], str]:
        """The endpoint's deliveries in log order, after page token ``after`` (a key), at
        most ``limit``; and the next page's token ("" at the end)."""
        if state and state not in STATES:
            raise InvalidWebhookError(f"unknown delivery state {state!r}: one of "
                                      f"{', '.join(STATES)}", field="state")
        limit = max(1, min(limit or 100, MAX_PAGE))
        rows = [(k, d) for k, d in self.view.children("delivery", endpoint_id)
                if k > after and (not state or d["state"] == state)]
        page = rows[:limit]
        return [d for _, d in page], (page[-1][0] if len(rows) > limit else "")


def open_webhooks(settings: Settings) -> Webhooks:
    """The registrations and the delivery log of the store of ``settings``."""
    return Webhooks(open_view(VIEW, settings))


class OutboxProjection(Projection[DocView]):
    """Each event a webhook announces, as one delivery per endpoint that wants it."""

    name = VIEW
    topics = ()

    @singledispatchmethod
    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        self.view.commit(tracking)

    @process_event.register(MATCH_ATTACHED)
    def _(self, e: MatchAttached, tracking: Tracking) -> None:
        self.view.put("tournament_of", e.match_id, {"tournament": str(e.originator_id)})
        self.view.commit(tracking)

    def _tournament(self, match_id: str) -> str:
        doc = self.view.get("tournament_of", match_id)
        return "" if doc is None else str(doc["tournament"])

    def _match_event(self, e: StoredEvent, kind: str, data: Doc, tracking: Tracking,
                     to_tournament: bool = True) -> None:
        match_id = str(e.originator_id)
        tournament = self._tournament(match_id)
        scopes = [match_id] + ([tournament] if tournament and to_tournament else [])
        self._enqueue(e, kind, {"match_id": match_id, "tournament_id": tournament,
                                "version": e.originator_version, **data}, scopes, tracking)

    @process_event.register(HAND_SCORED)
    def _(self, e: HandScored, tracking: Tracking) -> None:
        self._match_event(e, HAND_SCORED_TYPE, {
            "hand": e.hand, "points": list(e.result.get("points", [])),
            "scores": list(e.scores)}, tracking)

    @process_event.register(MATCH_ENDED)
    def _(self, e: MatchEnded, tracking: Tracking) -> None:
        self._match_event(e, MATCH_FINISHED_TYPE, {"scores": list(e.scores),
                                                   "winner": e.winner}, tracking)

    @process_event.register(RULING_RECORDED)
    def _(self, e: RulingRecorded, tracking: Tracking) -> None:
        self._match_event(e, RULING_TYPE, {
            "hand": e.hand, "kind": e.kind, "adjust": list(e.adjust), "reason": e.reason,
            "rule": getattr(e, "rule", ""), "ref": getattr(e, "ref", 0)}, tracking)

    @process_event.register(MATCH_FINALIZED)
    def _(self, e: Any, tracking: Tracking) -> None:
        # The tournament's endpoints hear it once, from the tournament's own event.
        self._match_event(e, RESULTS_FINAL_TYPE, {}, tracking, to_tournament=False)

    @process_event.register(TOURNAMENT_FINALIZED)
    def _(self, e: Any, tracking: Tracking) -> None:
        tid = str(e.originator_id)
        self._enqueue(e, RESULTS_FINAL_TYPE, {"tournament_id": tid,
                                              "version": e.originator_version},
                      [tid], tracking)

    def _enqueue(self, e: StoredEvent, kind: str, data: Doc, scopes: list[str],
                 tracking: Tracking) -> None:
        position = tracking.notification_id
        body = json.dumps({"type": kind, "timestamp": e.timestamp.isoformat(), "data": data},
                          separators=(",", ":"), sort_keys=True)
        now = time.time()
        for scope in scopes:
            for endpoint_id, ep in self.view.children("endpoint", scope):
                if (ep["disabled"] or position <= ep["after"]
                        or (ep["event_types"] and kind not in ep["event_types"])):
                    continue
                key = f"{endpoint_id}:{position:012d}"
                delivery: Doc = {
                    "key": key, "message_id": message_id(e), "endpoint_id": endpoint_id,
                    "event_type": kind, "match_id": data.get("match_id", ""),
                    "tournament_id": data.get("tournament_id", ""), "position": position,
                    "body": body, "state": "pending", "attempts": [], "created": _iso(now),
                    "next_at": now, "done": "",
                }
                if len(body.encode()) > MAX_PAYLOAD:  # bounded fields: not expected
                    delivery.update(state="failed", done=_iso(now),
                                    error=f"payload over {MAX_PAYLOAD} bytes")
                else:
                    self.view.put("due", key, {"next_at": now, "endpoint_id": endpoint_id})
                self.view.put("delivery", key, delivery, parent=endpoint_id)
        self.view.commit(tracking)
