"""Hostile input the fuzzer (``test_fuzz.py``) found, pinned (issue 16): request bytes that
do not decode, tokens that are not ASCII, ruling points that overflow the scores."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import PermissionDeniedError
from referee.limits import MAX_RULING_POINTS
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error, step
from trick_referee_client.sdk import bearer

#: (method, server streaming, client streaming) over every kind of service on the port.
METHODS = [
    ("/referee.api.v1.RefereeService/GetView", False, False),
    ("/referee.api.v1.RefereeService/SubmitAction", False, False),
    ("/referee.api.v1.RefereeService/WatchMatch", True, False),
    ("/referee.api.v1.ProjectionsService/GetScoreboard", False, False),
    ("/referee.api.v1.ProjectionsService/WatchScoreboard", True, False),
    ("/referee.api.v1.TournamentService/GetStandings", False, False),
    ("/referee.api.v1.TournamentService/ExportTournament", True, False),
    ("/grpc.health.v1.Health/Check", False, False),
    ("/grpc.health.v1.Health/Watch", True, False),
    ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", True, True),
]
UNDECODABLE = {
    "corrupt wire format": b"\xff\xff\xff",
    "string field not UTF-8": b"\x0a\x02\xff\xfe",
}


def _send_raw(channel: grpc.Channel, method: str, server_streaming: bool,
              client_streaming: bool, data: bytes) -> None:
    if client_streaming:
        list(channel.stream_stream(method, None, None)(iter([data]), timeout=5))
    elif server_streaming:
        list(channel.unary_stream(method, None, None)(data, timeout=5))
    else:
        channel.unary_unary(method, None, None)(data, timeout=5)


@pytest.mark.parametrize("data", list(UNDECODABLE.values()), ids=list(UNDECODABLE))
@pytest.mark.parametrize(("method", "server_streaming", "client_streaming"), METHODS,
                         ids=[m[0].rsplit("/", 2)[1].rsplit(".", 1)[-1] + "." +
                              m[0].rsplit("/", 1)[1] for m in METHODS])
def test_undecodable_request_is_malformed_request_without_a_traceback(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture, method: str,
    server_streaming: bool, client_streaming: bool, data: bytes,
) -> None:
    """Was UNKNOWN, no ErrorInfo, and an ERROR record with a traceback per request."""
    caplog.set_level(logging.DEBUG)
    info = expect_error(
        lambda: _send_raw(channel, method, server_streaming, client_streaming, data),
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert info.metadata["method"] == method
    assert info.metadata["messageType"]
    loud = [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]
    assert not loud, [r.getMessage() for r in loud]


def test_an_unknown_method_stays_unimplemented(channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        channel.unary_unary("/referee.api.v1.RefereeService/Nope", None, None)(b"\xff", timeout=5)
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]


def test_an_auditor_token_that_is_not_ascii_works(tmp_path: Path) -> None:
    secret = "sécret-ü-🔑"
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path),
                                     "REFEREE_AUDITOR_TOKEN": secret}))
    try:
        assert app.list_rejections(secret) == []
        with pytest.raises(PermissionDeniedError):
            app.list_rejections("secret-u")
    finally:
        app.close()


def test_ruling_points_are_bounded(channel: grpc.Channel, stub: pbg.RefereeServiceStub) -> None:
    """Was accepted, and every scoreboard of the match then failed INTERNAL (the adjusted
    score out of int64)."""
    table = create(stub, public_spectators=True)
    rng = random.Random(7)
    while stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                       metadata=bearer(AUDITOR)).hand == 1:
        step(stub, table, rng)
    proj = ppbg.ProjectionsServiceStub(channel)

    def ruling(points: list[int], kind: str = "correction") -> ppb.RecordRulingResponse:
        return proj.RecordRuling(ppb.RecordRulingRequest(
            match_id=table.match_id, hand=1, kind=kind, points=points,
            reason="fuzz"), metadata=bearer(AUDITOR))

    for points in ([2**63 - 1, 0], [0, -(2**63)], [MAX_RULING_POINTS + 1, 0]):
        info = expect_error(lambda p=points: ruling(p), grpc.StatusCode.INVALID_ARGUMENT,
                            "INVALID_RULING")
        assert info.metadata["limit"] == str(MAX_RULING_POINTS)
    expect_error(lambda: ruling([2**63 - 1, 0], "penalty"), grpc.StatusCode.INVALID_ARGUMENT,
                 "INVALID_RULING")
    assert list(ruling([MAX_RULING_POINTS, -MAX_RULING_POINTS]).adjust) == [
        MAX_RULING_POINTS, -MAX_RULING_POINTS]
