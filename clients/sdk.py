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
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc

from clients.errors import RefereeError, from_rpc_error
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
                raise from_rpc_error(err) from None
        raise AssertionError("unreachable")  # pragma: no cover

    # -- the RPCs -------------------------------------------------------------------------

    def list_games(self) -> list[pb.GameInfo]:
        """Every registered game with its seats and rule parameters."""
        return list(self._call(self.stub.ListGames, pb.ListGamesRequest(), idempotent=True).games)

    def create_match(
        self, game: str, *, rules: dict[str, Any] | None = None,
        players: Sequence[str] = (), seed_entropy: bytes = b"",
        fixed_deals: Sequence[Sequence[str]] = (), first_dealer: int | None = None,
        public_spectators: bool = False,
    ) -> CreatedMatch:
        """Create a match (not retried: a retry could create a second one)."""
        request = pb.CreateMatchRequest(
            game=game, rules_json=json.dumps(rules) if rules else "", players=list(players),
            seed_entropy=seed_entropy,
            fixed_deals=[pb.FixedDeal(cards=list(d)) for d in fixed_deals],
            public_spectators=public_spectators,
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
        heartbeat_seconds: int = 0, resume: bool = True,
    ) -> Iterator[Update]:
        """Stream updates (no overall deadline). With ``resume``, a dropped stream is reopened
        from the last version seen, up to ``retries`` times in a row."""
        failures = 0
        while True:
            req = pb.WatchMatchRequest(match_id=match_id, token=token, after_version=after_version,
                                       heartbeat_seconds=heartbeat_seconds)
            try:
                for message in self.stub.WatchMatch(req):
                    failures = 0
                    update = Update.from_pb(message)
                    after_version = max(after_version, update.version)
                    yield update
                return
            except grpc.RpcError as err:
                code = err.code() if hasattr(err, "code") else None
                if code == grpc.StatusCode.CANCELLED:
                    return
                failures += 1
                if not (resume and code in RETRYABLE and failures <= self.retries):
                    raise from_rpc_error(err) from None
                time.sleep(self.backoff * 2 ** (failures - 1))

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


__all__ = [
    "ActionResult", "CreatedMatch", "DealCheck", "Fact", "MatchEvent", "Record", "RefereeClient",
    "RefereeError", "Rejection", "Update", "View",
]
