"""Scripted clients: they talk to the service only through the generated stub."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.service.server import build_server
from trick_referee_client.sdk import bearer
from trick_referee_client.tables import Fact
from trick_referee_client.tables import Table as TypedTable


@dataclass
class Table:
    """A created match and its secrets."""

    match_id: str
    tokens: list[str]
    spectator: str
    created: pb.CreateMatchResponse


def create(stub: pbg.RefereeServiceStub, game: str = "euchre", **kwargs: object) -> Table:
    resp = stub.CreateMatch(pb.CreateMatchRequest(game=game, **kwargs))  # type: ignore[arg-type]
    return Table(resp.match_id, [t.token for t in resp.seat_tokens], resp.spectator_token, resp)


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, "no rich status"
    infos = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    assert len(infos) == 1, "exactly one ErrorInfo"
    return infos[0]


def expect_error(call: object, code: grpc.StatusCode, reason: str) -> error_details_pb2.ErrorInfo:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    err = caught.value
    assert err.code() == code, (err.code(), err.details())  # type: ignore[attr-defined]
    info = error_info(err)
    assert info.reason == reason
    assert info.domain == "referee.cardgames"
    return info


def step(stub: pbg.RefereeServiceStub, table: Table, rng: random.Random,
         ) -> tuple[pb.ActionOutcome, pb.GetViewResponse]:
    """The seat to act plays a random legal action (with a command id and expected version)."""
    public = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                          metadata=bearer(table.spectator))
    seat = public.to_act
    view = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                        metadata=bearer(table.tokens[seat]))
    assert view.legal_actions, "the seat to act has legal actions"
    action = view.legal_actions[rng.randrange(len(view.legal_actions))]
    resp = stub.SubmitAction(pb.SubmitActionRequest(
        match_id=table.match_id, action=action,
        command_id=str(uuid.uuid4()), expected_version=view.version, seat=seat,
    ), metadata=bearer(table.tokens[seat])).outcome
    assert resp.version > view.version and resp.seat == seat
    return resp, view


def facts(resp: pb.ActionOutcome | pb.MatchEvent) -> list[dict[str, object]]:
    """The facts of an answer or event as dicts (``kind`` and the fact's data)."""
    return [fact_dict(f) for f in resp.facts]


def fact_dict(fact: pb.Fact) -> dict[str, object]:
    """One typed fact as one dict, as the event log writes it."""
    typed = Fact.from_pb(fact)
    return {"kind": typed.kind, **typed.data}


def table_state(view: pb.GetViewResponse) -> dict[str, object]:
    """A view's typed table as one dict, as the game's view writes it."""
    return TypedTable.from_pb(view.table).state()


@contextmanager
def serving(app: Referee, interceptors: Sequence[grpc.aio.ServerInterceptor] = ()
            ) -> Iterator[grpc.Channel]:
    """A real server for ``app`` on a free port (with ``interceptors``), and a channel to it."""
    server, port = build_server(app, "127.0.0.1:0", interceptors=interceptors)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            yield ch
    finally:
        server.stop(1.0)
