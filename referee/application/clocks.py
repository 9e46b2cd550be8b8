"""Clocks: timeouts as commands, and the timers that fire them.

A match's deadline comes from its own events (``referee.domain.clock``). :class:`Timers`
keeps one deadline per open timed match of the store and fires it on time: the match is
read fresh (other processes' writes applied), and if its deadline has really passed the
match's policy is applied and committed like any command. Several servers on one database
all keep the timers; the store's optimistic concurrency lets exactly one timeout through
(the others find the match changed and take up its next deadline).

Deadlines survive restarts: on start the timers look up the open timed matches in the log
(their ``TimeControlled`` events, less the ended ones) and recompute each deadline from its
events, so a deadline that passed while the server was down fires at once (late by at most
the downtime). Other processes' new timed matches and resumed clocks are picked up by
following those two event types in the log.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from referee import limits
from referee.application.creating import deal_next
from referee.domain.clock import MAXIMA
from referee.domain.errors import MalformedRequestError, RefereeError, VersionConflictError
from referee.domain.match import Match

_log = logging.getLogger("referee.clocks")
Now = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def timing_out(now: datetime) -> Callable[[Match], dict[str, Any] | None]:
    """The command that times out the seat to act if its deadline has passed at ``now``:
    the match's policy applied (and the next hand dealt if one is due); returns the timeout
    (``Match.last_timeout``: seat, version of the ``TimedOut`` event, policy, deadline), or
    None when nothing was due."""
    def run(match: Match) -> dict[str, Any] | None:
        if match.clock is None or not match.clock.expired(match.to_act, now):
            return None
        match.time_out(now)
        if match.needs_deal:
            deal_next(match)
        assert match.last_timeout is not None
        return dict(match.last_timeout)
    return run


class Timers:
    """The deadlines of the open timed matches, fired on time by one thread (and a few
    workers, so that many deadlines at once are committed together)."""

    def __init__(self, fire: Callable[[UUID], None], now: Now = utc_now,
                 workers: int = 32) -> None:
        self._fire, self._now = fire, now
        self._heap: list[tuple[datetime, int, UUID, int]] = []
        self._due: dict[UUID, tuple[datetime, int]] = {}
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._workers = ThreadPoolExecutor(workers, thread_name_prefix="referee-timeout")
        self._thread: threading.Thread | None = None  # started with the first deadline

    def __len__(self) -> int:
        with self._cond:
            return len(self._due)

    def watch(self, match: Match) -> None:
        """(Re)schedule ``match``'s deadline as of its current version (none: forget it)."""
        if match.clock is None:
            return
        deadline = match.deadline()
        with self._cond:
            if deadline is None:
                self._due.pop(match.id, None)
                return
            entry = (deadline, match.version)
            if self._due.get(match.id) == entry:
                return
            self._due[match.id] = entry
            heapq.heappush(self._heap, (deadline, next(self._seq), match.id, match.version))
            if len(self._heap) > 2 * len(self._due) + 1024:  # mostly superseded entries
                self._heap = [(d, next(self._seq), mid, v) for mid, (d, v) in self._due.items()]
                heapq.heapify(self._heap)
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._run, name="referee-timers",
                                                daemon=True)
                self._thread.start()
            elif self._heap[0][2] == match.id:
                self._cond.notify()

    def deadline(self, match_id: UUID) -> datetime | None:
        with self._cond:
            entry = self._due.get(match_id)
        return None if entry is None else entry[0]

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    if self._heap:
                        wait = (self._heap[0][0] - self._now()).total_seconds()
                        if wait <= 0:
                            break
                        self._cond.wait(min(wait, 60.0))
                    else:
                        self._cond.wait()
                if self._stopped:
                    return
                deadline, _, match_id, version = heapq.heappop(self._heap)
                if self._due.get(match_id) != (deadline, version):
                    continue  # rescheduled or forgotten since
                del self._due[match_id]
            self._workers.submit(self._fire_logged, match_id)

    def _fire_logged(self, match_id: UUID) -> None:
        try:
            self._fire(match_id)
        except Exception:  # logged; the next commit or follow pass reschedules it
            _log.exception("match %s: the timeout failed", match_id)

    def close(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(5)
        self._workers.shutdown(wait=False, cancel_futures=True)


#: The events after which a table's clocks may run again with a new deadline: a time control,
#: a resume, and the answers that end an undo request or an unchecked claim (docs/undo.md).
CLOCK_TOPICS = tuple(get_topic(e) for e in (
    Match.TimeControlled, Match.ClockResumed, Match.UndoAnswered, Match.ActionWithdrawn,
    Match.ClaimAnswered))
ENDED_TOPIC = get_topic(Match.MatchEnded)


class ClockFollower:
    """Finds the timed matches the timers must keep: on start, the open ones in the log;
    then, every ``interval`` seconds, those another process created or resumed."""

    def __init__(self, recorder: Any, reload: Callable[[UUID], None], interval: float,
                 page: int = 1000) -> None:
        self._recorder, self._reload = recorder, reload
        self._interval, self._page = interval, page
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee-clock-follow",
                                        daemon=True)
        self._thread.start()

    def _notes(self, after: int, topics: tuple[str, ...], upto: int | None = None
               ) -> tuple[list[Any], int]:
        """``topics`` notifications after ``after`` (one page) and the last id read."""
        notes = self._recorder.select_notifications(
            start=after, limit=self._page, stop=upto, topics=topics, inclusive_of_start=False)
        return list(notes), (notes[-1].id if notes else after)

    def _recover(self) -> int:
        """Schedule every open timed match (one pass over the log's clock and match-end
        events); return the log position followed from."""
        head = int(self._recorder.max_notification_id() or 0)
        timed: dict[UUID, None] = {}
        ended: set[UUID] = set()
        position = 0
        while not self._stop.is_set():
            notes, last = self._notes(position, (*CLOCK_TOPICS, ENDED_TOPIC), head)
            if last == position:
                break
            for n in notes:
                if n.topic == ENDED_TOPIC:
                    ended.add(n.originator_id)
                else:
                    timed[n.originator_id] = None
            position = last
        for match_id in timed:
            if match_id not in ended and not self._stop.is_set():
                self._reload(match_id)
        return head

    def _run(self) -> None:
        try:
            position = self._recover()
        except Exception:
            _log.exception("the timers could not recover the open timed matches; retrying")
            position = 0
        while not self._stop.wait(self._interval):
            try:
                if position == 0:
                    position = self._recover()
                    continue
                notes, position = self._notes(position, CLOCK_TOPICS)
                for match_id in dict.fromkeys(n.originator_id for n in notes):
                    self._reload(match_id)
            except Exception:  # the store is down: try again next time
                _log.debug("following the clocks failed", exc_info=True)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


class ClockCommands:
    """The arbiter's clock commands: pause a table (a disconnect, a ruling in progress) and
    resume it; both are events in the match's log."""

    def __init__(self, update: Callable[[UUID, Callable[[Match], Any]], Any],
                 require_auditor: Callable[[str, str], None]) -> None:
        self._update, self._require_auditor = update, require_auditor

    def pause(self, match_id: UUID, token: str, reason: str) -> int:
        """Pause the table's clocks; return the new version. Auditor only."""
        self._require_auditor(token, "pause a table's clocks")
        limits.check_length("reason", reason, limits.MAX_REASON, "characters")

        def run(match: Match) -> int:
            match.pause_clock("auditor", reason)
            return match.version
        return int(self._update(match_id, run))

    def resume(self, match_id: UUID, token: str, add_ms: int = 0) -> int:
        """Resume the table's clocks (the seat to act's turn goes on where it stopped, or
        begins afresh after a timeout that paused it), with ``add_ms`` more for that turn;
        return the new version. Auditor only."""
        self._require_auditor(token, "resume a table's clocks")
        top = MAXIMA["action_ms"]
        if not 0 <= add_ms <= top:
            raise MalformedRequestError(f"add_ms must be 0..{top} milliseconds, not {add_ms}",
                                        field="add_ms")

        def run(match: Match) -> int:
            match.resume_clock("auditor", add_ms)
            return match.version
        return int(self._update(match_id, run))


def fire(update: Callable[..., Any], watch: Callable[[Match], None], now: Now
         ) -> Callable[[UUID], None]:
    """What a timer does when a deadline comes: time the seat out if the deadline has really
    passed, then schedule whatever deadline the match has next. The match is taken as this
    process has it (no read); if another process wrote first the commit conflicts, and the
    match, read fresh, is scheduled again (its deadline may have moved, or passed: then it
    fires again at once)."""
    def run(match_id: UUID) -> None:
        command = timing_out(now())

        def timed(match: Match) -> dict[str, Any] | None:
            try:
                return command(match)
            finally:
                watch(match)
        try:
            update(match_id, timed, False)
        except VersionConflictError:  # another server wrote first: its state decides
            update(match_id, watch, True)
        except RefereeError as exc:
            _log.warning("match %s: no timeout: %s", match_id, exc)
    return run
