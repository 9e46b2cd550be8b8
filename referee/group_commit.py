"""Group commit: one writer thread writes the events of every match that acted meanwhile in
one transaction (an adapter of the application: see the application module's docstring)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from referee.domain.errors import StoreUnavailableError

_log = logging.getLogger("referee.application")


class Pending:
    """One caller's events waiting for the group commit. A thread waits on ``done``, a bare
    lock held until the writer releases it (cheaper than an ``Event``); a coroutine waits on
    ``future``, which the writer settles on the future's loop after calling ``settled``."""

    __slots__ = ("aggregate", "done", "error", "events", "future", "settled")

    def __init__(self, aggregate: Any, events: Sequence[Any],
                 future: asyncio.Future[BaseException | None] | None = None,
                 settled: Callable[[BaseException | None], None] | None = None) -> None:
        self.aggregate, self.events, self.future, self.settled = aggregate, events, future, settled
        self.error: BaseException | None = None
        if future is None:
            self.done = threading.Lock()
            self.done.acquire()


def _settle(items: list[Pending]) -> None:
    """On the loop: run each commit's ``settled`` (whether or not its caller still waits),
    then hand the waiting coroutines their outcome (the error or None)."""
    for item in items:
        try:
            if item.settled is not None:
                item.settled(item.error)
        finally:
            future = item.future
            if future is not None and not future.done():
                future.set_result(item.error)


class GroupCommitter:
    """Group commit: one writer thread; whatever callers hand in while a transaction runs is
    written together in the next one (up to ``max_batch`` aggregates). Each caller waits for
    its own commit. A failed batch is retried one aggregate at a time, so only the callers
    whose own events fail see an error; if the store could not be reached, every caller gets
    ``StoreUnavailableError`` at once instead."""

    def __init__(self, record: Callable[[list[Pending]], None], max_batch: int,
                 after: Callable[[], None] = lambda: None, delay: float = 0.0) -> None:
        self._record, self._after, self.max_batch = record, after, max(1, max_batch)
        #: Seconds the writer waits, once woken, for more callers to join a batch that is
        #: not full (PostgreSQL's ``commit_delay``, in the application): fewer, larger
        #: transactions for that much latency. Only while busy: when the last transaction
        #: held more than one caller, or more than one is waiting already (a lone client
        #: acting in turn never waits for it).
        self.delay = delay
        self._busy = False
        #: Called on the writer thread with the number of aggregates in each batch, before
        #: its transaction (metrics; ``Referee.on_commit_batch``).
        self.on_batch: Callable[[int], None] | None = None
        self._queue: deque[Pending] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="referee-commit", daemon=True)
        self._thread.start()

    def commit(self, aggregate: Any, events: Sequence[Any]) -> None:
        """Write ``events`` (all of one aggregate); return once they are committed."""
        item = Pending(aggregate, events)
        self._put(item)
        item.done.acquire()  # released by the writer thread
        if item.error is not None:
            raise item.error

    def enqueue(self, aggregate: Any, events: Sequence[Any],
                settled: Callable[[BaseException | None], None]
                ) -> asyncio.Future[BaseException | None]:
        """For a coroutine: queue ``events`` and return a future of the running loop that
        the writer settles with ``None`` once they are committed, or with the error. Before
        that, on the loop, ``settled(error)`` runs even if the caller stopped waiting. The
        writer wakes each loop once per batch, however many of its callers the batch holds."""
        future: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
        self._put(Pending(aggregate, events, future, settled))
        return future

    def _put(self, item: Pending) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("the referee is closing")
            self._queue.append(item)
            self._cond.notify()

    def wake(self) -> None:
        with self._cond:
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(30)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait(0.5)
                    if not self._queue:
                        break
                if not self._queue and self._closed:
                    try:
                        self._after()
                    except Exception:  # e.g. a read-only store: logged, close goes on
                        _log.exception("writing the rejection trail failed")
                    return
                waiting = len(self._queue)
                busy = self._busy or waiting > 1
                linger = self.delay if busy and 0 < waiting < self.max_batch else 0.0
            if linger:
                time.sleep(linger)  # others join meanwhile; nobody is woken for it
            with self._cond:
                n = min(len(self._queue), self.max_batch)
                batch = [self._queue.popleft() for _ in range(n)]
            if batch:
                self._busy = len(batch) > 1
            if batch:
                if self.on_batch is not None:
                    try:
                        self.on_batch(len(batch))
                    except Exception:  # a metrics hook must not stop commits
                        _log.exception("the commit batch hook failed")
                self._write(batch)
            try:
                self._after()
            except Exception:  # the audit trail must not stop commits
                _log.exception("writing the rejection trail failed")

    def _write(self, batch: list[Pending]) -> None:
        try:
            self._record(batch)
        except BaseException as exc:  # handed to the callers
            from referee.persistence import is_outage

            if len(batch) == 1:
                batch[0].error = exc
            elif is_outage(exc):  # the store is down: one at a time, each would wait for it
                for item in batch:
                    item.error = StoreUnavailableError("the event store is unavailable; retry")
            else:
                for item in batch:
                    try:
                        self._record([item])
                    except BaseException as own:
                        item.error = own
        finally:
            waiting: dict[asyncio.AbstractEventLoop, list[Pending]] = {}
            for item in batch:
                if item.future is None:
                    item.done.release()
                else:
                    waiting.setdefault(item.future.get_loop(), []).append(item)
            for loop, items in waiting.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                    loop.call_soon_threadsafe(_settle, items)
