"""Watch streams hold no server thread while they wait: many more streams than threads stay
open, each sees every change of its match, and the blocking calls still get threads."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.service.server import build_server
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, step
from trick_referee_client.sdk import bearer

THREADS = 4
STREAMS = 60  # on one connection (HTTP/2 allows 100 concurrent streams by default)


@pytest.fixture(scope="module")
def few_threads(app: Referee) -> Iterator[pbg.RefereeServiceStub]:
    """A server with only ``THREADS`` threads for the blocking calls."""
    server, port = build_server(app, "127.0.0.1:0", max_workers=THREADS)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        yield pbg.RefereeServiceStub(ch)
    server.stop(1.0)


def test_many_more_watch_streams_than_threads(app: Referee,
                                              few_threads: pbg.RefereeServiceStub) -> None:
    stub = few_threads
    rng = random.Random(11)
    tables = [create(stub, "euchre") for _ in range(3)]
    streams = [
        stub.WatchMatch(pb.WatchMatchRequest(
            match_id=tables[i % 3].match_id,
            heartbeat_seconds=30), timeout=60, metadata=bearer(tables[i % 3].tokens[i % 4]))
        for i in range(STREAMS)
    ]
    firsts = [next(s) for s in streams]  # every stream is open and waiting
    assert all(f.version == 2 and not f.heartbeat for f in firsts)
    # The blocking calls still find a thread, and actions are taken.
    view = stub.GetView(pb.GetViewRequest(match_id=tables[0].match_id),
                        timeout=10, metadata=bearer(AUDITOR))
    assert view.version == 2
    acks = {t.match_id: step(stub, t, rng)[0].version for t in tables[:2]}
    # Each watcher of a table that changed sees the new version at once; the third table's
    # watchers are not woken (no heartbeat is due for 30 s).
    seen: dict[int, int] = {}

    def read(i: int) -> None:
        msg = next(streams[i])
        seen[i] = msg.version

    readers = [threading.Thread(target=read, args=(i,)) for i in range(STREAMS)
               if tables[i % 3].match_id in acks]
    for r in readers:
        r.start()
    for r in readers:
        r.join(20)
    for i in range(STREAMS):
        table = tables[i % 3]
        if table.match_id in acks:
            assert seen[i] == acks[table.match_id]
    for s in streams:
        s.cancel()
    # A stream that ended leaves nothing waiting behind it.
    deadline = time.monotonic() + 10
    while app.changes.keys() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not app.changes.keys()
