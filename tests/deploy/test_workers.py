"""``referee serve --workers 2`` on PostgreSQL (and SQLite) over real channels: the kernel spreads
connections over both processes; matches played through both at once (every action checked
against the other worker's stale cache) never refuse a legal action nor fork a match; a
``command_id`` retried through the other worker is answered from the record; SIGTERM stops
both workers without losing an acknowledged action."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import uuid
from pathlib import Path

import grpc
import psycopg
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.verify import verify_path
from tests.deploy.helpers import start_server
from trick_referee_client.sdk import bearer

AUDITOR = "auditor-workers"


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def _connections(pid: int, port: int) -> int:
    """Established connections to ``port`` held by process ``pid``."""
    inodes = set()
    for name in ("tcp", "tcp6"):
        with open(f"/proc/net/{name}") as f:
            for row in f.readlines()[1:]:
                cols = row.split()
                if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "01":
                    inodes.add(cols[9])
    held = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            held += 1
    return held


def _channel(address: str) -> grpc.Channel:
    return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


@pytest.mark.postgres
def test_two_workers_share_the_port_and_never_refuse_a_legal_action(
    postgres_env: dict[str, str], tmp_path: Path
) -> None:
    # A fresh schema: the workers start on an empty database (the first creates the tables).
    schema = f"workers_{uuid.uuid4().hex[:8]}"
    with _connect(postgres_env) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        _play({**postgres_env, "POSTGRES_SCHEMA": schema}, tmp_path)
    finally:
        with _connect(postgres_env) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_two_workers_on_sqlite(tmp_path: Path) -> None:
    """The embedded store too: both processes on one SQLite file (views in worker 0)."""
    _play({"REFEREE_DATA_DIR": str(tmp_path / "data")}, tmp_path)


def _connect(pg: dict[str, str]) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(
        host=pg["POSTGRES_HOST"],
        port=pg.get("POSTGRES_PORT", "5432"),
        user=pg.get("POSTGRES_USER"),
        password=pg.get("POSTGRES_PASSWORD"),
        dbname=pg.get("POSTGRES_DBNAME"),
        autocommit=True,
    )


def _play(store: dict[str, str], tmp_path: Path) -> None:
    env = {**store, "REFEREE_AUDITOR_TOKEN": AUDITOR}
    proc, address = start_server(env, "--metrics-port", "0", "--workers", "2")
    port = int(address.rsplit(":", 1)[1])
    channels: list[grpc.Channel] = []
    try:
        workers = _children(proc.pid)
        assert len(workers) == 2
        # Open channels (one connection each) until both workers hold some.
        while len(channels) < 64:
            channels.append(_channel(address))
            pbg.RefereeServiceStub(channels[-1]).ListGames(pb.ListGamesRequest())  # type: ignore[no-untyped-call]
            if len(channels) >= 4 and all(_connections(w, port) for w in workers):
                break
        assert all(_connections(w, port) for w in workers), "connections on both workers"
        stubs = [pbg.RefereeServiceStub(ch) for ch in channels]  # type: ignore[no-untyped-call]
        rng = random.Random(3)
        tables = []
        for i in range(3):
            created = stubs[i % len(stubs)].CreateMatch(pb.CreateMatchRequest(game="euchre"))
            tables.append((created.match_id, [t.token for t in created.seat_tokens]))
        acks: dict[str, list[tuple[int, int, str]]] = {m: [] for m, _ in tables}
        for _ in range(40):  # every action through a channel picked at random
            for match_id, tokens in tables:
                view = rng.choice(stubs).GetView(
                    pb.GetViewRequest(match_id=match_id), metadata=bearer(AUDITOR)
                )
                if view.match_over:
                    continue
                seat = view.to_act
                mine = rng.choice(stubs).GetView(
                    pb.GetViewRequest(match_id=match_id), metadata=bearer(tokens[seat])
                )
                action = rng.choice(list(mine.legal_actions))
                command = str(uuid.uuid4())
                request = pb.SubmitActionRequest(
                    match_id=match_id, action=action, command_id=command
                )
                resp = rng.choice(stubs).SubmitAction(  # it is legal: accepted
                    request, metadata=bearer(tokens[seat])).outcome
                assert not resp.replayed and resp.version > view.version
                acks[match_id].append((resp.version, seat, resp.action))
                again = rng.choice(stubs).SubmitAction(  # a retry, anywhere
                    request, metadata=bearer(tokens[seat])).outcome
                assert again.replayed and again.version == resp.version
        for match_id, _ in tables:
            record = (
                stubs[0]
                .GetMatchRecord(pb.GetMatchRecordRequest(match_id=match_id),
                                metadata=bearer(AUDITOR))
                .record_json
            )
            recorded = [
                (a["seat"], a["action"]) for h in json.loads(record)["hands"] for a in h["actions"]
            ]
            assert recorded == [(s, a) for _, s, a in acks[match_id]]
            path = tmp_path / f"{match_id}.json"
            path.write_text(record)
            code, report = verify_path(str(path))
            assert code == 0, report

        # SIGTERM while a client keeps acting: every acknowledged action is in the store.
        match_id, tokens = tables[0]
        last: list[int] = []
        stop = threading.Event()

        def keep_playing() -> None:
            prng = random.Random(5)
            while not stop.is_set():
                try:
                    stub = prng.choice(stubs)
                    view = stub.GetView(pb.GetViewRequest(match_id=match_id),
                                        metadata=bearer(AUDITOR))
                    if view.match_over:
                        return
                    mine = stub.GetView(
                        pb.GetViewRequest(match_id=match_id), metadata=bearer(tokens[view.to_act])
                    )
                    resp = stub.SubmitAction(
                        pb.SubmitActionRequest(
                            match_id=match_id,
                            action=prng.choice(list(mine.legal_actions)),
                            command_id=str(uuid.uuid4()),
                        ), metadata=bearer(tokens[view.to_act])
                    )
                    last.append(resp.outcome.version)
                except grpc.RpcError:
                    return

        player = threading.Thread(target=keep_playing)
        player.start()
        while len(last) < 5 and player.is_alive():
            threading.Event().wait(0.01)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        stop.set()
        player.join(10)
        assert last
        for w in workers:  # both workers are gone
            assert (
                not os.path.exists(f"/proc/{w}")
                or "zombie" in Path(f"/proc/{w}/status").read_text()
            )
        check = Referee(settings_from_env(env))
        try:
            assert check.get_match(uuid.UUID(match_id)).version >= max(last)
        finally:
            check.close()
    finally:
        for ch in channels:
            ch.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_dead_worker_stops_the_others(tmp_path: Path) -> None:
    """If a worker dies, the parent stops the other one and exits 1 (for its supervisor to
    restart the lot), rather than serving on with part of the connections refused."""
    env = {"REFEREE_DATA_DIR": str(tmp_path / "data"), "REFEREE_AUDITOR_TOKEN": AUDITOR}
    proc, _ = start_server(env, "--metrics-port", "0", "--workers", "2")
    try:
        first, second = _children(proc.pid)
        os.kill(first, signal.SIGKILL)
        assert proc.wait(30) == 1
        assert (
            not os.path.exists(f"/proc/{second}")
            or "zombie" in Path(f"/proc/{second}/status").read_text()
        )
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
