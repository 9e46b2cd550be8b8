"""``referee bench streams``: what idle watch streams cost the server.

Starts ``referee serve`` on a throw-away SQLite store, creates one public match, opens
``--streams`` idle ``WatchMatch`` streams (heartbeat 60 s) and as many ``WatchScoreboard``
streams on it, then reports the server process's CPU over ``--seconds`` (a share of one core).
``--server-checkout DIR`` runs the server from another checkout (an older commit, say), so
that two versions are compared side by side in one run, as BENCHMARKS.md does.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from typing import Any

import grpc

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.benchmarks.service import _start, _stop, _tree_cpu

STREAMS_PER_CHANNEL = 90  # under HTTP/2's 100 concurrent streams per connection


def run(streams: int = 500, seconds: float = 10.0, settle: float = 3.0,
        server_checkout: str = "") -> dict[str, Any]:
    """Open ``streams`` idle streams of each kind and measure the server's CPU share
    (the server run from ``server_checkout`` when given)."""
    with tempfile.TemporaryDirectory(prefix="referee-bench-streams-") as data:
        env = dict(os.environ, REFEREE_DATA_DIR=data, REFEREE_ANONYMOUS_RATE="0",
                   REFEREE_STREAMS_PER_PEER=str(4 * streams + 16))
        env.pop("PERSISTENCE_MODULE", None)
        if server_checkout:
            env["PYTHONPATH"] = os.path.abspath(server_checkout)
        # From the data directory: ``python -m`` puts the working directory first on the path.
        proc, address = _start([sys.executable, "-m", "referee", "serve", "--address",
                                "127.0.0.1:0", "--metrics-port", "0"], env, cwd=data)
        channels = [grpc.insecure_channel(address, options=[
            ("grpc.use_local_subchannel_pool", 1)])
            for _ in range(max(1, -(-2 * streams // STREAMS_PER_CHANNEL)))]
        play = [pbg.RefereeServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
        read = [ppbg.ProjectionsServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
        opened: list[Any] = []
        try:
            created = play[0].CreateMatch(
                pb.CreateMatchRequest(game="euchre", public_spectators=True))
            _scoreboard_ready(read[0], created.match_id)
            for i in range(streams):
                watch = play[2 * i % len(channels)].WatchMatch(
                    pb.WatchMatchRequest(match_id=created.match_id, heartbeat_seconds=60))
                board = read[(2 * i + 1) % len(channels)].WatchScoreboard(
                    ppb.WatchScoreboardRequest(match_id=created.match_id))
                opened += [watch, board]
                next(watch)
                next(board)  # both are open: the first message of each has come
            time.sleep(settle)
            before, started = sum(_tree_cpu([proc.pid]).values()), time.monotonic()
            time.sleep(seconds)
            used = sum(_tree_cpu([proc.pid]).values()) - before
            elapsed = time.monotonic() - started
        finally:
            for stream in opened:
                stream.cancel()
            for channel in channels:
                channel.close()
            _stop(proc)
    return {"server": os.path.abspath(server_checkout) if server_checkout else "this checkout",
            "watch_match_streams": streams, "watch_scoreboard_streams": streams,
            "seconds": round(elapsed, 2),
            "server_cpu_share_of_a_core": round(used / elapsed, 4)}


def _scoreboard_ready(stub: Any, match_id: str, timeout: float = 30.0) -> None:
    """Wait until the server's scoreboard view has the match (VIEW_NOT_READY until then)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            stub.GetScoreboard(ppb.GetScoreboardRequest(match_id=match_id))
            return
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.1)
