"""Clients resume on any stream end before the match is over (issue 19's first defect): a
graceful restart (SIGTERM, every Kubernetes rolling update) used to end WatchMatch streams
*normally*, and the SDK's watch returned then, so bots and watchers stopped for good. The
server now ends them UNAVAILABLE / SERVER_STOPPING, and the SDK resumes on any end that is
not the match's (tests/clients/test_retries.py, and test_restarts.py over real processes)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import grpc

from referee.application import Referee
from referee.config import settings_from_env
from referee.service.server import build_server
from trick_referee_client.sdk import RefereeClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_watch_survives_a_graceful_server_restart(tmp_path: Path) -> None:
    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_ANONYMOUS_RATE": "0"}
    address = f"127.0.0.1:{_free_port()}"

    def start() -> tuple[Referee, object]:
        app = Referee(settings_from_env(env))
        server, _ = build_server(app, address)
        server.start()
        return app, server

    app, server = start()
    client = RefereeClient(address, backoff=0.05)
    created = client.create_match("euchre")
    seen: list[int] = []
    got_new = threading.Event()

    def watch() -> None:
        for update in client.watch(created.match_id, created.spectator_token,
                                   heartbeat_seconds=1, resume_for=20):
            if update.view is not None:
                seen.append(update.version)
                if update.version > created.version:
                    got_new.set()
                    return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    deadline = time.monotonic() + 10
    while not seen:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    server.stop(1.0)  # type: ignore[attr-defined]  # graceful: SERVER_STOPPING
    app.close()
    time.sleep(0.5)  # the watcher is now reconnecting
    app, server = start()
    try:
        # Another client, on a connection of its own: channels to one address share
        # gRPC's subchannels, and with them the watcher's reconnection backoff.
        fresh = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        with fresh, RefereeClient(address, channel=fresh) as player:
            player.submit_action(created.match_id, created.tokens[1], "pass")
        assert got_new.wait(15), f"the watch did not come back (saw versions {seen})"
        assert seen[-1] == created.version + 1
    finally:
        watcher.join(5)
        client.close()
        server.stop(1.0)  # type: ignore[attr-defined]
        app.close()
