"""``RefereeClient``: typed methods for every RPC of ``referee.api.v1``.

It talks to the referee only over gRPC (the generated stubs), maps every error to an exception
of :mod:`.errors` and applies a deadline to each call. Two kinds of retry, both safe
across a server restart (docs/clients.md, "Restarts, retries and resuming"):

- **unary calls** are retried by gRPC itself, from the service config the channel is opened
  with (:func:`channel_options`): the idempotent methods (:data:`RETRIED`: every read, and
  ``SubmitAction``, ``SubmitClaim`` and ``Concede``, whose ``command_id`` the referee
  answers from its record when it already recorded it, and the rulings and tournament
  changes, which this client sends with a ``command_id`` of its own) on UNAVAILABLE, with
  gRPC's jittered exponential backoff. The others (:data:`NOT_RETRIED`: creating a match,
  the clock commands) carry no idempotency key and are never retried;
- **streams** (``watch``, ``watch_scoreboard``, ``export_tournament``) go through one helper,
  :meth:`RefereeClient._resuming`: any end that is not the end of their subject (the match is
  over; the export is complete) reopens the stream from the last version seen, with jittered
  exponential backoff (:class:`Backoff`), until ``resume_for`` seconds pass without an
  answer; then :class:`~.errors.ResumeExhausted`.

>>> with RefereeClient("127.0.0.1:50051") as client:            # doctest: +SKIP
...     match = client.create_match("euchre", players=["ann", "bob", "cy", "dee"])
...     view = client.get_view(match.match_id, match.tokens[1])
...     client.submit_action(match.match_id, match.tokens[1], view.legal_actions[0])
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc

from trick_referee_client.api.v1 import projections_pb2 as ppb
from trick_referee_client.api.v1 import projections_pb2_grpc as ppbg
from trick_referee_client.api.v1 import referee_pb2 as pb
from trick_referee_client.api.v1 import referee_pb2_grpc as pbg
from trick_referee_client.api.v1 import webhooks_pb2 as wpb
from trick_referee_client.api.v1 import webhooks_pb2_grpc as wpbg
from trick_referee_client.errors import (
    BadToken,
    RefereeError,
    ResumeExhausted,
    Unavailable,
    from_rpc_error,
)
from trick_referee_client.tables import Fact, Table, struct_dict
from trick_referee_client.webhooks import WebhookDelivery, WebhookEndpoint, state_value

DEFAULT_ADDRESS = "127.0.0.1:50051"

_REFEREE = pb.DESCRIPTOR.services_by_name["RefereeService"].full_name
_PROJECTIONS = ppb.DESCRIPTOR.services_by_name["ProjectionsService"].full_name
_TOURNAMENTS = ppb.DESCRIPTOR.services_by_name["TournamentService"].full_name
_WEBHOOKS = wpb.DESCRIPTOR.services_by_name["WebhookService"].full_name

RETRIED: tuple[tuple[str, str], ...] = (
    (_REFEREE, "ListGames"), (_REFEREE, "GetView"), (_REFEREE, "GetHandRecord"),
    (_REFEREE, "GetMatchRecord"), (_REFEREE, "VerifyDeal"), (_REFEREE, "ListRejections"),
    (_REFEREE, "SubmitAction"),  # its command_id makes it idempotent
    (_REFEREE, "SubmitClaim"), (_REFEREE, "Concede"),  # so do theirs
    (_REFEREE, "RequestUndo"), (_REFEREE, "AnswerUndo"), (_REFEREE, "AnswerClaim"),
    (_PROJECTIONS, "GetScoreboard"), (_PROJECTIONS, "GetReplay"), (_PROJECTIONS, "ExportHand"),
    (_PROJECTIONS, "ExportMatch"), (_PROJECTIONS, "CheckChain"), (_PROJECTIONS, "GetHandView"),
    (_TOURNAMENTS, "GetStandings"),
    (_WEBHOOKS, "ListWebhooks"), (_WEBHOOKS, "ListWebhookDeliveries"),
    # Changes with an idempotency key (a command_id this client generates): applied once.
    (_PROJECTIONS, "RecordRuling"), (_TOURNAMENTS, "CreateTournament"),
    (_TOURNAMENTS, "RegisterEntrant"), (_TOURNAMENTS, "AttachMatch"),
    (_TOURNAMENTS, "FinalizeResults"), (_TOURNAMENTS, "ReleaseBoard"),
    (_TOURNAMENTS, "AbandonMatch"),
)
"""(service, method) of the unary calls gRPC retries on UNAVAILABLE (the service config)."""

NOT_RETRIED: tuple[tuple[str, str], ...] = (
    (_REFEREE, "CreateMatch"), (_REFEREE, "PauseClocks"), (_REFEREE, "ResumeClocks"),
    (_REFEREE, "SubstitutePlayer"),  # a retry would issue another token
    (_WEBHOOKS, "AddWebhook"),  # a retry would register the endpoint twice
    (_WEBHOOKS, "RemoveWebhook"),  # a retry after it worked answers WEBHOOK_NOT_FOUND
)
"""Changes without an idempotency key: a retry could apply them twice, so none is made."""

_POLICIES = {"auto": pb.TIMEOUT_POLICY_AUTO, "forfeit": pb.TIMEOUT_POLICY_FORFEIT,
             "pause": pb.TIMEOUT_POLICY_PAUSE}


def _time_control(given: dict[str, Any]) -> pb.TimeControl:
    """A ``TimeControl`` message from a dict (docs/clocks.md); an unknown field or policy is
    a ``ValueError`` here, a bad value the referee's INVALID_TIME_CONTROL."""
    known = {"action_ms", "bank_ms", "increment_ms", "lag_ms", "policy"}
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown time control field {unknown[0]!r}: one of {sorted(known)}")
    msg = pb.TimeControl(action_ms=int(given.get("action_ms", 0)),
                         bank_ms=int(given.get("bank_ms", 0)),
                         increment_ms=int(given.get("increment_ms", 0)))
    if "lag_ms" in given:
        msg.lag_ms = int(given["lag_ms"])
    policy = given.get("policy", "auto")
    if policy not in _POLICIES:
        raise ValueError(f"time control policy must be one of {sorted(_POLICIES)}")
    msg.policy = _POLICIES[policy]
    return msg


def rule_value(value: bool | int | str) -> pb.RuleValue:
    """A rule parameter's value as the API's ``RuleValue`` (its type picks the field)."""
    if isinstance(value, bool):
        return pb.RuleValue(bool_value=value)
    if isinstance(value, int):
        return pb.RuleValue(int_value=value)
    if isinstance(value, str):
        return pb.RuleValue(string_value=value)
    raise TypeError(f"a rule value is a bool, an int or a str, not {value!r}")


def rule_default(parameter: pb.RuleParameter) -> bool | int | str:
    """A ``RuleParameter``'s default as a plain value."""
    which = parameter.default_value.WhichOneof("value")
    value: bool | int | str = getattr(parameter.default_value, which) if which else ""
    return value


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """The call metadata that carries ``token``: ``authorization: Bearer <token>`` (none for
    an empty token). No request message has a token field: credentials travel only here.

    :raises BadToken: a token that is not printable ASCII (not one the referee issued;
        metadata cannot carry it)."""
    if not token:
        return ()
    if not (token.isascii() and token.isprintable()):
        raise BadToken("a token is printable ASCII: this one is not one the referee issued",
                       code="UNAUTHENTICATED")
    return (("authorization", f"Bearer {token}"),)


RESUMED: tuple[tuple[str, str], ...] = (
    (_REFEREE, "WatchMatch"), (_PROJECTIONS, "WatchScoreboard"),
    (_TOURNAMENTS, "ExportTournament"), (_PROJECTIONS, "WalkReplay"),
)
"""The server streams: resumed by :meth:`RefereeClient._resuming`, not by gRPC."""

FINAL_CODES = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.DATA_LOSS,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
})
"""Codes that answer the request itself (a bad token, no such match, too many streams): a
stream ending with one is not resumed. Any other end before the stream's subject ended
(UNAVAILABLE, a server's cancel, a broken connection, an OK end) is."""

#: How long a channel waits between attempts to reconnect (gRPC's default grows to 120 s,
#: which would leave a client idle long after a restarted referee is back).
RECONNECT_BACKOFF_MS = (250, 2_000)


def service_config(retries: int = 3, backoff: float = 0.1) -> str:
    """The gRPC service config of the SDK's channels: the :data:`RETRIED` methods retried up to
    ``retries`` times on UNAVAILABLE, the first wait ``backoff`` seconds (randomized by gRPC,
    doubling to at most 2 s). gRPC caps attempts at 5 (``retries`` 4)."""
    config: dict[str, Any] = {"methodConfig": []}
    if retries > 0:
        config["methodConfig"].append({
            "name": [{"service": service, "method": method} for service, method in RETRIED],
            "retryPolicy": {
                "maxAttempts": min(1 + retries, 5),
                "initialBackoff": f"{max(backoff, 0.001):.3f}s",
                "maxBackoff": "2s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        })
    return json.dumps(config)


def channel_options(retries: int = 3, backoff: float = 0.1) -> list[tuple[str, Any]]:
    """Options for a channel of your own (``RefereeClient(channel=...)``) that behaves as the
    SDK's: gRPC retries (:func:`service_config`) and a short reconnection backoff."""
    return [
        ("grpc.enable_retries", 1),
        ("grpc.service_config", service_config(retries, backoff)),
        ("grpc.initial_reconnect_backoff_ms", RECONNECT_BACKOFF_MS[0]),
        ("grpc.max_reconnect_backoff_ms", RECONNECT_BACKOFF_MS[1]),
    ]


def target(address: str) -> str:
    """The gRPC target for ``address``: ``host:port``, any gRPC target (``dns:///name:port``,
    ``ipv4:a:p,b:q``), or a comma-separated list of IP ``address:port`` (the replicas of one
    referee: the channel connects to the first that answers, and moves on when it stops).

    :raises ValueError: for a list with a host name in it (use a DNS name that resolves to
        every replica instead, e.g. a Kubernetes headless service)."""
    parts = [p.strip() for p in address.split(",")]
    if len(parts) == 1 or address.startswith(("ipv4:", "ipv6:", "dns:", "unix:")):
        return address
    families = set()
    for part in parts:
        host, _, port = part.rpartition(":")
        try:
            ip = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            raise ValueError(f"address list {address!r}: {part!r} is not an IP address:port "
                             "(a list takes IP addresses; for host names use one DNS name "
                             "that resolves to every replica)") from None
        if not port.isdigit():
            raise ValueError(f"address list {address!r}: {part!r} has no port")
        families.add(ip.version)
    if len(families) > 1:
        raise ValueError(f"address list {address!r} mixes IPv4 and IPv6 addresses")
    return f"ipv{families.pop()}:" + ",".join(parts)

ROLES = {pb.ROLE_SEAT: "seat", pb.ROLE_SPECTATOR: "spectator", pb.ROLE_AUDITOR: "auditor"}

R = TypeVar("R")


W = TypeVar("W")


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
class Clock:
    """A timed table's clocks (docs/clocks.md): each seat's bank, whose clock runs, its
    deadline (aware UTC datetime; None while paused) and the time it has left."""

    policy: str
    banks_ms: list[int]
    paused: bool
    to_act: int | None
    deadline: datetime | None
    left_ms: int | None

    @classmethod
    def from_pb(cls, c: pb.ClockView) -> Clock:
        policies = {v: k for k, v in _POLICIES.items()}
        return cls(
            policy=policies.get(c.control.policy, "auto"), banks_ms=list(c.banks_ms),
            paused=c.paused, to_act=c.to_act if c.HasField("to_act") else None,
            deadline=c.deadline.ToDatetime(tzinfo=UTC) if c.HasField("deadline") else None,
            left_ms=c.left_ms if c.HasField("left_ms") else None,
        )


@dataclass(frozen=True)
class View:
    """What the caller may see of a match; ``table`` is the hand in play as the caller may
    see it (``state``: the same as one dict, as the game's view writes it)."""

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
    table: Table
    players: list[str]
    deal_commitment: str
    clock: Clock | None = None
    claim: dict[str, Any] | None = None
    """The pending unchecked claim: ``seat``, ``agreed_sides``, ``version`` (docs/claims.md)."""
    undo: dict[str, Any] | None = None
    """The pending undo request: ``seat``, ``index``, ``action`` ("hidden" when the caller
    may not see it), ``agreed_sides``, ``version`` (docs/undo.md)."""

    @property
    def state(self) -> dict[str, Any]:
        return self.table.state()

    @classmethod
    def from_pb(cls, v: pb.GetViewResponse) -> View:
        return cls(
            match_id=v.match_id, version=v.version, game=v.game, role=ROLES.get(v.role, "none"),
            seat=v.seat if v.HasField("seat") else None, hand=v.hand, dealer=v.dealer,
            to_act=v.to_act if v.HasField("to_act") else None,
            legal_actions=list(v.legal_actions), scores=list(v.scores),
            match_over=v.match_over, winner=v.winner if v.HasField("winner") else None,
            table=Table.from_pb(v.table), players=list(v.players),
            deal_commitment=v.deal_commitment,
            clock=Clock.from_pb(v.clock) if v.HasField("clock") else None,
            claim=({"seat": v.claim.seat, "agreed_sides": list(v.claim.agreed_sides),
                    "version": v.claim.version} if v.HasField("claim") else None),
            undo=({"seat": v.undo.seat, "index": v.undo.index, "action": v.undo.action,
                   "agreed_sides": list(v.undo.agreed_sides), "version": v.undo.version}
                  if v.HasField("undo") else None),
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
    def from_pb(cls, r: pb.ActionOutcome, command_id: str = "") -> ActionResult:
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
    time: datetime


@dataclass(frozen=True)
class Ruling:
    """An auditor's ruling: ``adjust`` is added to each side's score. A ``redeal`` (the hand
    cancelled and dealt anew) adjusts nothing: ``commitment`` is the new deal's, ``hands``
    the hands whose deals it cancelled."""

    hand: int
    kind: str
    adjust: list[int]
    reason: str
    version: int
    rule: str = ""
    commitment: str = ""
    hands: tuple[int, ...] = ()

    @classmethod
    def from_pb(cls, r: ppb.Ruling) -> Ruling:
        return cls(r.hand, r.kind, list(r.adjust), r.reason, r.version, r.rule, r.commitment,
                   tuple(r.hands))


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
    abandoned: dict[str, Any] | None = None
    """Set when the arbiter ended the match as abandoned: ``at_fault`` (per side),
    ``policy``, ``hand``, ``reason`` (docs/tournaments.md)."""

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
                             struct_dict(h.detail),
                             [Ruling.from_pb(r) for r in h.rulings]) for h in b.hands],
            rulings=[Ruling.from_pb(r) for r in b.rulings], head_hash=b.head_hash,
            abandoned=({"at_fault": list(b.abandoned.at_fault), "policy": b.abandoned.policy,
                        "hand": b.abandoned.hand, "reason": b.abandoned.reason}
                       if b.HasField("abandoned") else None),
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


def _iso(t: Any) -> str:
    return str(t.ToDatetime(tzinfo=UTC).isoformat())


def _replay_action(a: ppb.ReplayAction) -> dict[str, Any]:
    return {"index": a.index, "seat": a.seat, "action": a.action, "time": _iso(a.time)}


def _ruling_dict(r: ppb.Ruling) -> dict[str, Any]:
    return {"hand": r.hand, "kind": r.kind, "adjust": list(r.adjust), "reason": r.reason,
            "version": r.version, "rule": r.rule, "ref": r.ref}


def _timeline_entry(e: ppb.TimelineEntry) -> dict[str, Any]:
    """A timeline entry as one dict: its ``time``, ``type`` and fields."""
    which = e.WhichOneof("entry")
    out: dict[str, Any] = {"time": _iso(e.time), "type": which}
    if which == "action":
        out.update(_replay_action(e.action), time=out["time"])
    elif which == "rejection":
        r = e.rejection
        out.update(seat=r.seat if r.HasField("seat") else None, action=r.action,
                   reason=r.reason, rule=r.rule, message=r.message)
    elif which == "timeout":
        t = e.timeout
        policies = {v: k for k, v in _POLICIES.items()}
        out.update(seat=t.seat, policy=policies.get(t.policy, "auto"),
                   deadline=_iso(t.deadline), version=t.version)
    elif which == "ruling":
        out.update(_ruling_dict(e.ruling))
    elif which == "event":
        out.update(struct_dict(e.event.detail), type=e.event.type, seat=e.event.seat)
    return out


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
            action=_replay_action(r.action) if r.HasField("action") else None,
            illegal=[IllegalAlternative(x.action, x.rule, x.reason, x.message)
                     for x in r.illegal],
            cards={where: list(c.cards) for where, c in sorted(r.cards.items())},
            state=Table.from_pb(r.table).state(),
            timeline=[_timeline_entry(e) for e in r.timeline],
            scoring={"result": {"points": list(r.scoring.points),
                                **struct_dict(r.scoring.detail)},
                     "scores_after": list(r.scoring.scores_after),
                     "rulings": [_ruling_dict(x) for x in r.scoring.rulings]}
            if r.HasField("scoring") else None,
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
    matchpoints: int = 0
    scaled: int = 0
    abandoned: int = 0
    """Finished matches ended as abandoned with this entrant at fault."""


def _standing_match(m: ppb.StandingMatch) -> dict[str, Any]:
    """One attached match of the standings as a dict (the keys of the match record's)."""
    out: dict[str, Any] = {"match_id": m.match_id, "sides": list(m.sides),
                           "players": list(m.players), "over": m.over}
    if m.over:
        out.update(scores=list(m.scores), winner=m.winner if m.HasField("winner") else None)
    if m.HasField("abandoned"):
        out["abandoned"] = {"faults": list(m.abandoned.at_fault),
                            "policy": m.abandoned.policy, "reason": m.abandoned.reason}
    return out


@dataclass(frozen=True)
class Standings:
    """A tournament's standings, ranked; ``boards`` is the duplicate comparison per board;
    ``final``: the correction window is closed (provisional until then)."""

    tournament_id: str
    name: str
    game: str
    standings: list[Standing]
    boards: list[dict[str, Any]]
    final: bool = False
    abandonment: str = "forfeit"
    """How an abandoned match is scored: ``forfeit`` or ``adjusted``."""
    matches: list[dict[str, Any]] = field(default_factory=list)
    """The attached matches: sides, players (as they sit now), official result, abandonment."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Backoff:
    """Jittered exponential backoff within a budget: :meth:`wait` sleeps a random time between
    half and all of ``first * 2**n`` (at most ``cap``) seconds, and says False, without
    sleeping, once ``budget`` seconds have passed since the first wait after the last
    :meth:`reset` (the last sign of life)."""

    def __init__(self, first: float = 0.1, budget: float = 60.0, cap: float = 2.0,
                 rng: random.Random | None = None) -> None:
        self.first, self.budget, self.cap = max(first, 0.001), budget, cap
        self.rng = rng or random.Random()
        self.since: float | None = None
        self.attempt = 0

    def reset(self) -> None:
        self.since, self.attempt = None, 0

    @property
    def waited(self) -> float:
        """Seconds since this outage began (0 when none is going on)."""
        return 0.0 if self.since is None else time.monotonic() - self.since

    def wait(self) -> bool:
        """Sleep before the next attempt; False when the budget is spent."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
        left = self.budget - (now - self.since)
        if left <= 0:
            return False
        delay = min(self.cap, self.first * 2 ** self.attempt)
        self.attempt += 1
        time.sleep(min(left, self.rng.uniform(delay / 2, delay)))
        return True


class RefereeClient:
    """A connection to one referee.

    :param address: ``host:port``, any gRPC target, or a list of IP ``address:port`` of the
        replicas of one referee (see :func:`target`).
    :param tls: use TLS (``root_certificates``: PEM bytes of the CA, default: the system's).
    :param timeout: the deadline of each call, in seconds (for a retried call: of all its
        attempts together).
    :param retries: extra attempts gRPC makes of an idempotent call on UNAVAILABLE (at most 4).
    :param backoff: the first wait between attempts (gRPC's, and when resuming a stream),
        doubled each time, randomized.
    :param channel: use this channel instead of opening one (the client will not close it;
        open it with :func:`channel_options` for the SDK's retries).
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
        self._closed = False
        if channel is None:
            options = channel_options(retries, backoff)
            if tls:
                creds = grpc.ssl_channel_credentials(root_certificates=root_certificates)
                channel = grpc.secure_channel(target(address), creds, options=options)
            else:
                channel = grpc.insecure_channel(target(address), options=options)
        self.channel = channel
        self.stub = pbg.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        self.projections = ppbg.ProjectionsServiceStub(channel)  # type: ignore[no-untyped-call]
        self.tournaments = ppbg.TournamentServiceStub(channel)  # type: ignore[no-untyped-call]
        self.webhooks = wpbg.WebhookServiceStub(channel)  # type: ignore[no-untyped-call]

    def __enter__(self) -> RefereeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel (if this client opened it); open streams end."""
        self._closed = True
        if self._owns_channel:
            self.channel.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel is connected.

        :raises Unavailable: when the referee cannot be reached within ``timeout``.
        """
        from trick_referee_client.errors import Unavailable

        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise Unavailable(f"no referee at {self.address} after {timeout:g}s",
                              code="UNAVAILABLE") from None

    # -- plumbing -------------------------------------------------------------------------

    def _call(self, method: Callable[..., R], request: object, token: str = "") -> R:
        """One unary call with the client's deadline; gRPC retries it when its method is one
        of :data:`RETRIED` (the channel's service config). ``token`` travels as call metadata
        (:func:`bearer`)."""
        metadata = bearer(token)
        try:
            return method(request, timeout=self.timeout, metadata=metadata)
        except grpc.RpcError as err:
            raise from_rpc_error(err, self.address) from None

    def _resuming(self, what: Callable[[], str], opened: Callable[[], Any],
                  accept: Callable[[Any], W | None], over: Callable[[W], bool] | None,
                  resume: bool, resume_for: float) -> Iterator[W]:
        """The one way every stream is read. ``opened()`` opens it from where the caller is
        (it reads the position ``accept`` keeps); ``accept(message)`` is the item to yield, or
        None for one already delivered; ``over(item)``: the item ends the stream's subject
        (the match is over), None: the stream's own OK end is its end (a finite export).

        Any other end (OK before the match is over, UNAVAILABLE from a stopping server, a
        broken connection, a cancel from the server) reopens it, after a jittered exponential
        backoff, for as long as ``resume_for`` seconds pass without a message; then
        :class:`ResumeExhausted` (``what()`` says which stream and where it was). Errors that
        answer the request (:data:`FINAL_CODES`) are raised at once. ``resume=False``: the
        first such end raises."""
        backoff = Backoff(self.backoff, resume_for)
        done = False
        while True:
            stream = opened()
            try:
                for message in stream:
                    backoff.reset()
                    item = accept(message)
                    if item is None:
                        continue
                    done = done or (over is not None and over(item))
                    yield item
                if done or over is None:
                    return
                last: RefereeError = RefereeError(
                    "the stream ended before the match did", code="OK")
            except grpc.RpcError as err:
                if done or self._closed:
                    return
                code = err.code() if hasattr(err, "code") else None
                last = from_rpc_error(err, self.address)
                if code in FINAL_CODES:
                    raise last from None
            finally:
                stream.cancel()
            if not resume:
                raise last
            if not backoff.wait():
                raise ResumeExhausted(
                    f"gave up after {resume_for:g}s without an answer from the referee at "
                    f"{self.address}: {what()} (last: {last})", code="UNAVAILABLE",
                    metadata={"lastCode": last.code, "lastReason": last.reason})

    # -- the RPCs -------------------------------------------------------------------------

    def list_games(self) -> list[pb.GameInfo]:
        """Every registered game with its seats and rule parameters (every page)."""
        games: list[pb.GameInfo] = []
        token = ""
        while True:
            resp = self._call(self.stub.ListGames, pb.ListGamesRequest(page_token=token))
            games.extend(resp.games)
            token = resp.next_page_token
            if not token:
                return games

    def create_match(
        self, game: str, *, rules: dict[str, Any] | None = None,
        players: Sequence[str] = (), seed_entropy: bytes = b"",
        fixed_deals: Sequence[Sequence[str]] = (), first_dealer: int | None = None,
        public_spectators: bool = False, organiser_token: str = "",
        time_control: dict[str, Any] | None = None,
        policies: dict[str, str] | None = None,
    ) -> CreatedMatch:
        """Create a match (not retried: a retry could create a second one).
        ``organiser_token``: the server's organiser credential, where it requires one.
        ``time_control``: ``action_ms``, ``bank_ms``, ``increment_ms``, ``lag_ms`` and
        ``policy`` (``auto``, ``forfeit`` or ``pause``); docs/clocks.md. ``policies``: the
        table policies, e.g. ``{"undo": "consent"}`` (docs/undo.md)."""
        request = pb.CreateMatchRequest(
            game=game, rules={k: rule_value(v) for k, v in (rules or {}).items()},
            players=list(players),
            seed_entropy=seed_entropy,
            fixed_deals=[pb.FixedDeal(cards=list(d)) for d in fixed_deals],
            public_spectators=public_spectators,
        )
        if time_control is not None:
            request.time_control.CopyFrom(_time_control(time_control))
        if policies is not None:
            request.policies.CopyFrom(pb.TablePolicies(**policies))
        if first_dealer is not None:
            request.first_dealer = first_dealer
        return CreatedMatch.from_pb(self._call(self.stub.CreateMatch, request,
                                               organiser_token))

    def submit_action(
        self, match_id: str, token: str, action: str, *, command_id: str | None = None,
        expected_version: int | None = None, seat: int | None = None,
    ) -> ActionResult:
        """Submit one action. A ``command_id`` is generated when not given; retries reuse it,
        so the action is recorded at most once."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.SubmitActionRequest(match_id=match_id, action=action,
                                          command_id=command_id)
        if expected_version is not None:
            request.expected_version = expected_version
        if seat is not None:
            request.seat = seat
        resp = self._call(self.stub.SubmitAction, request, token)
        return ActionResult.from_pb(resp.outcome, command_id)

    def claim(self, match_id: str, token: str, tricks: int | None = None, *,
              command_id: str | None = None, unchecked: bool = False) -> ActionResult:
        """Claim for the token's seat's side (the seat to act) all the remaining tricks
        (``tricks`` None) or at least ``tricks`` more. The referee checks it against every
        defence: accepted, the hand is played out along the winning line (the answer holds
        its facts); refused, :class:`~.errors.ClaimRefused` and nothing changes
        (docs/claims.md). A ``command_id`` is generated when not given; retries reuse it.
        ``unchecked``: put the claim of all the tricks to the other sides instead (a match
        whose unchecked claims policy is ``consent``); they answer with :meth:`answer_claim`."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.SubmitClaimRequest(match_id=match_id, tricks=tricks or 0,
                                        command_id=command_id, unchecked=unchecked)
        return ActionResult.from_pb(self._call(self.stub.SubmitClaim, request, token).outcome,
                                    command_id)

    def answer_claim(self, match_id: str, token: str, accept: bool, *,
                     command_id: str | None = None) -> ActionResult:
        """Answer the pending unchecked claim for the token's seat's side: the last
        acceptance plays the hand out for the claiming side (docs/claims.md)."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.AnswerClaimRequest(match_id=match_id, accept=accept,
                                        command_id=command_id)
        answer = self._call(self.stub.AnswerClaim, request, token)
        return ActionResult.from_pb(answer.outcome, command_id)

    def concede(self, match_id: str, token: str, *, command_id: str | None = None,
                whole_match: bool = False) -> ActionResult:
        """Concede the remaining tricks of the hand for the token's seat's side: it is
        played out for the opponents (docs/claims.md); ``whole_match``: concede the match
        (it ends at once, won as a forfeit by this seat would be)."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.ConcedeRequest(match_id=match_id, command_id=command_id,
                                    match=whole_match)
        answer = self._call(self.stub.Concede, request, token)
        return ActionResult.from_pb(answer.outcome, command_id)

    def request_undo(self, match_id: str, token: str, *, command_id: str | None = None
                     ) -> ActionResult:
        """Ask to withdraw the token's seat's last action (a match whose undo policy is
        ``consent``): the clocks stop until the other sides answer (docs/undo.md)."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.RequestUndoRequest(match_id=match_id, command_id=command_id)
        answer = self._call(self.stub.RequestUndo, request, token)
        return ActionResult.from_pb(answer.outcome, command_id)

    def answer_undo(self, match_id: str, token: str, agree: bool, *,
                    command_id: str | None = None) -> ActionResult:
        """Answer the pending undo request for the token's seat's side: ``agree`` or
        refuse. The last agreement withdraws the action (docs/undo.md)."""
        command_id = command_id or uuid.uuid4().hex
        request = pb.AnswerUndoRequest(match_id=match_id, agree=agree,
                                       command_id=command_id)
        answer = self._call(self.stub.AnswerUndo, request, token)
        return ActionResult.from_pb(answer.outcome, command_id)

    def substitute_player(self, token: str, match_id: str, seat: int, player: str
                          ) -> tuple[str, int]:
        """The auditor gives ``seat`` to ``player``: returns the seat's new token (shown
        once; the old one stops working at once) and the match's version."""
        req = pb.SubstitutePlayerRequest(match_id=match_id, seat=seat,
                                         player=player)
        resp = self._call(self.stub.SubstitutePlayer, req, token)
        return resp.seat_token, int(resp.version)

    def get_view(self, match_id: str, token: str = "") -> View:
        """The caller's view of the match now."""
        req = pb.GetViewRequest(match_id=match_id)
        return View.from_pb(self._call(self.stub.GetView, req, token))

    def watch(
        self, match_id: str, token: str = "", *, after_version: int = 0,
        heartbeat_seconds: int = 0, resume: bool = True, resume_for: float = 60.0,
    ) -> Iterator[Update]:
        """Stream updates until the match is over (no overall deadline). Any end before that
        (a server's graceful restart ends it UNAVAILABLE / ``SERVER_STOPPING``, a killed one
        breaks the connection) reopens it from the last version seen, with jittered backoff,
        for as long as ``resume_for`` seconds pass without an update; then
        :class:`~.errors.ResumeExhausted`. With ``resume=False`` such an end raises."""
        after = [after_version]

        def opened() -> Any:
            request = pb.WatchMatchRequest(match_id=match_id,
                                           after_version=after[0],
                                           heartbeat_seconds=heartbeat_seconds)
            return self.stub.WatchMatch(request, metadata=bearer(token))

        def accept(message: pb.WatchMatchResponse) -> Update:
            update = Update.from_pb(message)
            after[0] = max(after[0], update.version)
            return update

        yield from self._resuming(
            lambda: f"the watch of match {match_id} (last version {after[0]})", opened, accept,
            lambda u: u.view is not None and u.view.match_over, resume, resume_for)

    def get_hand_record(self, match_id: str, hand: int, token: str = "") -> Record:
        """One hand as a ``referee.hand/v1`` record."""
        req = pb.GetHandRecordRequest(match_id=match_id, hand=hand)
        resp = self._call(self.stub.GetHandRecord, req, token)
        return Record(json.loads(resp.record_json), resp.finished)

    def get_match_record(self, match_id: str, token: str = "") -> Record:
        """The match as a ``referee.match/v1`` record (finished hands)."""
        req = pb.GetMatchRecordRequest(match_id=match_id)
        resp = self._call(self.stub.GetMatchRecord, req, token)
        return Record(json.loads(resp.record_json), resp.finished)

    def verify_deal(self, match_id: str, hand: int, token: str = "") -> DealCheck:
        """The revealed pack of a finished hand and its commitment."""
        req = pb.VerifyDealRequest(match_id=match_id, hand=hand)
        resp = self._call(self.stub.VerifyDeal, req, token)
        return DealCheck(resp.commitment, resp.nonce, list(resp.cards), resp.valid)

    def list_rejections(self, token: str, match_id: str = "", limit: int = 0) -> list[Rejection]:
        """Refused attempts (auditor token), oldest first: every one kept, or the newest
        ``limit``."""
        out: list[Rejection] = []
        page = ""
        while True:
            req = pb.ListRejectionsRequest(match_id=match_id, page_token=page)
            resp = self._call(self.stub.ListRejections, req, token)
            out.extend(
                Rejection(r.match_id, r.seat if r.HasField("seat") else None, r.action,
                          r.reason, r.rule, r.message, r.time.ToDatetime(tzinfo=UTC))
                for r in resp.rejections)
            page = resp.next_page_token
            if not page:
                return out[-limit:] if limit > 0 else out

    # -- the read side (ProjectionsService) -----------------------------------------------
    # Its views are eventually consistent: VIEW_NOT_READY (UNAVAILABLE) for a match not yet
    # projected is retried like any UNAVAILABLE read, and a scoreboard may lag the match.

    def get_scoreboard(self, match_id: str, token: str = "", *, min_version: int = 0,
                       wait: float = 0.0) -> Scoreboard:
        """The match's scoreboard. With ``min_version``, poll up to ``wait`` seconds until the
        view has projected that match version (read your own writes); the last scoreboard is
        returned either way (compare its ``version``)."""
        req = ppb.GetScoreboardRequest(match_id=match_id)
        deadline = time.monotonic() + wait
        while True:
            board = Scoreboard.from_pb(
                self._call(self.projections.GetScoreboard, req, token).scoreboard)
            if board.version >= min_version or time.monotonic() >= deadline:
                return board
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def watch_scoreboard(self, match_id: str, token: str = "", *, after_version: int = 0,
                         resume: bool = True, resume_for: float = 60.0) -> Iterator[Scoreboard]:
        """The scoreboard after every change (first: the current one), until the match is
        over or the caller stops iterating. Any end before the match is over reopens it after
        the last version seen, as :meth:`watch` does."""
        after = [after_version]

        def opened() -> Any:
            request = ppb.WatchScoreboardRequest(match_id=match_id,
                                                 after_version=after[0])
            return self.projections.WatchScoreboard(request, metadata=bearer(token))

        def accept(message: ppb.WatchScoreboardResponse) -> Scoreboard:
            board = Scoreboard.from_pb(message.scoreboard)  # only versions > after come
            after[0] = max(after[0], board.version)
            return board

        yield from self._resuming(
            lambda: f"the scoreboard watch of match {match_id} (last version {after[0]})",
            opened, accept, lambda b: b.state == "over", resume, resume_for)

    def get_replay(self, match_id: str, hand: int, action_index: int, token: str) -> ReplayStep:
        """The hand's state before action ``action_index`` (``0..n``, ``n``: the end): cards,
        legal set, why every other action of the acting seat is illegal, timeline, scoring.
        The auditor may replay any time; other tokens of the match once the hand is over."""
        req = ppb.GetReplayRequest(match_id=match_id, hand=hand, action_index=action_index)
        return ReplayStep.from_pb(self._call(self.projections.GetReplay, req, token))

    def replay_steps(self, match_id: str, hand: int, token: str, *, start: int = 0,
                     stop: int | None = None, resume_for: float = 60.0
                     ) -> Iterator[ReplayStep]:
        """Every state of the hand from action index ``start`` to ``stop`` (None: the end),
        in one ``WalkReplay`` stream: the referee reads and replays the hand once and sends
        the hand's timeline and scoring with the first state only (each step here has them).
        A stream that breaks is reopened from the next index (:meth:`_resuming`)."""
        at = [start]

        def opened() -> Any:
            req = ppb.WalkReplayRequest(match_id=match_id, hand=hand, from_index=at[0],
                                        to_index=stop)
            hand_parts.clear()
            return self.projections.WalkReplay(req, timeout=self.timeout,
                                               metadata=bearer(token))

        hand_parts: dict[str, Any] = {}  # a stream's first message: timeline and scoring

        def accept(message: ppb.WalkReplayResponse) -> ReplayStep:
            step = ReplayStep.from_pb(message.step)
            if not hand_parts:
                hand_parts.update(timeline=step.timeline, scoring=step.scoring)
            at[0] = message.step.action_index + 1
            return replace(step, **hand_parts)

        def last(step: ReplayStep) -> bool:
            return step.action_index >= (step.actions if stop is None else stop)

        yield from self._resuming(
            lambda: f"the replay walk of hand {hand} of match {match_id} (next index {at[0]})",
            opened, accept, last, True, resume_for)

    def export_hand(self, match_id: str, hand: int, token: str = "") -> Record:
        """A finished hand as a ``referee.hand/v1`` record, from the read side."""
        req = ppb.ExportHandRequest(match_id=match_id, hand=hand)
        resp = self._call(self.projections.ExportHand, req, token)
        return Record(json.loads(resp.record_json), True)

    def export_match(self, match_id: str, token: str = "") -> Record:
        """The match's finished hands as a ``referee.match/v1`` record, from the read side
        (``finished`` once the record has a result)."""
        req = ppb.ExportMatchRequest(match_id=match_id)
        data = json.loads(self._call(self.projections.ExportMatch, req, token).record_json)
        return Record(data, data.get("result") is not None)

    def record_ruling(self, token: str, match_id: str, hand: int, kind: str,
                      points: Sequence[int] = (), reason: str = "", *, rule: str = "",
                      ref: int = 0, grades: Sequence[str] = (),
                      command_id: str | None = None) -> tuple[int, list[int]]:
        """An auditor's ruling: ``penalty`` (points taken per side), ``correction`` (points
        added), ``annul`` (the hand's scores undone), ``artificial`` (``grades`` per side),
        ``weighted`` (points: each side's percentage), ``withdraw`` / ``amend`` (the ruling
        at version ``ref``), ``appeal``, ``redeal`` (the hand in progress, or the last scored
        one while the match goes on, cancelled and dealt anew: the version is the new
        deal's); ``rule``: the rule or regulation cited (docs/tournaments.md). Returns the
        match version of the ruling and the adjustment per side. A ``command_id`` is
        generated when not given: retries are applied once."""
        req = ppb.RecordRulingRequest(match_id=match_id, hand=hand, kind=kind,
                                      points=list(points), reason=reason, rule=rule, ref=ref,
                                      grades=list(grades),
                                      command_id=command_id or uuid.uuid4().hex)
        resp = self._call(self.projections.RecordRuling, req, token)
        return resp.version, list(resp.adjust)

    def pause_clocks(self, token: str, match_id: str, reason: str = "") -> int:
        """The auditor pauses a timed table's clocks; returns the match version."""
        req = pb.PauseClocksRequest(match_id=match_id, reason=reason)
        return int(self._call(self.stub.PauseClocks, req, token).version)

    def resume_clocks(self, token: str, match_id: str, add_ms: int = 0) -> int:
        """The auditor resumes a timed table's clocks (``add_ms`` more for the seat to act);
        returns the match version."""
        req = pb.ResumeClocksRequest(match_id=match_id, add_ms=add_ms)
        return int(self._call(self.stub.ResumeClocks, req, token).version)

    def check_chain(self, match_id: str, token: str, *, anchor_version: int = 0,
                    anchor_head: str = "") -> ChainCheck:
        """The referee's check of the match's event hash chain in its store; with an anchor
        (a ``version``/``head`` saved earlier), also that the event there was not rewritten."""
        req = ppb.CheckChainRequest(match_id=match_id,
                                    anchor_version=anchor_version, anchor_head=anchor_head)
        r = self._call(self.projections.CheckChain, req, token)
        return ChainCheck(r.ok, r.events, r.head,
                          r.first_break if r.HasField("first_break") else None, r.message,
                          r.version, r.anchor_ok if r.HasField("anchor_ok") else None)

    # -- tournaments (TournamentService) --------------------------------------------------
    # Changes need the auditor token and are not retried (a retry could apply them twice).

    # Tournament changes carry a command_id (generated when not given): retries apply once.
    def create_tournament(self, token: str, name: str, game: str, *,
                          command_id: str | None = None, abandonment: str = "") -> str:
        """A new tournament of ``game``; returns its id. ``abandonment``: how a match ended
        as abandoned is scored, ``forfeit`` (default) or ``adjusted``."""
        req = ppb.CreateTournamentRequest(name=name, game=game,
                                          command_id=command_id or uuid.uuid4().hex,
                                          abandonment=abandonment)
        return str(self._call(self.tournaments.CreateTournament, req, token).tournament_id)

    def register_entrant(self, token: str, tournament_id: str, entrant: str,
                         members: Sequence[str] = (), *, command_id: str | None = None) -> int:
        """Register a team or player (a unique name); returns the tournament's version."""
        req = ppb.RegisterEntrantRequest(tournament_id=tournament_id,
                                         entrant=entrant, members=list(members),
                                         command_id=command_id or uuid.uuid4().hex)
        return int(self._call(self.tournaments.RegisterEntrant, req, token).version)

    def attach_match(self, token: str, tournament_id: str, match_id: str,
                     sides: Sequence[str], board: str = "", *,
                     command_id: str | None = None) -> int:
        """Attach a match: the entrant of each side and its duplicate ``board`` (matches with
        the same board must be created with the same ``fixed_deals``)."""
        req = ppb.AttachMatchRequest(tournament_id=tournament_id,
                                     match_id=match_id, sides=list(sides), board=board,
                                     command_id=command_id or uuid.uuid4().hex)
        return int(self._call(self.tournaments.AttachMatch, req, token).version)

    def finalize_results(self, token: str, tournament_id: str, *,
                         command_id: str | None = None) -> list[str]:
        """Close the correction window: returns the matches whose results became final."""
        req = ppb.FinalizeResultsRequest(tournament_id=tournament_id,
                                         command_id=command_id or uuid.uuid4().hex)
        return list(self._call(self.tournaments.FinalizeResults, req, token).final_matches)

    def release_board(self, token: str, tournament_id: str, board: str, *,
                      command_id: str | None = None) -> int:
        """Let every table's callers read a duplicate board before all tables played it."""
        req = ppb.ReleaseBoardRequest(tournament_id=tournament_id, board=board,
                                      command_id=command_id or uuid.uuid4().hex)
        return int(self._call(self.tournaments.ReleaseBoard, req, token).version)

    def abandon_match(self, token: str, match_id: str, at_fault: Sequence[bool], reason: str,
                      *, tournament_id: str = "", command_id: str | None = None
                      ) -> tuple[int, int | None]:
        """End a match as abandoned, the fault assigned per side, scored by the abandonment
        policy of ``tournament_id`` (none: a forfeit); returns the match's version and its
        official winner (None: nobody won). Auditor token."""
        req = ppb.AbandonMatchRequest(match_id=match_id,
                                      tournament_id=tournament_id, at_fault=list(at_fault),
                                      reason=reason, command_id=command_id or uuid.uuid4().hex)
        r = self._call(self.tournaments.AbandonMatch, req, token)
        return int(r.version), (r.winner if r.HasField("winner") else None)

    def get_standings(self, tournament_id: str) -> Standings:
        """The tournament's standings (ranked) and duplicate comparison per board."""
        req = ppb.GetStandingsRequest(tournament_id=tournament_id)
        s = self._call(self.tournaments.GetStandings, req)
        return Standings(
            s.tournament_id, s.name, s.game,
            [Standing(r.entrant, r.played, r.won, r.lost, r.drawn, r.points_for,
                      r.points_against, r.duplicate, r.matchpoints, r.scaled, r.abandoned)
             for r in s.standings],
            [{"board": b.board, "hand": b.hand,
              "tables": [{"match_id": t.match_id, "sides": list(t.sides),
                          "points": list(t.points), "duplicate": list(t.duplicate),
                          "matchpoints": list(t.matchpoints), "scaled": list(t.scaled)}
                         for t in b.tables]} for b in s.boards],
            s.final, s.abandonment or "forfeit", [_standing_match(m) for m in s.matches],
        )

    def export_tournament(self, tournament_id: str, token: str, *,
                          resume_for: float = 60.0) -> Iterator[str]:
        """Every attached match as a ``referee.match/v1`` record, one JSON line each (NDJSON;
        auditor token). A stream that fails before its first line is reopened (as every
        stream is, :meth:`_resuming`); one that fails later raises
        :class:`~.errors.Unavailable`: the export has no position to resume from (its
        records carry no match id), so run it again."""
        req = ppb.ExportTournamentRequest(tournament_id=tournament_id)
        delivered = [0]

        def opened() -> Any:
            if delivered[0]:
                raise Unavailable(
                    f"the export of tournament {tournament_id} broke after {delivered[0]} "
                    "records and cannot be resumed (records have no position): run it again",
                    code="UNAVAILABLE")
            return self.tournaments.ExportTournament(req, timeout=self.timeout,
                                                     metadata=bearer(token))

        def accept(message: ppb.ExportTournamentResponse) -> str:
            delivered[0] += 1
            return str(message.record_json)

        yield from self._resuming(
            lambda: f"the export of tournament {tournament_id}", opened, accept, None, True,
            resume_for)

    # -- webhooks (WebhookService; auditor token; docs/webhooks.md) ----------------------------

    def add_webhook(self, token: str, url: str, *, match_id: str = "", tournament_id: str = "",
                    secret: str = "", event_types: Sequence[str] = ()
                    ) -> tuple[WebhookEndpoint, str]:
        """Register ``url`` for the events of one match or one tournament (give one id) from
        now on; returns the endpoint and, when ``secret`` is empty, the ``whsec_`` secret the
        referee made (shown this once; else "")."""
        req = wpb.AddWebhookRequest(match_id=match_id, tournament_id=tournament_id, url=url,
                                    secret=secret, event_types=list(event_types))
        resp = self._call(self.webhooks.AddWebhook, req, token)
        return WebhookEndpoint.of(resp.endpoint), str(resp.secret)

    def list_webhooks(self, token: str, *, match_id: str = "", tournament_id: str = ""
                      ) -> list[WebhookEndpoint]:
        """The endpoints of one match or one tournament."""
        req = wpb.ListWebhooksRequest(match_id=match_id, tournament_id=tournament_id)
        return [WebhookEndpoint.of(e)
                for e in self._call(self.webhooks.ListWebhooks, req, token).endpoints]

    def remove_webhook(self, token: str, endpoint_id: str) -> WebhookEndpoint:
        """Unregister an endpoint (its pending deliveries are cancelled)."""
        req = wpb.RemoveWebhookRequest(endpoint_id=endpoint_id)
        return WebhookEndpoint.of(self._call(self.webhooks.RemoveWebhook, req, token).endpoint)

    def webhook_deliveries(self, token: str, endpoint_id: str, *, state: str = "",
                           page_size: int = 0) -> Iterator[WebhookDelivery]:
        """The endpoint's delivery log in event order, page by page (``state``: only
        pending, delivered, failed or cancelled ones)."""
        page = ""
        while True:
            req = wpb.ListWebhookDeliveriesRequest(endpoint_id=endpoint_id,
                                                   state=state_value(state),  # type: ignore[arg-type]
                                                   page_size=page_size, page_token=page)
            resp = self._call(self.webhooks.ListWebhookDeliveries, req, token)
            yield from (WebhookDelivery.of(d) for d in resp.deliveries)
            page = resp.next_page_token
            if not page:
                return


__all__ = [
    "ActionResult", "Backoff", "ChainCheck", "CreatedMatch", "DealCheck", "Fact", "HandScore",
    "IllegalAlternative", "MatchEvent", "Record", "RefereeClient", "RefereeError", "Rejection",
    "ReplayStep", "Ruling", "Scoreboard", "Standing", "Standings", "Update", "View",
    "WebhookDelivery", "WebhookEndpoint",
]
