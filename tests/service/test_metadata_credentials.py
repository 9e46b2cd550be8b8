"""Issue 22, item 2: credentials in call metadata (``authorization: Bearer``), read by one
interceptor; and the rich error details a client can act on (``BadRequest`` field violations,
``RetryInfo``)."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee import limits
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from tests.service.helpers import create, expect_error
from trick_referee_client.sdk import bearer


def test_the_token_travels_in_the_metadata(
        stub: pbg.RefereeServiceStub) -> None:
    table = create(stub)
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.tokens[1]))
    assert view.role == pb.ROLE_SEAT and view.seat == 1 and view.legal_actions
    answer = stub.SubmitAction(pb.SubmitActionRequest(
        match_id=table.match_id, action=view.legal_actions[0], command_id="m-1"),
        metadata=(("authorization", f"bearer {table.tokens[1]}"),))  # the scheme in any case
    assert answer.outcome.seat == 1
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=table.match_id,
                                                  heartbeat_seconds=1),
                             metadata=bearer(table.tokens[2]), timeout=5)
    first = next(stream)
    stream.cancel()
    assert first.view.seat == 2
    # Without any token the match is closed to the caller, as before.
    expect_error(lambda: stub.GetView(pb.GetViewRequest(match_id=table.match_id)),
                 grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")


def test_a_malformed_or_oversized_credential_is_refused(stub: pbg.RefereeServiceStub) -> None:
    """Only ``Bearer <token>`` is a credential; anything else in ``authorization`` is named,
    not ignored (the caller would otherwise act as nobody), and a token has a size limit."""
    table = create(stub)
    info = expect_error(lambda: stub.GetView(
        pb.GetViewRequest(match_id=table.match_id),
        metadata=(("authorization", f"Basic {table.tokens[0]}"),)),
        grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert info.metadata["field"] == "authorization"
    info = expect_error(lambda: stub.GetView(
        pb.GetViewRequest(match_id=table.match_id),
        metadata=bearer("t" * (limits.MAX_TOKEN + 1))),
        grpc.StatusCode.INVALID_ARGUMENT, "LIMIT_EXCEEDED")
    assert info.metadata["field"] == "authorization"
    expect_error(lambda: stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                                      metadata=bearer("not-a-token")),
                 grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")


def test_a_bad_field_comes_with_a_bad_request_violation(stub: pbg.RefereeServiceStub) -> None:
    try:
        stub.CreateMatch(pb.CreateMatchRequest(
            game="euchre", players=["x" * (limits.MAX_PLAYER_NAME + 1), "b", "c", "d"]))
    except grpc.RpcError as err:
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
    else:
        raise AssertionError("accepted")
    assert status is not None
    violations = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            violations += [(v.field, v.description) for v in bad.field_violations]
    assert [f for f, _ in violations] == ["players[0]"]
    assert "limit" in violations[0][1]
