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
from referee.api.v1 import referee_pb2 as rpb
from referee.application import Referee
from referee.domain.errors import MalformedRequestError
from referee.service.encoding import (
    POLICY_PB,
    sides_by_seat,
    struct_of,
    table_pb,
    timestamp_of,
)
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
    else:
        out.ruling.CopyFrom(_ruling(dict(item, hand=hand)))
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
    out.timeouts.extend(_timeout(t, t["hand"]) for t in doc.get("timeouts", ()))
    return out


class ProjectionsServicer(pbg.ProjectionsServiceServicer):
    def __init__(self, app: Referee, queries: Queries, stopping: Callable[[], bool]) -> None:
        self.app, self.q, self.stopping = app, queries, stopping
        self.peers: PeerLimits | None = None

    @unary_handler
    def GetScoreboard(self, request: pb.GetScoreboardRequest, context: grpc.ServicerContext
                      ) -> pb.GetScoreboardResponse:
        return pb.GetScoreboardResponse(scoreboard=scoreboard_pb(self.q.scoreboard(
            _uuid(request.match_id, "match_id"), request.token)))

    @stream_handler
    async def WatchScoreboard(self, request: pb.WatchScoreboardRequest,
                              context: grpc.aio.ServicerContext
                              ) -> AsyncIterator[pb.WatchScoreboardResponse]:
        def alive() -> bool:
            return not context.done() and not self.stopping()

        boards = self.q.watch_scoreboard(_uuid(request.match_id, "match_id"), request.token,
                                         request.after_version, alive, call_ended(context))
        async for doc in boards:
            yield pb.WatchScoreboardResponse(scoreboard=scoreboard_pb(doc))

    @unary_handler
    def GetReplay(self, request: pb.GetReplayRequest, context: grpc.ServicerContext
                  ) -> pb.GetReplayResponse:
        r = self.q.replay(_uuid(request.match_id, "match_id"), request.hand,
                          request.action_index, request.token)
        out = pb.GetReplayResponse(
            match_id=r["match_id"], hand=r["hand"], action_index=r["index"],
            actions=r["actions"], legal=r["legal"],
            illegal=[pb.IllegalAction(**x) for x in r["illegal"]],
            cards={where: rpb.Cards(cards=c) for where, c in r["cards"].items()},
            table=table_pb(r["state"], sides_by_seat(r["game"])),
            timeline=[_timeline_entry(x, r["match_id"], r["hand"]) for x in r["timeline"]],
            finished=r["finished"],
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

    @unary_handler
    def ExportHand(self, request: pb.ExportHandRequest, context: grpc.ServicerContext
                   ) -> pb.ExportHandResponse:
        record = self.q.hand_record(_uuid(request.match_id, "match_id"), request.hand,
                                    request.token)
        return pb.ExportHandResponse(record_json=json.dumps(record))

    @unary_handler
    def ExportMatch(self, request: pb.ExportMatchRequest, context: grpc.ServicerContext
                    ) -> pb.ExportMatchResponse:
        record = self.q.match_record(_uuid(request.match_id, "match_id"), request.token)
        return pb.ExportMatchResponse(record_json=json.dumps(record))

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
                                                    request.game, request.command_id)
        return pb.CreateTournamentResponse(tournament_id=str(tid), replayed=replayed)

    @unary_handler
    def RegisterEntrant(self, request: pb.RegisterEntrantRequest,
                        context: grpc.ServicerContext) -> pb.RegisterEntrantResponse:
        v = tour.register_entrant(self.app, request.token,
                                  _uuid(request.tournament_id, "tournament_id"),
                                  request.entrant, list(request.members), request.command_id)
        return pb.RegisterEntrantResponse(version=v)

    @unary_handler
    def AttachMatch(self, request: pb.AttachMatchRequest, context: grpc.ServicerContext
                    ) -> pb.AttachMatchResponse:
        v = tour.attach_match(self.app, request.token,
                              _uuid(request.tournament_id, "tournament_id"),
                              _uuid(request.match_id, "match_id"), list(request.sides),
                              request.board, request.command_id)
        return pb.AttachMatchResponse(version=v)

    @unary_handler
    def ReleaseBoard(self, request: pb.ReleaseBoardRequest, context: grpc.ServicerContext
                     ) -> pb.ReleaseBoardResponse:
        v = tour.release_board(self.app, request.token,
                               _uuid(request.tournament_id, "tournament_id"), request.board,
                               request.command_id)
        return pb.ReleaseBoardResponse(version=v)

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
            boards=[pb.BoardComparison(board=b["board"], hand=b["hand"],
                                       tables=[pb.BoardTable(**t) for t in b["tables"]])
                    for b in s["boards"]],
            final=s.get("final", False),
        )

    @stream_handler
    def ExportTournament(self, request: pb.ExportTournamentRequest,
                         context: StreamContext) -> Iterator[pb.ExportTournamentResponse]:
        for line in self.q.tournament_export(_uuid(request.tournament_id, "tournament_id"),
                                             request.token):
            yield pb.ExportTournamentResponse(record_json=line)


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
