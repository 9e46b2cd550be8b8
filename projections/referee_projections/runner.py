"""Running the projections: batched catch-up, following the log, rebuilding.

- :class:`BatchRunner` pulls pages of the application's notification log through the
  :class:`~referee.application.ports.EventLog` port (in ``referee serve`` the application's
  own reader, in ``referee projections`` a :class:`~referee.application.LogReader` of its
  own: projections never build the write side) from the view's tracking position and processes each
  page inside ``view.batch()``: one transaction per page, rows and position together. It works
  on every store, including SQLite, which has no subscriptions; it is how views catch up and
  rebuild, and how the embedded default follows the log (woken by the application's saves,
  polling for other processes' writes).
- ``referee projections`` (every store, PostgreSQL included) catches up in batches, then
  follows live writes the same way: each pass pages through whatever is new after each view's
  position, one transaction per page of up to ``--batch`` events, and sleeps
  :data:`FOLLOW_POLL` seconds when a pass finds nothing. (It used to follow with
  eventsourcing's ``ProjectionRunner``, one transaction per event, which fell behind under load.)
- :class:`ProjectionWorker` runs every view in one background thread of ``referee serve``
  (by default, on every store; ``REFEREE_PROJECTIONS=separate`` leaves them to
  ``referee projections``).
- On PostgreSQL each view is written by one process at a time, whoever holds its
  :class:`ViewLocks` advisory lock: several servers on one database (replicas, or a server
  next to ``referee projections``) never write a view at once; the others stand by and one
  takes over within about a second when the writer stops.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from referee.application import LogReader
from referee.application.ports import EventLog
from referee.config import settings_from_env
from referee_projections.metrics import PROJECTION_EVENTS, PROJECTION_LAG
from referee_projections.store import APP_NAME, DocView, open_view
from referee_projections.views import PROJECTIONS

log = logging.getLogger("referee.projections")
DEFAULT_BATCH = 1000
FOLLOW_POLL = 0.05  # seconds `referee projections` waits when no view had anything new
LAG_EVERY = 1.0  # seconds between two `referee_projection_lag_events` updates while following


class ViewLockLost(RuntimeError):
    """The connection holding a view's advisory lock broke: another process may write the
    view now, so this one stops writing it until it holds the lock again."""


class ViewLocks:
    """PostgreSQL session advisory locks, one per view and schema, held on one connection of
    this process's own: the process holding a view's lock is the only one writing it.

    :meth:`take` tries (at most once every :attr:`retry` seconds per view while another
    process holds it); :meth:`check` raises :class:`ViewLockLost` once the connection is gone
    (the server released the locks with it).
    """

    retry = 1.0

    def __init__(self, datastore: Any) -> None:
        self._datastore = datastore
        self._conn: Any = None
        self._held: set[str] = set()
        self._next_try: dict[str, float] = {}

    def key(self, view: str) -> int:
        """The lock's 64-bit key: the view's name within its database schema."""
        name = f"trick-referee:{self._datastore.schema or 'public'}:{view}".encode()
        return int.from_bytes(hashlib.blake2b(name, digest_size=8).digest(), "big", signed=True)

    def holds(self, view: str) -> bool:
        return view in self._held

    def take(self, view: str) -> bool:
        """Whether this process holds ``view``'s lock now (trying to take it if not)."""
        if view in self._held:
            return True
        now = time.monotonic()
        if now < self._next_try.get(view, 0.0):
            return False
        self._next_try[view] = now + self.retry
        if self._conn is None:
            from psycopg.rows import tuple_row

            from referee.persistence import dedicated_connection

            self._conn = dedicated_connection(self._datastore)
            self._conn.row_factory = tuple_row  # the pool's rows are dicts
        try:
            row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key(view),)
                                     ).fetchone()
        except Exception:
            self.release()
            raise
        if row and row[0]:
            self._held.add(view)
            return True
        return False

    def check(self) -> None:
        """:raises ViewLockLost: when the connection holding the locks broke."""
        if not self._held:
            return
        try:
            self._conn.execute("SELECT 1")
        except Exception as exc:
            self.release()
            raise ViewLockLost(f"lost the views' lock connection: {exc}") from exc

    def release(self) -> None:
        """Let go of every lock (closing the connection releases them)."""
        self._held.clear()
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken
                log.debug("closing the views' lock connection failed", exc_info=True)


def view_locks(log: EventLog) -> ViewLocks | None:
    """Advisory locks for the views of ``log``'s store (None unless PostgreSQL)."""
    datastore = log.datastore
    return None if datastore is None else ViewLocks(datastore)


def writes(locks: ViewLocks | None, name: str, view: DocView) -> bool:
    """Whether this process is the one writing view ``name`` (always, but on PostgreSQL where
    another process may hold the view's lock)."""
    if locks is None or locks.holds(name):
        return True
    if not locks.take(name):
        return False
    view.forget()  # another process may have written it since
    log.info("projections: following the %s view", name)
    return True


class BatchRunner:
    """Feeds one projection from the log, a page per transaction. ``guard``, when set, is
    called before each page (the holder of the view's lock checks it still holds it)."""

    def __init__(self, log: EventLog, projection_class: type[Projection[Any]], view: DocView,
                 batch_size: int = DEFAULT_BATCH, guard: Callable[[], None] | None = None
                 ) -> None:
        self.log, self.view, self.batch_size = log, view, batch_size
        self.projection = projection_class(view)
        self.name = projection_class.name
        self.guard = guard

    def run_once(self, stop: Callable[[], bool] = lambda: False,
                 pages: int | None = None) -> int:
        """Process everything recorded so far (or at most ``pages`` pages); return how many
        events were processed."""
        position = self.view.position()
        done = 0
        while not stop() and (pages is None or done < pages * self.batch_size):
            notes = self.log.read(position, self.batch_size)
            if not notes:
                break
            if self.guard is not None:
                self.guard()
            versions: dict[Any, int] = {}
            with self.view.batch():
                for notification_id, event in notes:
                    self.projection.process_event(event, Tracking(APP_NAME, notification_id))
                    versions[event.originator_id] = event.originator_version
            self.log.views_advanced(self.name, versions)  # committed: wake its watchers
            position = notes[-1][0]
            done += len(notes)
        return done

    def rebuild(self) -> int:
        """Drop the view and rebuild it from the whole log, in batches."""
        self.view.drop()
        self.view.rebuilding = True
        try:
            return self.run_once()
        finally:
            self.view.rebuilding = False


class ProjectionWorker:
    """Every view, followed in one background thread of ``referee serve``. On PostgreSQL it
    writes only the views whose lock it holds (:class:`ViewLocks`)."""

    def __init__(self, log: EventLog, names: Sequence[str] = tuple(PROJECTIONS),
                 poll: float = 0.5, batch_size: int = DEFAULT_BATCH) -> None:
        self.log = log
        self.locks = view_locks(log)
        guard = None if self.locks is None else self.locks.check
        self.runners = [
            BatchRunner(log, PROJECTIONS[n], open_view(n, log.settings), batch_size, guard)
            for n in names
        ]
        self.poll = poll
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._woken = threading.Event()  # set by each commit of the application
        log.on_committed(self._woken.set)
        self._progress = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="referee-projections",
                                        daemon=True)

    def start(self) -> ProjectionWorker:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self._woken.clear()
            try:
                for r in self.runners:
                    if self._writes(r):
                        r.run_once(self._stop.is_set)
                head = self.log.head()
                for name, position in self.positions().items():  # referee_projection_lag_events
                    PROJECTION_LAG.labels(name).set(max(0, head - position))
            except Exception as exc:  # logged, retried after a pause (store down, ...)
                self.error = exc
                log.exception("projection worker failed; retrying")
                if self.locks is not None:
                    self.locks.release()
                self._stop.wait(1.0)
                continue
            with self._progress:
                self._progress.notify_all()
            self._woken.wait(self.poll)  # a commit here, or a poll for other processes

    def _writes(self, runner: BatchRunner) -> bool:
        return writes(self.locks, runner.name, runner.view)

    def positions(self) -> dict[str, int]:
        return {r.name: r.view.position() for r in self.runners}

    def wait(self, notification_id: int | None = None, timeout: float = 10.0) -> None:
        """Block until every view has processed ``notification_id`` (default: the log's
        head now). :raises TimeoutError: if not within ``timeout``."""
        target = notification_id
        if target is None:
            target = self.log.head()
        deadline = time.monotonic() + timeout
        while min(self.positions().values()) < target:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"views at {self.positions()}, waiting for {target}")
            self._woken.set()
            with self._progress:
                self._progress.wait(min(left, 0.05))

    def stop(self) -> None:
        self._stop.set()
        self._woken.set()
        if self._thread.is_alive():
            self._thread.join(10)
        if self.locks is not None:
            self.locks.release()
        for r in self.runners:
            r.view.close()


def start_in_process(log: EventLog) -> ProjectionWorker | None:
    """Start the views inside ``referee serve`` (every store), unless
    ``REFEREE_PROJECTIONS=separate`` (or ``off``) leaves them to ``referee projections``."""
    if log.settings.projections == "separate":
        return None
    return ProjectionWorker(log).start()


def run_process(
    names: Sequence[str], *, rebuild: str | None = None, once: bool = False,
    batch_size: int = DEFAULT_BATCH, stop: threading.Event | None = None,
) -> int:
    """``referee projections``: catch up (or rebuild one view), then follow the log. On
    PostgreSQL a view another process writes (see :class:`ViewLocks`) is left to it: skipped
    with ``--once``, refused for ``--rebuild``, taken over when that process stops."""
    settings = settings_from_env()
    from referee_projections.webhook_delivery import RetryPolicy, WebhookWorker

    webhook_policy = RetryPolicy.from_env()  # REFEREE_WEBHOOK_*: checked before anything runs
    log = LogReader.open(settings)
    stop = stop or threading.Event()
    locks = view_locks(log)
    guard = None if locks is None else locks.check

    def ours(name: str) -> bool:
        return locks is None or locks.take(name)

    runners: list[BatchRunner] = []
    webhooks: WebhookWorker | None = None  # sent from here too, once following

    try:
        if rebuild:
            if rebuild not in PROJECTIONS:
                raise SystemExit(f"unknown view {rebuild!r}: one of {', '.join(PROJECTIONS)}")
            if not ours(rebuild):
                raise SystemExit(f"the {rebuild} view is being written by another process (a "
                                 "`referee serve` without REFEREE_PROJECTIONS=separate, or "
                                 "`referee projections`): stop it first")
            r = BatchRunner(log, PROJECTIONS[rebuild], open_view(rebuild, settings), batch_size,
                            guard)
            runners.append(r)
            t0 = time.perf_counter()
            n = r.rebuild()
            dt = time.perf_counter() - t0
            print(f"rebuilt {rebuild}: {n} events in {dt:.2f}s "
                  f"({n / dt if dt else 0:.0f} events/s)", flush=True)
            return 0
        runners += [BatchRunner(log, PROJECTIONS[n], open_view(n, settings), batch_size, guard)
                    for n in names]
        for r in runners:
            if not ours(r.name):
                print(f"{r.name}: written by another process; "
                      + ("skipped" if once else "standing by"), flush=True)
                continue
            n = r.run_once()
            PROJECTION_EVENTS.labels(r.name).inc(n)
            print(f"{r.name}: caught up ({n} events)", flush=True)
        if once:
            return 0
        webhooks = WebhookWorker(log, webhook_policy).start()
        lag_at = report_lag(log, runners)
        # Follow: page through what is new after each view's position, a transaction per
        # page (rows and position together), on every store; nap only when nothing was new.
        while not stop.is_set():
            done = 0
            for r in runners:  # a page each, in turn
                if locks is not None and not locks.holds(r.name):
                    if not locks.take(r.name):
                        continue
                    r.view.forget()  # written by another process until now
                    print(f"{r.name}: taking over", flush=True)
                n = r.run_once(stop.is_set, pages=1)
                if n:
                    PROJECTION_EVENTS.labels(r.name).inc(n)
                done += n
            if time.monotonic() - lag_at >= LAG_EVERY:
                lag_at = report_lag(log, runners)
            if not done:
                stop.wait(FOLLOW_POLL)
        return 0
    finally:
        if webhooks is not None:
            webhooks.stop()
        if locks is not None:
            locks.release()
        for r in runners:
            r.view.close()
        log.close()


def report_lag(log: EventLog, runners: Sequence[BatchRunner]) -> float:
    """Set ``referee_projection_lag_events`` of each view (the log's head minus its position);
    returns when (``time.monotonic()``)."""
    head = log.head()
    for r in runners:
        PROJECTION_LAG.labels(r.name).set(max(0, head - r.view.position()))
    return time.monotonic()
