"""SubstitutePlayer over the wire (issue 20, item 4): the new token works on both sides (the
referee and its read side), the old one at once on neither; exports name both players."""

from __future__ import annotations

import json
import time
from typing import Any

import grpc

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee_projections.runner import ProjectionWorker
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error
from trick_referee_client.sdk import bearer


def _eventually(call: Any, ok: Any) -> Any:
    deadline = time.monotonic() + 10
    while True:
        try:
            got = call()
            if ok(got):
                return got
        except grpc.RpcError:
            pass  # VIEW_NOT_READY
        assert time.monotonic() < deadline, "the read side did not catch up"
        time.sleep(0.05)


def test_substitute_player_over_the_wire(app: Referee, channel: grpc.Channel) -> None:
    stub = pbg.RefereeServiceStub(channel)
    read = ppbg.ProjectionsServiceStub(channel)
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        t = create(stub, "euchre", players=["a", "b", "c", "d"])
        expect_error(lambda: stub.SubstitutePlayer(pb.SubstitutePlayerRequest(
            match_id=t.match_id, seat=1, player="e"), metadata=bearer(t.tokens[1])),
            grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
        resp = stub.SubstitutePlayer(pb.SubstitutePlayerRequest(
            match_id=t.match_id, seat=1, player="e"), metadata=bearer(AUDITOR))
        assert resp.seat_token and resp.version > 0
        expect_error(lambda: stub.GetView(pb.GetViewRequest(
            match_id=t.match_id), metadata=bearer(t.tokens[1])), grpc.StatusCode.UNAUTHENTICATED,
            "BAD_TOKEN")
        view = stub.GetView(pb.GetViewRequest(match_id=t.match_id),
                            metadata=bearer(resp.seat_token))
        assert view.seat == 1 and list(view.players) == ["a", "e", "c", "d"]
        board = _eventually(lambda: read.GetScoreboard(ppb.GetScoreboardRequest(
            match_id=t.match_id), metadata=bearer(resp.seat_token)).scoreboard,
            lambda b: b.version >= resp.version)
        assert list(board.players) == ["a", "e", "c", "d"]
        expect_error(lambda: read.GetScoreboard(ppb.GetScoreboardRequest(
            match_id=t.match_id), metadata=bearer(t.tokens[1])), grpc.StatusCode.UNAUTHENTICATED,
            "BAD_TOKEN")
        record = json.loads(read.ExportMatch(ppb.ExportMatchRequest(
            match_id=t.match_id), metadata=bearer(AUDITOR)).record_json)
        assert record["substitutions"] == [{"seat": 1, "player": "e", "previous": "b",
                                            "hand": 1, "action": 0}]
    finally:
        worker.stop()
