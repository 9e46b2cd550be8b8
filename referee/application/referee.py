"""The referee application: an eventsourcing ``Application`` that wires the use cases
(:mod:`~referee.application.creating`, :mod:`~referee.application.acting`,
:mod:`~referee.application.reading`) to their adapters (the event store, the group committer,
the rejection trail, the live-match cache) and offers them as one facade."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.utils import strtobool

from referee.application.acting import Acting
from referee.application.answers import Answer, Created, DealCheck, View
from referee.application.boards import Boards
from referee.application.claiming import Claiming, Seats
from referee.application.clocks import ClockCommands, ClockFollower, Timers, fire, utc_now
from referee.application.creating import Creating, deal_next
from referee.application.fanout import Fanout
from referee.application.live import LiveMatches
from referee.application.reading import Reading
from referee.application.store import APP_NAME, LogReader, StoredMatches, notices_of
from referee.application.undoing import Undoing
from referee.application.updates import Encoder, PlainEncoder
from referee.changes import ChangeWaiters, LogFollower, originators_between
from referee.config import Settings, settings_from_env
from referee.domain.match import Match
from referee.group_commit import GroupCommitter, Pending
from referee.rejections import Rejection, RejectionLog, StoredRejectionLog
from referee.rules.game import JSON

T = TypeVar("T")
_log = logging.getLogger("referee.application")


class Referee(Application[UUID]):
    """The referee application (one per process)."""

    name = APP_NAME

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or settings_from_env()
        super().__init__(env=self.settings.store_env)
        from referee.application.principals import Tokens

        self.rejections = self._rejection_trail()
        #: Watch streams waiting for a match to change (woken by commits, and by
        #: :attr:`follower` for other processes' writes).
        self.changes = ChangeWaiters()
        self.tokens = Tokens(self.settings.auditor_token, self.settings.organiser_token)
        self._committed_hooks: list[Callable[[], None]] = []
        self._close_hooks: list[Callable[[], None]] = []
        self.follower: LogFollower | None = None
        if self.settings.fresh_reads:
            self.follower = LogFollower(
                self.changes, self._log_head,
                functools.partial(originators_between, self.recorder),
                self.settings.follow_interval, "referee-follow-log", paused=self.listening,
            )
        self.committer = GroupCommitter(
            self._record_batch, self.settings.commit_batch, self.rejections.flush,
            self.settings.commit_delay,
        )
        store = StoredMatches(self.recorder, self.mapper, self.repository.event_store)
        self.live = LiveMatches(store, self.committer, self.settings.cache_size,
                                self.settings.fresh_reads)
        self.creating = Creating(self.live, self.tokens)
        self.acting = Acting(self.live, self.committer, self.tokens, self.rejections,
                             self.changes, utc_now)
        #: The deadlines of the timed matches this process knows (see :meth:`start_timers`).
        self.timers = Timers(fire(self.acting.update_match, self._watch_clock, utc_now))
        self.live.on_live = self.timers.watch
        self.clocks = ClockCommands(self.acting.update_match, self.tokens.require_auditor)
        self.claiming = Claiming(self.acting, self.tokens)
        self.seats = Seats(self.acting, self.tokens)
        self.undoing = Undoing(self.acting, self.tokens)
        self._clock_follower: ClockFollower | None = None
        #: Duplicate boards still in play at another table (their cards stay hidden).
        self.boards = Boards(self.live, self._tournament)
        self.reading = Reading(self.live, store, self.tokens, self.rejections, self.changes,
                               self.boards)
        #: The log as the projections read it (the port they use; this process's commits
        #: wake them).
        #: Commits announced to, and heard from, the other processes of a PostgreSQL store
        #: (:mod:`referee.notices`; None on another store).
        self.notices = notices_of(self.settings, self.recorder, self.changes)
        self.event_log = LogReader(
            self.settings, self.recorder, self.mapper, on_committed=self.on_committed,
            changes=self.changes, announce=None if self.notices is None else self.notices.send)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_guard = threading.Lock()
        self._plain = PlainEncoder()
        self._fanouts: dict[int, Fanout[Any]] = {}

    def _rejection_trail(self) -> RejectionLog | StoredRejectionLog:
        s = self.settings
        datastore = getattr(self.recorder, "datastore", None)
        if datastore is None:  # POPO: in memory
            return RejectionLog(s.rejections_per_match, s.rejections_total,
                                s.rejections_anonymous)
        return StoredRejectionLog(
            datastore, s.rejections_per_match, s.rejections_total,
            f"{self.name.lower()}_rejections",
            create_table=strtobool(self.env.get("CREATE_TABLE") or "yes"),
            anonymous=s.rejections_anonymous,
        )

    # -- hooks -------------------------------------------------------------------------------
    def on_committed(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` on the writer thread after each committed batch (e.g. to wake a
        projection worker); keep it quick."""
        self._committed_hooks.append(hook)

    def on_commit_batch(self, hook: Callable[[int], None] | None) -> None:
        """Call ``hook(n)`` for each group commit of ``n`` aggregates (``None``: no hook)."""
        self.committer.on_batch = hook

    def on_chain_broken(self, hook: Callable[[UUID, int], None] | None) -> None:
        """Call ``hook(match_id, version)`` when a match's stored chain is found broken at
        ``version`` (once per match and position in this process; ``None``: no hook)."""
        self.live.on_chain_broken = hook

    def on_close(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` first thing in :meth:`close` (e.g. to stop a reader's thread)."""
        self._close_hooks.append(hook)

    def start_timers(self) -> None:
        """Keep the deadlines of every open timed match of the store, not only those this
        process touches: recover them from the log now (a restart), and follow the ones
        other processes create or resume (``referee serve`` calls it)."""
        if self._clock_follower is None:
            self._clock_follower = ClockFollower(self.recorder, self._rewatch_clock,
                                                 max(self.settings.follow_interval, 1.0))

    def listen(self) -> None:
        """Follow the other processes' commits by their notifications (PostgreSQL; see
        :mod:`referee.notices`) rather than by polling the log (``referee serve`` calls it)."""
        if self.notices is not None:
            self.notices.listen()

    def listening(self) -> bool:
        """Whether the other processes' commits come by notification now (polling idles)."""
        return self.notices is not None and self.notices.connected

    def _tournament(self, tournament_id: UUID) -> Any:
        """A tournament aggregate as stored (None if there is none with this id)."""
        try:
            return self.repository.get(tournament_id)
        except AggregateNotFoundError:
            return None

    def check_board(self, match_id: UUID, hand: int, token: str) -> None:
        """:raises BoardInPlayError: ``hand`` of the match is a duplicate board another table
        still plays, and ``token`` is not the auditor's (see :mod:`.boards`)."""
        auditor = self.tokens.is_auditor(token)
        if auditor:
            return
        with self.live.reading(match_id) as match:
            self.boards.check(match, hand, auditor)

    def hidden_hands(self, match_id: UUID) -> list[int]:
        """The hands of the match that are duplicate boards still in play elsewhere."""
        with self.live.reading(match_id) as match:
            return self.boards.hidden(match)

    def _watch_clock(self, match: Match) -> None:
        self.timers.watch(match)

    def _rewatch_clock(self, match_id: UUID) -> None:
        with self.live.lock(match_id):
            self.timers.watch(self.live.get(match_id, fresh=True))

    # -- the use cases -------------------------------------------------------------------------
    def create_match(
        self, game: str, rules: dict[str, Any] | None = None, players: Sequence[str] = (),
        seed_entropy: bytes = b"", fixed_deals: Sequence[Sequence[str]] = (),
        first_dealer: int = 0, public_spectators: bool = False, token: str = "",
        time_control: Mapping[str, Any] | None = None,
        policies: Mapping[str, Any] | None = None,
    ) -> Created:
        """See :meth:`referee.application.creating.Creating.create_match`."""
        return self.creating.create_match(game, rules, players, seed_entropy, fixed_deals,
                                          first_dealer, public_spectators, token,
                                          time_control, policies)

    def pause_clocks(self, match_id: UUID, token: str, reason: str) -> int:
        return self.clocks.pause(match_id, token, reason)

    def resume_clocks(self, match_id: UUID, token: str, add_ms: int = 0) -> int:
        return self.clocks.resume(match_id, token, add_ms)

    async def submit_action_async(
        self, match_id: UUID, token: str, action: str, command_id: str = "",
        expected_version: int | None = None, seat: int | None = None,
    ) -> Answer:
        """Apply one action (see :mod:`referee.application.acting`): the one submit path."""
        return await self.acting.submit(match_id, token, action, command_id,
                                        expected_version, seat)

    def submit_action(
        self, match_id: UUID, token: str, action: str, command_id: str = "",
        expected_version: int | None = None, seat: int | None = None,
    ) -> Answer:
        """:meth:`submit_action_async` for a caller without an event loop (the CLI, tests):
        the same coroutine, run on this application's own loop thread."""
        return self._run(self.acting.submit(match_id, token, action, command_id,
                                            expected_version, seat))

    def claim(self, match_id: UUID, token: str, tricks: int = -1, command_id: str = "",
              unchecked: bool = False) -> Answer:
        """See :meth:`referee.application.claiming.Claiming.claim` (-1: all the tricks)."""
        return self.claiming.claim(match_id, token, tricks, command_id, unchecked)

    def answer_claim(self, match_id: UUID, token: str, accept: bool, command_id: str = ""
                     ) -> Answer:
        """See :meth:`referee.application.claiming.Claiming.answer`."""
        return self.claiming.answer(match_id, token, accept, command_id)

    def concede(self, match_id: UUID, token: str, command_id: str = "",
                whole_match: bool = False) -> Answer:
        return self.claiming.concede(match_id, token, command_id, whole_match)

    def request_undo(self, match_id: UUID, token: str, command_id: str = "") -> Answer:
        """See :meth:`referee.application.undoing.Undoing.request`."""
        return self.undoing.request(match_id, token, command_id)

    def answer_undo(self, match_id: UUID, token: str, agree: bool, command_id: str = ""
                    ) -> Answer:
        """See :meth:`referee.application.undoing.Undoing.answer`."""
        return self.undoing.answer(match_id, token, agree, command_id)

    def substitute(self, match_id: UUID, token: str, seat: int, player: str
                   ) -> tuple[str, int]:
        """See :meth:`referee.application.claiming.Seats.substitute`: (new token, version)."""
        return self.seats.substitute(match_id, token, seat, player)

    def update_match(self, match_id: UUID, command: Callable[[Match], T]) -> T:
        return self.acting.update_match(match_id, command)

    @contextmanager
    def updating(self, aggregate_id: UUID) -> Iterator[Callable[[Any], None]]:
        with self.acting.updating(aggregate_id) as commit:
            yield commit

    def deal_next(self, match: Match, entropy: bytes = b"") -> None:
        deal_next(match, entropy)

    def get_match(self, match_id: UUID) -> Match:
        return self.reading.get_match(match_id)

    def get_view(self, match_id: UUID, token: str) -> View:
        return self.reading.get_view(match_id, token)

    def hand_record(self, match_id: UUID, hand: int, token: str) -> tuple[dict[str, JSON], bool]:
        return self.reading.hand_record(match_id, hand, token)

    def match_record(self, match_id: UUID, token: str) -> tuple[dict[str, JSON], bool]:
        return self.reading.match_record(match_id, token)

    def verify_deal(self, match_id: UUID, hand: int, token: str) -> DealCheck:
        return self.reading.verify_deal(match_id, hand, token)

    def list_rejections(self, token: str, match_id: str = "", limit: int = 0) -> list[Rejection]:
        return self.reading.list_rejections(token, match_id, limit)

    async def watch(self, match_id: UUID, token: str, after: int, heartbeat: float,
                    alive: Callable[[], bool] = lambda: True,
                    ended: asyncio.Future[Any] | None = None,
                    encoder: Encoder[Any] | None = None) -> AsyncIterator[Any]:
        """A watch stream's updates (see :mod:`referee.application.fanout`), encoded by
        ``encoder`` (by default :class:`~referee.application.fanout.PlainEncoder`:
        ``(events, view, version)`` tuples, heartbeats ``([], None, version)``). Who the
        token is is checked first, on the executor."""
        loop = asyncio.get_running_loop()
        who = await loop.run_in_executor(None, self.reading.watcher, match_id, token)
        fanout = self.fanout(encoder or self._plain)
        async for update in fanout.watch(
                match_id, who, after, heartbeat, alive, ended,
                functools.partial(self.reading.alone, match_id, who)):
            yield update

    def fanout(self, encoder: Encoder[Any]) -> Fanout[Any]:
        """The watch use case for updates encoded by ``encoder`` (one per encoder)."""
        with self._loop_guard:
            fanout = self._fanouts.get(id(encoder))
            if fanout is None:
                fanout = self._fanouts[id(encoder)] = Fanout(
                    self.reading.snapshot, self.live.version, self.changes, encoder)
            return fanout

    # -- adapters ----------------------------------------------------------------------------
    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on this application's loop thread and wait for it."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coroutine.close()
            raise RuntimeError("this call blocks: on an event loop, await its async form")
        with self._loop_guard:
            if self._loop is None:
                loop = self._loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="referee-sync-loop",
                                 daemon=True).start()
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def _record_batch(self, batch: list[Pending]) -> None:
        """One transaction for the events of every aggregate in ``batch`` (writer thread)."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for item in batch:
            processing_event.events.extend(item.events)
            processing_event.aggregates[item.aggregate.id] = item.aggregate
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        if self.notices is not None:  # the other processes' watchers
            self.notices.send("", {a.id: a.version
                                   for a in processing_event.aggregates.values()})
        for hook in self._committed_hooks:
            try:
                hook()
            except Exception:  # a listener must not stop commits
                _log.exception("a commit listener failed")

    def _record(self, processing_event: ProcessingEvent[UUID]) -> Any:
        recordings = super()._record(processing_event)
        live = getattr(self, "live", None)  # not yet during Application.__init__
        if live is not None:
            for aggregate in processing_event.aggregates.values():
                live.saved_elsewhere(aggregate)
        return recordings

    def _log_head(self) -> int:
        return int(self.recorder.max_notification_id() or 0)

    def close(self) -> None:
        for hook in getattr(self, "_close_hooks", ()):
            try:
                hook()
            except Exception:
                _log.exception("a close hook failed")
        for part in (getattr(self, "_clock_follower", None), getattr(self, "timers", None)):
            if part is not None:
                part.close()
        follower = getattr(self, "follower", None)
        if follower is not None:
            follower.stop()
        notices = getattr(self, "notices", None)
        if notices is not None:
            notices.close()
        committer = getattr(self, "committer", None)
        if committer is not None:
            committer.close()
        acting = getattr(self, "acting", None)
        if acting is not None:
            acting.close()
        loop = getattr(self, "_loop", None)
        if loop is not None and not loop.is_closed():  # closed already: a second close()
            loop.call_soon_threadsafe(loop.stop)
        super().close()
