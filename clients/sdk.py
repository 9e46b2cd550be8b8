"""``RefereeClient``: typed methods for every RPC of ``referee.api.v1``.

It talks to the referee only over gRPC (the generated stubs), maps every error to an exception
of :mod:`clients.errors`, applies a deadline to each call and retries idempotent calls (reads,
and ``submit_action`` with the same ``command_id``) when the referee is unreachable.

>>> with RefereeClient("127.0.0.1:50051") as client:            # doctest: +SKIP
...     match = client.create_match("euchre", players=["ann", "bob", "cy", "dee"])
...     view = client.get_view(match.match_id, match.tokens[1])
...     client.submit_action(match.match_id, match.tokens[1], view.legal_actions[0])
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, TypeVar

import grpc

from clients.errors import RefereeError, from_rpc_error
from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg

DEFAULT_ADDRESS = "127.0.0.1:50051"
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
"""Codes on which an idempotent call is retried (the same request, the same ``command_id``)."""

ROLES = {pb.ROLE_SEAT: "seat", pb.ROLE_SPECTATOR: "spectator", pb.ROLE_AUDITOR: "auditor"}
FACT_KINDS = {
    pb.FACT_KIND_TRICK_TAKEN: "trick_taken",
    pb.FACT_KIND_ANNOUNCED: "announced",
    pb.FACT_KIND_HAND_ENDED: "hand_ended",
    pb.FACT_KIND_MATCH_ENDED: "match_ended",
    pb.FACT_KIND_HAND_DEALT: "hand_dealt",
}

R = TypeVar("R")


class _Versioned(Protocol):
    @property
    def version(self) -> int: ...


W = TypeVar("W", bound=_Versioned)


@dataclass(frozen=True)
class Fact:
    """Something an action caused: ``kind`` (``trick_taken``, ``hand_ended``, ...) and data."""

    kind: str
    data: dict[str, Any]

    @classmethod
    def from_pb(cls, fact: pb.Fact) -> Fact:
        return cls(FACT_KINDS.get(fact.kind, "unspecified"), json.loads(fact.json or "{}"))


@dataclass(frozen=True)
class CreatedMatch:
    """A new match and its secrets (shown once): one token per seat, and a spectator token."""

    match_id: str
    tokens: list[str]
    players: list[str]
    spectator_token: str
    version: int
    deal_commitment: str

    @classmethod
    def from_pb(cls, resp: pb.CreateMatchResponse) -> CreatedMatch:
        seats = sorted(resp.seat_tokens, key=lambda t: t.seat)
        return cls(resp.match_id, [t.token for t in seats], [t.player for t in seats],
                   resp.spectator_token, resp.version, resp.deal_commitment)


@dataclass(frozen=True)
class View:
    """What the caller may see of a match; ``state`` is the game's redacted view (parsed)."""

    match_id: str
    version: int
    game: str
    role: str
    seat: int | None
    hand: int
    dealer: int
    to_act: int | None
    legal_actions: list[str]
    scores: list[int]
    match_over: bool
    winner: int | None
    state: dict[str, Any]
    players: list[str]
    deal_commitment: str

    @classmethod
    def from_pb(cls, v: pb.GetViewResponse) -> View:
        return cls(
            match_id=v.match_id, version=v.version, game=v.game, role=ROLES.get(v.role, "none"),
            seat=v.seat if v.HasField("seat") else None, hand=v.hand, dealer=v.dealer,
            to_act=v.to_act if v.HasField("to_act") else None,
            legal_actions=list(v.legal_actions), scores=list(v.scores),
            match_over=v.match_over, winner=v.winner if v.HasField("winner") else None,
            state=json.loads(v.state_json or "{}"), players=list(v.players),
            deal_commitment=v.deal_commitment,
        )

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.to_act == self.seat and bool(self.legal_actions)


@dataclass(frozen=True)
class ActionResult:
    """The referee's answer to an accepted action."""

    version: int
    seat: int
    action: str
    facts: list[Fact]
    hand_over: bool
    match_over: bool
    scores: list[int]
    replayed: bool
    command_id: str = ""

    @classmethod
    def from_pb(cls, r: pb.SubmitActionResponse, command_id: str = "") -> ActionResult:
        return cls(r.version, r.seat, r.action, [Fact.from_pb(f) for f in r.facts], r.hand_over,
                   r.match_over, list(r.scores), r.replayed, command_id)


@dataclass(frozen=True)
class MatchEvent:
    """One change of a match: an action (``"hidden"`` when the caller may not see it)."""

    version: int
    hand: int
    seat: int | None
    action: str
    facts: list[Fact]


@dataclass(frozen=True)
class Update:
    """One ``WatchMatch`` message: events and the view after them, or a heartbeat."""

    version: int
    heartbeat: bool
    events: list[MatchEvent] = field(default_factory=list)
    view: View | None = None

    @classmethod
    def from_pb(cls, m: pb.WatchMatchResponse) -> Update:
        events = [
            MatchEvent(e.version, e.hand, e.seat if e.HasField("seat") else None, e.action,
                       [Fact.from_pb(f) for f in e.facts])
            for e in m.events
        ]
        view = View.from_pb(m.view) if m.HasField("view") else None
        return cls(m.version, m.heartbeat, events, view)


@dataclass(frozen=True)
class Record:
    """A hand (``referee.hand/v1``) or match (``referee.match/v1``) record, parsed."""

    data: dict[str, Any]
    finished: bool

    def to_text(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class DealCheck:
    """A revealed pack and its commitment; :meth:`recompute` checks it on this side."""

    commitment: str
    nonce: str
    cards: list[str]
    valid: bool

    def recompute(self) -> bool:
        """True when ``sha256(nonce + ":" + " ".join(cards))`` equals the commitment."""
        text = f"{self.nonce}:{' '.join(self.cards)}"
        return hashlib.sha256(text.encode()).hexdigest() == self.commitment


@dataclass(frozen=True)
class Rejection:
    """One refused attempt (auditors only)."""

    match_id: str
    seat: int | None
    action: str
    reason: str
    rule: str
    message: str
    time: str


@dataclass(frozen=True)
class Ruling:
    """An auditor's ruling: ``adjust`` is added to each side's score."""

    hand: int
    kind: str
    adjust: list[int]
    reason: str
    version: int

    @classmethod
    def from_pb(cls, r: ppb.Ruling) -> Ruling:
        return cls(r.hand, r.kind, list(r.adjust), r.reason, r.version)


@dataclass(frozen=True)
class HandScore:
    """One finished hand on the scoreboard; ``detail`` is the rest of its result (parsed)."""

    hand: int
    dealer: int
    points: list[int]
    scores_after: list[int]
    detail: dict[str, Any]
    rulings: list[Ruling]


@dataclass(frozen=True)
class Scoreboard:
    """A match's scoreboard from the read side (``state``: ``"playing"`` or ``"over"``).

    ``version`` is the last match version projected: it may lag the match briefly."""

    match_id: str
    game: str
    state: str
    version: int
    hand: int
    dealer: int
    to_act: int | None
    scores: list[int]
    adjusted_scores: list[int]
    winner: int | None
    players: list[str]
    hands: list[HandScore]
    rulings: list[Ruling]
    head_hash: str = ""
    """The chain head: the hash of the event at ``version`` (save it to anchor a later
    :meth:`RefereeClient.check_chain`)."""

    @property
    def over(self) -> bool:
        return self.state == "over"

    @classmethod
    def from_pb(cls, b: ppb.Scoreboard) -> Scoreboard:
        return cls(
            match_id=b.match_id, game=b.game, state=b.state, version=b.version, hand=b.hand,
            dealer=b.dealer, to_act=b.to_act if b.HasField("to_act") else None,
            scores=list(b.scores), adjusted_scores=list(b.adjusted_scores),
            winner=b.winner if b.HasField("winner") else None, players=list(b.players),
            hands=[HandScore(h.hand, h.dealer, list(h.points), list(h.scores_after),
                             json.loads(h.detail_json or "{}"),
                             [Ruling.from_pb(r) for r in h.rulings]) for h in b.hands],
            rulings=[Ruling.from_pb(r) for r in b.rulings], head_hash=b.head_hash,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IllegalAlternative:
    """An action the acting seat could not take, and the rule that forbids it."""

    action: str
    rule: str
    reason: str
    message: str


@dataclass(frozen=True)
class ReplayStep:
    """A hand's state before action ``action_index`` (the dispute replay of the referee).

    ``action`` is the action taken there (``{seat, action, time}``; None at the end),
    ``cards`` where every card is, ``state`` the rules core's audit view, ``timeline`` the
    accepted actions, rejected attempts and rulings, ``scoring`` the end-of-hand result."""

    match_id: str
    hand: int
    action_index: int
    actions: int
    to_act: int | None
    legal: list[str]
    action: dict[str, Any] | None
    illegal: list[IllegalAlternative]
    cards: dict[str, Any]
    state: dict[str, Any]
    timeline: list[dict[str, Any]]
    scoring: dict[str, Any] | None
    finished: bool

    @classmethod
    def from_pb(cls, r: ppb.GetReplayResponse) -> ReplayStep:
        return cls(
            match_id=r.match_id, hand=r.hand, action_index=r.action_index, actions=r.actions,
            to_act=r.to_act if r.HasField("to_act") else None, legal=list(r.legal),
            action=json.loads(r.action_json) if r.action_json else None,
            illegal=[IllegalAlternative(x.action, x.rule, x.reason, x.message)
                     for x in r.illegal],
            cards=json.loads(r.cards_json or "{}"), state=json.loads(r.state_json or "{}"),
            timeline=json.loads(r.timeline_json or "[]"),
            scoring=json.loads(r.scoring_json) if r.scoring_json else None,
            finished=r.finished,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ChainCheck:
    """The referee's check of a match's event hash chain (``first_break``: a version).

    ``head`` is the hash of the event at ``version``; ``anchor_ok`` is None without an anchor,
    else whether the anchored event still hashes to the saved head."""

    ok: bool
    events: int
    head: str
    first_break: int | None
    message: str
    version: int = 0
    anchor_ok: bool | None = None


@dataclass(frozen=True)
class Standing:
    """One entrant's standing (points with rulings applied; ``duplicate``: board sum)."""

    entrant: str
    played: int
    won: int
    lost: int
    drawn: int
    points_for: int
    points_against: int
    duplicate: int


@dataclass(frozen=True)
class Standings:
    """A tournament's standings, ranked; ``boards`` is the duplicate comparison per board."""

    tournament_id: str
    name: str
    game: str
    standings: list[Standing]
    boards: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Outage:
    """How long a stream may stay down before a watch gives up: waits with doubling backoff
    (capped at 2 s) while under ``budget`` seconds since the last update."""

    def __init__(self, backoff: float, budget: float) -> None:
        self.backoff, self.budget = backoff, budget
        self.since: float | None = None
        self.delay = backoff

    def clear(self) -> None:
        self.since, self.delay = None, self.backoff

    def wait(self) -> bool:
        """Sleep before the next attempt; False when the budget is spent."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
        if now - self.since >= self.budget:
            return False
        time.sleep(min(self.delay, self.budget - (now - self.since)))
        self.delay = min(self.delay * 2, 2.0)
        return True


class RefereeClient:
    """A connection to one referee.

    :param address: ``host:port``.
    :param tls: use TLS (``root_certificates``: PEM bytes of the CA, default: the system's).
    :param timeout: the deadline of each call, in seconds.
    :param retries: extra attempts of an idempotent call on UNAVAILABLE / DEADLINE_EXCEEDED.
    :param backoff: the first wait between attempts, doubled each time.
    :param channel: use this channel instead of opening one (the client will not close it).
    """

    def __init__(
        self, address: str = DEFAULT_ADDRESS, *, tls: bool = False,
        root_certificates: bytes | None = None, timeout: float = 10.0, retries: int = 3,
        backoff: float = 0.1, channel: grpc.Channel | None = None,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._owns_channel = channel is None
        if channel is None:
            if tls:
                creds = grpc.ssl_channel_credentials(root_certificates=root_certificates)
                channel = grpc.secure_channel(address, creds)
            else:
                channel = grpc.insecure_channel(address)
        self.channel = channel
        self.stub = pbg.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        self.projections = ppbg.ProjectionsServiceStub(channel)  # type: ignore[no-untyped-call]
        self.tournaments = ppbg.TournamentServiceStub(channel)  # type: ignore[no-untyped-call]

    def __enter__(self) -> RefereeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel (if this client opened it)."""
        if self._owns_channel:
            self.channel.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel is connected.

        :raises Unavailable: when the referee cannot be reached within ``timeout``.
        """
        from clients.errors import Unavailable

        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise Unavailable(f"no referee at {self.address} after {timeout:g}s",
                              code="UNAVAILABLE") from None

    # -- plumbing -------------------------------------------------------------------------

    def _call(self, method: Callable[..., R], request: object, *, idempotent: bool) -> R:
        attempts = 1 + (self.retries if idempotent else 0)
        delay = self.backoff
        for attempt in range(attempts):
            try:
                return method(request, timeout=self.timeout)
            except grpc.RpcError as err:
                code = err.code() if hasattr(err, "code") else None
                if code in RETRYABLE and attempt + 1 < attempts:
                    time.sleep(delay)
                    delay *= 2
                    continue
                raise from_rpc_error(err, self.address) from None
        raise AssertionError("unreachable")  # pragma: no cover

    # -- the RPCs -------------------------------------------------------------------------

    def list_games(self) -> list[pb.GameInfo]:
        """Every registered game with its seats and rule parameters."""
        return list(self._call(self.stub.ListGames, pb.ListGamesRequest(), idempotent=True).games)

    def create_match(
        self, game: str, *, rules: dict[str, Any] | None = None,
        players: Sequence[str] = (), seed_entropy: bytes = b"",
        fixed_deals: Sequence[Sequence[str]] = (), first_dealer: int | None = None,
        public_spectators: bool = False, organiser_token: str = "",
    ) -> CreatedMatch:
        """Create a match (not retried: a retry could create a second one).
        ``organiser_token``: the server's organiser credential, where it requires one."""
        request = pb.CreateMatchRequest(
            game=game, rules_json=json.dumps(rules) if rules else "", players=list(players),
            seed_entropy=seed_entropy,
            fixed_deals=[pb.FixedDeal(cards=list(d)) for d in fixed_deals],
            public_spectators=public_spectators, token=organiser_token,
        )
        if first_dealer is not None:
            request.first_dealer = first_dealer
        return CreatedMatch.from_pb(self._call(self.stub.CreateMatch, request, idempotent=False))

    def submit_action(
        self, match_id: str, token: str, action: str, *, command_id: str | None = None,
        expected_version: int | None = None, seat: int | None = None,
    ) -> ActionResult:
        """Submit one action. A ``command_id`` is generated when not given; retries reuse it,
        so the action is recorded at most once."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.SubmitActionRequest(match_id=match_id, token=token, action=action,
                                          command_id=command_id)
        if expected_version is not None:
            request.expected_version = expected_version
        if seat is not None:
            request.seat = seat
        resp = self._call(self.stub.SubmitAction, request, idempotent=True)
        return ActionResult.from_pb(resp, command_id)

    def get_view(self, match_id: str, token: str = "") -> View:
        """The caller's view of the match now."""
        req = pb.GetViewRequest(match_id=match_id, token=token)
        return View.from_pb(self._call(self.stub.GetView, req, idempotent=True))

    def watch(
        self, match_id: str, token: str = "", *, after_version: int = 0,
        heartbeat_seconds: int = 0, resume: bool = True, resume_for: float = 60.0,
    ) -> Iterator[Update]:
        """Stream updates (no overall deadline). With ``resume``, a stream that ends before
        the match is over (a server's graceful restart ends it normally; a lost connection
        ends it UNAVAILABLE) is reopened from the last version seen, with backoff, for as
        long as ``resume_for`` seconds pass without an update."""
        def opened(after: int) -> Any:
            return self.stub.WatchMatch(pb.WatchMatchRequest(
                match_id=match_id, token=token, after_version=after,
                heartbeat_seconds=heartbeat_seconds))

        yield from self._resuming(
            opened, Update.from_pb, lambda u: u.view is not None and u.view.match_over,
            after_version, resume, resume_for)

    def _resuming(self, opened: Callable[[int], Any], read: Callable[[Any], W],
                  over: Callable[[W], bool], after: int, resume: bool, resume_for: float,
                  ) -> Iterator[W]:
        """The items of a watch stream (``opened(after_version)``), reopened after the last
        version seen whenever it ends before an item says the match is ``over``: normally
        (a graceful restart) or UNAVAILABLE, with backoff, for as long as ``resume_for``
        seconds pass without an item."""
        outage = _Outage(self.backoff, resume_for)
        done = False
        while True:
            stream = opened(after)
            try:
                for message in stream:
                    outage.clear()
                    item = read(message)
                    after = max(after, item.version)
                    done = done or over(item)
                    yield item
                if done or not resume or not outage.wait():
                    return
            except grpc.RpcError as err:
                code = err.code() if hasattr(err, "code") else None
                if code == grpc.StatusCode.CANCELLED:
                    return
                if not (resume and code in RETRYABLE and outage.wait()):
                    raise from_rpc_error(err, self.address) from None
            finally:
                stream.cancel()

    def get_hand_record(self, match_id: str, hand: int, token: str = "") -> Record:
        """One hand as a ``referee.hand/v1`` record."""
        req = pb.GetHandRecordRequest(match_id=match_id, hand=hand, token=token)
        resp = self._call(self.stub.GetHandRecord, req, idempotent=True)
        return Record(json.loads(resp.record_json), resp.finished)

    def get_match_record(self, match_id: str, token: str = "") -> Record:
        """The match as a ``referee.match/v1`` record (finished hands)."""
        req = pb.GetMatchRecordRequest(match_id=match_id, token=token)
        resp = self._call(self.stub.GetMatchRecord, req, idempotent=True)
        return Record(json.loads(resp.record_json), resp.finished)

    def verify_deal(self, match_id: str, hand: int, token: str = "") -> DealCheck:
        """The revealed pack of a finished hand and its commitment."""
        req = pb.VerifyDealRequest(match_id=match_id, hand=hand, token=token)
        resp = self._call(self.stub.VerifyDeal, req, idempotent=True)
        return DealCheck(resp.commitment, resp.nonce, list(resp.cards), resp.valid)

    def list_rejections(self, token: str, match_id: str = "", limit: int = 0) -> list[Rejection]:
        """Refused attempts (auditor token)."""
        req = pb.ListRejectionsRequest(token=token, match_id=match_id, limit=limit)
        resp = self._call(self.stub.ListRejections, req, idempotent=True)
        return [
            Rejection(r.match_id, r.seat if r.HasField("seat") else None, r.action, r.reason,
                      r.rule, r.message, r.time)
            for r in resp.rejections
        ]

    # -- the read side (ProjectionsService) -----------------------------------------------
    # Its views are eventually consistent: VIEW_NOT_READY (UNAVAILABLE) for a match not yet
    # projected is retried like any UNAVAILABLE read, and a scoreboard may lag the match.

    def get_scoreboard(self, match_id: str, token: str = "", *, min_version: int = 0,
                       wait: float = 0.0) -> Scoreboard:
        """The match's scoreboard. With ``min_version``, poll up to ``wait`` seconds until the
        view has projected that match version (read your own writes); the last scoreboard is
        returned either way (compare its ``version``)."""
        req = ppb.GetScoreboardRequest(match_id=match_id, token=token)
        deadline = time.monotonic() + wait
        while True:
            board = Scoreboard.from_pb(self._call(self.projections.GetScoreboard, req,
                                                  idempotent=True))
            if board.version >= min_version or time.monotonic() >= deadline:
                return board
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def watch_scoreboard(self, match_id: str, token: str = "", *, after_version: int = 0,
                         resume: bool = True, resume_for: float = 60.0) -> Iterator[Scoreboard]:
        """The scoreboard after every change (first: the current one), until the match is
        over or the caller stops iterating. A stream that ends before (normally or
        UNAVAILABLE) is reopened after the last version seen, as :meth:`watch` does."""
        def opened(after: int) -> Any:
            return self.projections.WatchScoreboard(ppb.WatchScoreboardRequest(
                match_id=match_id, token=token, after_version=after))

        yield from self._resuming(opened, Scoreboard.from_pb, lambda b: b.state == "over",
                                  after_version, resume, resume_for)

    def get_replay(self, match_id: str, hand: int, action_index: int, token: str) -> ReplayStep:
        """The hand's state before action ``action_index`` (``0..n``, ``n``: the end): cards,
        legal set, why every other action of the acting seat is illegal, timeline, scoring.
        The auditor may replay any time; other tokens of the match once the hand is over."""
        req = ppb.GetReplayRequest(match_id=match_id, hand=hand, action_index=action_index,
                                   token=token)
        return ReplayStep.from_pb(self._call(self.projections.GetReplay, req, idempotent=True))

    def replay_steps(self, match_id: str, hand: int, token: str) -> Iterator[ReplayStep]:
        """Every state of the hand, action index 0 to the end (one ``GetReplay`` each)."""
        step = self.get_replay(match_id, hand, 0, token)
        yield step
        for index in range(1, step.actions + 1):
            yield self.get_replay(match_id, hand, index, token)

    def export_hand(self, match_id: str, hand: int, token: str = "") -> Record:
        """A finished hand as a ``referee.hand/v1`` record, from the read side."""
        req = ppb.ExportHandRequest(match_id=match_id, hand=hand, token=token)
        resp = self._call(self.projections.ExportHand, req, idempotent=True)
        return Record(json.loads(resp.record_json), True)

    def export_match(self, match_id: str, token: str = "") -> Record:
        """The match's finished hands as a ``referee.match/v1`` record, from the read side
        (``finished`` once the record has a result)."""
        req = ppb.ExportMatchRequest(match_id=match_id, token=token)
        data = json.loads(self._call(self.projections.ExportMatch, req,
                                     idempotent=True).record_json)
        return Record(data, data.get("result") is not None)

    def record_ruling(self, token: str, match_id: str, hand: int, kind: str,
                      points: Sequence[int] = (), reason: str = "") -> tuple[int, list[int]]:
        """An auditor's ruling on a finished hand: ``penalty`` (points taken per side),
        ``annul`` (the hand's scores undone; ``points`` ignored) or ``correction`` (points
        added). Returns the match version of the ruling and the adjustment per side. Not
        retried: a retry could record it twice."""
        req = ppb.RecordRulingRequest(token=token, match_id=match_id, hand=hand, kind=kind,
                                      points=list(points), reason=reason)
        resp = self._call(self.projections.RecordRuling, req, idempotent=False)
        return resp.version, list(resp.adjust)

    def check_chain(self, match_id: str, token: str, *, anchor_version: int = 0,
                    anchor_head: str = "") -> ChainCheck:
        """The referee's check of the match's event hash chain in its store; with an anchor
        (a ``version``/``head`` saved earlier), also that the event there was not rewritten."""
        req = ppb.CheckChainRequest(match_id=match_id, token=token,
                                    anchor_version=anchor_version, anchor_head=anchor_head)
        r = self._call(self.projections.CheckChain, req, idempotent=True)
        return ChainCheck(r.ok, r.events, r.head,
                          r.first_break if r.HasField("first_break") else None, r.message,
                          r.version, r.anchor_ok if r.HasField("anchor_ok") else None)

    # -- tournaments (TournamentService) --------------------------------------------------
    # Changes need the auditor token and are not retried (a retry could apply them twice).

    def create_tournament(self, token: str, name: str, game: str) -> str:
        """A new tournament of ``game``; returns its id."""
        req = ppb.CreateTournamentRequest(token=token, name=name, game=game)
        return str(self._call(self.tournaments.CreateTournament, req,
                              idempotent=False).tournament_id)

    def register_entrant(self, token: str, tournament_id: str, entrant: str,
                         members: Sequence[str] = ()) -> int:
        """Register a team or player (a unique name); returns the tournament's version."""
        req = ppb.RegisterEntrantRequest(token=token, tournament_id=tournament_id,
                                         entrant=entrant, members=list(members))
        return int(self._call(self.tournaments.RegisterEntrant, req, idempotent=False).version)

    def attach_match(self, token: str, tournament_id: str, match_id: str,
                     sides: Sequence[str], board: str = "") -> int:
        """Attach a match: the entrant of each side and its duplicate ``board`` (matches with
        the same board must be created with the same ``fixed_deals``)."""
        req = ppb.AttachMatchRequest(token=token, tournament_id=tournament_id,
                                     match_id=match_id, sides=list(sides), board=board)
        return int(self._call(self.tournaments.AttachMatch, req, idempotent=False).version)

    def get_standings(self, tournament_id: str) -> Standings:
        """The tournament's standings (ranked) and duplicate comparison per board."""
        req = ppb.GetStandingsRequest(tournament_id=tournament_id)
        s = self._call(self.tournaments.GetStandings, req, idempotent=True)
        return Standings(
            s.tournament_id, s.name, s.game,
            [Standing(r.entrant, r.played, r.won, r.lost, r.drawn, r.points_for,
                      r.points_against, r.duplicate) for r in s.standings],
            json.loads(s.boards_json or "[]"),
        )

    def export_tournament(self, tournament_id: str, token: str) -> Iterator[str]:
        """Every attached match as a ``referee.match/v1`` record, one JSON line each (NDJSON;
        auditor token). Retried when the stream fails before its first line."""
        req = ppb.ExportTournamentRequest(tournament_id=tournament_id, token=token)
        delay = self.backoff
        for attempt in range(1 + self.retries):
            sent = False
            try:
                for message in self.tournaments.ExportTournament(req, timeout=self.timeout):
                    sent = True
                    yield message.record_json
                return
            except grpc.RpcError as err:
                code = err.code() if hasattr(err, "code") else None
                if sent or code not in RETRYABLE or attempt == self.retries:
                    raise from_rpc_error(err, self.address) from None
                time.sleep(delay)
                delay *= 2


__all__ = [
    "ActionResult", "ChainCheck", "CreatedMatch", "DealCheck", "Fact", "HandScore",
    "IllegalAlternative", "MatchEvent", "Record", "RefereeClient", "RefereeError", "Rejection",
    "ReplayStep", "Ruling", "Scoreboard", "Standing", "Standings", "Update", "View",
]
