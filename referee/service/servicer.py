"""``RefereeService``: decode the request, call the application, encode the reply.

The server is ``grpc.aio``: ``SubmitAction`` is a coroutine (checks and rules on the event
loop, the group commit awaited) and ``WatchMatch`` an async generator (its waits hold no
thread); the other methods are blocking functions, which the decorators below run on the
loop's executor."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar
from uuid import UUID

import grpc

from referee import limits
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Answer, PublicEvent, Referee, Role, View, rules_from_json
from referee.domain.errors import MalformedRequestError
from referee.domain.facts import ANNOUNCED, HAND_DEALT, HAND_ENDED, MATCH_ENDED, TRICK_TAKEN
from referee.rules.registry import GAMES
from referee.service.peers import PeerLimits
from referee.service.request_limits import check_request

log = logging.getLogger("referee.service")

F = TypeVar("F", bound=Callable[..., Any])

_FACT_KINDS = {
    TRICK_TAKEN: pb.FACT_KIND_TRICK_TAKEN,
    ANNOUNCED: pb.FACT_KIND_ANNOUNCED,
    HAND_ENDED: pb.FACT_KIND_HAND_ENDED,
    MATCH_ENDED: pb.FACT_KIND_MATCH_ENDED,
    HAND_DEALT: pb.FACT_KIND_HAND_DEALT,
}
_ROLES = {Role.SEAT: pb.ROLE_SEAT, Role.SPECTATOR: pb.ROLE_SPECTATOR, Role.AUDITOR: pb.ROLE_AUDITOR}


def _admit(servicer: Any, request: Any, context: grpc.aio.ServicerContext) -> None:
    """Before any handler: every field within its size limit, and a call without a token
    drawn from its peer's anonymous budget (``servicer.peers``, when it has one).

    :raises LimitExceededError, RateLimitedError:"""
    check_request(request)
    peers: PeerLimits | None = getattr(servicer, "peers", None)
    if peers is None or "token" not in request.DESCRIPTOR.fields_by_name:
        return
    if isinstance(request, pb.CreateMatchRequest):  # any token but a credential is none
        anonymous = not servicer.app.is_organiser(request.token)
    else:
        anonymous = not request.token
    if anonymous:
        peers.anonymous_call(context.peer())


@contextlib.contextmanager
def _stream_place(servicer: Any, context: grpc.aio.ServicerContext) -> Iterator[None]:
    """One of the peer's stream places, held while the stream is open."""
    peers: PeerLimits | None = getattr(servicer, "peers", None)
    with peers.stream(context.peer()) if peers is not None else contextlib.nullcontext():
        yield


def _errors_mapped(method: F) -> F:
    """A unary handler for the ``grpc.aio`` server: a coroutine runs on the event loop, a
    plain (blocking) function on the loop's executor; exceptions go through the error table
    (the access log, ``referee.service.logs``, has one line per call)."""
    from referee.service.errors import abort

    async def blocking(self: Any, request: Any, context: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(
            None, method, self, request, context
        )

    call = method if inspect.iscoroutinefunction(method) else blocking

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            _admit(self, request, context)
            return await call(self, request, context)
        except Exception as exc:
            await abort(context, exc)

    return unary  # type: ignore[return-value]


class StreamContext:
    """What a blocking stream body may ask of its call from a worker thread: whether the
    call is still on (the client has not gone, the server is not stopping)."""

    def __init__(self, ended: threading.Event) -> None:
        self._ended = ended

    def is_active(self) -> bool:
        return not self._ended.is_set()


_END = object()


def _stream_errors_mapped(method: F) -> F:
    """A server-streaming handler for the ``grpc.aio`` server, exceptions going through the
    error table. An async generator runs on the loop. A blocking generator gets each item
    produced on the loop's executor (its waits hold a thread) and a :class:`StreamContext`."""
    from referee.service.errors import abort

    @functools.wraps(method)
    async def native(self: Any, request: Any, context: grpc.aio.ServicerContext
                     ) -> AsyncIterator[Any]:
        try:
            _admit(self, request, context)
            with _stream_place(self, context):
                async for item in method(self, request, context):
                    yield item
        except Exception as exc:
            await abort(context, exc)

    @functools.wraps(method)
    async def blocking(self: Any, request: Any, context: grpc.aio.ServicerContext
                       ) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        ended = threading.Event()
        context.add_done_callback(lambda _: ended.set())
        items = method(self, request, StreamContext(ended))
        pending: asyncio.Future[Any] | None = None
        place = contextlib.ExitStack()
        try:
            _admit(self, request, context)
            place.enter_context(_stream_place(self, context))
            while True:
                pending = loop.run_in_executor(None, next, items, _END)
                item = await pending
                if item is _END:
                    return
                yield item
        except Exception as exc:
            await abort(context, exc)
        finally:
            place.close()
            ended.set()
            _close_after(pending, items, loop)

    return (native if inspect.isasyncgenfunction(method) else blocking)  # type: ignore[return-value]


def _close_after(pending: asyncio.Future[Any] | None, items: Iterator[Any],
                 loop: asyncio.AbstractEventLoop) -> None:
    """Close a blocking generator on the executor once its running step (if any) is over
    (a generator cannot be closed while another thread runs it)."""
    close = getattr(items, "close", None)
    if close is None:
        return
    if pending is None or pending.done():
        loop.run_in_executor(None, close)
    else:
        pending.add_done_callback(lambda _: loop.run_in_executor(None, close))


def call_ended(context: grpc.aio.ServicerContext) -> asyncio.Future[None]:
    """A future of the running loop, done when the call ends (the client went away)."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not ended.done():
            ended.set_result(None)

    context.add_done_callback(lambda _: loop.call_soon_threadsafe(done))
    return ended


def _match_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise MalformedRequestError(f"match_id {text!r} is not a UUID", matchId=text) from None


def _facts(facts: list[dict[str, Any]]) -> list[pb.Fact]:
    return [
        pb.Fact(kind=_FACT_KINDS.get(f["kind"], pb.FACT_KIND_UNSPECIFIED), json=json.dumps(f))
        for f in facts
    ]


def view_pb(v: View) -> pb.GetViewResponse:
    """A view as a protobuf message (the rules core's redacted view as JSON)."""
    out = pb.GetViewResponse(
        match_id=str(v.match_id), version=v.version, game=v.game,
        role=_ROLES[v.principal.role], hand=v.hand, dealer=v.dealer,
        legal_actions=v.legal_actions, scores=v.scores, match_over=v.match_over,
        state_json=json.dumps(v.state, sort_keys=True), players=v.players,
        deal_commitment=v.commitment,
    )
    if v.principal.seat is not None:
        out.seat = v.principal.seat
    if v.to_act is not None:
        out.to_act = v.to_act
    if v.winner is not None:
        out.winner = v.winner
    return out


def _event_pb(e: PublicEvent) -> pb.MatchEvent:
    out = pb.MatchEvent(version=e.version, hand=e.hand, action=e.action, facts=_facts(e.facts))
    if e.seat is not None:
        out.seat = e.seat
    return out


def answer_pb(a: Answer) -> pb.SubmitActionResponse:
    o = a.outcome
    return pb.SubmitActionResponse(
        version=o.version, seat=o.seat, action=o.action, facts=_facts(o.facts),
        hand_over=a.hand_over, match_over=a.match_over, scores=a.scores, replayed=a.replayed,
    )


class RefereeServicer(pbg.RefereeServiceServicer):
    """The public API over one :class:`Referee` application."""

    def __init__(self, app: Referee, *, stopping: Callable[[], bool] = lambda: False,
                 peers: PeerLimits | None = None) -> None:
        self.app = app
        self.stopping = stopping
        self.peers = peers

    @_errors_mapped
    def ListGames(self, request: pb.ListGamesRequest, context: grpc.ServicerContext
                  ) -> pb.ListGamesResponse:
        games = []
        for g in GAMES.values():
            params = []
            for s in g.rules_class.param_specs():
                p = pb.RuleParameter(
                    name=s.name, type=s.type.__name__, default_json=json.dumps(s.default),
                    rule=s.rule, doc=s.doc, choices=list(s.choices),
                )
                if s.minimum is not None:
                    p.minimum = s.minimum
                if s.maximum is not None:
                    p.maximum = s.maximum
                params.append(p)
            games.append(pb.GameInfo(name=g.name, aliases=list(g.aliases), title=g.title,
                                     seats=g.num_seats, parameters=params))
        return pb.ListGamesResponse(games=games)

    @_errors_mapped
    def CreateMatch(self, request: pb.CreateMatchRequest, context: grpc.ServicerContext
                    ) -> pb.CreateMatchResponse:
        if not request.game:
            raise MalformedRequestError("game is required")
        created = self.app.create_match(
            game=request.game,
            rules=rules_from_json(request.rules_json),
            players=list(request.players),
            seed_entropy=request.seed_entropy,
            fixed_deals=[list(d.cards) for d in request.fixed_deals],
            first_dealer=request.first_dealer if request.HasField("first_dealer") else 0,
            public_spectators=request.public_spectators,
            token=request.token,
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

    @_errors_mapped
    async def SubmitAction(self, request: pb.SubmitActionRequest,
                           context: grpc.aio.ServicerContext) -> pb.SubmitActionResponse:
        match_id = _match_id(request.match_id)
        if not request.action:
            raise MalformedRequestError("action is required")
        answer = await self.app.submit_action_async(
            match_id, request.token, request.action, command_id=request.command_id,
            expected_version=(
                request.expected_version if request.HasField("expected_version") else None
            ),
            seat=request.seat if request.HasField("seat") else None,
        )
        return answer_pb(answer)

    @_errors_mapped
    def GetView(self, request: pb.GetViewRequest, context: grpc.ServicerContext
                ) -> pb.GetViewResponse:
        return view_pb(self.app.get_view(_match_id(request.match_id), request.token))

    @_stream_errors_mapped
    async def WatchMatch(self, request: pb.WatchMatchRequest,
                         context: grpc.aio.ServicerContext
                         ) -> AsyncIterator[pb.WatchMatchResponse]:
        if request.after_version < 0:
            raise MalformedRequestError("after_version must be >= 0")
        heartbeat = limits.heartbeat(request.heartbeat_seconds)

        def alive() -> bool:
            return not context.done() and not self.stopping()

        updates = self.app.watch(
            _match_id(request.match_id), request.token, request.after_version, heartbeat,
            alive=alive, ended=call_ended(context),
        )
        async for events, view, version in updates:
            if not alive():
                return
            if view is None:
                yield pb.WatchMatchResponse(heartbeat=True, version=version)
            else:
                yield pb.WatchMatchResponse(
                    events=[_event_pb(e) for e in events], view=view_pb(view), version=version
                )

    @_errors_mapped
    def GetHandRecord(self, request: pb.GetHandRecordRequest, context: grpc.ServicerContext
                      ) -> pb.GetHandRecordResponse:
        record, finished = self.app.hand_record(
            _match_id(request.match_id), request.hand, request.token
        )
        return pb.GetHandRecordResponse(record_json=json.dumps(record), finished=finished)

    @_errors_mapped
    def GetMatchRecord(self, request: pb.GetMatchRecordRequest, context: grpc.ServicerContext
                       ) -> pb.GetMatchRecordResponse:
        record, finished = self.app.match_record(_match_id(request.match_id), request.token)
        return pb.GetMatchRecordResponse(record_json=json.dumps(record), finished=finished)

    @_errors_mapped
    def VerifyDeal(self, request: pb.VerifyDealRequest, context: grpc.ServicerContext
                   ) -> pb.VerifyDealResponse:
        check = self.app.verify_deal(_match_id(request.match_id), request.hand, request.token)
        return pb.VerifyDealResponse(
            commitment=check.commitment, nonce=check.nonce, cards=check.cards, valid=check.valid
        )

    @_errors_mapped
    def ListRejections(self, request: pb.ListRejectionsRequest, context: grpc.ServicerContext
                       ) -> pb.ListRejectionsResponse:
        if request.match_id:
            _match_id(request.match_id)
        items = self.app.list_rejections(request.token, request.match_id, request.limit)
        out = []
        for r in items:
            msg = pb.Rejection(match_id=r.match_id, action=r.action, reason=r.reason,
                               rule=r.rule, message=r.message, time=r.time)
            if r.seat is not None:
                msg.seat = r.seat
            out.append(msg)
        return pb.ListRejectionsResponse(rejections=out)
