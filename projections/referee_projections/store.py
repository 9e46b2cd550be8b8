"""View recorders: JSON documents plus the tracking position, written in one transaction.

Each view is an eventsourcing ``TrackingRecorder`` (SQLite or PostgreSQL) with one extra table
``<view>_docs (kind, key, parent, data)``. A projection reads documents with :meth:`get`,
stages changes with :meth:`put` / :meth:`delete` and ends each event with :meth:`commit`,
which writes the staged rows **and** the tracking row in one transaction. The tracking row is
unique per application and only moves forward, so a re-delivered position raises
``IntegrityError`` and changes nothing: exactly once.

Inside :meth:`batch`, ``commit`` only remembers the position; the batch ends with one
transaction for all its events (catch-up and rebuilds do not commit per event).

One writer per view (the projection worker) keeps a write-through cache of what it wrote;
readers use a separate instance and read the committed rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from eventsourcing.persistence import InfrastructureFactory, Tracking, TrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from eventsourcing.utils import Environment

from referee.config import Settings

Doc = dict[str, Any]
_MISSING = object()
APP_NAME = "Referee"


class DocView(TrackingRecorder):
    """The document API shared by the SQLite and PostgreSQL view recorders (a mixin).

    It derives from ``TrackingRecorder`` (abstract) so that it is a valid view type for
    ``Projection[DocView]`` and can use ``max_tracking_id``; the concrete views put the SQLite
    or PostgreSQL tracking recorder first, so their methods come before this class's.
    """

    view_name: str = ""
    datastore: Any
    docs_table: str
    before_flush: Callable[[], None] | None = None

    # -- set-up -------------------------------------------------------------------------------
    def _init_docs(self) -> None:
        self._cache: dict[tuple[str, str], Any] = {}
        self._pending: dict[tuple[str, str], tuple[str, Doc | None]] = {}
        self._batching = False
        self._batch_tracking: Tracking | None = None
        self.rebuilding = False
        """True while rebuilding from an empty view: a cache miss means "no such row"."""

    def _sql(self, text: str) -> str:
        raise NotImplementedError

    def _qualified(self) -> str:
        raise NotImplementedError

    def _insert_tracking(self, c: Any, tracking: Tracking) -> None:
        raise NotImplementedError

    # -- writing (the projection worker) ------------------------------------------------------
    def get(self, kind: str, key: str) -> Doc | None:
        """The document as last written by this worker (staged, cached or committed)."""
        k = (kind, key)
        staged = self._pending.get(k)
        if staged is not None:
            return staged[1]
        hit = self._cache.get(k, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[no-any-return]
        if self.rebuilding:
            return None
        doc = self.read(kind, key)
        self._cache[k] = doc
        return doc

    def put(self, kind: str, key: str, doc: Doc, parent: str = "") -> None:
        """Stage a document (written at the next commit)."""
        self._pending[(kind, key)] = (parent, doc)

    def delete(self, kind: str, key: str) -> None:
        self._pending[(kind, key)] = ("", None)

    def commit(self, tracking: Tracking) -> None:
        """End one event: write staged rows and ``tracking`` in one transaction (in a batch:
        only remember the position)."""
        if self._batching:
            self._batch_tracking = tracking
        else:
            self._flush(tracking)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Process many events, then commit once."""
        self._batching, self._batch_tracking = True, None
        try:
            yield
        except BaseException:
            self._discard()
            raise
        finally:
            self._batching = False
        if self._batch_tracking is not None:
            self._flush(self._batch_tracking)

    def _discard(self) -> None:
        self._pending.clear()
        self._cache.clear()  # documents may have been changed in place

    def forget(self) -> None:
        """Drop what this writer remembers of its rows (another process wrote them since)."""
        self._discard()

    def _flush(self, tracking: Tracking) -> None:
        if self.before_flush is not None:
            self.before_flush()
        upserts, deletes = [], []
        for (kind, key), (parent, doc) in self._pending.items():
            if doc is None:
                deletes.append((kind, key))
            else:
                upserts.append((kind, key, parent, json.dumps(doc, sort_keys=True)))
        try:
            with self.datastore.transaction(commit=True) as c:
                self._write_rows(c, upserts, deletes)
                self._insert_tracking(c, tracking)
        except BaseException:
            self._discard()
            raise
        for k, (_, doc) in self._pending.items():
            self._cache[k] = doc
        self._pending.clear()
        if len(self._cache) > 100_000 and not self.rebuilding:
            self._cache.clear()

    def _write_rows(self, c: Any, upserts: list[tuple[str, str, str, str]],
                    deletes: list[tuple[str, str]]) -> None:
        t = self._qualified()
        if upserts:
            c.executemany(self._sql(
                f"INSERT INTO {t} (kind, key, parent, data) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (kind, key) DO UPDATE SET parent = excluded.parent, "
                "data = excluded.data"), upserts)
        if deletes:
            c.executemany(self._sql(f"DELETE FROM {t} WHERE kind = ? AND key = ?"), deletes)

    def write_now(self, puts: Sequence[tuple[str, str, str, Doc]],
                  deletes: Sequence[tuple[str, str]] = ()) -> None:
        """Write ``(kind, key, parent, doc)`` rows and delete ``(kind, key)`` rows in one
        transaction of their own, at once (no tracking position): for rows that another
        writer than the projection keeps (the webhooks' registrations and delivery states),
        which the projection reads committed, never from its cache."""
        upserts = [(k, key, parent, json.dumps(doc, sort_keys=True))
                   for k, key, parent, doc in puts]
        with self.datastore.transaction(commit=True) as c:
            self._write_rows(c, upserts, list(deletes))

    # -- reading ------------------------------------------------------------------------------
    def read(self, kind: str, key: str) -> Doc | None:
        """A committed document."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(self._sql(f"SELECT data FROM {self._qualified()} WHERE kind = ? AND key = ?"),
                      (kind, key))
            row = c.fetchone()
        if row is None:
            return None
        doc: Doc = json.loads(row["data"])
        return doc

    def children(self, kind: str, parent: str) -> list[tuple[str, Doc]]:
        """Committed ``(key, doc)`` of one kind under ``parent``, by key."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(self._sql(f"SELECT key, data FROM {self._qualified()} "
                                "WHERE kind = ? AND parent = ? ORDER BY key"), (kind, parent))
            rows = c.fetchall()
        return [(r["key"], json.loads(r["data"])) for r in rows]

    def all_rows(self) -> list[tuple[str, str, str, str]]:
        """Every row, sorted (to compare a rebuild with the original)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT kind, key, parent, data FROM {self._qualified()} "
                      "ORDER BY kind, key")
            return [(r["kind"], r["key"], r["parent"], r["data"]) for r in c.fetchall()]

    def position(self) -> int:
        """The last notification id this view has processed (0: none)."""
        return self.max_tracking_id(APP_NAME) or 0

    def drop(self) -> None:
        """Empty the view and forget its position (then rebuild from the log)."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DELETE FROM {self._qualified()}")
            c.execute(self._sql(f"DELETE FROM {self._tracking_table()} "
                                "WHERE application_name = ?"), (APP_NAME,))
        self._discard()

    def close(self) -> None:
        """Close the view's connections (its own pool on PostgreSQL, its file on SQLite)."""
        self.datastore.close()

    def _tracking_table(self) -> str:
        raise NotImplementedError


class SQLiteDocView(SQLiteTrackingRecorder, DocView):
    """A view in its own SQLite file (the tracking table is keyed by application name only,
    so two views never share a file)."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        self.docs_table = f"{self.view_name}_docs"
        super().__init__(datastore, **kwargs)
        self._init_docs()

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {self.docs_table} (kind TEXT NOT NULL, "
                "key TEXT NOT NULL, parent TEXT NOT NULL, data TEXT NOT NULL, "
                "PRIMARY KEY (kind, key))",
                f"CREATE INDEX IF NOT EXISTS {self.docs_table}_parent ON {self.docs_table} "
                "(kind, parent, key)"]

    def _sql(self, text: str) -> str:
        return text

    def _qualified(self) -> str:
        return self.docs_table

    def _tracking_table(self) -> str:
        return "tracking"


_CLASSES: dict[tuple[str, str], type[DocView]] = {}


def view_class(name: str, backend: str) -> type[DocView]:
    """The recorder class of view ``name`` on ``backend`` (``sqlite`` or ``postgres``)."""
    key = (name, backend)
    if key not in _CLASSES:
        base: type[DocView] = SQLiteDocView
        if backend != "sqlite":  # psycopg is imported only here: it is optional
            from referee_projections.store_postgres import PostgresDocView

            base = PostgresDocView
        cls_name = f"{name.title()}{base.__name__}"
        # three-argument type() is typed as returning a plain ``type``
        _CLASSES[key] = cast(
            type[DocView], type(cls_name, (base,), {"view_name": name, "__module__": __name__}))
    return _CLASSES[key]


def view_env(name: str, settings: Settings) -> dict[str, str]:
    """The environment a view is configured from: the application's store, with SQLite
    views each in their own file next to the events (``<VIEW>_SQLITE_DBNAME`` overrides)."""
    env = dict(settings.store_env)
    env.pop("AGGREGATE_CACHE_MAXSIZE", None)
    # One writer thread per view and short reads: a small pool of its own, so a process (the
    # application's pool, three views written, three read) stays well inside PostgreSQL's
    # max_connections. ``<VIEW>_POSTGRES_POOL_SIZE`` / ``_MAX_OVERFLOW`` override.
    env[f"{name.upper()}_POSTGRES_POOL_SIZE"] = "1"
    env[f"{name.upper()}_POSTGRES_MAX_OVERFLOW"] = "4"
    if settings.backend == "sqlite":
        db = Path(env["SQLITE_DBNAME"])
        if str(db) == ":memory:" or "mode=memory" in str(db):
            raise ValueError("SQLite views need a file store (REFEREE_DATA_DIR)")
        env[f"{name.upper()}_SQLITE_DBNAME"] = str(db.with_name(f"{db.stem}-view-{name}.sqlite"))
    return env


def open_view(name: str, settings: Settings,
              environ: dict[str, str] | None = None) -> DocView:
    """A view recorder for ``name`` (tables created if missing)."""
    import os

    env = {**view_env(name, settings), **{k: v for k, v in (environ or os.environ).items()
                                          if k.startswith(name.upper() + "_")}}
    factory: InfrastructureFactory[DocView] = InfrastructureFactory.construct(
        env=Environment(name, env))
    return factory.tracking_recorder(view_class(name, settings.backend))
