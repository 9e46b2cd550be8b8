"""``ProjectionsService``, ``TournamentService`` and ``WebhookService``: decode, query the
views (or record a ruling / tournament change, register a webhook), encode. Errors go through
the service's one error table. ``WatchScoreboard`` is an async generator (it waits without a
thread); the other methods are blocking and run on the server's executor
(``referee.service.handlers``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from referee import tournaments as tour
from referee.api.v1 import projections_pb2 as pb
from referee.api.v1 import projections_pb2_grpc as pbg
from referee.api.v1 import referee_pb2 as rpb
from referee.api.v1 import webhooks_pb2 as wpb
from referee.api.v1 import webhooks_pb2_grpc as wpbg
from referee.application import Referee
from referee.domain.errors import InvalidWebhookError, MalformedRequestError
from referee.service.credentials_metadata import bearer, caller_token
from referee.service.encoding import (
    POLICY_PB,
    sides_by_seat,
    struct_of,
    table_pb,
    timestamp_of,
)
from referee.service.handlers import (
    Encoded,
    StreamContext,
    add_servicer,
    call_ended,
    ends_on_stop,
    stream_handler,
    unary_handler,
)
from referee.service.peers import PeerLimits
from referee.service.servicer import clock_pb
from referee_projections.outbox import STATES, Webhooks, open_webhooks
from referee_projections.queries import Queries

SERVICE_NAMES = tuple(s.full_name for module in (pb, wpb)
                      for s in module.DESCRIPTOR.services_by_name.values())


def _uuid(text: str, field: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise MalformedRequestError(f"{field} {text!r} is not a UUID", field=field) from None


def _ruling(r: dict[str, Any]) -> pb.Ruling:
    return pb.Ruling(hand=r["hand"], kind=r["kind"], adjust=r["adjust"], reason=r["reason"],
                     version=r.get("version", 0), rule=r.get("rule", ""), ref=r.get("ref", 0),
                     commitment=r.get("commitment", ""), hands=r.get("hands", []))


def _timeout(t: dict[str, Any], hand: int) -> pb.Timeout:
    return pb.Timeout(seat=t["seat"], policy=POLICY_PB[t["policy"]], hand=t.get("hand", hand),
                      version=t["version"], deadline=timestamp_of(t["deadline"]))


def _hand_score(hand: int, dealer: int, result: dict[str, Any], scores_after: list[int],
                rulings: list[dict[str, Any]]) -> pb.HandScore:
    """A hand's score: ``result`` is the rules' result (``points`` and the game's detail)."""
    detail = {k: v for k, v in result.items() if k != "points"}
    return pb.HandScore(hand=hand, dealer=dealer, points=result.get("points") or [],
                        scores_after=scores_after, detail=struct_of(detail),
                        rulings=[_ruling(dict(r, hand=hand)) for r in rulings])


def _timeline_entry(item: dict[str, Any], match_id: str, hand: int) -> pb.TimelineEntry:
    out = pb.TimelineEntry(time=timestamp_of(item["time"]))
    kind = item["type"]
    if kind == "action":
        out.action.CopyFrom(pb.ReplayAction(index=item["index"], seat=item["seat"],
                                            action=item["action"], time=out.time))
    elif kind == "rejection":
        out.rejection.CopyFrom(rpb.Rejection(
            match_id=match_id, action=item["action"], reason=item["reason"],
            rule=item["rule"], message=item["message"], time=out.time))
        if item.get("seat") is not None:
            out.rejection.seat = item["seat"]
    elif kind == "timeout":
        out.timeout.CopyFrom(_timeout(item, hand))
    elif kind == "ruling":
        out.ruling.CopyFrom(_ruling(dict(item, hand=hand)))
    else:  # what the seats put to each other (undo, unchecked claims)
        out.event.CopyFrom(pb.TableEvent(type=kind, seat=item["seat"], detail=struct_of(
            {k: v for k, v in item.items() if k not in ("time", "type", "seat")})))
    return out


def scoreboard_pb(doc: dict[str, Any]) -> pb.Scoreboard:
    out = pb.Scoreboard(
        match_id=doc["match_id"], game=doc["game"], state=doc["state"], version=doc["version"],
        hand=doc["hand"], dealer=doc["dealer"], scores=doc["scores"],
        adjusted_scores=doc["adjusted_scores"], players=doc["players"],
        hands=[_hand_score(h["hand"], h["dealer"], {**h["detail"], "points": h["points"]},
                           h["scores_after"], h["rulings"]) for h in doc["hands"]],
        rulings=[_ruling(r) for r in doc["rulings"]],
        head_hash=doc.get("head", ""),
    )
    if doc["to_act"] is not None:
        out.to_act = doc["to_act"]
    result = doc.get("result")
    winner = result["winner"] if result is not None else doc["winner"]
    if winner is not None:
        out.winner = winner
    if doc["winner"] is not None:
        out.as_played_winner = doc["winner"]
    if doc.get("clock") is not None:
        out.clock.CopyFrom(clock_pb(doc["clock"]))
    abandoned = doc.get("abandoned")
    if abandoned is not None:
        out.abandoned.CopyFrom(pb.Abandonment(
            at_fault=abandoned["faults"], policy=abandoned["policy"], hand=abandoned["hand"],
            reason=abandoned["reason"]))
    out.timeouts.extend(_timeout(t, t["hand"]) for t in doc.get("timeouts", ()))
    return out


def standing_match_pb(m: dict[str, Any]) -> pb.StandingMatch:
    """One attached match of the standings (``referee_projections.standings``' ``results``)."""
    out = pb.StandingMatch(match_id=m["match_id"], sides=m["sides"], players=m["players"],
                           over=m["over"], scores=m.get("scores") or ())
    if m.get("winner") is not None:
        out.winner = m["winner"]
    abandoned = m.get("abandoned")
    if abandoned is not None:
        out.abandoned.CopyFrom(pb.Abandonment(at_fault=abandoned["faults"],
                                              policy=abandoned["policy"],
                                              reason=abandoned["reason"]))
    return out


class BoardEncoder:
    """``WatchScoreboard`` updates as protobuf bytes (the fan-out's encoder port, as
    ``referee.service.servicer.WatchEncoder`` for ``WatchMatch``): each audience's
    scoreboard encoded once per version, the same bytes sent to each of its streams."""

    def events(self, events: Sequence[Any]) -> bytes:
        return b""  # a scoreboard has no events of its own

    def view(self, view: Any) -> bytes:
        out: bytes = pb.WatchScoreboardResponse(
            scoreboard=scoreboard_pb(view)).SerializeToString()
        return out

    def update(self, parts: Sequence[bytes], version: int) -> Encoded:
        return Encoded(parts[-1], version)

    def heartbeat(self, version: int) -> pb.WatchScoreboardResponse:
        raise AssertionError("a scoreboard stream has no heartbeats")


BOARD_ENCODER = BoardEncoder()


class ProjectionsServicer(pbg.ProjectionsServiceServicer):
    def __init__(self, app: Referee, queries: Queries, stopping: Callable[[], bool]) -> None:
        self.app, self.q, self.stopping = app, queries, stopping
        self.peers: PeerLimits | None = None

    @unary_handler
    def GetScoreboard(self, request: pb.GetScoreboardRequest, context: grpc.ServicerContext
                      ) -> pb.GetScoreboardResponse:
        return pb.GetScoreboardResponse(scoreboard=scoreboard_pb(self.q.scoreboard(
            _uuid(request.match_id, "match_id"), caller_token())))

    @stream_handler
    @ends_on_stop  # the fan-out wakes its streams on the stop; each then sees alive() false
    async def WatchScoreboard(self, request: pb.WatchScoreboardRequest,
                              context: grpc.aio.ServicerContext
                              ) -> AsyncIterator[pb.WatchScoreboardResponse]:
        def alive() -> bool:
            return not context.done() and not self.stopping()

        boards = self.q.watch_scoreboard(_uuid(request.match_id, "match_id"), caller_token(),
                                         request.after_version, alive, call_ended(context),
                                         BOARD_ENCODER)
        async for update in boards:
            yield update

    @unary_handler
    def GetReplay(self, request: pb.GetReplayRequest, context: grpc.ServicerContext
                  ) -> pb.GetReplayResponse:
        return _replay_pb(self.q.replay(_uuid(request.match_id, "match_id"), request.hand,
                                        request.action_index, caller_token()))

    @stream_handler
    def WalkReplay(self, request: pb.WalkReplayRequest,
                   context: StreamContext) -> Iterator[pb.WalkReplayResponse]:
        """The first message is the whole GetReplay answer; the others leave out the
        timeline and the scoring, which are the hand's, the same at every state."""
        stop = request.to_index if request.HasField("to_index") else None
        first = True
        for r in self.q.replay_walk(_uuid(request.match_id, "match_id"), request.hand,
                                    request.from_index, stop, caller_token()):
            if not first:
                r = {**r, "timeline": (), "scoring": None}
            first = False
            yield pb.WalkReplayResponse(step=_replay_pb(r))

    @unary_handler
    def ExportHand(self, request: pb.ExportHandRequest, context: grpc.ServicerContext
                   ) -> pb.ExportHandResponse:
        record = self.q.hand_record(_uuid(request.match_id, "match_id"), request.hand,
                                    caller_token())
        return pb.ExportHandResponse(record_json=json.dumps(record))

    @unary_handler
    def ExportMatch(self, request: pb.ExportMatchRequest, context: grpc.ServicerContext
                    ) -> pb.ExportMatchResponse:
        record = self.q.match_record(_uuid(request.match_id, "match_id"), caller_token())
        return pb.ExportMatchResponse(record_json=json.dumps(record))

    @unary_handler
    def RecordRuling(self, request: pb.RecordRulingRequest, context: grpc.ServicerContext
                     ) -> pb.RecordRulingResponse:
        version, adjust, replayed = tour.record_ruling(
            self.app, _uuid(request.match_id, "match_id"), caller_token(), request.hand,
            request.kind, list(request.points), request.reason, request.command_id,
            rule=request.rule, ref=request.ref, grades=list(request.grades))
        return pb.RecordRulingResponse(version=version, adjust=adjust, replayed=replayed)

    @unary_handler
    def CheckChain(self, request: pb.CheckChainRequest, context: grpc.ServicerContext
                   ) -> pb.CheckChainResponse:
        report, anchor = self.q.check_chain(_uuid(request.match_id, "match_id"),
                                            caller_token(), request.anchor_version,
                                            request.anchor_head)
        out = pb.CheckChainResponse(ok=report.ok and anchor is None, events=report.events,
                                    head=report.head, message=report.message,
                                    version=report.events if report.ok else 0)
        if report.first_break is not None:
            out.first_break = report.first_break
        if request.anchor_version:
            out.anchor_ok = anchor is None
            if anchor is not None:
                out.message = f"{report.message}; {anchor}" if report.message else anchor
        return out


    @unary_handler
    def GetHandView(self, request: pb.GetHandViewRequest, context: grpc.ServicerContext
                    ) -> pb.GetHandViewResponse:
        page, finished = self.q.hand_view(_uuid(request.match_id, "match_id"), request.hand,
                                          caller_token())
        return pb.GetHandViewResponse(html=page, finished=finished)


class TournamentServicer(pbg.TournamentServiceServicer):
    def __init__(self, app: Referee, queries: Queries,
                 stopping: Callable[[], bool] = lambda: False) -> None:
        self.app, self.q, self.stopping = app, queries, stopping
        self.peers: PeerLimits | None = None

    @unary_handler
    def CreateTournament(self, request: pb.CreateTournamentRequest,
                         context: grpc.ServicerContext) -> pb.CreateTournamentResponse:
        tid, replayed = tour.create_tournament_once(self.app, caller_token(), request.name,
                                                    request.game, request.command_id,
                                                    request.abandonment)
        return pb.CreateTournamentResponse(tournament_id=str(tid), replayed=replayed)

    @unary_handler
    def RegisterEntrant(self, request: pb.RegisterEntrantRequest,
                        context: grpc.ServicerContext) -> pb.RegisterEntrantResponse:
        v = tour.register_entrant(self.app, caller_token(),
                                  _uuid(request.tournament_id, "tournament_id"),
                                  request.entrant, list(request.members), request.command_id)
        return pb.RegisterEntrantResponse(version=v)

    @unary_handler
    def AttachMatch(self, request: pb.AttachMatchRequest, context: grpc.ServicerContext
                    ) -> pb.AttachMatchResponse:
        v = tour.attach_match(self.app, caller_token(),
                              _uuid(request.tournament_id, "tournament_id"),
                              _uuid(request.match_id, "match_id"), list(request.sides),
                              request.board, request.command_id)
        return pb.AttachMatchResponse(version=v)

    @unary_handler
    def ReleaseBoard(self, request: pb.ReleaseBoardRequest, context: grpc.ServicerContext
                     ) -> pb.ReleaseBoardResponse:
        v = tour.release_board(self.app, caller_token(),
                               _uuid(request.tournament_id, "tournament_id"), request.board,
                               request.command_id)
        return pb.ReleaseBoardResponse(version=v)

    @unary_handler
    def FinalizeResults(self, request: pb.FinalizeResultsRequest,
                        context: grpc.ServicerContext) -> pb.FinalizeResultsResponse:
        version, final = tour.finalize_results(
            self.app, caller_token(), _uuid(request.tournament_id, "tournament_id"),
            request.command_id)
        return pb.FinalizeResultsResponse(version=version, final_matches=final)

    @unary_handler
    def GetStandings(self, request: pb.GetStandingsRequest, context: grpc.ServicerContext
                     ) -> pb.GetStandingsResponse:
        s = self.q.standings(_uuid(request.tournament_id, "tournament_id"))
        return pb.GetStandingsResponse(
            tournament_id=s["tournament_id"], name=s["name"], game=s["game"],
            standings=[pb.Standing(**row) for row in s["entrants"]],
            boards=[pb.BoardComparison(board=b["board"], hand=b["hand"],
                                       tables=[pb.BoardTable(**t) for t in b["tables"]])
                    for b in s["boards"]],
            final=s.get("final", False),
            abandonment=s.get("abandonment", "forfeit"),
            matches=[standing_match_pb(m) for m in s.get("results", [])],
        )

    @unary_handler
    def AbandonMatch(self, request: pb.AbandonMatchRequest, context: grpc.ServicerContext
                     ) -> pb.AbandonMatchResponse:
        tid = (_uuid(request.tournament_id, "tournament_id") if request.tournament_id
               else None)
        version, winner, replayed = tour.abandon_match(
            self.app, caller_token(), _uuid(request.match_id, "match_id"),
            list(request.at_fault), request.reason, tid, request.command_id)
        out = pb.AbandonMatchResponse(version=version, replayed=replayed)
        if winner is not None:
            out.winner = winner
        return out

    @stream_handler
    def ExportTournament(self, request: pb.ExportTournamentRequest,
                         context: StreamContext) -> Iterator[pb.ExportTournamentResponse]:
        for line in self.q.tournament_export(_uuid(request.tournament_id, "tournament_id"),
                                             caller_token()):
            yield pb.ExportTournamentResponse(record_json=line)


def _replay_pb(r: dict[str, Any]) -> pb.GetReplayResponse:
    """One state of the dispute replay (``Queries.replay``) as GetReplay answers it."""
    timeline = [_timeline_entry(x, r["match_id"], r["hand"]) for x in r["timeline"]]
    out = pb.GetReplayResponse(
        match_id=r["match_id"], hand=r["hand"], action_index=r["index"],
        actions=r["actions"], legal=r["legal"],
        illegal=[pb.IllegalAction(**x) for x in r["illegal"]],
        cards={where: rpb.Cards(cards=c) for where, c in r["cards"].items()},
        table=table_pb(r["state"], sides_by_seat(r["game"])),
        timeline=timeline, finished=r["finished"],
    )
    if r["action"]:
        a = r["action"]
        out.action.CopyFrom(pb.ReplayAction(index=a["index"], seat=a["seat"],
                                            action=a["action"], time=timestamp_of(a["time"])))
    scoring = r.get("scoring")
    if scoring:
        out.scoring.CopyFrom(_hand_score(r["hand"], r["dealer"], scoring["result"],
                                         scoring["scores_after"], scoring["rulings"]))
    if r["to_act"] is not None:
        out.to_act = r["to_act"]
    return out


def _timestamp(iso: str) -> Timestamp:
    out = Timestamp()
    if iso:
        out.FromDatetime(datetime.fromisoformat(iso).astimezone(UTC))
    return out


def _endpoint_pb(doc: dict[str, Any]) -> wpb.WebhookEndpoint:
    scope = "match_id" if doc["scope"] == "match" else "tournament_id"
    return wpb.WebhookEndpoint(
        endpoint_id=doc["endpoint_id"], url=doc["url"], secret_fingerprint=doc["fingerprint"],
        event_types=doc["event_types"], created=_timestamp(doc["created"]),
        disabled=doc["disabled"], **{scope: doc["scope_id"]})


def _delivery_pb(doc: dict[str, Any]) -> wpb.WebhookDelivery:
    out = wpb.WebhookDelivery(
        message_id=doc["message_id"], endpoint_id=doc["endpoint_id"],
        event_type=doc["event_type"], match_id=doc["match_id"],
        tournament_id=doc["tournament_id"],
        state=wpb.DeliveryState.Name(STATES.index(doc["state"]) + 1),
        created=_timestamp(doc["created"]), error=doc.get("error", ""),
        attempts=[wpb.WebhookAttempt(time=_timestamp(a["time"]), status=a["status"],
                                     error=a["error"], duration_ms=a["ms"])
                  for a in doc["attempts"]])
    if doc["state"] == "pending":
        out.next_attempt.FromSeconds(int(doc["next_at"]))
    elif doc["done"]:
        out.done.CopyFrom(_timestamp(doc["done"]))
    return out


class WebhookServicer(wpbg.WebhookServiceServicer):
    """Registration and the delivery log of the webhooks (auditor only; the token as
    ``authorization: Bearer`` metadata)."""

    def __init__(self, app: Referee) -> None:
        self.app = app
        self.peers: PeerLimits | None = None
        self._webhooks: Webhooks | None = None

    def _auditor(self, context: grpc.ServicerContext, what: str) -> Webhooks:
        self.app.tokens.require_auditor(bearer(context), what)
        if self._webhooks is None:
            self._webhooks = open_webhooks(self.app.settings)
            self.app.on_close(self._webhooks.view.close)
        return self._webhooks

    def _scope(self, request: Any) -> tuple[str, str]:
        """``("match" | "tournament", id)``: exactly one of the request's two ids, existing.
        :raises MalformedRequestError, MatchNotFoundError, TournamentNotFoundError:"""
        if bool(request.match_id) == bool(request.tournament_id):
            raise MalformedRequestError("give exactly one of match_id and tournament_id",
                                        field="match_id")
        if request.match_id:
            match_id = _uuid(request.match_id, "match_id")
            self.app.get_match(match_id)
            return "match", str(match_id)
        tid = _uuid(request.tournament_id, "tournament_id")
        tour.get_tournament(self.app, tid)
        return "tournament", str(tid)

    @unary_handler
    def AddWebhook(self, request: wpb.AddWebhookRequest, context: grpc.ServicerContext
                   ) -> wpb.AddWebhookResponse:
        hooks = self._auditor(context, "register webhooks")
        scope, scope_id = self._scope(request)
        doc, secret = hooks.add(scope, scope_id, request.url, request.secret,
                                list(request.event_types), self.app.event_log.head())
        return wpb.AddWebhookResponse(endpoint=_endpoint_pb(doc), secret=secret)

    @unary_handler
    def ListWebhooks(self, request: wpb.ListWebhooksRequest, context: grpc.ServicerContext
                     ) -> wpb.ListWebhooksResponse:
        hooks = self._auditor(context, "list webhooks")
        _, scope_id = self._scope(request)
        return wpb.ListWebhooksResponse(
            endpoints=[_endpoint_pb(d) for d in hooks.endpoints(scope_id)])

    @unary_handler
    def RemoveWebhook(self, request: wpb.RemoveWebhookRequest, context: grpc.ServicerContext
                      ) -> wpb.RemoveWebhookResponse:
        hooks = self._auditor(context, "remove webhooks")
        return wpb.RemoveWebhookResponse(endpoint=_endpoint_pb(hooks.remove(request.endpoint_id)))

    @unary_handler
    def ListWebhookDeliveries(self, request: wpb.ListWebhookDeliveriesRequest,
                              context: grpc.ServicerContext
                              ) -> wpb.ListWebhookDeliveriesResponse:
        hooks = self._auditor(context, "read the webhook deliveries")
        hooks.endpoint(request.endpoint_id)  # WEBHOOK_NOT_FOUND rather than an empty log
        if not 0 <= request.state <= len(STATES):
            raise InvalidWebhookError(f"unknown delivery state {request.state}",
                                      field="state")
        state = STATES[request.state - 1] if request.state else ""
        if request.page_size < 0:
            raise MalformedRequestError("page_size may not be negative", field="page_size")
        rows, token = hooks.deliveries(request.endpoint_id, state, request.page_token,
                                       request.page_size)
        return wpb.ListWebhookDeliveriesResponse(deliveries=[_delivery_pb(d) for d in rows],
                                                 next_page_token=token)


def add_to_server(server: grpc.aio.Server, app: Referee, stopping: Callable[[], bool],
                  peers: PeerLimits | None = None) -> tuple[str, ...]:
    """Register the read side's services on ``server``; return their full names (for
    reflection).
    ``peers``: the per-peer limits shared with the other services of the port."""
    queries = Queries(app)
    read = ProjectionsServicer(app, queries, stopping)
    tournaments = TournamentServicer(app, queries, stopping)
    read.peers = tournaments.peers = peers
    add_servicer(pbg.add_ProjectionsServiceServicer_to_server, read, server,
                 shared=("WatchScoreboard",))  # one encoded scoreboard for many streams
    pbg.add_TournamentServiceServicer_to_server(  # type: ignore[no-untyped-call]
        tournaments, server)
    webhooks = WebhookServicer(app)
    webhooks.peers = peers
    wpbg.add_WebhookServiceServicer_to_server(webhooks, server)  # type: ignore[no-untyped-call]
    return SERVICE_NAMES
