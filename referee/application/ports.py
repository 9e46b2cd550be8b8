"""The ports of the use cases: what they need from the outside, as protocols.

The adapters are :class:`referee.application.referee.Referee` (the event store, through
eventsourcing), :class:`referee.group_commit.GroupCommitter` (commits),
:mod:`referee.rejections` (the rejection trail) and :class:`referee.application.log.LogReader`
(the log as projections follow it in a process of their own).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol
from uuid import UUID

from referee.config import Settings
from referee.integrity import StoredMatchEvent
from referee.rejections import Rejection


class MatchStore(Protocol):
    """A match's stored events."""

    def stream(self, match_id: UUID, after: int = 0) -> list[StoredMatchEvent]:
        """The events after version ``after``, decoded, each with its stored hash links
        (``after == 0``: the whole stream, read row by row).

        :raises MatchNotFoundError: ``after == 0`` and no match has this id."""
        ...

    def events(self, match_id: UUID, after: int, upto: int) -> Iterable[Any]:
        """The domain events with versions ``after < v <= upto``."""
        ...


class Commits(Protocol):
    """Where new events go: one transaction for every aggregate that acted meanwhile."""

    def commit(self, aggregate: Any, events: Sequence[Any]) -> None:
        """Commit and return (blocking). :raises IntegrityError: another writer was first."""
        ...

    def enqueue(self, aggregate: Any, events: Sequence[Any],
                settled: Callable[[BaseException | None], None]
                ) -> asyncio.Future[BaseException | None]:
        """Commit without blocking the loop: the future resolves to the error (or None);
        ``settled(error)`` runs on the loop first."""
        ...


class RejectionTrail(Protocol):
    """Refused attempts, for the auditor."""

    def add(self, rejection: Rejection) -> None: ...

    def list(self, match_id: str, limit: int) -> list[Rejection]: ...


class EventLog(Protocol):
    """The application's log as a reader follows it: the projections' only way in."""

    settings: Settings

    def head(self) -> int:
        """The last notification id (0: an empty log)."""
        ...

    def read(self, after: int, limit: int) -> list[tuple[int, Any]]:
        """Up to ``limit`` ``(notification id, domain event)`` after ``after``, in order."""
        ...

    def on_committed(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` after each commit this process makes (a separate reader: never)."""
        ...

    def views_advanced(self, view: str, versions: Mapping[UUID, int]) -> None:
        """The projections committed ``view``'s documents of these aggregates, now at these
        versions: wake the watchers of those documents (a separate reader: nobody's)."""
        ...

    @property
    def datastore(self) -> Any:
        """The PostgreSQL datastore (``None`` on other stores), for the views' locks."""
        ...
