"""Watching a match: one read per committed version, one update per audience, shared.

Every stream watching a match subscribes to the match's :class:`Feed`. The feed has one
task, its pump, which waits on the notifier port (:class:`~referee.changes.ChangeWaiters`:
woken by this process's commits, and by the log follower for other processes' writes) and,
for each new committed version, reads the match once (under its lock, on the executor) and
asks the reader for the new events and the view of each *audience* that has a stream: the
public view (spectators), each seat's, the auditor's. Each audience's part is encoded once
(the :class:`~referee.application.updates.Encoder` port: the service encodes protobuf
bytes) and every stream of that audience is handed the same encoded update. Redaction
stays where it was (``referee.application.reading``: ``view_of`` and the event
redaction); an audience is a :class:`~referee.application.principals.Principal`, which is
all they read of the caller.

Streams never touch the store or the match lock on their own, and never queue: a stream
holds only the last version it sent. A slow consumer (its previous message still being
sent) simply takes, when it is ready again, one update from the version it sent to the
latest, the events of every version in between joined from the feed's encoded history
(bounded; a stream further behind than the history gets an update read for it alone).
Wakes are handed out through a window (:data:`WINDOW` streams sending at once; more as
those are back), so the loop never holds more than a window of fan-out work before the
players' calls get their turn. Heartbeats come from one timer per event loop
(:class:`~referee.application.beats.Beats`), which wakes only the streams whose heartbeat
is due; an idle stream costs nothing but its place in that timer's heap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar
from uuid import UUID

from referee.application.answers import PublicEvent, View
from referee.application.beats import Beats
from referee.application.principals import Principal
from referee.application.updates import Encoder
from referee.changes import ChangeWaiters

_log = logging.getLogger("referee.application")

E = TypeVar("E")
WINDOW = 128
"""Streams of one feed sending at once (see :meth:`Feed._wake_in_batches`)."""
BATCH_WAIT = 0.05
"""Seconds the fan-out waits for room in the window (a slow consumer's send is not awaited
longer)."""
HISTORY = 4096
"""Versions of encoded events a feed keeps per audience (then it drops the older half)."""
IDLE_WAIT = 60.0
"""Seconds a feed's pump waits without a wake before it looks again (a lost wake's bound)."""

Parts = dict[Principal, tuple[list[PublicEvent], View]]
Snapshot = tuple[int, Parts]
"""``(version, {audience: (events after its version, view)})``, read once under the lock."""


class _Audience:
    """What a feed keeps for one audience: encoded events by version (``first`` < v <=
    the feed's version), the encoded view at the feed's version, the updates built from it."""

    __slots__ = ("events", "first", "updates", "view")

    def __init__(self, first: int) -> None:
        self.first = first
        self.events: dict[int, Any] = {}
        self.view: Any = None
        self.updates: dict[int, Any] = {}


class Subscription:
    """One stream's place in a feed: the version it sent, whether a heartbeat is due."""

    __slots__ = (
        "_waiter",
        "alive",
        "beat",
        "closed",
        "counted",
        "every",
        "feed",
        "first",
        "last",
        "sent",
        "who",
    )

    def __init__(self, feed: Feed[Any], who: Principal, after: int, every: float,
                 alive: Callable[[], bool]) -> None:
        self.feed, self.who, self.sent = feed, who, after
        self.first, self.every, self.alive = True, every, alive
        self.last = 0.0
        self.beat = self.closed = self.counted = False
        self._waiter: asyncio.Future[None] | None = None

    def wake(self) -> bool:
        """Wake the stream if it waits (True then)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
            return True
        return False

    def settle(self) -> None:
        """The stream is back (waiting again, or gone): its batch need not wait for it."""
        if self.counted:
            self.counted = False
            self.feed.settled()

    def close(self) -> None:
        self.closed = True
        self.wake()

    async def wait(self) -> None:
        self.settle()
        self._waiter = self.feed.loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class Feed(Generic[E]):
    """The streams of one match on one event loop, and the pump that feeds them."""

    def __init__(self, fanout: Fanout[E], match_id: UUID, loop: asyncio.AbstractEventLoop
                 ) -> None:
        self.fanout, self.match_id, self.loop = fanout, match_id, loop
        self.version = -1  # nothing read yet
        self.audiences: dict[Principal, _Audience] = {}
        self.pending: dict[Principal, int] = {}  # audiences to build, from this version
        self.subs: list[Subscription] = []
        self.error: BaseException | None = None
        self.closed = False
        self._poke: asyncio.Future[None] = loop.create_future()
        self._sending = 0  # streams of the batch being woken that are not back yet
        self._batch: asyncio.Future[None] | None = None
        self.task = loop.create_task(self._pump(), name=f"referee-feed-{match_id}")

    # -- the streams' side ---------------------------------------------------------------------
    def add(self, sub: Subscription) -> None:
        self.subs.append(sub)
        if sub.who not in self.audiences and sub.who not in self.pending:
            self.pending[sub.who] = 0
            self.poke()

    def remove(self, sub: Subscription) -> None:
        sub.closed = True
        try:
            self.subs.remove(sub)
        except ValueError:
            return
        if not self.subs:
            self.poke()

    def settled(self) -> None:
        """A stream woken by the current round is back: room for more (see
        :meth:`_wake_in_batches`)."""
        self._sending -= 1
        if (self._sending <= WINDOW // 2 and self._batch is not None
                and not self._batch.done()):
            self._batch.set_result(None)

    def poke(self) -> None:
        if not self._poke.done():
            self._poke.set_result(None)

    def update_for(self, sub: Subscription) -> Any:
        """The encoded update from ``sub.sent`` to the feed's version (None: it is further
        behind than the history)."""
        audience = self.audiences[sub.who]
        sent = min(sub.sent, self.version)
        if sent < audience.first:
            return None
        update = audience.updates.get(sent)
        if update is None:
            parts = [audience.events[v] for v in range(sent + 1, self.version + 1)
                     if v in audience.events]
            parts.append(audience.view)
            update = audience.updates[sent] = self.fanout.encoder.update(parts, self.version)
        return update

    # -- the pump ------------------------------------------------------------------------------
    async def _pump(self) -> None:
        fanout = self.fanout
        try:
            while self.subs or self.pending:
                woken = self._behind()
                if not woken and not self._poke.done():
                    # Woken: a commit here, another process's write (the follower), a stop.
                    woken = await fanout.changes.wait(fanout.key(self.match_id), IDLE_WAIT,
                                                      self._behind, self._poke)
                if self._poke.done():
                    self._poke = self.loop.create_future()
                if not self.subs:
                    break
                if woken or self.pending:
                    await self._refresh()  # (also when only another process wrote)
        except Exception as exc:  # the store, a broken chain: the streams say it
            self.error = exc
            self._wake_all()
        finally:
            self.closed = True
            fanout.dropped(self)

    def _behind(self) -> bool:
        return bool(self.pending) or self.fanout.version(self.match_id) > self.version

    async def _refresh(self) -> None:
        wants = {who: self.version for who in self.audiences}
        wants.update(self.pending)
        version, encoded = await self.loop.run_in_executor(
            None, self.fanout.read_encoded, self.match_id, wants)
        for who, (events, view) in encoded.items():
            audience = self.audiences.get(who)
            if audience is None or who in self.pending:
                audience = self.audiences[who] = _Audience(wants[who])
                self.pending.pop(who, None)
            audience.events.update(events)
            audience.view = view
            audience.updates.clear()
            if len(audience.events) > HISTORY:
                audience.first = version - HISTORY // 2
                audience.events = {v: e for v, e in audience.events.items()
                                   if v > audience.first}
        self.version = version
        await self._wake_in_batches()  # (without a change too: each looks at alive())

    async def _wake_in_batches(self) -> None:
        """Wake the waiting streams with at most :data:`WINDOW` of them sending at once: the
        next are woken as those come back (or once :data:`BATCH_WAIT` passes without
        enough of them back: slow consumers do not hold the others). The loop never holds
        more than a window of the fan-out's work, so the players' calls keep their turn,
        and the versions committed during a long round go out together, as one update
        per stream."""
        subs = list(self.subs)
        inflight: list[Subscription] = []
        self._sending = 0
        i = 0
        while i < len(subs):
            while i < len(subs) and self._sending < WINDOW:
                sub = subs[i]
                i += 1
                if sub.wake():
                    sub.counted = True
                    inflight.append(sub)
                    self._sending += 1
            if i < len(subs):
                self._batch = self.loop.create_future()
                done, _ = await asyncio.wait((self._batch,), timeout=BATCH_WAIT)
                if not done:  # the ones still sending are slow: count them no longer
                    for sub in inflight:
                        sub.counted = False
                    self._sending = 0
                inflight = [sub for sub in inflight if sub.counted]
        for sub in inflight:
            sub.counted = False
        self._batch, self._sending = None, 0

    def _wake_all(self) -> None:
        for sub in list(self.subs):
            sub.wake()


class Fanout(Generic[E]):
    """The watch use case over the notifier port (see the module docstring).

    ``read(match_id, wants)``: under the match's lock, the version and, for each audience
    of ``wants``, its redacted events after the version given and its view;
    ``version(match_id)``: the live version without the lock (to see whether to read);
    ``changes``: the notifier, waited on under ``key(match_id)`` (the match id itself by
    default; the scoreboards' fan-out waits on the scoreboard view's key of the match)."""

    def __init__(self, read: Callable[[UUID, Mapping[Principal, int]], Snapshot],
                 version: Callable[[UUID], int], changes: ChangeWaiters,
                 encoder: Encoder[E], key: Callable[[UUID], Hashable] = lambda m: m) -> None:
        self.read, self.version, self.changes = read, version, changes
        self.encoder, self.key = encoder, key
        self._feeds: dict[tuple[asyncio.AbstractEventLoop, UUID], Feed[E]] = {}
        self._beats: dict[asyncio.AbstractEventLoop, Beats] = {}

    def read_encoded(self, match_id: UUID, wants: Mapping[Principal, int]
                     ) -> tuple[int, dict[Principal, tuple[dict[int, E], E]]]:
        """(Executor.) One read under the lock, then each audience's part encoded once,
        outside the lock: its events grouped by version, and its view."""
        version, parts = self.read(match_id, wants)
        out: dict[Principal, tuple[dict[int, E], E]] = {}
        enc = self.encoder
        for who, (events, view) in parts.items():
            by_version: dict[int, list[PublicEvent]] = {}
            for e in events:
                by_version.setdefault(e.version, []).append(e)
            out[who] = ({v: enc.events(es) for v, es in by_version.items()}, enc.view(view))
        return version, out

    def feeds(self) -> int:
        """How many matches are watched now (on every loop)."""
        return len(self._feeds)

    def dropped(self, feed: Feed[E]) -> None:
        key = (feed.loop, feed.match_id)
        if self._feeds.get(key) is feed:
            del self._feeds[key]

    def _feed(self, match_id: UUID) -> Feed[E]:
        loop = asyncio.get_running_loop()
        feed = self._feeds.get((loop, match_id))
        if feed is None or feed.closed:
            feed = self._feeds[(loop, match_id)] = Feed(self, match_id, loop)
        return feed

    def _beats_of(self, loop: asyncio.AbstractEventLoop) -> Beats:
        beats = self._beats.get(loop)
        if beats is None:
            for old in [k for k in self._beats if k.is_closed()]:
                del self._beats[old]
            beats = self._beats[loop] = Beats(loop)
        return beats

    async def watch(self, match_id: UUID, who: Principal, after: int, heartbeat: float | None,
                    alive: Callable[[], bool] = lambda: True,
                    ended: asyncio.Future[Any] | None = None,
                    alone: Callable[[int], tuple[list[PublicEvent], View]] | None = None,
                    first: bool = True) -> AsyncIterator[Any]:
        """The encoded updates of one stream: first everything after ``after`` and the view
        (``first=False``: only once the version passes ``after``), then an update per new
        version (or, when it was not ready for each, one from the version it sent to the
        latest), a heartbeat after ``heartbeat`` seconds without one (None: no heartbeats).
        Ends when ``ended`` is done or ``alive()`` is false after a wake. ``alone(sent)``
        reads an update for this stream alone (when it is behind the feed's history)."""
        loop = asyncio.get_running_loop()
        feed = self._feed(match_id)
        sub = Subscription(feed, who, after, heartbeat or 0.0, alive)
        sub.first = first
        feed.add(sub)
        if ended is not None:
            ended.add_done_callback(lambda _: sub.close())
        sub.last = loop.time()
        if heartbeat is not None:
            self._beats_of(loop).add(sub)
        enc = self.encoder
        try:
            while True:
                if sub.closed or not alive():
                    return
                if feed.error is not None:
                    raise feed.error
                audience = feed.audiences.get(who)
                if audience is not None and (sub.first or sub.sent < feed.version):
                    update = feed.update_for(sub)
                    version = feed.version
                    if update is None:
                        if alone is None:
                            raise RuntimeError("a stream behind the feed's history")
                        events, view = await loop.run_in_executor(None, alone, sub.sent)
                        update = enc.update([enc.events(events), enc.view(view)], view.version)
                        version = view.version
                    sub.first, sub.sent, sub.beat = False, version, False
                    sub.last = loop.time()
                    yield update
                    continue
                if sub.beat and not sub.first:
                    sub.beat = False
                    sub.last = loop.time()
                    yield enc.heartbeat(max(sub.sent, feed.version))
                    continue
                await sub.wait()
                if feed.closed and feed.error is None and not sub.closed:
                    # The pump ended (a lost race with the last stream leaving): move on.
                    feed.remove(sub)
                    feed = sub.feed = self._feed(match_id)
                    feed.add(sub)
        finally:
            sub.closed = True
            sub.settle()
            sub.feed.remove(sub)
