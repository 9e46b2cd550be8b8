"""Issue 21, item 4: a duplicate board stays hidden while another table plays it. A spy at a
finished table (a player, a spectator, and anyone on a public match) tries every read RPC and
stream: none shows a card of the board beyond what was seen at that table until every table
has finished it; the auditor sees all, and may release a board early."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToJson

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.rules.cards import CARD_NAMES
from referee.rules.registry import find_game
from referee.tournaments import (
    attach_match,
    create_tournament,
    register_entrant,
    release_board,
)
from referee_projections.runner import ProjectionWorker
from tests.projections.conftest import AUDITOR, play
from trick_referee_client.sdk import bearer


def board_tables(app: Referee, board: str, seed: int) -> tuple[Any, Any, list[str]]:
    """Two public tables dealt the same pack, attached as one board; the pack."""
    pack = [CARD_NAMES[c] for c in find_game("euchre").pack]
    random.Random(seed).shuffle(pack)
    tid = create_tournament(app, AUDITOR, f"pairs {board}", "euchre")
    for e in ("n", "e", "s", "w"):
        register_entrant(app, AUDITOR, tid, e, [e])
    # One hand makes the match (target 1): what a caller sees at the end is that hand's.
    one = {"target_score": 1}
    a = app.create_match("euchre", one, fixed_deals=[pack], public_spectators=True)
    b = app.create_match("euchre", one, fixed_deals=[pack], public_spectators=True)
    attach_match(app, AUDITOR, tid, a.match_id, ["n", "e"], board=board)
    attach_match(app, AUDITOR, tid, b.match_id, ["s", "w"], board=board)
    return a, b, pack


def reads(stub: pbg.RefereeServiceStub, read: ppbg.ProjectionsServiceStub, mid: str,
          token: str) -> dict[str, Callable[[], Any]]:
    """Every read of hand 1 of match ``mid`` that shows cards, as ``token``."""
    return {
        "GetHandRecord": lambda: stub.GetHandRecord(pb.GetHandRecordRequest(
            match_id=mid, hand=1), metadata=bearer(token)),
        "GetMatchRecord": lambda: stub.GetMatchRecord(pb.GetMatchRecordRequest(
            match_id=mid), metadata=bearer(token)),
        "VerifyDeal": lambda: stub.VerifyDeal(pb.VerifyDealRequest(
            match_id=mid, hand=1), metadata=bearer(token)),
        "GetReplay": lambda: read.GetReplay(ppb.GetReplayRequest(
            match_id=mid, hand=1, action_index=0), metadata=bearer(token)),
        "ExportHand": lambda: read.ExportHand(ppb.ExportHandRequest(
            match_id=mid, hand=1), metadata=bearer(token)),
        "ExportMatch": lambda: read.ExportMatch(ppb.ExportMatchRequest(
            match_id=mid), metadata=bearer(token)),
        "GetHandView": lambda: read.GetHandView(ppb.GetHandViewRequest(
            match_id=mid, hand=1), metadata=bearer(token)),
    }


def test_no_surface_leaks_a_board_another_table_still_plays(
        app: Referee, served: tuple[grpc.Channel, ProjectionWorker]) -> None:
    channel, worker = served
    stub, read = pbg.RefereeServiceStub(channel), ppbg.ProjectionsServiceStub(channel)
    a, b, pack = board_tables(app, "1", seed=8)
    play(app, a.match_id, a.seat_tokens, random.Random(1), stop_after_hand=1)  # A is done
    worker.wait()
    mid = str(a.match_id)
    # What a spectator at table A never saw: the kitty (Euchre's stock but the upcard).
    unseen = pack[21:]
    spies = {"seat": a.seat_tokens[0], "spectator": a.spectator_token, "public": ""}
    for who, token in spies.items():
        for name, call in reads(stub, read, mid, token).items():
            with pytest.raises(grpc.RpcError) as err:
                call()
            assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION, (who, name)
            assert "BOARD_IN_PLAY" in str(err.value.trailing_metadata()) or \
                "another table is still playing" in (err.value.details() or ""), (who, name)
            assert not any(c in (err.value.details() or "") for c in unseen)
        board = read.GetScoreboard(ppb.GetScoreboardRequest(match_id=mid),
                                   metadata=bearer(token)).scoreboard
        assert board.hands and not board.hands[0].detail.fields, who
        shown = MessageToJson(board)
        view = stub.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(token))
        stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=mid,
                                                      heartbeat_seconds=1), timeout=5,
        metadata=bearer(token))
        first = next(stream)
        stream.cancel()
        boards = read.WatchScoreboard(ppb.WatchScoreboardRequest(match_id=mid),
                                      timeout=5, metadata=bearer(token))
        streamed = next(boards).scoreboard  # the fan-out's shared bytes of one audience
        boards.cancel()
        assert streamed.hands and not streamed.hands[0].detail.fields, who
        for text in (shown, MessageToJson(view), MessageToJson(first),
                     MessageToJson(streamed)):
            assert not [c for c in unseen if re.search(rf"\b{c}\b", text)], who
    # The auditor sees everything, always (on the scoreboard stream too: another audience).
    for call in reads(stub, read, mid, AUDITOR).values():
        call()
    boards = read.WatchScoreboard(ppb.WatchScoreboardRequest(match_id=mid),
                                  timeout=5, metadata=bearer(AUDITOR))
    assert next(boards).scoreboard.hands[0].detail.fields
    boards.cancel()
    # Once the other table has finished the board, its readers may read it.
    play(app, b.match_id, b.seat_tokens, random.Random(2), stop_after_hand=1)
    worker.wait()
    for call in reads(stub, read, mid, a.spectator_token).values():
        call()
    record = json.loads(stub.GetHandRecord(pb.GetHandRecordRequest(
        match_id=mid, hand=1), metadata=bearer(a.spectator_token)).record_json)
    assert record["deal"]["stock"] == pack[20:]


def test_the_auditor_may_release_a_board_early(
        app: Referee, served: tuple[grpc.Channel, ProjectionWorker]) -> None:
    stub = pbg.RefereeServiceStub(served[0])
    a, _, _ = board_tables(app, "7", seed=3)
    play(app, a.match_id, a.seat_tokens, random.Random(4), stop_after_hand=1)
    request = pb.GetHandRecordRequest(match_id=str(a.match_id), hand=1)
    with pytest.raises(grpc.RpcError):
        stub.GetHandRecord(request, metadata=bearer(a.spectator_token))
    tid = app.get_match(a.match_id).board
    assert tid is not None
    from uuid import UUID

    release_board(app, AUDITOR, UUID(tid[0]), "7")
    assert json.loads(stub.GetHandRecord(request,
                      metadata=bearer(a.spectator_token)).record_json)["dealer"] == 0
