"""Webhooks survive restarts of ``referee serve`` (real processes, SQLite and PostgreSQL):

1. events committed while nothing fed the outbox (a server whose views and webhooks are left
   to ``referee projections``), then SIGKILL: the next server enqueues and delivers them;
2. deliveries enqueued while the receiver was down, then SIGKILL: delivered after the
   restart, under the same webhook-ids;
3. what was acknowledged before a SIGKILL is not sent again after it.
"""

from __future__ import annotations

import base64
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.api.v1 import webhooks_pb2 as wpb
from referee.api.v1 import webhooks_pb2_grpc as wpbg
from tests.deploy.helpers import free_port, start_server
from tests.pg_cluster import fresh_schema
from tests.service.helpers import Table, create, step
from tests.webhook_receiver import Receiver
from trick_referee_client.sdk import bearer

AUDITOR = "auditor-of-the-webhooks"
AS_AUDITOR = (("authorization", f"Bearer {AUDITOR}"),)
SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
FAST = {"REFEREE_WEBHOOK_FIRST_DELAY": "0.2", "REFEREE_WEBHOOK_BACKOFF": "1.5",
        "REFEREE_WEBHOOK_MAX_DELAY": "1", "REFEREE_WEBHOOK_ATTEMPTS": "20",
        "REFEREE_WEBHOOK_TIMEOUT": "1"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": str(tmp_path / "data"), "REFEREE_AUDITOR_TOKEN": AUDITOR,
           "REFEREE_ANONYMOUS_RATE": "0", **FAST}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        env["POSTGRES_SCHEMA"] = fresh_schema(env, "w")
    return env


class Server:
    """``referee serve`` on one address, killed and started again there."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.address = env, f"127.0.0.1:{free_port()}"
        self.proc: subprocess.Popen[str] | None = None

    def start(self, **extra: str) -> grpc.Channel:
        self.proc, printed = start_server({**self.env, **extra}, "--address", self.address)
        assert printed == self.address
        return grpc.insecure_channel(self.address)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)


@pytest.fixture
def server(env: dict[str, str]) -> Iterator[Server]:
    s = Server(env)
    yield s
    if s.proc is not None and s.proc.poll() is None:
        s.proc.terminate()
        s.proc.wait(30)


def play_out(channel: grpc.Channel, table: Table, seed: int) -> int:
    """Random legal actions to the end of the match; the hands scored."""
    stub, rng = pbg.RefereeServiceStub(channel), random.Random(seed)
    while True:
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
        if view.match_over:
            return int(view.hand)
        step(stub, table, rng)


def logged(channel: grpc.Channel, endpoint_id: str) -> list[wpb.WebhookDelivery]:
    return list(wpbg.WebhookServiceStub(channel).ListWebhookDeliveries(
        wpb.ListWebhookDeliveriesRequest(endpoint_id=endpoint_id, page_size=500),
        metadata=AS_AUDITOR).deliveries)


def all_delivered(channel: grpc.Channel, endpoint_id: str, count: int) -> list[str]:
    """Wait until the delivery log shows ``count`` deliveries, all delivered."""
    deadline = time.monotonic() + 60
    while True:
        rows = logged(channel, endpoint_id)
        if len(rows) == count and all(r.state == wpb.DELIVERY_STATE_DELIVERED for r in rows):
            return [r.message_id for r in rows]
        assert time.monotonic() < deadline, [(r.event_type, r.state) for r in rows]
        time.sleep(0.1)


def test_no_webhook_is_lost_or_resent_across_sigkill_restarts(server: Server) -> None:
    receiver = Receiver(SECRET).start()
    try:
        # 1. Committed with nothing feeding the outbox, then killed.
        with server.start(REFEREE_PROJECTIONS="separate") as channel:
            tours = ppbg.TournamentServiceStub(channel)
            tid = tours.CreateTournament(ppb.CreateTournamentRequest(
                name="Restarts", game="euchre"), metadata=bearer(AUDITOR)).tournament_id
            for team in ("N", "E"):
                tours.RegisterEntrant(ppb.RegisterEntrantRequest(
                    tournament_id=tid, entrant=team), metadata=bearer(AUDITOR))
            endpoint = wpbg.WebhookServiceStub(channel).AddWebhook(wpb.AddWebhookRequest(
                tournament_id=tid, url=receiver.url, secret=SECRET),
                metadata=AS_AUDITOR).endpoint.endpoint_id

            def new_table(channel: grpc.Channel) -> Table:
                table = create(pbg.RefereeServiceStub(channel), "euchre",
                               rules={"target_score": pb.RuleValue(int_value=3)})
                ppbg.TournamentServiceStub(channel).AttachMatch(ppb.AttachMatchRequest(
                    tournament_id=tid, match_id=table.match_id,
                    sides=["N", "E"]), metadata=bearer(AUDITOR))
                return table

            first = play_out(channel, new_table(channel), 1) + 1  # hands + match.finished
        server.kill()
        assert receiver.received == []

        with server.start() as channel:
            acknowledged = all_delivered(channel, endpoint, first)
            receiver.wait_for(first)
        server.kill()

        # 2. Enqueued while the receiver is down, then killed.
        receiver.stop()
        with server.start() as channel:
            second = first + play_out(channel, new_table(channel), 2) + 1
            deadline = time.monotonic() + 30
            while True:  # every event enqueued, and attempts failing
                rows = logged(channel, endpoint)[first:]
                if len(rows) == second - first and any(r.attempts for r in rows):
                    break
                assert time.monotonic() < deadline, "not enqueued, or no attempt made"
                time.sleep(0.1)
            assert all(r.state == wpb.DELIVERY_STATE_PENDING for r in rows)
            pending = [r.message_id for r in rows]
        server.kill()
        receiver.start()
        with server.start() as channel:
            delivered = all_delivered(channel, endpoint, second)
            receiver.wait_for(second)
    finally:
        receiver.stop()

    assert delivered[:first] == acknowledged and delivered[first:] == pending
    ids = [r.message_id for r in receiver.received]
    # 3. Acknowledged before the kills: sent exactly once.
    assert all(ids.count(m) == 1 for m in acknowledged), ids
    assert set(ids) == set(delivered) and all(r.verified for r in receiver.received)
