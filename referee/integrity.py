"""A match's stored events read row by row, and its hash chain checked on them.

Loading a match (``Referee``) and the chain check of the read side (``referee_projections.queries``)
both read the raw rows of the store: each row is decoded on its own, so a row that does not
decode is a break at its position, not an error for the whole log. Only the topics of match
events are ever resolved (a stored topic names a class to import): any other topic in a
match's log is itself a break. The links are checked on the decoded events with
:func:`referee.domain.chain.event_hash`, the digest of the exported form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

from referee.domain.chain import GENESIS, ChainReport, event_hash
from referee.domain.errors import MatchNotFoundError
from referee.domain.match import Match

#: The topic of every match event class, to its class.
MATCH_EVENT_TOPICS: dict[str, type[Match.Event]] = {
    get_topic(cls): cls
    for cls in vars(Match).values()
    if isinstance(cls, type) and issubclass(cls, Match.Event) and cls is not Match.Event
}


@dataclasses.dataclass(frozen=True)
class StoredMatchEvent:
    """One stored row of a match's log: the decoded event, or why it does not decode."""

    version: int
    event: Match.Event | None
    problem: str = ""


def is_match_log(rows: Iterable[StoredEvent]) -> bool:
    """True when some row carries a match event's topic: the log is a match's (a tournament's
    log, or no log at all, is not)."""
    return any(row.topic in MATCH_EVENT_TOPICS for row in rows)


def match_rows(recorder: Any, match_id: UUID) -> Sequence[StoredEvent]:
    """The stored rows of a match's log, in version order.

    :raises MatchNotFoundError: when they are not a match's (another aggregate's, or none)."""
    rows: Sequence[StoredEvent] = recorder.select_events(match_id)
    if not is_match_log(rows):
        raise MatchNotFoundError(f"no match {match_id}", matchId=match_id)
    return rows


def decode(mapper: Mapper[Any], row: StoredEvent) -> StoredMatchEvent:
    """Decode one row of a match's log, never raising: an unknown topic or a state that does
    not decode is reported in ``problem``."""
    version = row.originator_version
    if row.topic not in MATCH_EVENT_TOPICS:
        return StoredMatchEvent(version, None,
                                f"event {version} has the topic {row.topic[:80]!r}, "
                                "which is not a match event's")
    try:
        event = mapper.to_domain_event(row)
    except Exception as exc:  # any decoding failure is the row's own break
        return StoredMatchEvent(version, None, f"event {version} does not decode: "
                                               f"{type(exc).__name__}")
    return StoredMatchEvent(version, event)  # type: ignore[arg-type]


def decode_all(mapper: Mapper[Any], rows: Sequence[StoredEvent]) -> list[StoredMatchEvent]:
    return [decode(mapper, row) for row in rows]


def check_links(entries: Iterable[StoredMatchEvent], head: str = GENESIS, after: int = 0
                ) -> ChainReport:
    """Check decoded rows, in version order, following the event at version ``after`` whose
    hash is ``head`` (the defaults: from the start). Every version must follow the one before,
    decode, be a creation exactly at version 1, and link to the hash of the event before it.
    ``events`` counts the rows examined, the broken one included; ``head`` is the hash of the
    last intact event."""
    count = 0
    expected = after + 1
    for entry in entries:
        count += 1
        version, event = entry.version, entry.event
        problem = ""
        if version != expected:
            problem = (f"event {version} follows event {expected - 1}: an event is missing "
                       "or out of order")
            if expected == 1:
                problem = (f"the log starts at event {version}: event 1, the match's "
                           "creation, is missing")
        elif event is None:
            problem = entry.problem
        elif isinstance(event, Match.Created) != (version == 1):
            problem = (f"event {version} is a {type(event).__name__}: only event 1 is the "
                       "match's creation")
        elif getattr(event, "prev_hash", None) != head:
            link = getattr(event, "prev_hash", None)
            if not isinstance(link, str):
                problem = f"event {version} carries no prev_hash"
            else:
                problem = (f"event {version} links to {link[:12]}..., but event "
                           f"{version - 1} hashes to {head[:12]}...: event {version - 1} "
                           f"was changed (or event {version} was)")
        else:
            try:
                digest = event_hash(event)
            except (TypeError, ValueError) as exc:
                problem = f"event {version} does not hash: {exc}"
            else:
                head = digest
                expected += 1
                continue
        return ChainReport(False, count, head, version, problem)
    return ChainReport(True, count, head)


def event_digest(entry: StoredMatchEvent) -> str | None:
    """The hash of a decoded row (``None``: it does not decode or hash)."""
    if entry.event is None:
        return None
    try:
        return event_hash(entry.event)
    except (TypeError, ValueError):
        return None
