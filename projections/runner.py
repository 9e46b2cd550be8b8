"""Running the projections: batched catch-up, following the log, rebuilding.

- :class:`BatchRunner` pulls pages of the application's notification log
  (``recorder.select_notifications``) from the view's tracking position and processes each
  page inside ``view.batch()``: one transaction per page, rows and position together. It works
  on every store, including SQLite, which has no subscriptions; it is how views catch up and
  rebuild, and how the embedded default follows the log (woken by the application's saves,
  polling for other processes' writes).
- ``referee projections`` (every store, PostgreSQL included) catches up in batches, then
  follows live writes the same way: each pass pages through whatever is new after each view's
  position, one transaction per page of up to ``--batch`` events, and sleeps
  :data:`FOLLOW_POLL` seconds when a pass finds nothing. (It used to follow with
  eventsourcing's ``ProjectionRunner``, one transaction per event, which fell behind under load.)
- :class:`ProjectionWorker` runs every view in one background thread of ``referee serve``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from projections.store import APP_NAME, DocView, open_view
from projections.views import PROJECTIONS
from referee.application import Referee
from referee.config import settings_from_env
from referee.service.metrics import PROJECTION_LAG

log = logging.getLogger("referee.projections")
DEFAULT_BATCH = 1000
FOLLOW_POLL = 0.05  # seconds `referee projections` waits when no view had anything new


class RefereeLog(Referee):
    """The referee application built from an environment mapping (as ``ProjectionRunner``
    constructs applications); used only to read the log."""

    name = "Referee"  # the same tables and the same tracking name as the application

    def __init__(self, env: Any = None) -> None:
        super().__init__(settings_from_env({**os.environ, **dict(env or {})}))


class BatchRunner:
    """Feeds one projection from the log, a page per transaction."""

    def __init__(self, app: Referee, projection_class: type[Projection[Any]], view: DocView,
                 batch_size: int = DEFAULT_BATCH) -> None:
        self.app, self.view, self.batch_size = app, view, batch_size
        self.projection = projection_class(view)
        self.name = projection_class.name

    def run_once(self, stop: Callable[[], bool] = lambda: False,
                 pages: int | None = None) -> int:
        """Process everything recorded so far (or at most ``pages`` pages); return how many
        events were processed."""
        position = self.view.position()
        done = 0
        recorder, mapper = self.app.recorder, self.app.mapper
        while not stop() and (pages is None or done < pages * self.batch_size):
            notes = recorder.select_notifications(
                start=position, limit=self.batch_size, inclusive_of_start=False
            )
            if not notes:
                break
            with self.view.batch():
                for n in notes:
                    self.projection.process_event(mapper.to_domain_event(n),
                                                  Tracking(APP_NAME, n.id))
            position = notes[-1].id
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
    """Every view, followed in one background thread (the embedded default of ``serve``)."""

    def __init__(self, app: Referee, names: Sequence[str] = tuple(PROJECTIONS),
                 poll: float = 0.5, batch_size: int = DEFAULT_BATCH) -> None:
        self.app = app
        self.runners = [
            BatchRunner(app, PROJECTIONS[n], open_view(n, app.settings), batch_size)
            for n in names
        ]
        self.poll = poll
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._woken = threading.Event()  # set by each commit of the application
        app.on_committed(self._woken.set)
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
                    r.run_once(self._stop.is_set)
                head = self.app.recorder.max_notification_id() or 0
                for name, position in self.positions().items():  # referee_projection_lag_events
                    PROJECTION_LAG.labels(name).set(max(0, head - position))
            except Exception as exc:  # logged, retried after a pause (store down, ...)
                self.error = exc
                log.exception("projection worker failed; retrying")
                self._stop.wait(1.0)
                continue
            with self._progress:
                self._progress.notify_all()
            self._woken.wait(self.poll)  # a commit here, or a poll for other processes

    def positions(self) -> dict[str, int]:
        return {r.name: r.view.position() for r in self.runners}

    def wait(self, notification_id: int | None = None, timeout: float = 10.0) -> None:
        """Block until every view has processed ``notification_id`` (default: the log's
        head now). :raises TimeoutError: if not within ``timeout``."""
        target = notification_id
        if target is None:
            target = self.app.recorder.max_notification_id() or 0
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


def start_in_process(app: Referee) -> ProjectionWorker | None:
    """Start the views inside ``referee serve`` for the embedded default (SQLite), or when
    ``REFEREE_PROJECTIONS=inprocess``; ``off`` or a separate worker disables it."""
    mode = os.environ.get("REFEREE_PROJECTIONS", "")
    if mode == "off" or (mode != "inprocess" and app.settings.backend != "sqlite"):
        return None
    return ProjectionWorker(app).start()


def run_process(
    names: Sequence[str], *, rebuild: str | None = None, once: bool = False,
    batch_size: int = DEFAULT_BATCH, stop: threading.Event | None = None,
) -> int:
    """``referee projections``: catch up (or rebuild one view), then follow the log."""
    settings = settings_from_env()
    app = Referee(settings)
    stop = stop or threading.Event()
    try:
        if rebuild:
            if rebuild not in PROJECTIONS:
                raise SystemExit(f"unknown view {rebuild!r}: one of {', '.join(PROJECTIONS)}")
            r = BatchRunner(app, PROJECTIONS[rebuild], open_view(rebuild, settings), batch_size)
            t0 = time.perf_counter()
            n = r.rebuild()
            dt = time.perf_counter() - t0
            print(f"rebuilt {rebuild}: {n} events in {dt:.2f}s "
                  f"({n / dt if dt else 0:.0f} events/s)", flush=True)
            return 0
        runners = [BatchRunner(app, PROJECTIONS[n], open_view(n, settings), batch_size)
                   for n in names]
        for r in runners:
            n = r.run_once()
            print(f"{r.name}: caught up ({n} events)", flush=True)
        if once:
            return 0
        # Follow: page through what is new after each view's position, a transaction per
        # page (rows and position together), on every store; nap only when nothing was new.
        while not stop.is_set():
            done = sum(r.run_once(stop.is_set, pages=1) for r in runners)  # a page each, in turn
            if not done:
                stop.wait(FOLLOW_POLL)
        return 0
    finally:
        app.close()
