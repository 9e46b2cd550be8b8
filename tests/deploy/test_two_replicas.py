"""Two ``referee serve`` processes on one PostgreSQL, both taking commands for the same matches
at once (as replicas behind a load balancer do), never fork a match: every acknowledged action
is in the record once, in version order, the record replays legally through ``referee verify``,
and the stored versions are contiguous."""

from __future__ import annotations

import json
import random
import signal
import threading
import time
import uuid
from pathlib import Path

import grpc
import psycopg
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.verify import verify_path
from tests.deploy.helpers import start_server
from trick_referee_client.sdk import bearer

AUDITOR = "auditor-two-replicas"
MATCHES = 3
SECONDS = 5.0
EXPECTED = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED}


@pytest.mark.postgres
def test_two_servers_on_one_database_never_fork_a_match(
    postgres_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**postgres_env, "REFEREE_AUDITOR_TOKEN": AUDITOR}
    servers = [start_server(env, "--metrics-port", "0") for _ in range(2)]
    channels = [grpc.insecure_channel(address) for _, address in servers]
    stubs = [pbg.RefereeServiceStub(ch) for ch in channels]
    acks: dict[str, list[tuple[int, int, str]]] = {}
    unexpected: list[str] = []
    lock = threading.Lock()
    try:
        tables = []
        for i in range(MATCHES):
            created = stubs[i % 2].CreateMatch(pb.CreateMatchRequest(game="euchre"))
            tables.append((created.match_id, [t.token for t in created.seat_tokens]))
            acks[created.match_id] = []
        deadline = time.monotonic() + SECONDS

        def player(match_id: str, seat: int, token: str, seed: int) -> None:
            rng = random.Random(seed)
            while time.monotonic() < deadline:
                stub = stubs[rng.randrange(2)]  # reads from either replica
                try:
                    view = stub.GetView(pb.GetViewRequest(match_id=match_id),
                                        metadata=bearer(token))
                    if view.match_over:
                        return
                    if not view.legal_actions:
                        time.sleep(0.002)
                        continue
                except grpc.RpcError as exc:
                    note(exc)
                    continue
                action = rng.choice(list(view.legal_actions))
                # The same move through both replicas at once, as distinct commands (a client
                # retrying on another pod without its command id): at most one may land.
                calls = [s.SubmitAction.future(pb.SubmitActionRequest(
                    match_id=match_id, action=action,
                    command_id=str(uuid.uuid4()), seat=seat),
        metadata=bearer(token)) for s in stubs]
                for call in calls:
                    try:
                        resp = call.result().outcome
                    except grpc.RpcError as exc:
                        note(exc)
                        continue
                    assert not resp.replayed
                    with lock:
                        acks[match_id].append((resp.version, resp.seat, resp.action))

        def note(exc: grpc.RpcError) -> None:
            if exc.code() not in EXPECTED:  # type: ignore[attr-defined]
                with lock:
                    unexpected.append(f"{exc.code()}: {exc.details()}")  # type: ignore[attr-defined]

        threads = [
            threading.Thread(target=player, args=(match_id, seat, token, 100 * m + seat))
            for m, (match_id, tokens) in enumerate(tables)
            for seat, token in enumerate(tokens)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not unexpected, unexpected[:5]

        for match_id, _ in tables:
            mine = sorted(acks[match_id])
            assert len(mine) > 10, "both replicas took actions"
            versions = [v for v, _, _ in mine]
            assert len(set(versions)) == len(versions), "two actions acknowledged at one version"
            records = [
                stub.GetMatchRecord(pb.GetMatchRecordRequest(match_id=match_id),
                                    metadata=bearer(AUDITOR))
                .record_json for stub in stubs
            ]
            assert json.loads(records[0]) == json.loads(records[1]), "replicas agree"
            record = json.loads(records[0])
            recorded = [(a["seat"], a["action"]) for h in record["hands"] for a in h["actions"]]
            assert recorded == [(s, a) for _, s, a in mine], "the record is the acknowledged log"
            path = tmp_path / f"{match_id}.json"
            path.write_text(records[0])
            code, report = verify_path(str(path))
            assert code == 0, report
            last = stubs[0].GetView(pb.GetViewRequest(match_id=match_id),
                                    metadata=bearer(AUDITOR)).version
            assert last == versions[-1]
            with psycopg.connect(
                host=postgres_env["POSTGRES_HOST"], port=postgres_env.get("POSTGRES_PORT", "5432"),
                user=postgres_env.get("POSTGRES_USER"),
                password=postgres_env.get("POSTGRES_PASSWORD"),
                dbname=postgres_env.get("POSTGRES_DBNAME"),
            ) as conn:
                stored = [row[0] for row in conn.execute(
                    "SELECT originator_version FROM referee_events WHERE originator_id = %s "
                    "ORDER BY originator_version", (uuid.UUID(match_id),))]
            assert stored == list(range(stored[0], stored[0] + len(stored))), "contiguous"
            assert stored[-1] == last
    finally:
        for ch in channels:
            ch.close()
        for proc, _ in servers:
            proc.send_signal(signal.SIGTERM)
        for proc, _ in servers:
            assert proc.wait(20) == 0
