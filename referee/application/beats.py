"""The heartbeats of watch streams: one timer per event loop, not a wake per stream."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from typing import Protocol


class Beating(Protocol):
    """What :class:`Beats` reads and sets of a stream."""

    closed: bool
    beat: bool
    last: float
    every: float

    def wake(self) -> bool: ...


class Beats:
    """The heartbeats of every stream on one event loop: one timer, a heap by due time.
    A stream that sent something meanwhile is put back at its new due time, unwoken."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[tuple[float, int, Beating]] = []
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    def add(self, sub: Beating) -> None:
        self._push(sub.last + sub.every, sub)

    def _push(self, due: float, sub: Beating) -> None:
        heapq.heappush(self._heap, (due, next(self._seq), sub))
        if self._timer is None or due < self._timer.when():
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.loop.call_at(due, self._fire)

    def _fire(self) -> None:
        self._timer = None
        now = self.loop.time()
        heap = self._heap
        while heap and heap[0][0] <= now:
            _, _, sub = heapq.heappop(heap)
            if sub.closed:
                continue
            due = sub.last + sub.every
            if due <= now:
                sub.beat = True
                sub.wake()
                due = now + sub.every
            heapq.heappush(heap, (due, next(self._seq), sub))
        if heap:
            self._timer = self.loop.call_at(heap[0][0], self._fire)
