"""Live matches: an LRU of open match aggregates, one lock per match, and their loading.

A command is validated against the cached aggregate, never against a re-read stream. A match
is loaded from the store once, its hash chain verified before any event is applied
(``referee.integrity``); ``fresh`` reads first apply what other processes wrote since. A match
whose stored chain does not verify leaves the cache and is not served.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from referee.application.ports import Commits, MatchStore
from referee.domain.chain import GENESIS
from referee.domain.errors import ChainBrokenError
from referee.domain.match import Match
from referee.integrity import StoredMatchEvent, check_links

_log = logging.getLogger("referee.application")
_MAX_BREAKS = 10_000


class LiveMatches:
    """The live aggregates of this process and their locks; call the methods that read or
    change a match with its :meth:`lock` held (:meth:`reading` does)."""

    def __init__(self, store: MatchStore, commits: Commits, size: int,
                 fresh_reads: bool) -> None:
        self._store, self._commits = store, commits
        self._size, self._fresh_reads = size, fresh_reads
        self._live: OrderedDict[UUID, Match] = OrderedDict()
        self._guard = threading.Lock()
        self._locks: dict[UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._chain_breaks: OrderedDict[tuple[UUID, int], None] = OrderedDict()  # reported
        #: ``hook(match_id, version)`` when a chain is found broken (once per place).
        self.on_chain_broken: Callable[[UUID, int], None] | None = None
        #: ``hook(match)`` whenever a match becomes live at a committed version (loaded, or
        #: after a commit): the timers take up its deadline.
        self.on_live: Callable[[Match], None] | None = None

    # -- locks ---------------------------------------------------------------------------------
    def lock(self, match_id: UUID) -> threading.Lock:
        """The lock that serialises the commands on one match (or other aggregate)."""
        with self._locks_guard:
            lock = self._locks.get(match_id)
            if lock is None:
                if len(self._locks) > max(10_000, 2 * self._size):
                    for key in [k for k, v in self._locks.items() if not v.locked()]:
                        del self._locks[key]
                lock = self._locks[match_id] = threading.Lock()
            return lock

    @contextmanager
    def reading(self, match_id: UUID) -> Iterator[Match]:
        """The live aggregate, under the match's lock (so nothing uncommitted is seen)."""
        with self.lock(match_id):
            yield self.get(match_id, fresh=self._fresh_reads)

    # -- the cache -----------------------------------------------------------------------------
    def peek(self, match_id: UUID) -> Match | None:
        """The cached aggregate, if any, without reading the store."""
        with self._guard:
            match = self._live.get(match_id)
            if match is not None:
                self._live.move_to_end(match_id)
            return match

    def get(self, match_id: UUID, fresh: bool) -> Match:
        """The live aggregate: cached, else loaded from the store once. ``fresh``: first
        apply the events other processes wrote."""
        match = self.peek(match_id)
        if match is None:
            match = self.load(match_id)
            self.remember(match)
        elif fresh:
            self.catch_up(match)
        return match

    def version(self, match_id: UUID) -> int:
        """The cached version without waiting for the lock (-1 if not cached); it may count
        an action whose commit is still running: read it under the lock to see it."""
        with self._guard:
            match = self._live.get(match_id)
        return -1 if match is None else match.version

    def remember(self, match: Match) -> None:
        with self._guard:
            self._live[match.id] = match
            self._live.move_to_end(match.id)
            while len(self._live) > self._size:
                self._live.popitem(last=False)
        if self.on_live is not None:
            self.on_live(match)

    def evict(self, match_id: UUID) -> None:
        with self._guard:
            self._live.pop(match_id, None)

    def saved_elsewhere(self, aggregate: Any) -> None:
        """``aggregate`` was saved, maybe not from the cache (``app.save``): a cached copy
        that is another object is stale, drop it."""
        with self._guard:
            live = self._live.get(aggregate.id)
            if live is not None and live is not aggregate:
                del self._live[aggregate.id]

    def commit(self, match: Match) -> None:
        """Commit the match's new events (blocking) and keep it live."""
        self._commits.commit(match, match.collect_events())
        self.remember(match)

    # -- the store -----------------------------------------------------------------------------
    def load(self, match_id: UUID) -> Match:
        """The match as committed, read from the store (not the cache).

        :raises MatchNotFoundError: no match has this id (another aggregate's id included).
        :raises ChainBrokenError: the stored events do not verify.
        """
        entries = self._store.stream(match_id)
        self._verify(match_id, entries)
        match: Any = None
        for entry in entries:
            match = entry.event.mutate(match)  # type: ignore[union-attr]
        assert isinstance(match, Match)  # event 1 is a Match.Created, checked above
        return match

    def catch_up(self, match: Match) -> bool:
        """Apply events written since ``match.version`` (by another process); True if any.
        They must follow on: the first links to the live head, each to the one before.

        :raises ChainBrokenError: they do not (the live match is dropped from the cache).
        """
        entries = self._store.stream(match.id, match.version)
        if not entries:
            return False
        self._verify(match.id, entries, match.chain_head, match.version)
        for entry in entries:
            entry.event.mutate(match)  # type: ignore[union-attr]
        return True

    def _verify(self, match_id: UUID, entries: list[StoredMatchEvent], head: str = GENESIS,
                after: int = 0) -> None:
        """Check the links of ``entries``, which follow the event at version ``after`` whose
        hash is ``head``. A break is logged and :attr:`on_chain_broken` called once per match
        and position (per process).

        :raises ChainBrokenError: the chain does not verify."""
        report = check_links(entries, head, after)
        if report.ok:
            return
        self.evict(match_id)
        version = report.first_break or 0
        key = (match_id, version)
        with self._guard:
            first = key not in self._chain_breaks
            if first:
                self._chain_breaks[key] = None
                while len(self._chain_breaks) > _MAX_BREAKS:
                    self._chain_breaks.popitem(last=False)
        if first:
            _log.error("match %s: the stored chain is broken at event %d, the match is not "
                       "served: %s", match_id, version, report.message)
            hook = self.on_chain_broken
            if hook is not None:
                try:
                    hook(match_id, version)
                except Exception:  # a metrics hook must not change the answer
                    _log.exception("the chain-broken hook failed")
        raise ChainBrokenError(
            f"the stored events of match {match_id} do not verify at event {version}; "
            "the match is not served", matchId=match_id, version=version,
        )
