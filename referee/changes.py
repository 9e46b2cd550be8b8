"""Waking watchers when something changes, instead of having each of them poll.

:class:`ChangeWaiters` holds the coroutines waiting for a change of a key (a match id); any
thread wakes them (one ``call_soon_threadsafe`` per event loop). :class:`LogFollower` is the
one poller of a process for changes it did not make itself: while anyone waits, it reads a
position (the log's head, or a view's tracking position) every ``interval`` seconds, and when
the position moves it wakes the keys of the events in between. One query per interval for the
whole process, however many watchers there are; nothing at all while nobody watches, nor
while ``paused()`` (the other processes' commits come by notification: ``referee.notices``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

_log = logging.getLogger("referee.changes")


class ChangeWaiters:
    """Coroutines waiting for a change of a key, woken from any thread; and, for keys whose
    changes come with a version (:meth:`advance`), the last version heard of each (at most
    :attr:`KEEP` keys), so that a waiter that looks before it waits loses no change."""

    KEEP = 100_000

    def __init__(self) -> None:
        self._waiting: dict[Hashable, list[asyncio.Future[None]]] = {}
        self._versions: dict[Hashable, int] = {}
        self._guard = threading.Lock()
        self.watched = threading.Event()
        """Set while anyone waits (a follower sleeps on it)."""

    async def wait(self, key: Hashable, timeout: float, ready: Callable[[], bool] = lambda: False,
                   ended: asyncio.Future[Any] | None = None) -> bool:
        """Wait until ``key`` is woken, ``timeout`` passes or ``ended`` is done; True when
        woken. ``ready()`` is asked once the waiter is in place (so no wake between the
        caller's last look and the wait is lost): when true there is nothing to wait for."""
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        with self._guard:
            self._waiting.setdefault(key, []).append(woken)
            self.watched.set()
        try:
            if ready():
                return True
            if timeout <= 0:
                return False
            waits: list[asyncio.Future[Any]] = [woken] if ended is None else [woken, ended]
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            return woken.done()
        finally:
            self._drop(key, woken)

    def _drop(self, key: Hashable, woken: asyncio.Future[None]) -> None:
        with self._guard:
            waiting = self._waiting.get(key)
            if waiting is not None and woken in waiting:
                waiting.remove(woken)
                if not waiting:
                    del self._waiting[key]
            if not self._waiting:
                self.watched.clear()

    def keys(self) -> set[Hashable]:
        with self._guard:
            return set(self._waiting)

    def wake(self, keys: Iterable[Hashable]) -> None:
        """Wake every coroutine waiting for one of ``keys`` (from any thread)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        with self._guard:
            for key in keys:
                for woken in self._waiting.pop(key, ()):
                    by_loop.setdefault(woken.get_loop(), []).append(woken)
            if not self._waiting:
                self.watched.clear()
        for loop, futures in by_loop.items():
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                loop.call_soon_threadsafe(_set_all, futures)

    def advance(self, versions: Mapping[Hashable, int]) -> None:
        """``key`` is at ``version`` now, for each of ``versions``: note it and wake the key's
        waiters (any thread)."""
        with self._guard:
            known = self._versions
            for key, version in versions.items():
                known[key] = max(version, known.pop(key, -1))  # (re-inserted: the newest last)
            if len(known) > self.KEEP:  # the oldest half forgotten (their version: -1)
                for key in list(known)[: len(known) // 2]:
                    del known[key]
        self.wake(versions)

    def version(self, key: Hashable) -> int:
        """The last version :meth:`advance` heard of for ``key`` (-1: none)."""
        return self._versions.get(key, -1)

    def wake_all(self) -> None:
        """Wake everyone (the server is stopping: each watcher looks whether to go on)."""
        self.wake(self.keys())


def keys_of(view: str, versions: Mapping[Any, int]) -> dict[Hashable, int]:
    """The keys under which :class:`ChangeWaiters` holds ``versions`` (aggregate id ->
    version) of ``view``: the id itself for the log (""), ``(view, id)`` for a view."""
    return {(view, k) if view else k: v for k, v in versions.items()}


def _set_all(futures: list[asyncio.Future[None]]) -> None:
    for woken in futures:
        if not woken.done():
            woken.set_result(None)


class LogFollower:
    """Wakes the waiters of the keys that changed since the last look (see the module
    docstring). ``position()`` reads the position; ``changed(after, upto)`` lists the keys of
    the events in ``(after, upto]``. A failing read is logged and tried again."""

    def __init__(self, waiters: ChangeWaiters, position: Callable[[], int],
                 changed: Callable[[int, int], Sequence[Hashable]], interval: float,
                 name: str, paused: Callable[[], bool] = lambda: False) -> None:
        self.waiters, self.interval, self.paused = waiters, interval, paused
        self._position, self._changed = position, changed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        seen: int | None = None
        while not self._stop.is_set():
            if not self.waiters.watched.wait(1.0) or self.paused():
                seen = None  # nobody watched (or notifications woke them): start again
                if self.paused():
                    self._stop.wait(self.interval)
                continue
            try:
                head = self._position()
                if seen is None:  # watchers came: what changed before this look is unknown
                    self.waiters.wake_all()
                elif head > seen:
                    self.waiters.wake(self._changed(seen, head))
                seen = head if seen is None or head > seen else seen
            except Exception:  # a down store: the watchers' own reads report it
                _log.debug("following changes failed; trying again", exc_info=True)
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self.waiters.watched.set()  # wake the thread if it sleeps for want of watchers
        self._thread.join(5)


def originators_between(recorder: Any, after: int, upto: int, limit: int = 10_000
                        ) -> list[Hashable]:
    """The originator ids of the notifications in ``(after, upto]`` (at most ``limit``)."""
    notes = recorder.select_notifications(
        start=after, limit=limit, stop=upto, inclusive_of_start=False
    )
    return list({n.originator_id for n in notes})
