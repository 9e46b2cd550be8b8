"""Adapters of the ports over eventsourcing: a match's stored events (:class:`StoredMatches`)
and the application log as readers follow it (:class:`LogReader`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    InfrastructureFactory,
    JSONTranscoder,
    Mapper,
    UUIDAsHex,
)
from eventsourcing.utils import Environment

from referee.changes import ChangeWaiters, keys_of
from referee.config import Settings
from referee.integrity import StoredMatchEvent, decode_all, match_rows

APP_NAME = "Referee"  # the application's tables and its name in the views' tracking rows


class StoredMatches:
    """:class:`~referee.application.ports.MatchStore` over an application recorder."""

    def __init__(self, recorder: Any, mapper: Mapper[UUID], event_store: Any) -> None:
        self._recorder, self._mapper, self._event_store = recorder, mapper, event_store

    def stream(self, match_id: UUID, after: int = 0) -> list[StoredMatchEvent]:
        rows = (match_rows(self._recorder, match_id) if after == 0
                else self._recorder.select_events(match_id, gt=after))
        return decode_all(self._mapper, rows) if rows else []

    def events(self, match_id: UUID, after: int, upto: int) -> Iterable[Any]:
        return self._event_store.get(match_id, gt=after, lte=upto)  # type: ignore[no-any-return]


class LogReader:
    """:class:`~referee.application.ports.EventLog`: the application's notification log,
    read-only. In ``referee serve`` it shares the application's recorder (and hears its
    commits); :meth:`open` makes one of its own for a process that only reads
    (``referee projections``)."""

    def __init__(self, settings: Settings, recorder: Any, mapper: Mapper[UUID],
                 on_committed: Callable[[Callable[[], None]], None] | None = None,
                 close: Callable[[], None] | None = None,
                 changes: ChangeWaiters | None = None,
                 announce: Callable[[str, Mapping[UUID, int]], None] | None = None) -> None:
        self.settings = settings
        self.recorder, self.mapper = recorder, mapper
        self._on_committed, self._close = on_committed, close
        self._changes, self._announce = changes, announce

    @classmethod
    def open(cls, settings: Settings) -> LogReader:
        """A reader with its own connection to the store of ``settings``."""
        factory: InfrastructureFactory[Any] = InfrastructureFactory.construct(
            env=Environment(APP_NAME, settings.store_env))
        transcoder = factory.transcoder()
        if isinstance(transcoder, JSONTranscoder):  # as eventsourcing's Application does
            for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO()):
                transcoder.register(transcoding)
        recorder = factory.application_recorder()
        notices = notices_of(settings, recorder, ChangeWaiters())  # to announce the views'

        def close() -> None:
            if notices is not None:
                notices.close()
            factory.close()

        return cls(settings, recorder, factory.mapper(transcoder), close=close,
                   announce=None if notices is None else notices.send)

    def head(self) -> int:
        return int(self.recorder.max_notification_id() or 0)

    def read(self, after: int, limit: int) -> list[tuple[int, Any]]:
        notes = self.recorder.select_notifications(start=after, limit=limit,
                                                   inclusive_of_start=False)
        return [(n.id, self.mapper.to_domain_event(n)) for n in notes]

    def on_committed(self, hook: Callable[[], None]) -> None:
        if self._on_committed is not None:
            self._on_committed(hook)

    def views_advanced(self, view: str, versions: Mapping[UUID, int]) -> None:
        if self._changes is not None and versions:
            self._changes.advance(keys_of(view, versions))
        if self._announce is not None:
            self._announce(view, versions)

    @property
    def datastore(self) -> Any:
        if self.settings.backend != "postgres":
            return None  # (and psycopg, which the embedded default does without, unimported)
        from referee.persistence import datastore_of

        return datastore_of(self.recorder)

    def close(self) -> None:
        if self._close is not None:
            self._close()


def notices_of(settings: Settings, recorder: Any, changes: ChangeWaiters) -> Any:
    """:class:`referee.notices.Notices` for ``recorder``'s PostgreSQL store (None for
    another store: one process, nothing to announce)."""
    if settings.backend != "postgres":
        return None
    from referee.notices import CHANNEL, Notices
    from referee.persistence import datastore_of, dedicated_connection

    datastore = datastore_of(recorder)
    if datastore is None:
        return None
    return Notices(lambda: dedicated_connection(datastore, 2),
                   lambda: datastore.transaction(commit=True), changes, settings.fresh_reads,
                   f"{CHANNEL}_{datastore.schema or 'public'}"[:63])
