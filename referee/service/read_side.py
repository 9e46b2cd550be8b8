"""``ProjectionsService`` and ``TournamentService``: decode, query the views (or record a
ruling / tournament change), encode. Errors go through the service's one error table.
``WatchScoreboard`` is an async generator (it waits without a thread); the other methods are
blocking and run on the server's executor (``referee.service.handlers``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from uuid import UUID

import grpc

from projections.queries import Queries
from referee import tournaments as tour
from referee.api.v1 import projections_pb2 as pb
from referee.api.v1 import projections_pb2_grpc as pbg
from referee.application import Referee
from referee.domain.errors import MalformedRequestError
from referee.service.handlers import (
    StreamContext,
    call_ended,
    stream_handler,
    unary_handler,
)
from referee.service.peers import PeerLimits
from referee.service.servicer import clock_pb

SERVICE_NAMES = tuple(s.full_name for s in pb.DESCRIPTOR.services_by_name.values())


def _uuid(text: str, field: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise MalformedRequestError(f"{field} {text!r} is not a UUID", field=field) from None


def _ruling(r: dict[str, Any]) -> pb.Ruling:
    return pb.Ruling(hand=r["hand"], kind=r["kind"], adjust=r["adjust"], reason=r["reason"],
                     version=r.get("version", 0), rule=r.get("rule", ""), ref=r.get("ref", 0))


def scoreboard_pb(doc: dict[str, Any]) -> pb.Scoreboard:
    out = pb.Scoreboard(
        match_id=doc["match_id"], game=doc["game"], state=doc["state"], version=doc["version"],
        hand=doc["hand"], dealer=doc["dealer"], scores=doc["scores"],
        adjusted_scores=doc["adjusted_scores"], players=doc["players"],
        hands=[pb.HandScore(hand=h["hand"], dealer=h["dealer"], points=h["points"],
                            scores_after=h["scores_after"],
                            detail_json=json.dumps(h["detail"], sort_keys=True),
                            rulings=[_ruling(dict(r, hand=h["hand"])) for r in h["rulings"]])
               for h in doc["hands"]],
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
    out.timeouts.extend(
        pb.Timeout(seat=t["seat"], policy=t["policy"], hand=t["hand"], version=t["version"],
                   deadline=t["deadline"]) for t in doc.get("timeouts", ()))
    return out


class ProjectionsServicer(pbg.ProjectionsServiceServicer):
    def __init__(self, app: Referee, queries: Queries, stopping: Callable[[], bool]) -> None:
        self.app, self.q, self.stopping = app, queries, stopping
        self.peers: PeerLimits | None = None

    @unary_handler
    def GetScoreboard(self, request: pb.GetScoreboardRequest, context: grpc.ServicerContext
                      ) -> pb.Scoreboard:
        return scoreboard_pb(self.q.scoreboard(_uuid(request.match_id, "match_id"),
                                               request.token))

    @stream_handler
    async def WatchScoreboard(self, request: pb.WatchScoreboardRequest,
                              context: grpc.aio.ServicerContext
                              ) -> AsyncIterator[pb.Scoreboard]:
        def alive() -> bool:
            return not context.done() and not self.stopping()

        boards = self.q.watch_scoreboard(_uuid(request.match_id, "match_id"), request.token,
                                         request.after_version, alive, call_ended(context))
        async for doc in boards:
            yield scoreboard_pb(doc)

    @unary_handler
    def GetReplay(self, request: pb.GetReplayRequest, context: grpc.ServicerContext
                  ) -> pb.GetReplayResponse:
        r = self.q.replay(_uuid(request.match_id, "match_id"), request.hand,
                          request.action_index, request.token)
        out = pb.GetReplayResponse(
            match_id=r["match_id"], hand=r["hand"], action_index=r["index"],
            actions=r["actions"], legal=r["legal"],
            action_json=json.dumps(r["action"]) if r["action"] else "",
            illegal=[pb.IllegalAction(**x) for x in r["illegal"]],
            cards_json=json.dumps(r["cards"], sort_keys=True),
            state_json=json.dumps(r["state"], sort_keys=True),
            timeline_json=json.dumps(r["timeline"]),
            scoring_json=json.dumps(r.get("scoring"), sort_keys=True) if r.get("scoring") else "",
            finished=r["finished"],
        )
        if r["to_act"] is not None:
            out.to_act = r["to_act"]
        return out

    @unary_handler
    def ExportHand(self, request: pb.ExportHandRequest, context: grpc.ServicerContext
                   ) -> pb.ExportResponse:
        record = self.q.hand_record(_uuid(request.match_id, "match_id"), request.hand,
                                    request.token)
        return pb.ExportResponse(record_json=json.dumps(record))

    @unary_handler
    def ExportMatch(self, request: pb.ExportMatchRequest, context: grpc.ServicerContext
                    ) -> pb.ExportResponse:
        record = self.q.match_record(_uuid(request.match_id, "match_id"), request.token)
        return pb.ExportResponse(record_json=json.dumps(record))

    @unary_handler
    def RecordRuling(self, request: pb.RecordRulingRequest, context: grpc.ServicerContext
                     ) -> pb.RecordRulingResponse:
        version, adjust, replayed = tour.record_ruling(
            self.app, _uuid(request.match_id, "match_id"), request.token, request.hand,
            request.kind, list(request.points), request.reason, request.command_id,
            rule=request.rule, ref=request.ref, grades=list(request.grades))
        return pb.RecordRulingResponse(version=version, adjust=adjust, replayed=replayed)

    @unary_handler
    def CheckChain(self, request: pb.CheckChainRequest, context: grpc.ServicerContext
                   ) -> pb.CheckChainResponse:
        report, anchor = self.q.check_chain(_uuid(request.match_id, "match_id"),
                                            request.token, request.anchor_version,
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
                                          request.token)
        return pb.GetHandViewResponse(html=page, finished=finished)


class TournamentServicer(pbg.TournamentServiceServicer):
    def __init__(self, app: Referee, queries: Queries,
                 stopping: Callable[[], bool] = lambda: False) -> None:
        self.app, self.q, self.stopping = app, queries, stopping
        self.peers: PeerLimits | None = None

    @unary_handler
    def CreateTournament(self, request: pb.CreateTournamentRequest,
                         context: grpc.ServicerContext) -> pb.CreateTournamentResponse:
        tid, replayed = tour.create_tournament_once(self.app, request.token, request.name,
                                                    request.game, request.command_id,
                                                    request.abandonment)
        return pb.CreateTournamentResponse(tournament_id=str(tid), replayed=replayed)

    @unary_handler
    def RegisterEntrant(self, request: pb.RegisterEntrantRequest,
                        context: grpc.ServicerContext) -> pb.TournamentChangeResponse:
        v = tour.register_entrant(self.app, request.token,
                                  _uuid(request.tournament_id, "tournament_id"),
                                  request.entrant, list(request.members), request.command_id)
        return pb.TournamentChangeResponse(version=v)

    @unary_handler
    def AttachMatch(self, request: pb.AttachMatchRequest, context: grpc.ServicerContext
                    ) -> pb.TournamentChangeResponse:
        v = tour.attach_match(self.app, request.token,
                              _uuid(request.tournament_id, "tournament_id"),
                              _uuid(request.match_id, "match_id"), list(request.sides),
                              request.board, request.command_id)
        return pb.TournamentChangeResponse(version=v)

    @unary_handler
    def ReleaseBoard(self, request: pb.ReleaseBoardRequest, context: grpc.ServicerContext
                     ) -> pb.TournamentChangeResponse:
        v = tour.release_board(self.app, request.token,
                               _uuid(request.tournament_id, "tournament_id"), request.board,
                               request.command_id)
        return pb.TournamentChangeResponse(version=v)

    @unary_handler
    def FinalizeResults(self, request: pb.FinalizeResultsRequest,
                        context: grpc.ServicerContext) -> pb.FinalizeResultsResponse:
        version, final = tour.finalize_results(
            self.app, request.token, _uuid(request.tournament_id, "tournament_id"),
            request.command_id)
        return pb.FinalizeResultsResponse(version=version, final_matches=final)

    @unary_handler
    def GetStandings(self, request: pb.GetStandingsRequest, context: grpc.ServicerContext
                     ) -> pb.GetStandingsResponse:
        s = self.q.standings(_uuid(request.tournament_id, "tournament_id"))
        return pb.GetStandingsResponse(
            tournament_id=s["tournament_id"], name=s["name"], game=s["game"],
            standings=[pb.Standing(**row) for row in s["entrants"]],
            boards_json=json.dumps(s["boards"], sort_keys=True), final=s.get("final", False),
            abandonment=s.get("abandonment", "forfeit"),
            matches_json=json.dumps(s.get("results", []), sort_keys=True),
        )

    @unary_handler
    def AbandonMatch(self, request: pb.AbandonMatchRequest, context: grpc.ServicerContext
                     ) -> pb.AbandonMatchResponse:
        tid = (_uuid(request.tournament_id, "tournament_id") if request.tournament_id
               else None)
        version, winner, replayed = tour.abandon_match(
            self.app, request.token, _uuid(request.match_id, "match_id"),
            list(request.at_fault), request.reason, tid, request.command_id)
        out = pb.AbandonMatchResponse(version=version, replayed=replayed)
        if winner is not None:
            out.winner = winner
        return out

    @stream_handler
    def ExportTournament(self, request: pb.ExportTournamentRequest,
                         context: StreamContext) -> Iterator[pb.ExportResponse]:
        for line in self.q.tournament_export(_uuid(request.tournament_id, "tournament_id"),
                                             request.token):
            yield pb.ExportResponse(record_json=line)


def add_to_server(server: grpc.aio.Server, app: Referee, stopping: Callable[[], bool],
                  peers: PeerLimits | None = None) -> tuple[str, ...]:
    """Register both services on ``server``; return their full names (for reflection).
    ``peers``: the per-peer limits shared with the other services of the port."""
    queries = Queries(app)
    read = ProjectionsServicer(app, queries, stopping)
    tournaments = TournamentServicer(app, queries, stopping)
    read.peers = tournaments.peers = peers
    pbg.add_ProjectionsServiceServicer_to_server(read, server)  # type: ignore[no-untyped-call]
    pbg.add_TournamentServiceServicer_to_server(  # type: ignore[no-untyped-call]
        tournaments, server)
    return SERVICE_NAMES
