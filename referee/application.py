"""The referee's use cases (an eventsourcing ``Application``): create a match, submit an
action, read views and records, verify deals, audit rejections.

Randomness lives here, never in the rules: each hand's pack is shuffled with a key drawn from
``secrets`` and mixed with the match's player entropy; the pack and a nonce are recorded in the
``HandDealt`` event, and the commitment is published at once.

Commands on one match are serialised by a per-match lock in this process; across processes the
store's optimistic concurrency (``IntegrityError`` on a conflicting save) stops the loser,
which is decided again on the fresh stream (below); it fails with
:class:`VersionConflictError` only if the winner's write made it illegal (or its
``expected_version`` is no longer current). Command ids are recorded in ``ActionTaken``
events, so a retry is answered from the record, also after a restart.

Open matches stay in memory (an LRU of live aggregates): a command is validated against the
cached aggregate, never against a re-read stream. Its events then go to the group committer,
which writes the events of every match that acted meanwhile in one transaction; the caller
holds its match's lock until its own commit is done, so readers never see an uncommitted
action and each match's actions commit in order. A refused action never reaches the
committer. If another process wrote first, the save fails with ``IntegrityError`` and nothing
is written: the cached aggregate is dropped and reloaded, and the command is decided again on
the fresh stream, once (a retried command id is then answered from the record; an action no
longer legal is refused). Before a refusal the cache is brought up to date too, so a stale
cache can neither accept a conflicting action nor refuse a legal one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import hmac
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from datetime import UTC, datetime
from enum import Enum
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import strtobool

import referee
from referee import limits
from referee.changes import ChangeWaiters, LogFollower, originators_between
from referee.config import Settings, settings_from_env
from referee.domain.chain import GENESIS
from referee.domain.deal import commitment, shuffle
from referee.domain.errors import (
    ChainBrokenError,
    CommandIdReusedError,
    CreateNotAllowedError,
    HandNotFinishedError,
    HandNotFoundError,
    InvalidRulesError,
    MalformedRequestError,
    MatchNotFoundError,
    PermissionDeniedError,
    RefereeError,
    UnauthenticatedError,
    UnknownGameError,
    VersionConflictError,
)
from referee.domain.facts import HAND_DEALT, HAND_ENDED, MATCH_ENDED
from referee.domain.match import HandLog, Match, Outcome
from referee.group_commit import GroupCommitter, Pending
from referee.integrity import StoredMatchEvent, check_links, decode_all, match_rows
from referee.rejections import Rejection, RejectionLog, StoredRejectionLog
from referee.rules.cards import CARD_NAMES, parse_card
from referee.rules.errors import InvalidActionError, RuleParameterError, RulesError
from referee.rules.game import JSON, Game, is_public
from referee.rules.handrecord import HandRecord, MatchRecord, match_state_json
from referee.rules.registry import find_game

T = TypeVar("T")
_log = logging.getLogger("referee.application")


class Role(Enum):
    SEAT = "seat"
    SPECTATOR = "spectator"
    AUDITOR = "auditor"


@dataclasses.dataclass(frozen=True)
class Principal:
    """Who is asking, in one match."""

    role: Role
    seat: int | None = None


@dataclasses.dataclass(frozen=True)
class Credentials:
    """What :meth:`Referee.authorize` reads of a match: its token hashes and whether anyone
    may watch (read models keep these; a ``Match`` has the same attributes)."""

    seat_token_hashes: list[str]
    spectator_token_hash: str
    public_spectators: bool


@dataclasses.dataclass(frozen=True)
class Created:
    match_id: UUID
    players: list[str]
    seat_tokens: list[str]
    spectator_token: str
    version: int
    commitment: str


@dataclasses.dataclass(frozen=True)
class Answer:
    """The answer to one accepted action (and to its retries)."""

    outcome: Outcome
    hand_over: bool
    match_over: bool
    scores: list[int]
    replayed: bool = False


@dataclasses.dataclass(frozen=True)
class View:
    """What one principal may see of a match at one version."""

    match_id: UUID
    version: int
    game: str
    principal: Principal
    hand: int
    dealer: int
    to_act: int | None
    legal_actions: list[str]
    scores: list[int]
    match_over: bool
    winner: int | None
    state: dict[str, JSON]
    players: list[str]
    commitment: str


@dataclasses.dataclass(frozen=True)
class PublicEvent:
    """One stored event as a principal may see it."""

    version: int
    hand: int
    seat: int | None
    action: str
    facts: list[dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class DealCheck:
    commitment: str
    nonce: str
    cards: list[str]
    valid: bool


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 hashes (they are 256-bit random strings)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Referee(Application[UUID]):
    """The referee application."""

    name = "Referee"

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or settings_from_env()
        super().__init__(env=self.settings.store_env)
        datastore = getattr(self.recorder, "datastore", None)
        self.rejections: RejectionLog | StoredRejectionLog
        if datastore is None:  # POPO: in memory
            self.rejections = RejectionLog(
                self.settings.rejections_per_match, self.settings.rejections_total,
                self.settings.rejections_anonymous,
            )
        else:
            self.rejections = StoredRejectionLog(
                datastore, self.settings.rejections_per_match, self.settings.rejections_total,
                f"{self.name.lower()}_rejections",
                create_table=strtobool(self.env.get("CREATE_TABLE") or "yes"),
                anonymous=self.settings.rejections_anonymous,
            )
        self._locks: dict[UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        #: Watch streams waiting for a match to change (woken by commits, and by
        #: :attr:`follower` for other processes' writes).
        self.changes = ChangeWaiters()
        self._committed_hooks: list[Callable[[], None]] = []
        self._close_hooks: list[Callable[[], None]] = []
        self.follower: LogFollower | None = None
        if self.settings.fresh_reads:
            self.follower = LogFollower(
                self.changes, self._log_head,
                functools.partial(originators_between, self.recorder),
                self.settings.follow_interval, "referee-follow-log",
            )
        self._live: OrderedDict[UUID, Match] = OrderedDict()
        self._live_guard = threading.Lock()
        self._chain_breaks: OrderedDict[tuple[UUID, int], None] = OrderedDict()  # reported
        self._chain_hook: Callable[[UUID, int], None] | None = None
        self._committer = GroupCommitter(
            self._record_batch, self.settings.commit_batch, self.rejections.flush,
            self.settings.commit_delay,
        )

    def on_committed(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` on the writer thread after each committed batch (e.g. to wake a
        projection worker); keep it quick."""
        self._committed_hooks.append(hook)

    def on_commit_batch(self, hook: Callable[[int], None] | None) -> None:
        """Call ``hook(n)`` for each group commit of ``n`` aggregates (``None``: no hook)."""
        self._committer.on_batch = hook

    def on_chain_broken(self, hook: Callable[[UUID, int], None] | None) -> None:
        """Call ``hook(match_id, version)`` when a match's stored chain is found broken at
        ``version`` (once per match and position in this process; ``None``: no hook)."""
        self._chain_hook = hook

    # -- creating ----------------------------------------------------------------------------
    def create_match(
        self,
        game: str,
        rules: dict[str, Any] | None = None,
        players: Sequence[str] = (),
        seed_entropy: bytes = b"",
        fixed_deals: Sequence[Sequence[str]] = (),
        first_dealer: int = 0,
        public_spectators: bool = False,
        token: str = "",
    ) -> Created:
        """Create a match, deal its first hand, and return the seats' secret tokens.

        :raises CreateNotAllowedError: when the server has an organiser credential and
            ``token`` is neither it nor the auditor's."""
        self.require_organiser(token)
        try:
            g = find_game(game)
        except ValueError as exc:
            raise UnknownGameError(str(exc), game=game) from None
        try:
            ruleset = g.rules_class.from_dict(rules or {})
        except RuleParameterError as exc:
            raise InvalidRulesError(str(exc)) from None
        names = [limits.check_name(f"players[{i}]", p) for i, p in enumerate(players)]
        names = names or [f"seat {s}" for s in range(g.num_seats)]
        limits.check_length("seed_entropy", seed_entropy, limits.MAX_BYTES, "bytes")
        limits.check_length("fixed_deals", list(fixed_deals), limits.MAX_FIXED_DEALS, "deals")
        if len(names) != g.num_seats:
            raise MalformedRequestError(
                f"{g.name} has {g.num_seats} seats, got {len(names)} player names",
                seats=g.num_seats, players=len(names),
            )
        if not 0 <= first_dealer < g.num_seats:
            raise MalformedRequestError(f"first dealer must be a seat 0..{g.num_seats - 1}")
        packs = [_check_pack(g, list(d), i) for i, d in enumerate(fixed_deals)]
        tokens = [secrets.token_urlsafe(32) for _ in range(g.num_seats)]
        spectator = secrets.token_urlsafe(32)
        match = Match(
            game=g.name,
            rules=ruleset.to_dict(),
            players=names,
            seat_token_hashes=[hash_token(t) for t in tokens],
            spectator_token_hash=hash_token(spectator),
            public_spectators=public_spectators,
            first_dealer=first_dealer,
            fixed_deals=packs,
            rules_version=referee.RULES_VERSION,
        )
        self.deal_next(match, seed_entropy)
        self._commit(match)
        return Created(match.id, names, tokens, spectator, match.version, match.hand.commitment)

    def deal_next(self, match: Match, entropy: bytes = b"") -> None:
        """Deal the match's next hand: its fixed deal, else a pack shuffled with a key from
        ``secrets`` mixed with ``entropy`` (not committed: the caller commits it)."""
        n = len(match.hands)
        if n < len(match.fixed_deals):
            cards = match.fixed_deals[n]
        else:
            key = hashlib.sha256(secrets.token_bytes(32) + entropy).digest()
            cards = shuffle([CARD_NAMES[c] for c in match.game.pack], key)
        match.deal(cards, secrets.token_hex(16))

    # -- acting ------------------------------------------------------------------------------
    def submit_action(
        self,
        match_id: UUID,
        token: str,
        action: str,
        command_id: str = "",
        expected_version: int | None = None,
        seat: int | None = None,
    ) -> Answer:
        """Apply one action for the seat the token belongs to; see the module docstring."""
        principal: Principal | None = None
        try:
            with self._lock(match_id):
                match = self._cached(match_id, fresh=False)
                principal = self.authorize(match, token)
                try:
                    return self._submit(
                        match, principal, action, command_id, expected_version, seat
                    )
                except (RefereeError, RulesError) as exc:
                    # Never refuse on a stale cache: catch up with other processes first
                    # (unless the refusal cannot depend on the state, or the aggregate was
                    # dropped and reloaded already).
                    if (
                        isinstance(exc, InvalidActionError | PermissionDeniedError)
                        or self._live.get(match_id) is not match
                        or not self._catch_up(match)
                    ):
                        raise
                    return self._submit(
                        match, principal, action, command_id, expected_version, seat
                    )
        except (RefereeError, RulesError) as exc:
            if not isinstance(exc, MatchNotFoundError):
                self._reject(match_id, principal, action, exc)
            raise

    async def submit_action_async(
        self,
        match_id: UUID,
        token: str,
        action: str,
        command_id: str = "",
        expected_version: int | None = None,
        seat: int | None = None,
    ) -> Answer:
        """:meth:`submit_action` for a coroutine (the gRPC server's): the same checks, rules
        and answers, run on the event loop, which then awaits the group commit instead of
        parking a thread on it. Whatever could block the loop goes to the loop's executor
        instead: a match that is not cached, a match whose lock a thread holds and a refusal
        (it may need a catch-up read from the store first) to :meth:`submit_action`, a
        commit that lost to another process's write to :meth:`_decide_again`."""
        blocking = functools.partial(
            self.submit_action, match_id, token, action, command_id, expected_version, seat
        )
        loop = asyncio.get_running_loop()
        lock = self._lock(match_id)
        if not lock.acquire(blocking=False):
            return await loop.run_in_executor(None, blocking)
        try:
            with self._live_guard:
                match = self._live.get(match_id)
            done: Answer | None = None
            if match is not None:
                try:
                    principal = self.authorize(match, token)
                    done = self._apply(
                        match, principal, action, command_id, expected_version, seat
                    )
                except (RefereeError, RulesError):
                    match = None
            if match is None or done is not None:
                lock.release()
        except BaseException:
            lock.release()
            raise
        if done is not None:
            return done
        if match is None:
            return await loop.run_in_executor(None, blocking)
        # The answer is taken now, while the lock is held: once the commit is settled the
        # lock is free, and another caller may apply its own action to this same live match
        # before this coroutine resumes (reading ``match.last_outcome`` then acknowledged the
        # other caller's action, at its version, as this one's).
        assert match.last_outcome is not None
        answer = self._answer(match, match.last_outcome)
        # The lock stays held until the commit is settled (``_committed`` releases it, on
        # the loop, also when this caller has gone meanwhile).
        settled = functools.partial(self._committed, match, lock)
        try:
            future = self._committer.enqueue(match, match.collect_events(), settled)
        except BaseException as exc:
            settled(exc)
            raise
        error = await future
        if isinstance(error, IntegrityError):
            return await loop.run_in_executor(None, functools.partial(
                self._decide_again, match_id, principal, action, command_id,
                expected_version, seat,
            ))
        if error is not None:
            raise error
        return answer

    def _committed(self, match: Match, lock: threading.Lock, error: BaseException | None
                   ) -> None:
        """After an awaited commit (on the loop): keep or drop the live match, wake the
        watchers, release the match's lock."""
        try:
            if error is None:
                self._remember(match)
                self._wake_watchers(match.id)
            else:  # mutated but not committed
                self._evict(match.id)
        finally:
            lock.release()

    def _apply(
        self,
        match: Match,
        principal: Principal,
        text: str,
        command_id: str,
        expected_version: int | None,
        seat: int | None,
    ) -> Answer | None:
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
        if expected_version is not None and expected_version != match.version:
            raise VersionConflictError(
                f"the match is at version {match.version}, not {expected_version}",
                expectedVersion=expected_version, actualVersion=match.version,
            )
        before = match.version
        try:
            match.take_action(principal.seat, text, command_id)
            if match.needs_deal:
                self.deal_next(match)
        except BaseException:
            if match.version != before:  # mutated but refused: drop it
                self._evict(match.id)
            raise
        return None

    def _submit(
        self,
        match: Match,
        principal: Principal,
        text: str,
        command_id: str,
        expected_version: int | None,
        seat: int | None,
        retry: bool = True,
    ) -> Answer:
        done = self._apply(match, principal, text, command_id, expected_version, seat)
        if done is not None:
            return done
        try:
            self._commit(match)
        except IntegrityError:
            return self._after_conflict(
                match.id, principal, text, command_id, expected_version, seat, retry
            )
        except BaseException:
            self._evict(match.id)  # mutated but not committed: drop it
            raise
        self._wake_watchers(match.id)
        assert match.last_outcome is not None
        return self._answer(match, match.last_outcome)

    def _after_conflict(
        self,
        match_id: UUID,
        principal: Principal,
        text: str,
        command_id: str,
        expected_version: int | None,
        seat: int | None,
        retry: bool,
    ) -> Answer:
        """Another process wrote first: the cache was stale and nothing was committed.
        Reload and decide again on the fresh stream, once (the match's lock held): a retried
        command is answered from the record, an action still legal is committed, and one
        that the other write made illegal lost the race (VERSION_CONFLICT, as in this
        process). Whenever the match then holds the command id for this seat (the other
        write was this very command, sent to another process), it is answered as the
        replay it is (COMMAND_ID_REUSED if it was for another action), never as a
        conflict."""
        self._evict(match_id)
        current = self._cached(match_id, fresh=False)
        why = ""
        if retry:
            try:
                return self._submit(current, principal, text, command_id,
                                    expected_version, seat, retry=False)
            except VersionConflictError:
                raise
            except (RefereeError, RulesError) as exc:
                why = f" ({exc})"
            current = self._cached(match_id, fresh=True)
        if command_id and principal.seat is not None:
            done = current.outcomes.get(Match.command_key(principal.seat, command_id))
            if done is not None:
                return self._replayed(current, done, text)
        actual = current.version
        raise VersionConflictError(
            f"another command changed the match first; it is at version {actual}{why}",
            actualVersion=actual,
        ) from None

    def _decide_again(
        self,
        match_id: UUID,
        principal: Principal,
        text: str,
        command_id: str,
        expected_version: int | None,
        seat: int | None,
    ) -> Answer:
        """:meth:`_after_conflict` for a coroutine's commit that lost (blocking: run on the
        executor); a refusal goes to the audit trail as in :meth:`submit_action`."""
        try:
            with self._lock(match_id):
                return self._after_conflict(
                    match_id, principal, text, command_id, expected_version, seat, True
                )
        except (RefereeError, RulesError) as exc:
            self._reject(match_id, principal, text, exc)
            raise

    def _answer(self, match: Match, outcome: Outcome, replayed: bool = False) -> Answer:
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

    # -- reading -----------------------------------------------------------------------------
    def get_match(self, match_id: UUID) -> Match:
        """A private copy of the match as committed (safe to mutate)."""
        with self._reading(match_id) as match:
            return deepcopy(match)

    def get_view(self, match_id: UUID, token: str) -> View:
        with self._reading(match_id) as match:
            return self.view_of(match, self.authorize(match, token))

    def view_of(self, match: Match, who: Principal) -> View:
        """The redacted view of ``who``: the rules core's ``view``, never raw state."""
        game, state = match.game, match.hand_state
        if who.role is Role.AUDITOR:
            shown = game.audit_view(state)
        else:
            shown = game.view(state, who.seat if who.role is Role.SEAT else None)
        to_act = None if match.over else game.current_seat(state)
        legal: list[str] = []
        if to_act is not None and who.role is Role.SEAT and who.seat == to_act:
            legal = [game.format_action(a) for a in game.legal_actions(state)]
        return View(
            match_id=match.id, version=match.version, game=match.game_name, principal=who,
            hand=match.hand.number, dealer=match.hand.dealer, to_act=to_act,
            legal_actions=legal, scores=list(match.match_state.scores),
            match_over=match.over, winner=match.match_state.winner, state=shown,
            players=list(match.players), commitment=match.hand.commitment,
        )

    def events_after(self, match: Match, who: Principal, after: int) -> list[PublicEvent]:
        """The stored events after version ``after``, redacted for ``who``."""
        out: list[PublicEvent] = []
        hand = 0
        for hand_log in match.hands:
            if hand_log.first_version <= after + 1:
                hand = hand_log.number - 1
        stored = self.repository.event_store.get(match.id, gt=after, lte=match.version)
        for e in stored:
            v = e.originator_version
            if isinstance(e, Match.HandDealt):
                hand = e.hand
                fact = {"kind": HAND_DEALT, "hand": hand, "dealer": e.dealer,
                        "commitment": e.commitment}
                out.append(PublicEvent(v, hand, None, "", [fact]))
            elif isinstance(e, Match.ActionTaken):
                text = e.action
                if not is_public(match.game, text) and who.role is not Role.AUDITOR and not (
                    who.role is Role.SEAT and who.seat == e.seat
                ):
                    text = "hidden"
                out.append(PublicEvent(v, hand, e.seat, text, list(e.facts)))
            elif isinstance(e, Match.HandScored):
                fact = {"kind": HAND_ENDED, "hand": e.hand, "result": e.result,
                        "scores": e.scores}
                out.append(PublicEvent(v, hand, None, "", [fact]))
            elif isinstance(e, Match.MatchEnded):
                fact = {"kind": MATCH_ENDED, "scores": e.scores, "winner": e.winner}
                out.append(PublicEvent(v, hand, None, "", [fact]))
        return out

    def _changed_since(self, match_id: UUID, version: int) -> bool:
        return self._cached_version(match_id) > version

    def _cached_version(self, match_id: UUID) -> int:
        """The live match's version without waiting for its lock (-1 if not cached); it may
        count an action whose commit is still running: read it under the lock to see it."""
        with self._live_guard:
            match = self._live.get(match_id)
        return -1 if match is None else match.version

    def hand_record(self, match_id: UUID, hand: int, token: str) -> tuple[dict[str, JSON], bool]:
        """One hand as a ``referee.hand/v1`` record: finished hands for anyone with access,
        any hand for the auditor."""
        with self._reading(match_id) as match:
            who = self.authorize(match, token)
            log = self._hand(match, hand, who)
            return _hand_record(match, log).to_json(), log.result is not None

    def match_record(self, match_id: UUID, token: str) -> tuple[dict[str, JSON], bool]:
        """The match as a ``referee.match/v1`` record (finished hands; the auditor also gets
        the running one)."""
        with self._reading(match_id) as match:
            who = self.authorize(match, token)
            hands = [
                _hand_record(match, h) for h in match.hands
                if h.result is not None or who.role is Role.AUDITOR
            ]
            result = match_state_json(match.match_state) if match.over else None
            record = MatchRecord(
                game=match.game_name, rules=match.rules, players=tuple(match.players),
                hands=tuple(hands), result=result,
            )
            return record.to_json(), match.over

    def verify_deal(self, match_id: UUID, hand: int, token: str) -> DealCheck:
        """Reveal a finished hand's pack and nonce and check them against its commitment."""
        with self._reading(match_id) as match:
            log = self._hand(match, hand, self.authorize(match, token))
        ok = hmac.compare_digest(commitment(log.nonce, log.cards), log.commitment)
        return DealCheck(log.commitment, log.nonce, list(log.cards), ok)

    def list_rejections(self, token: str, match_id: str = "", limit: int = 0) -> list[Rejection]:
        """Rejected attempts, for the auditor only: the newest ``limit`` (at most, and by
        default, :data:`referee.limits.MAX_LIST_LIMIT`), oldest first."""
        self.require_auditor(token, "list rejections")
        cap = limits.MAX_LIST_LIMIT
        return self.rejections.list(match_id, min(limit, cap) if limit > 0 else cap)

    # -- auth --------------------------------------------------------------------------------
    def authorize(self, match: Match | Credentials, token: str) -> Principal:
        """The principal a token stands for in ``match`` (or in the credentials a read model
        keeps of it: the same three attributes).

        :raises UnauthenticatedError: for a missing token (unless spectating is public) or a
            token that belongs to nobody in this match.
        """
        if token:
            if self.is_auditor(token):
                return Principal(Role.AUDITOR)
            digest = hash_token(token)
            for seat, h in enumerate(match.seat_token_hashes):
                if hmac.compare_digest(digest, h):
                    return Principal(Role.SEAT, seat)
            if hmac.compare_digest(digest, match.spectator_token_hash):
                return Principal(Role.SPECTATOR)
            raise UnauthenticatedError("the token is not valid for this match")
        if match.public_spectators:
            return Principal(Role.SPECTATOR)
        raise UnauthenticatedError("a token is required for this match")

    def require_organiser(self, token: str) -> None:
        """:raises CreateNotAllowedError: unless this server lets anyone create matches or
        ``token`` is the organiser's (or the auditor's)."""
        if self.settings.organiser_token is None or self.is_organiser(token):
            return
        raise CreateNotAllowedError(
            "this server lets only its organiser create matches: give the organiser token"
            if not token else "the token is not this server's organiser token",
        )

    def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is the organiser's credential (or the auditor's)."""
        return _same_secret(token, self.settings.organiser_token) or self.is_auditor(token)

    def require_auditor(self, token: str, what: str = "do this") -> None:
        """:raises UnauthenticatedError: without a token; :raises PermissionDeniedError:
        unless ``token`` is the auditor's (both say so on a server with no auditor)."""
        if not token:
            raise UnauthenticatedError(f"the auditor token is required{self.auditor_hint}")
        if not self.is_auditor(token):
            raise PermissionDeniedError(f"only the auditor may {what}{self.auditor_hint}")

    @property
    def auditor_hint(self) -> str:
        """Added to the refusals of auditor-only requests: on a server with no auditor, says
        so and how to give it one (empty when it has one)."""
        if self.settings.auditor_token:
            return ""
        return " (this server has no auditor: start it with REFEREE_AUDITOR_TOKEN set)"

    def is_auditor(self, token: str) -> bool:
        return _same_secret(token, self.settings.auditor_token)

    # -- helpers -----------------------------------------------------------------------------
    def _get(self, match_id: UUID) -> Match:
        """The match as committed, read from the store (not the cache), row by row: its
        chain is verified before any event is applied (``referee.integrity``).

        :raises MatchNotFoundError: no match has this id (another aggregate's id included).
        :raises ChainBrokenError: the stored events do not verify.
        """
        entries = decode_all(self.mapper, match_rows(self.recorder, match_id))
        self._verify(match_id, entries)
        match: Any = None
        for entry in entries:
            match = entry.event.mutate(match)  # type: ignore[union-attr]
        assert isinstance(match, Match)  # event 1 is a Match.Created, checked above
        return match

    @contextmanager
    def _reading(self, match_id: UUID) -> Iterator[Match]:
        """The live aggregate, under the match's lock (so nothing uncommitted is seen)."""
        with self._lock(match_id):
            yield self._cached(match_id, fresh=self.settings.fresh_reads)

    def _cached(self, match_id: UUID, fresh: bool) -> Match:
        """The live aggregate (call with the match's lock held): from the cache, else
        replayed from the store once. ``fresh``: first apply events other processes wrote."""
        with self._live_guard:
            match = self._live.get(match_id)
            if match is not None:
                self._live.move_to_end(match_id)
        if match is None:
            match = self._get(match_id)
            self._remember(match)
        elif fresh:
            self._catch_up(match)
        return match

    def _catch_up(self, match: Match) -> bool:
        """Apply events written since ``match.version`` (by another process); True if any.
        They must follow on: the first links to the live head, each to the one before.

        :raises ChainBrokenError: they do not (the live match is dropped from the cache).
        """
        rows = self.recorder.select_events(match.id, gt=match.version)
        if not rows:
            return False
        entries = decode_all(self.mapper, rows)
        self._verify(match.id, entries, match.chain_head, match.version)
        for entry in entries:
            entry.event.mutate(match)  # type: ignore[union-attr]
        return True

    def _verify(self, match_id: UUID, entries: list[StoredMatchEvent], head: str = GENESIS,
                after: int = 0) -> None:
        """Check the links of ``entries``, which follow the event at version ``after`` whose
        hash is ``head`` (the defaults: the whole log). A match whose stored chain does not
        verify is not served: it leaves the cache, the break is logged and the
        ``on_chain_broken`` hook called once per match and position (per process).

        :raises ChainBrokenError: the chain does not verify."""
        report = check_links(entries, head, after)
        if report.ok:
            return
        self._evict(match_id)
        version = report.first_break or 0
        key = (match_id, version)
        with self._live_guard:
            first = key not in self._chain_breaks
            if first:
                self._chain_breaks[key] = None
                while len(self._chain_breaks) > 10_000:
                    self._chain_breaks.popitem(last=False)
        if first:
            _log.error("match %s: the stored chain is broken at event %d, the match is not "
                       "served: %s", match_id, version, report.message)
            hook = self._chain_hook
            if hook is not None:
                try:
                    hook(match_id, version)
                except Exception:  # a metrics hook must not change the answer
                    _log.exception("the chain-broken hook failed")
        raise ChainBrokenError(
            f"the stored events of match {match_id} do not verify at event {version}; "
            "the match is not served", matchId=match_id, version=version,
        )

    def _remember(self, match: Match) -> None:
        with self._live_guard:
            self._live[match.id] = match
            self._live.move_to_end(match.id)
            while len(self._live) > self.settings.cache_size:
                self._live.popitem(last=False)

    def _evict(self, match_id: UUID) -> None:
        with self._live_guard:
            self._live.pop(match_id, None)

    def _commit(self, match: Match) -> None:
        """Hand the match's new events to the group committer; return once committed."""
        self._committer.commit(match, match.collect_events())
        self._remember(match)

    # -- other commands through the same path ------------------------------------------------
    def update_match(self, match_id: UUID, command: Callable[[Match], T]) -> T:
        """Run ``command`` on the live match under its lock (after catching up with other
        processes) and group-commit the events it triggered, as actions are: a concurrent
        action in this process waits for the lock instead of causing a version conflict.

        :raises VersionConflictError: if another process wrote first (the save conflicts).
        """
        with self._lock(match_id):
            match = self._cached(match_id, fresh=True)
            before = match.version
            try:
                result = command(match)
                if match.version != before:
                    self._commit(match)
            except IntegrityError:
                self._evict(match_id)
                raise VersionConflictError(
                    "another process changed the match first; retry", matchId=match_id
                ) from None
            except BaseException:
                if match.version != before:  # mutated but not committed: drop it
                    self._evict(match_id)
                raise
        if match.version != before:
            self._wake_watchers(match_id)
        return result

    @contextmanager
    def updating(self, aggregate_id: UUID) -> Iterator[Callable[[Any], None]]:
        """For aggregates other than matches (tournaments): hold the aggregate's lock and get
        a ``commit(aggregate)`` that group-commits its new events. Read the aggregate from the
        store inside the block. :raises VersionConflictError: if another process wrote first."""
        def commit(aggregate: Any) -> None:
            try:
                self._committer.commit(aggregate, aggregate.collect_events())
            except IntegrityError:
                raise VersionConflictError(
                    "another process changed it first; retry", id=aggregate.id
                ) from None

        with self._lock(aggregate_id):
            yield commit

    def _record_batch(self, batch: list[Pending]) -> None:
        """One transaction for the events of every aggregate in ``batch`` (writer thread)."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for item in batch:
            processing_event.events.extend(item.events)
            processing_event.aggregates[item.aggregate.id] = item.aggregate
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        for hook in self._committed_hooks:
            try:
                hook()
            except Exception:  # a listener must not stop commits
                _log.exception("a commit listener failed")

    def _record(self, processing_event: ProcessingEvent[UUID]) -> Any:
        recordings = super()._record(processing_event)
        # Saved from outside the live cache (``app.save(aggregate)``): the cache is stale.
        for aggregate_id, aggregate in processing_event.aggregates.items():
            with self._live_guard:
                live = self._live.get(aggregate_id)
                if live is not None and live is not aggregate:
                    del self._live[aggregate_id]
        return recordings

    def _log_head(self) -> int:
        return int(self.recorder.max_notification_id() or 0)

    def on_close(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` first thing in :meth:`close` (e.g. to stop a reader's thread)."""
        self._close_hooks.append(hook)

    def close(self) -> None:
        for hook in getattr(self, "_close_hooks", ()):
            try:
                hook()
            except Exception:
                _log.exception("a close hook failed")
        follower = getattr(self, "follower", None)
        if follower is not None:
            follower.stop()
        committer = getattr(self, "_committer", None)
        if committer is not None:
            committer.close()
        super().close()

    def _hand(self, match: Match, hand: int, who: Principal) -> HandLog:
        if not 1 <= hand <= len(match.hands):
            raise HandNotFoundError(
                f"hand {hand} does not exist (hands 1..{len(match.hands)})", hand=hand
            )
        log = match.hands[hand - 1]
        if log.result is None and who.role is not Role.AUDITOR:
            raise HandNotFinishedError(f"hand {hand} is not over yet", hand=hand)
        return log

    def _lock(self, match_id: UUID) -> threading.Lock:
        with self._locks_guard:
            lock = self._locks.get(match_id)
            if lock is None:
                if len(self._locks) > max(10_000, 2 * self.settings.cache_size):
                    for key in [k for k, v in self._locks.items() if not v.locked()]:
                        del self._locks[key]
                lock = self._locks[match_id] = threading.Lock()
            return lock

    def _wake_watchers(self, match_id: UUID) -> None:
        self.changes.wake((match_id,))

    def _reject(
        self, match_id: UUID, who: Principal | None, action: str, exc: Exception
    ) -> None:
        self.rejections.add(
            Rejection(
                match_id=str(match_id),
                seat=who.seat if who is not None and who.role is Role.SEAT else None,
                action=action[:200],
                reason=getattr(exc, "reason", type(exc).__name__),
                rule=getattr(exc, "rule", None) or "",
                message=str(exc)[:500],
                time=datetime.now(UTC).isoformat(timespec="milliseconds"),
            )
        )

    async def watch(
        self, match_id: UUID, token: str, after: int, heartbeat: float,
        alive: Callable[[], bool] = lambda: True, ended: asyncio.Future[Any] | None = None,
    ) -> AsyncIterator[tuple[list[PublicEvent], View | None, int]]:
        """Updates for a watcher: ``(events, view, version)``; heartbeats (every ``heartbeat``
        seconds without a change) have no events and no view. The first update brings
        everything after ``after``. Event-driven: a commit in this process wakes the match's
        watchers, the :class:`~referee.changes.LogFollower` wakes them for another process's
        write; the watch ends when ``ended`` is done, or when ``alive()`` is false after a
        wake (:meth:`changes` ``.wake_all()`` on stopping). The reads run on the loop's
        executor; the waits hold no thread."""
        loop = asyncio.get_running_loop()
        who = await loop.run_in_executor(None, self._watcher, match_id, token)
        sent = after
        update = await loop.run_in_executor(None, self._watch_update, match_id, who, sent, True)
        while True:
            yield update
            if update[1] is not None:
                sent = update[2]
            beat = loop.time() + heartbeat
            newer = functools.partial(self._changed_since, match_id, sent)
            while True:
                await self.changes.wait(match_id, beat - loop.time(), newer, ended)
                if (ended is not None and ended.done()) or not alive():
                    return
                update = await loop.run_in_executor(
                    None, self._watch_update, match_id, who, sent, False
                )
                if update[1] is not None or loop.time() >= beat:
                    break

    def _watcher(self, match_id: UUID, token: str) -> Principal:
        with self._reading(match_id) as match:
            return self.authorize(match, token)

    def _watch_update(self, match_id: UUID, who: Principal, sent: int, first: bool
                      ) -> tuple[list[PublicEvent], View | None, int]:
        with self._reading(match_id) as match:
            version = match.version
            if version > sent or first:
                return self.events_after(match, who, sent), self.view_of(match, who), version
            return [], None, version


def _same_secret(token: str, expected: str | None) -> bool:
    """Whether ``token`` is the configured secret ``expected`` (none configured: never), in
    constant time, compared as UTF-8 bytes (``compare_digest`` refuses a non-ASCII str)."""
    return bool(expected and token and hmac.compare_digest(token.encode(), expected.encode()))


def _check_pack(game: Game[Any], cards: list[str], index: int) -> list[str]:
    try:
        parsed = [parse_card(c) for c in cards]
    except InvalidActionError as exc:
        raise MalformedRequestError(f"fixed deal {index}: {exc}") from None
    if sorted(parsed) != sorted(game.pack):
        raise MalformedRequestError(
            f"fixed deal {index} is not exactly the {game.name} pack, each card once"
        )
    return [CARD_NAMES[c] for c in parsed]


def _hand_record(match: Match, log: HandLog) -> HandRecord:
    deal = match.game.deal([parse_card(c) for c in log.cards], log.dealer)
    return HandRecord(
        game=match.game_name, rules=match.rules, dealer=log.dealer, deal=deal,
        actions=tuple(log.actions), result=log.result,
    )


def rules_from_json(text: str) -> dict[str, Any]:
    """Parse ``rules_json`` (empty: defaults), within :mod:`referee.limits`."""
    return limits.json_object("rules_json", text, InvalidRulesError)
