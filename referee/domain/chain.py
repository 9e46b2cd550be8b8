"""The per-match hash chain: each event carries ``prev_hash``, the hash of the event before it.

An event's hash is the hex SHA-256 of its canonical JSON: every attribute (``prev_hash``
included, so the links chain), plus its ``topic``, keys sorted, UUIDs and times as strings.
The first event's ``prev_hash`` is ``""``. Changing, dropping or reordering a stored event
breaks the link of the event after it; :func:`check_chain` reports the first break.
Pure functions over plain dicts, so an exported event log can be checked offline.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

GENESIS = ""


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON-ready: {type(value).__name__}")


def event_dict(event: object, topic: str) -> dict[str, Any]:
    """A stored domain event as a canonical JSON-ready dict (the exported form)."""
    data = {k: v for k, v in vars(event).items() if not k.startswith("_")}
    data["topic"] = topic
    out: dict[str, Any] = json.loads(json.dumps(data, default=_plain))
    return out


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=_plain)


def dict_hash(data: Mapping[str, Any]) -> str:
    """The hex SHA-256 of a canonical event dict."""
    return hashlib.sha256(_CANONICAL.encode(data).encode()).hexdigest()


_TOPICS: dict[type, str] = {}


def _topic(cls: type) -> str:
    topic = _TOPICS.get(cls)
    if topic is None:
        from eventsourcing.utils import get_topic

        topic = _TOPICS[cls] = get_topic(cls)
    return topic


def event_hash(event: object) -> str:
    """The hash of a domain event (its topic taken from its class): the same digest as
    ``dict_hash(event_dict(event, topic))``, without the JSON round trip of the exported
    form (event attributes are JSON values whose objects have string keys, so the round
    trip changes nothing but UUIDs and times, converted here). Topics are kept per class."""
    data: dict[str, Any] = {}
    for key, value in vars(event).items():
        if key[0] != "_":
            kind = type(value)
            if kind is str or kind is int or kind is list:
                pass
            elif isinstance(value, UUID):
                value = str(value)
            elif isinstance(value, datetime):
                value = value.isoformat()
            data[key] = value
    data["topic"] = _topic(type(event))
    return dict_hash(data)


@dataclasses.dataclass(frozen=True)
class ChainReport:
    """The outcome of checking one match's chain."""

    ok: bool
    events: int
    head: str
    first_break: int | None = None
    """The version of the first event whose ``prev_hash`` does not match (or is missing)."""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def check_chain(events: Iterable[Mapping[str, Any]]) -> ChainReport:
    """Check the links of one match's event dicts, in version order."""
    prev = GENESIS
    count = 0
    expected_version = 1
    for e in events:
        count += 1
        version = int(e.get("originator_version", 0))
        if version != expected_version:
            return ChainReport(False, count, prev, version,
                               f"event {version} follows event {expected_version - 1}: "
                               "an event is missing or out of order")
        if "undecodable" in e:  # exported as such (``referee_projections.queries.event_log``)
            return ChainReport(False, count, prev, version, str(e["undecodable"]))
        if "prev_hash" not in e:
            return ChainReport(False, count, prev, version,
                               f"event {version} carries no prev_hash")
        if e["prev_hash"] != prev:
            return ChainReport(False, count, prev, version,
                               f"event {version} links to {str(e['prev_hash'])[:12]}..., but "
                               f"event {version - 1} hashes to {prev[:12]}...: event "
                               f"{version - 1} was changed (or event {version} was)")
        prev = dict_hash(e)
        expected_version += 1
    return ChainReport(True, count, prev)
