"""Issue 21, item 3: an idempotency key on every ruling and tournament command, as
``command_id`` is for actions: a retried command is applied once and answered the same, and
the same key for another command is COMMAND_ID_REUSED."""

from __future__ import annotations

import random
from uuid import UUID, uuid4

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.tournaments import get_tournament
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, expect_error, step
from trick_referee_client.sdk import bearer


@pytest.fixture(scope="module")
def read(channel: grpc.Channel) -> ppbg.ProjectionsServiceStub:
    return ppbg.ProjectionsServiceStub(channel)


@pytest.fixture(scope="module")
def tours(channel: grpc.Channel) -> ppbg.TournamentServiceStub:
    return ppbg.TournamentServiceStub(channel)


def finished_hand(stub: pbg.RefereeServiceStub) -> str:
    table = create(stub, "euchre")
    rng = random.Random(3)
    while not stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                           metadata=bearer(AUDITOR)).hand >= 2:
        step(stub, table, rng)
    return table.match_id


def versions(stub: pbg.RefereeServiceStub, match_id: str) -> int:
    return stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(AUDITOR)).version


def test_a_retried_ruling_is_recorded_once(stub: pbg.RefereeServiceStub,
                                           read: ppbg.ProjectionsServiceStub) -> None:
    mid = finished_hand(stub)
    request = ppb.RecordRulingRequest(match_id=mid, hand=1, kind="penalty",
                                      points=[2, 0], reason="revoke", command_id="r-1")
    first = read.RecordRuling(request, metadata=bearer(AUDITOR))
    at = versions(stub, mid)
    again = read.RecordRuling(request, metadata=bearer(AUDITOR))
    assert not first.replayed and again.replayed
    assert (again.version, list(again.adjust)) == (first.version, [-2, 0])
    assert versions(stub, mid) == at  # nothing written twice
    other = ppb.RecordRulingRequest(match_id=mid, hand=1, kind="correction",
                                    points=[1, 0], reason="other", command_id="r-1")
    expect_error(lambda: read.RecordRuling(other, metadata=bearer(AUDITOR)),
                 grpc.StatusCode.FAILED_PRECONDITION,
                 "COMMAND_ID_REUSED")
    # Without a key, the same ruling twice is two rulings.
    plain = ppb.RecordRulingRequest(match_id=mid, hand=1, kind="penalty",
                                    points=[1, 0], reason="twice")
    once = read.RecordRuling(plain, metadata=bearer(AUDITOR)).version
    assert once + 1 == read.RecordRuling(plain, metadata=bearer(AUDITOR)).version


def test_retried_tournament_commands_are_applied_once(
        app: Referee, stub: pbg.RefereeServiceStub, tours: ppbg.TournamentServiceStub
) -> None:
    key = f"t-{uuid4()}"  # keys are the store's: unique per run, the store may be reused
    create_req = ppb.CreateTournamentRequest(name="cup", game="euchre",
                                             command_id=key)
    first = tours.CreateTournament(create_req, metadata=bearer(AUDITOR))
    again = tours.CreateTournament(create_req, metadata=bearer(AUDITOR))
    assert not first.replayed and again.replayed
    assert again.tournament_id == first.tournament_id
    expect_error(lambda: tours.CreateTournament(ppb.CreateTournamentRequest(
        name="another cup", game="euchre", command_id=key), metadata=bearer(AUDITOR)),
        grpc.StatusCode.FAILED_PRECONDITION, "COMMAND_ID_REUSED")
    tid = first.tournament_id
    for name in ("north", "east"):
        reg = ppb.RegisterEntrantRequest(tournament_id=tid, entrant=name,
                                         members=[name + "1"], command_id="e-" + name)
        v1 = tours.RegisterEntrant(reg, metadata=bearer(AUDITOR)).version
        again = tours.RegisterEntrant(reg, metadata=bearer(AUDITOR)).version
        assert again == v1  # not "already registered"
    expect_error(lambda: tours.RegisterEntrant(ppb.RegisterEntrantRequest(
        tournament_id=tid, entrant="west", command_id="e-north"), metadata=bearer(AUDITOR)),
        grpc.StatusCode.FAILED_PRECONDITION, "COMMAND_ID_REUSED")
    mid = create(stub).match_id
    attach = ppb.AttachMatchRequest(tournament_id=tid, match_id=mid,
                                    sides=["north", "east"], command_id="a-1")
    v = tours.AttachMatch(attach, metadata=bearer(AUDITOR)).version
    assert tours.AttachMatch(attach,
                             metadata=bearer(AUDITOR)).version == v  # not "already attached"
    t = get_tournament(app, UUID(tid))
    assert t.version == 4  # created, two entrants, one match: each once
    assert sorted(t.entrants) == ["east", "north"] and list(t.matches) == [mid]
