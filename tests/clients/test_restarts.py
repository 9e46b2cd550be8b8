"""Bots finish their matches across restarts of ``referee serve`` (issue 19, item 4).

Real processes only: ``referee serve`` (``tests/deploy/helpers.py``) and one
``referee-client bot`` process per seat (one table played by a single ``bot --tokens``
process), several tables of different games at once. Each scenario restarts the referee while
every match is under way, then requires every bot to exit 0 with its match over, and every
match record to pass ``referee verify``:

(a) SIGTERM and a restart on the same address (SQLite, the default store): a graceful stop
    ends the streams UNAVAILABLE / SERVER_STOPPING, which the bots resume from;
(b) SIGKILL and a restart (PostgreSQL): connections break mid-call;
(c) a rolling restart of two replicas on one PostgreSQL: the bots are given both addresses
    (``--address IP:port,IP:port``; gRPC's pick_first connects to the first that answers),
    replica A stops and comes back, then replica B; the bots move from one to the other.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from tests import procs
from tests.deploy.helpers import ROOT, free_port, start_server
from trick_referee_client import errors as e
from trick_referee_client.sdk import CreatedMatch, RefereeClient, View, bearer

pytestmark = pytest.mark.slow

AUDITOR = "auditor-of-the-restarts"
#: Tables long enough (~10 s with every bot on 2 cores) to be under way at every restart.
TABLES: dict[str, dict[str, Any]] = {
    "euchre": {"target_score": 5},
    "belot": {"target_score": 51},
    "ulti": {"deals": 3},
    "pedro": {"target_score": 21},  # one `bot --tokens` process plays every seat
}
#: For the rolling restart: two stops and two starts while every match is under way.
LONG_TABLES: dict[str, dict[str, Any]] = {
    "euchre": {"target_score": 10},
    "belot": {"target_score": 151},
    "ulti": {"deals": 6},
    "pedro": {"target_score": 41},
}
ALL_SEATS = "pedro"
PROGRESS = 6  # actions every match has made before a restart
THINK = 0.04  # seconds each bot waits before acting: matches last, CPU is left for the servers


@dataclass
class Server:
    """One ``referee serve`` on a fixed address, restartable there."""

    env: dict[str, str]
    address: str = field(default_factory=lambda: f"127.0.0.1:{free_port()}")
    proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc, printed = start_server(self.env, "--address", self.address)
        assert printed == self.address

    def stop(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = self.proc.wait(30)
        assert code == (0 if sig == signal.SIGTERM else -signal.SIGKILL), code


@dataclass
class Tables:
    """The matches and their bot processes."""

    address: str
    tables: dict[str, dict[str, Any]]
    matches: dict[str, CreatedMatch] = field(default_factory=dict)
    bots: list[tuple[str, subprocess.Popen[str]]] = field(default_factory=list)

    def create(self, client: RefereeClient) -> None:
        for game, rules in self.tables.items():
            self.matches[game] = client.create_match(game, rules=rules)

    def play(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        for game, m in self.matches.items():
            seats = ([["--tokens=" + ",".join(m.tokens)]] if game == ALL_SEATS else
                     [["--seat", str(s), f"--token={t}"] for s, t in enumerate(m.tokens)])
            for args in seats:
                proc = procs.popen(
                    [sys.executable, "-m", "referee_clients.cli", "bot", "--match", m.match_id,
                     "--address", self.address, "--json", "--resume-for", "60",
                     "--think", str(THINK), *args],
                    cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True)
                self.bots.append((game, proc))

    def views(self, client: RefereeClient) -> dict[str, View]:
        deadline = time.monotonic() + 30
        while True:  # the test's own reads ride out the restarts too
            try:
                return {g: client.get_view(m.match_id, AUDITOR)
                        for g, m in self.matches.items()}
            except e.Unavailable:
                assert time.monotonic() < deadline, "the referee did not come back"
                time.sleep(0.1)

    def under_way(self, client: RefereeClient, since: dict[str, View] | None = None,
                  timeout: float = 60.0) -> dict[str, View]:
        """Wait until every match made PROGRESS actions (since ``since``); none may be over."""
        deadline = time.monotonic() + timeout
        while True:
            views = self.views(client)
            over = [g for g, v in views.items() if v.match_over]
            assert not over, f"{over} ended before the restart: lengthen TABLES"
            base = since or {g: None for g in views}
            if all(v.version >= (base[g].version if base[g] else self.matches[g].version)
                   + PROGRESS for g, v in views.items()):
                return views
            assert time.monotonic() < deadline, {g: v.version for g, v in views.items()}
            time.sleep(0.05)

    def finish(self, client: RefereeClient, tmp: Path, restarted: list[dict[str, View]]
               ) -> None:
        """Every bot exits 0 with its match over; every match went on after each restart
        and its record passes ``referee verify``."""
        for game, proc in self.bots:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, f"{game} bot exited {proc.returncode}: {err[-2000:]}"
            assert json.loads(out.strip().splitlines()[-1])["match_over"] is True, out
        final = self.views(client)
        lines = []
        for game, m in self.matches.items():
            assert final[game].match_over
            for views in restarted:  # under way at the restart, finished after it
                assert final[game].version > views[game].version
            lines.append(client.get_match_record(m.match_id, AUDITOR).data)
        path = tmp / "records.ndjson"
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        verify = subprocess.run([sys.executable, "-m", "referee", "verify", str(path)],
                                cwd=ROOT, capture_output=True, text=True, timeout=120,
                                env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert len(lines) == len(self.tables)


def _stream_end(address: str, m: CreatedMatch) -> tuple[list[grpc.RpcError], threading.Thread]:
    """A raw ``WatchMatch`` stream (no SDK) followed on a thread; its end is collected."""
    ended: list[grpc.RpcError] = []
    channel = grpc.insecure_channel(address)
    stream = pbg.RefereeServiceStub(channel).WatchMatch(  # type: ignore[no-untyped-call]
        pb.WatchMatchRequest(match_id=m.match_id,
                             heartbeat_seconds=1), metadata=bearer(m.spectator_token))
    next(stream)

    def follow() -> None:
        try:
            for _ in stream:
                pass
        except grpc.RpcError as exc:
            ended.append(exc)
        finally:
            channel.close()

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    return ended, thread


def _scenario(servers: list[Server], address: str, tmp: Path,
              restart: Callable[[RefereeClient, Tables], list[dict[str, View]]],
              games: dict[str, dict[str, Any]] = TABLES) -> None:
    for s in servers:
        s.start()
    try:
        with RefereeClient(address, timeout=20) as client:
            tables = Tables(address, games)
            tables.create(client)
            tables.play()
            restarted = restart(client, tables)
            tables.finish(client, tmp, restarted)
    finally:
        for s in servers:
            if s.proc is not None and s.proc.poll() is None:
                s.stop(signal.SIGTERM)


def test_bots_finish_their_matches_across_a_sigterm_restart(tmp_path: Path) -> None:
    server = Server({"REFEREE_DATA_DIR": str(tmp_path / "data"),
                     "REFEREE_AUDITOR_TOKEN": AUDITOR, "REFEREE_ANONYMOUS_RATE": "0"})

    def restart(client: RefereeClient, tables: Tables) -> list[dict[str, View]]:
        views = tables.under_way(client)
        ended, follower = _stream_end(server.address, tables.matches["euchre"])
        server.stop(signal.SIGTERM)
        follower.join(10)
        # The stream did not end OK: UNAVAILABLE, saying where to resume.
        assert ended and ended[0].code() == grpc.StatusCode.UNAVAILABLE, ended
        stopping = e.from_rpc_error(ended[0])
        assert isinstance(stopping, e.ServerStopping), stopping
        assert ended[0].details().startswith("server shutting down; resume from version ")
        time.sleep(1.0)  # the bots find nobody there for a while
        server.start()
        return [views]

    _scenario([server], server.address, tmp_path, restart)


@pytest.mark.postgres
def test_bots_finish_their_matches_across_a_sigkill_restart(
        postgres_env: dict[str, str], tmp_path: Path) -> None:
    server = Server({**postgres_env, "REFEREE_AUDITOR_TOKEN": AUDITOR,
                     "REFEREE_ANONYMOUS_RATE": "0"})

    def restart(client: RefereeClient, tables: Tables) -> list[dict[str, View]]:
        views = tables.under_way(client)
        server.stop(signal.SIGKILL)  # mid-call: some bots' actions are in flight
        time.sleep(1.0)
        server.start()
        return [views]

    _scenario([server], server.address, tmp_path, restart)


@pytest.mark.postgres
def test_bots_finish_their_matches_across_a_rolling_restart_of_two_replicas(
        postgres_env: dict[str, str], tmp_path: Path) -> None:
    env = {**postgres_env, "REFEREE_AUDITOR_TOKEN": AUDITOR, "REFEREE_ANONYMOUS_RATE": "0"}
    a, b = Server(env), Server(env)
    both = f"{a.address},{b.address}"  # pick_first: A while it answers, else B

    def restart(client: RefereeClient, tables: Tables) -> list[dict[str, View]]:
        seen = [tables.under_way(client)]
        for replica in (a, b):  # one at a time, as a Deployment's rolling update does
            replica.stop(signal.SIGTERM)
            seen.append(tables.under_way(client, since=seen[-1]))  # on the other replica
            replica.start()
        return seen

    _scenario([a, b], both, tmp_path, restart, LONG_TABLES)
