"""``RefereeService``: decode the request, call the application, encode the reply.

The server is ``grpc.aio``: ``SubmitAction`` is a coroutine (checks and rules on the event
loop, the group commit awaited) and ``WatchMatch`` an async generator (its waits hold no
thread); the other methods are blocking functions, which the decorators of
``referee.service.handlers`` run on the loop's executor."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar
from uuid import UUID

import grpc

from referee import limits
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Answer, PublicEvent, Referee, Role, View
from referee.domain.errors import MalformedRequestError
from referee.rules.claims import ALL as ALL_TRICKS
from referee.rules.game import sides_of
from referee.rules.registry import GAMES
from referee.service.credentials_metadata import caller_token
from referee.service.encoding import (
    POLICY_PB,
    fact_pb,
    rule_value_pb,
    rules_of,
    sides_by_seat,
    table_pb,
    timestamp_of,
)
from referee.service.handlers import (
    Encoded,
    call_ended,
    ends_on_stop,
    stream_handler,
    unary_handler,
)
from referee.service.paging import paged
from referee.service.peers import PeerLimits

log = logging.getLogger("referee.service")

F = TypeVar("F", bound=Callable[..., Any])

_POLICIES = {pb.TIMEOUT_POLICY_UNSPECIFIED: "auto", pb.TIMEOUT_POLICY_AUTO: "auto",
             pb.TIMEOUT_POLICY_FORFEIT: "forfeit", pb.TIMEOUT_POLICY_PAUSE: "pause"}
_ROLES = {Role.SEAT: pb.ROLE_SEAT, Role.SPECTATOR: pb.ROLE_SPECTATOR, Role.AUDITOR: pb.ROLE_AUDITOR}


def _match_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise MalformedRequestError(f"match_id {text!r} is not a UUID", matchId=text) from None


def _facts(facts: list[dict[str, Any]]) -> list[pb.Fact]:
    return [fact_pb(f) for f in facts]


def time_control(msg: pb.TimeControl) -> dict[str, Any]:
    """A request's time control as ``referee.domain.clock.TimeControl.from_dict`` reads it."""
    out: dict[str, Any] = {"action_ms": msg.action_ms, "bank_ms": msg.bank_ms,
                           "increment_ms": msg.increment_ms}
    if msg.HasField("lag_ms"):
        out["lag_ms"] = msg.lag_ms
    policy = _POLICIES.get(msg.policy)
    if policy is None:
        raise MalformedRequestError(f"time_control.policy {msg.policy} is not a policy",
                                    field="time_control.policy")
    out["policy"] = policy
    return out


def clock_pb(clock: dict[str, Any]) -> pb.ClockView:
    c = clock["control"]
    out = pb.ClockView(
        control=pb.TimeControl(action_ms=c["action_ms"], bank_ms=c["bank_ms"],
                               increment_ms=c["increment_ms"], lag_ms=c["lag_ms"],
                               policy=POLICY_PB[c["policy"]]),
        banks_ms=clock["banks_ms"], paused=clock["paused"],
    )
    if clock["to_act"] is not None:
        out.to_act = clock["to_act"]
    if clock["deadline"] is not None:
        out.deadline.CopyFrom(timestamp_of(clock["deadline"]))
    if clock["left_ms"] is not None:
        out.left_ms = clock["left_ms"]
    return out


def view_pb(v: View) -> pb.GetViewResponse:
    """A view as a protobuf message (the rules core's redacted view as a typed table)."""
    out = pb.GetViewResponse(
        match_id=str(v.match_id), version=v.version, game=v.game,
        role=_ROLES[v.principal.role], hand=v.hand, dealer=v.dealer,
        legal_actions=v.legal_actions, scores=v.scores, match_over=v.match_over,
        table=table_pb(v.state, sides_by_seat(v.game)), players=v.players,
        deal_commitment=v.commitment,
    )
    if v.principal.seat is not None:
        out.seat = v.principal.seat
    if v.to_act is not None:
        out.to_act = v.to_act
    if v.winner is not None:
        out.winner = v.winner
    if v.clock is not None:
        out.clock.CopyFrom(clock_pb(v.clock))
    if v.claim is not None:
        out.claim.CopyFrom(pb.PendingClaim(seat=v.claim["seat"], agreed_sides=v.claim["agreed"],
                                           version=v.claim["version"]))
    if v.undo is not None:
        out.undo.CopyFrom(pb.PendingUndo(
            seat=v.undo["seat"], index=v.undo["index"], action=v.undo["action"],
            agreed_sides=v.undo["agreed"], version=v.undo["version"]))
    return out


def _event_pb(e: PublicEvent) -> pb.MatchEvent:
    out = pb.MatchEvent(version=e.version, hand=e.hand, action=e.action, facts=_facts(e.facts))
    if e.seat is not None:
        out.seat = e.seat
    return out


def answer_pb(a: Answer) -> pb.ActionOutcome:
    o = a.outcome
    return pb.ActionOutcome(
        version=o.version, seat=o.seat, action=o.action, facts=_facts(o.facts),
        hand_over=a.hand_over, match_over=a.match_over, scores=a.scores, replayed=a.replayed,
    )


class WatchEncoder:
    """``WatchMatch`` updates as protobuf bytes (the fan-out's encoder port): each version's
    events and each view encoded once per audience, joined by concatenation (repeated
    ``events`` fields append; the view and the version come once, last)."""

    def events(self, events: Sequence[PublicEvent]) -> bytes:
        out: bytes = pb.WatchMatchResponse(events=[_event_pb(e) for e in events]
                                           ).SerializeToString()
        return out

    def view(self, view: View) -> bytes:
        out: bytes = pb.WatchMatchResponse(view=view_pb(view), version=view.version
                                           ).SerializeToString()
        return out

    def update(self, parts: Sequence[bytes], version: int) -> Encoded:
        return Encoded(b"".join(parts), version)

    def heartbeat(self, version: int) -> pb.WatchMatchResponse:
        return pb.WatchMatchResponse(heartbeat=True, version=version)


WATCH_ENCODER = WatchEncoder()


class RefereeServicer(pbg.RefereeServiceServicer):
    """The public API over one :class:`Referee` application."""

    def __init__(self, app: Referee, *, stopping: Callable[[], bool] = lambda: False,
                 peers: PeerLimits | None = None) -> None:
        self.app = app
        self.stopping = stopping
        self.peers = peers

    @unary_handler
    def ListGames(self, request: pb.ListGamesRequest, context: grpc.ServicerContext
                  ) -> pb.ListGamesResponse:
        games = []
        for g in GAMES.values():
            params = []
            for s in g.rules_class.param_specs():
                p = pb.RuleParameter(
                    name=s.name, type=s.type.__name__, default_value=rule_value_pb(s.default),
                    rule=s.rule, doc=s.doc, choices=list(s.choices),
                )
                if s.minimum is not None:
                    p.minimum = s.minimum
                if s.maximum is not None:
                    p.maximum = s.maximum
                params.append(p)
            games.append(pb.GameInfo(
                name=g.name, aliases=list(g.aliases), title=g.title, seats=g.num_seats,
                parameters=params, partnerships=g.partnerships, sides=sides_of(g),
                match_length=g.match_length, hidden_verbs=sorted(g.hidden_verbs)))
        games.sort(key=lambda g: g.name)
        page, next_token = paged(games, request.page_size, request.page_token, "games")
        return pb.ListGamesResponse(games=page, next_page_token=next_token)

    @unary_handler
    def CreateMatch(self, request: pb.CreateMatchRequest, context: grpc.ServicerContext
                    ) -> pb.CreateMatchResponse:
        if not request.game:
            raise MalformedRequestError("game is required")
        created = self.app.create_match(
            game=request.game,
            rules=rules_of(request.rules),
            players=list(request.players),
            seed_entropy=request.seed_entropy,
            fixed_deals=[list(d.cards) for d in request.fixed_deals],
            first_dealer=request.first_dealer if request.HasField("first_dealer") else 0,
            public_spectators=request.public_spectators,
            token=caller_token(),
            time_control=(time_control(request.time_control)
                          if request.HasField("time_control") else None),
            policies=({"undo": request.policies.undo,
                       "unchecked_claims": request.policies.unchecked_claims}
                      if request.HasField("policies") else None),
        )
        return pb.CreateMatchResponse(
            match_id=str(created.match_id),
            seat_tokens=[
                pb.SeatToken(seat=s, player=p, token=t)
                for s, (p, t) in enumerate(zip(created.players, created.seat_tokens, strict=True))
            ],
            spectator_token=created.spectator_token,
            version=created.version,
            deal_commitment=created.commitment,
        )

    @unary_handler
    async def SubmitAction(self, request: pb.SubmitActionRequest,
                           context: grpc.aio.ServicerContext) -> pb.SubmitActionResponse:
        match_id = _match_id(request.match_id)
        if not request.action:
            raise MalformedRequestError("action is required")
        answer = await self.app.submit_action_async(
            match_id, caller_token(), request.action, command_id=request.command_id,
            expected_version=(
                request.expected_version if request.HasField("expected_version") else None
            ),
            seat=request.seat if request.HasField("seat") else None,
        )
        return pb.SubmitActionResponse(outcome=answer_pb(answer))

    @unary_handler
    def GetView(self, request: pb.GetViewRequest, context: grpc.ServicerContext
                ) -> pb.GetViewResponse:
        return view_pb(self.app.get_view(_match_id(request.match_id), caller_token()))

    @stream_handler
    @ends_on_stop  # the fan-out wakes its streams on the stop; each then sees alive() false
    async def WatchMatch(self, request: pb.WatchMatchRequest,
                         context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[pb.WatchMatchResponse]:
        if request.after_version < 0:
            raise MalformedRequestError("after_version must be >= 0")
        heartbeat = limits.heartbeat(request.heartbeat_seconds)

        def alive() -> bool:
            return not context.done() and not self.stopping()

        updates = self.app.watch(
            _match_id(request.match_id), caller_token(), request.after_version, heartbeat,
            alive=alive, ended=call_ended(context), encoder=WATCH_ENCODER,
        )
        async for update in updates:
            yield update

    @unary_handler
    def GetHandRecord(self, request: pb.GetHandRecordRequest, context: grpc.ServicerContext
                      ) -> pb.GetHandRecordResponse:
        record, finished = self.app.hand_record(
            _match_id(request.match_id), request.hand, caller_token()
        )
        return pb.GetHandRecordResponse(record_json=json.dumps(record), finished=finished)

    @unary_handler
    def GetMatchRecord(self, request: pb.GetMatchRecordRequest, context: grpc.ServicerContext
                       ) -> pb.GetMatchRecordResponse:
        record, finished = self.app.match_record(_match_id(request.match_id), caller_token())
        return pb.GetMatchRecordResponse(record_json=json.dumps(record), finished=finished)

    @unary_handler
    def VerifyDeal(self, request: pb.VerifyDealRequest, context: grpc.ServicerContext
                   ) -> pb.VerifyDealResponse:
        check = self.app.verify_deal(_match_id(request.match_id), request.hand, caller_token())
        return pb.VerifyDealResponse(
            commitment=check.commitment, nonce=check.nonce, cards=check.cards, valid=check.valid
        )

    @unary_handler
    def ListRejections(self, request: pb.ListRejectionsRequest, context: grpc.ServicerContext
                       ) -> pb.ListRejectionsResponse:
        if request.match_id:
            _match_id(request.match_id)
        items = self.app.list_rejections(caller_token(), request.match_id)
        page, next_token = paged(items, request.page_size, request.page_token, "rejections")
        out = []
        for r in page:
            msg = pb.Rejection(match_id=r.match_id, action=r.action, reason=r.reason,
                               rule=r.rule, message=r.message, time=timestamp_of(r.time))
            if r.seat is not None:
                msg.seat = r.seat
            out.append(msg)
        return pb.ListRejectionsResponse(rejections=out, next_page_token=next_token)

    @unary_handler
    def PauseClocks(self, request: pb.PauseClocksRequest, context: grpc.ServicerContext
                    ) -> pb.PauseClocksResponse:
        version = self.app.pause_clocks(_match_id(request.match_id), caller_token(),
                                        request.reason)
        return pb.PauseClocksResponse(version=version)

    @unary_handler
    def ResumeClocks(self, request: pb.ResumeClocksRequest, context: grpc.ServicerContext
                     ) -> pb.ResumeClocksResponse:
        version = self.app.resume_clocks(_match_id(request.match_id), caller_token(),
                                         request.add_ms)
        return pb.ResumeClocksResponse(version=version)

    @unary_handler
    def SubmitClaim(self, request: pb.SubmitClaimRequest, context: grpc.ServicerContext
                    ) -> pb.SubmitClaimResponse:
        if request.tricks < 0:
            raise MalformedRequestError("tricks must be 0 (all the remaining tricks) or more",
                                        field="tricks")
        answer = self.app.claim(_match_id(request.match_id), caller_token(),
                                request.tricks or ALL_TRICKS, command_id=request.command_id,
                                unchecked=request.unchecked)
        return pb.SubmitClaimResponse(outcome=answer_pb(answer))

    @unary_handler
    def Concede(self, request: pb.ConcedeRequest, context: grpc.ServicerContext
                ) -> pb.ConcedeResponse:
        return pb.ConcedeResponse(outcome=answer_pb(self.app.concede(
            _match_id(request.match_id), caller_token(), command_id=request.command_id,
            whole_match=request.match)))

    @unary_handler
    def SubstitutePlayer(self, request: pb.SubstitutePlayerRequest,
                         context: grpc.ServicerContext) -> pb.SubstitutePlayerResponse:
        token, version = self.app.substitute(_match_id(request.match_id), caller_token(),
                                             request.seat, request.player)
        return pb.SubstitutePlayerResponse(seat_token=token, version=version)

    @unary_handler
    def RequestUndo(self, request: pb.RequestUndoRequest, context: grpc.ServicerContext
                    ) -> pb.RequestUndoResponse:
        answer = self.app.request_undo(_match_id(request.match_id), caller_token(),
                                       command_id=request.command_id)
        return pb.RequestUndoResponse(outcome=answer_pb(answer))

    @unary_handler
    def AnswerUndo(self, request: pb.AnswerUndoRequest, context: grpc.ServicerContext
                   ) -> pb.AnswerUndoResponse:
        answer = self.app.answer_undo(_match_id(request.match_id), caller_token(),
                                      request.agree, command_id=request.command_id)
        return pb.AnswerUndoResponse(outcome=answer_pb(answer))

    @unary_handler
    def AnswerClaim(self, request: pb.AnswerClaimRequest, context: grpc.ServicerContext
                    ) -> pb.AnswerClaimResponse:
        answer = self.app.answer_claim(_match_id(request.match_id), caller_token(),
                                       request.accept, command_id=request.command_id)
        return pb.AnswerClaimResponse(outcome=answer_pb(answer))
