"""``referee serve`` as a real process: SIGKILL loses no acknowledged action, SIGTERM stops
gracefully, and retries after a restart are answered from the record."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from tests import procs
from tests.service.conftest import AUDITOR
from tests.service.helpers import create
from trick_referee_client.sdk import bearer

ROOT = Path(__file__).resolve().parents[2]


def start(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, REFEREE_AUDITOR_TOKEN=AUDITOR, PYTHONUNBUFFERED="1")
    env.pop("PERSISTENCE_MODULE", None)
    proc = procs.popen(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--data-dir", str(data_dir), "--grace", "2"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    assert found, f"no address in {line!r}"
    return proc, found.group(1)


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"


def test_sigkill_then_restart_keeps_every_acknowledged_action(data_dir: Path) -> None:
    proc, address = start(data_dir)
    try:
        with grpc.insecure_channel(address) as ch:
            stub = pbg.RefereeServiceStub(ch)
            table = create(stub, "euchre")
            rng = random.Random(5)
            acked: list[tuple[pb.SubmitActionRequest, pb.SubmitActionResponse]] = []
            for _ in range(40):
                seat = stub.GetView(pb.GetViewRequest(
                    match_id=table.match_id), metadata=bearer(AUDITOR)).to_act
                view = stub.GetView(pb.GetViewRequest(
                    match_id=table.match_id), metadata=bearer(table.tokens[seat]))
                req = pb.SubmitActionRequest(
                    match_id=table.match_id, seat=seat,
                    action=rng.choice(list(view.legal_actions)), command_id=str(uuid.uuid4()))
                acked.append((req, stub.SubmitAction(
                    req, metadata=bearer(table.tokens[seat])).outcome))
            before = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                                  metadata=bearer(AUDITOR))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    proc, address = start(data_dir)
    try:
        with grpc.insecure_channel(address) as ch:
            stub = pbg.RefereeServiceStub(ch)
            after = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                                 metadata=bearer(AUDITOR))
            assert after.version == before.version == acked[-1][1].version
            assert after.table == before.table
            for req, resp in acked:
                again = stub.SubmitAction(req, metadata=bearer(table.tokens[req.seat])).outcome
                assert again.replayed and again.version == resp.version
                assert list(again.facts) == list(resp.facts)
            record = json.loads(stub.GetMatchRecord(pb.GetMatchRecordRequest(
                match_id=table.match_id), metadata=bearer(AUDITOR)).record_json)
            recorded = [(a["seat"], a["action"]) for h in record["hands"] for a in h["actions"]]
            assert recorded == [(r.seat, r.action) for _, r in acked]
            final = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                                 metadata=bearer(AUDITOR))
            assert final.version == before.version
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0, "SIGTERM stops gracefully"
