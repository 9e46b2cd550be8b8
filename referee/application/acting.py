"""Acting on a match: ``SubmitAction`` (one path, a coroutine) and the other commands that
change a match or a tournament through the same locks and commits.

Commands on one match are serialised by a per-match lock in this process; across processes the
store's optimistic concurrency (``IntegrityError`` on a conflicting save) stops the loser,
which is decided again on the fresh stream, once: it fails with :class:`VersionConflictError`
only if the winner's write made it illegal (or its ``expected_version`` is no longer current).
Command ids are recorded in ``ActionTaken`` events, so a retry is answered from the record,
also after a restart.

An accepted action's events go to the group committer, which writes the events of every match
that acted meanwhile in one transaction; the caller's match stays locked until its own commit
is settled, so readers never see an uncommitted action and each match's actions commit in
order. A refused action never reaches the committer, and before a refusal the cached match
catches up with other processes, so a stale cache neither accepts a conflicting action nor
refuses a legal one.

The coroutine never blocks its loop: waiting for a busy match's lock runs on a pool of its
own (so lock holders, which may need the loop's executor for reads, always get a thread), and
store reads (a match not cached, a catch-up, deciding again after a lost race) on the loop's
executor.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from referee.application.answers import Answer
from referee.application.clocks import Now, timing_out, utc_now
from referee.application.creating import deal_next
from referee.application.live import LiveMatches
from referee.application.ports import Commits, RejectionTrail
from referee.application.principals import Principal, Role, Tokens
from referee.changes import ChangeWaiters
from referee.domain.errors import (
    CommandIdReusedError,
    MatchNotFoundError,
    PermissionDeniedError,
    RefereeError,
    TimedOutError,
    VersionConflictError,
)
from referee.domain.facts import HAND_ENDED, MATCH_ENDED
from referee.domain.match import Match, Outcome
from referee.rejections import Rejection
from referee.rules.errors import InvalidActionError, RulesError

T = TypeVar("T")
Refusal = (RefereeError, RulesError)


class Acting:
    """Submitting actions, and running other commands on a live match."""

    def __init__(self, live: LiveMatches, commits: Commits, tokens: Tokens,
                 rejections: RejectionTrail, changes: ChangeWaiters, now: Now = utc_now
                 ) -> None:
        self._live, self._commits, self._tokens = live, commits, tokens
        self._rejections, self._changes, self._now = rejections, changes, now
        self._lock_waits = ThreadPoolExecutor(64, thread_name_prefix="referee-lock-wait")

    def close(self) -> None:
        self._lock_waits.shutdown(wait=False, cancel_futures=True)

    # -- SubmitAction ------------------------------------------------------------------------
    async def submit(
        self,
        match_id: UUID,
        token: str,
        action: str,
        command_id: str = "",
        expected_version: int | None = None,
        seat: int | None = None,
    ) -> Answer:
        """Apply one action for the seat the token belongs to; see the module docstring. A
        refusal (other than an unknown match) goes to the rejection trail."""
        asking: list[Principal] = []  # who, once the token is read
        try:
            return await self._submit(match_id, token, action, command_id, expected_version,
                                      seat, asking)
        except Refusal as exc:
            if not isinstance(exc, MatchNotFoundError):
                self.reject(match_id, asking[0] if asking else None, action, exc)
            raise

    async def _submit(self, match_id: UUID, token: str, action: str, command_id: str,
                      expected_version: int | None, seat: int | None,
                      asking: list[Principal]) -> Answer:
        """:meth:`submit` without the rejection trail (it may call itself once: after a
        timeout another server recorded first)."""
        loop = asyncio.get_running_loop()
        lock = self._live.lock(match_id)
        await self._acquire(lock, loop)
        owned = True  # until the committer's ``settled`` takes the lock over
        try:
            match = self._live.peek(match_id)
            if match is None:
                match = await loop.run_in_executor(None, self._live.get, match_id, False)
            principal = self._tokens.authorize(match, token)
            asking[:] = [principal]
            args = (principal, action, command_id, expected_version, seat)
            if match.clock is not None and match.clock.expired(match.to_act, self._now()):
                # The deadline passed before this action came: the timeout comes first,
                # and the action, too late, is refused naming it.
                lock.release()
                owned = False
                late = await loop.run_in_executor(None, self.update_match, match_id,
                                                  timing_out(self._now()))
                if late is None:  # another server timed it out, or the match moved on
                    return await self._submit(match_id, token, action, command_id,
                                              expected_version, seat, asking)
                raise _timed_out(principal, late)
            try:
                done = self._apply(match, *args)
            except Refusal as exc:
                # Never refuse on a stale cache: catch up with other processes first
                # (unless the refusal cannot depend on the state, or the aggregate was
                # dropped and reloaded already).
                if (isinstance(exc, InvalidActionError | PermissionDeniedError)
                        or self._live.peek(match_id) is not match
                        or not await loop.run_in_executor(
                            None, self._live.catch_up, match)):
                    raise
                done = self._apply(match, *args)
            if done is not None:
                return done
            # The answer is taken now, while the lock is held: once the commit is settled
            # the lock is free, and another caller may act on this same live match before
            # this coroutine resumes.
            assert match.last_outcome is not None
            answer = self._answer(match, match.last_outcome)
            settled = functools.partial(self._settled, match, lock)
            owned = False
            try:
                future = self._commits.enqueue(match, match.collect_events(), settled)
            except BaseException as exc:
                settled(exc)
                raise
        finally:
            if owned:
                lock.release()
        error = await future
        if isinstance(error, IntegrityError):
            return await self._decide_again(match_id, *args)
        if error is not None:
            raise error
        return answer

    async def _acquire(self, lock: threading.Lock, loop: asyncio.AbstractEventLoop) -> None:
        """Take ``lock`` without blocking the loop. A caller that stops waiting leaves no lock
        behind: one acquired after it gave up is released at once."""
        if lock.acquire(blocking=False):
            return
        waiting = loop.run_in_executor(self._lock_waits, lock.acquire)
        try:
            await asyncio.shield(waiting)
        except asyncio.CancelledError:
            waiting.add_done_callback(
                lambda f: lock.release() if not f.cancelled() and f.result() else None)
            raise

    def _settled(self, match: Match, lock: threading.Lock, error: BaseException | None
                 ) -> None:
        """After a commit (on the loop): keep or drop the live match, wake the watchers,
        release the match's lock (also when the caller has gone meanwhile)."""
        try:
            if error is None:
                self._live.remember(match)
                self._changes.wake((match.id,))
            else:  # mutated but not committed
                self._live.evict(match.id)
        finally:
            lock.release()

    def _apply(self, match: Match, principal: Principal, text: str, command_id: str,
               expected_version: int | None, seat: int | None) -> Answer | None:
        """Check one action and apply it to the live match (its lock held): the answer from
        the record for a command already done, else ``None`` with the new events pending
        on the match for the caller to commit. A refusal leaves the match as it was."""
        if principal.role is not Role.SEAT or principal.seat is None:
            raise PermissionDeniedError(
                f"a {principal.role.value} may not act", role=principal.role.value
            )
        if seat is not None and seat != principal.seat:
            raise PermissionDeniedError(
                f"this token is for seat {principal.seat}, not seat {seat}",
                seat=seat, tokenSeat=principal.seat,
            )
        if command_id:
            done = match.outcomes.get(Match.command_key(principal.seat, command_id))
            if done is not None:
                return self._replayed(match, done, text)
        late = match.last_timeout
        if (late is not None and late["seat"] == principal.seat
                and expected_version is not None and expected_version < late["version"]):
            raise _timed_out(principal, late)
        if expected_version is not None and expected_version != match.version:
            raise VersionConflictError(
                f"the match is at version {match.version}, not {expected_version}",
                expectedVersion=expected_version, actualVersion=match.version,
            )
        before = match.version
        try:
            match.take_action(principal.seat, text, command_id)
            if match.needs_deal:
                deal_next(match)
        except Refusal as exc:
            # Refused after this seat timed out, before it acted again: most likely the
            # action the referee took for it (the refusal is named too).
            late = match.last_timeout
            if late is not None and late["seat"] == principal.seat and match.version == before:
                raise _timed_out(principal, late, exc) from exc
            raise
        except BaseException:
            if match.version != before:  # mutated but refused: drop it
                self._live.evict(match.id)
            raise
        return None

    async def _decide_again(self, match_id: UUID, principal: Principal, text: str,
                            command_id: str, expected_version: int | None, seat: int | None
                            ) -> Answer:
        """Another process wrote first: the cache was stale and nothing was committed.
        Reload and decide again on the fresh stream, once (see :meth:`_after_conflict`)."""
        loop = asyncio.get_running_loop()
        lock = self._live.lock(match_id)
        await self._acquire(lock, loop)
        try:
            return await loop.run_in_executor(None, functools.partial(
                self._after_conflict, match_id, principal, text, command_id,
                expected_version, seat))
        finally:
            lock.release()

    def _after_conflict(self, match_id: UUID, principal: Principal, text: str,
                        command_id: str, expected_version: int | None, seat: int | None
                        ) -> Answer:
        """(Blocking, the match's lock held.) A retried command is answered from the record,
        an action still legal is committed, and one that the other write made illegal lost
        the race (VERSION_CONFLICT, as in this process). Whenever the match then holds the
        command id for this seat (the other write was this very command, sent to another
        process), it is answered as the replay it is (COMMAND_ID_REUSED if it was for
        another action), never as a conflict."""
        self._live.evict(match_id)
        current = self._live.get(match_id, fresh=False)
        why = ""
        try:
            done = self._apply(current, principal, text, command_id, expected_version, seat)
            if done is not None:
                return done
            try:
                self._live.commit(current)
            except BaseException:
                self._live.evict(match_id)  # mutated but not committed: drop it
                raise
            self._changes.wake((match_id,))
            assert current.last_outcome is not None
            return self._answer(current, current.last_outcome)
        except VersionConflictError:
            raise
        except IntegrityError:
            pass  # lost again: decided on the fresh stream below
        except Refusal as exc:
            why = f" ({exc})"
        current = self._live.get(match_id, fresh=True)
        if command_id and principal.seat is not None:
            recorded = current.outcomes.get(Match.command_key(principal.seat, command_id))
            if recorded is not None:
                return self._replayed(current, recorded, text)
        raise VersionConflictError(
            f"another command changed the match first; it is at version {current.version}{why}",
            actualVersion=current.version,
        ) from None

    @staticmethod
    def _answer(match: Match, outcome: Outcome, replayed: bool = False) -> Answer:
        kinds = {f["kind"] for f in outcome.facts}
        scores: list[int] = list(match.match_state.scores)
        for f in outcome.facts:
            if f["kind"] == HAND_ENDED:
                scores = list(f["scores"])
        return Answer(outcome, HAND_ENDED in kinds, MATCH_ENDED in kinds, scores, replayed)

    def _replayed(self, match: Match, outcome: Outcome, text: str) -> Answer:
        try:
            same = match.game.format_action(match.game.parse_action(text)) == outcome.action
        except InvalidActionError:
            same = False
        if not same:
            raise CommandIdReusedError(
                f"command id {outcome.command_id!r} was used for {outcome.action!r}",
                commandId=outcome.command_id, action=outcome.action,
            )
        return self._answer(match, outcome, replayed=True)

    def reject(self, match_id: UUID, who: Principal | None, action: str, exc: Exception
               ) -> None:
        """Record a refused attempt in the rejection trail."""
        self._rejections.add(Rejection(
            match_id=str(match_id),
            seat=who.seat if who is not None and who.role is Role.SEAT else None,
            action=action[:200],
            reason=getattr(exc, "reason", type(exc).__name__),
            rule=getattr(exc, "rule", None) or "",
            # ``audit``: what only the auditor may read (a refused claim's defence).
            message=(getattr(exc, "audit", None) or str(exc))[:2000],
            time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        ))

    # -- other commands ----------------------------------------------------------------------
    def update_match(self, match_id: UUID, command: Callable[[Match], T],
                     fresh: bool = True) -> T:
        """Run ``command`` on the live match under its lock (after catching up with other
        processes, unless not ``fresh``) and commit the events it triggered, as actions are:
        a concurrent action in this process waits for the lock instead of causing a version
        conflict.

        :raises VersionConflictError: if another process wrote first (the save conflicts;
            the match is dropped from the cache, so the next command reads it fresh).
        """
        with self._live.lock(match_id):
            match = self._live.get(match_id, fresh=fresh)
            before = match.version
            try:
                result = command(match)
                if match.version != before:
                    self._live.commit(match)
            except IntegrityError:
                self._live.evict(match_id)
                raise VersionConflictError(
                    "another process changed the match first; retry", matchId=match_id
                ) from None
            except BaseException:
                if match.version != before:  # mutated but not committed: drop it
                    self._live.evict(match_id)
                raise
        if match.version != before:
            self._changes.wake((match_id,))
        return result

    @contextmanager
    def updating(self, aggregate_id: UUID) -> Iterator[Callable[[Any], None]]:
        """For aggregates other than matches (tournaments): hold the aggregate's lock and get
        a ``commit(aggregate)`` that group-commits its new events. Read the aggregate from the
        store inside the block. :raises VersionConflictError: if another process wrote first."""
        def commit(aggregate: Any) -> None:
            try:
                self._commits.commit(aggregate, aggregate.collect_events())
            except IntegrityError:
                raise VersionConflictError(
                    "another process changed it first; retry", id=aggregate.id
                ) from None

        with self._live.lock(aggregate_id):
            yield commit


def _timed_out(principal: Principal, late: dict[str, Any],
               refused: Exception | None = None) -> TimedOutError:
    """The refusal of an action that came after its seat's timeout (``refused``: what the
    rules said of it now)."""
    more: dict[str, Any] = {}
    why = ""
    if refused is not None:
        more["refused"] = getattr(refused, "reason", type(refused).__name__)
        why = f"; now: {refused}"
    return TimedOutError(
        f"seat {principal.seat}'s time ran out at {late['deadline']}: the referee recorded "
        f"the timeout as event {late['version']} (policy {late['policy']}){why}",
        seat=principal.seat, timeoutVersion=late["version"], policy=late["policy"],
        deadline=late["deadline"], **more)
