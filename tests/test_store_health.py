"""``referee.store_health``: the store monitor flips on a failed or unanswered ping, and back
(repairing the pools first) on the first ping that succeeds."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.store_health import StoreMonitor
from tests.pg_cluster import PgCluster


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A port that accepts TCP connections and never answers (a hung server)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield s.getsockname()[1]


def test_an_unanswered_ping_is_an_outage_within_its_timeout(black_hole: int) -> None:
    def connect() -> psycopg.Connection[Any]:
        return psycopg.connect(host="127.0.0.1", port=black_hole, user="x", dbname="x",
                               connect_timeout=2, autocommit=True)

    seen: list[bool] = []
    monitor = StoreMonitor(connect, interval=1.0, timeout=0.3)
    monitor.add_listener(seen.append)
    try:
        started = time.monotonic()
        assert monitor.check() is False
        assert time.monotonic() - started < 1.0
        assert monitor.available is False and seen == [False]
        assert monitor.check() is False  # the first ping still hangs: no second one
        assert seen == [False]
    finally:
        monitor.stop()


def test_no_monitor_without_postgresql(tmp_path: Path) -> None:
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path)}))
    try:
        assert StoreMonitor.for_app(app, 1.0) is None
    finally:
        app.close()
    with pytest.raises(ValueError, match="positive"):
        StoreMonitor(lambda: None, interval=0)  # type: ignore[arg-type,return-value]


@pytest.mark.postgres
def test_monitor_follows_the_store_down_and_up(pg_cluster: PgCluster) -> None:
    app = Referee(settings_from_env(pg_cluster.env()))
    seen: list[bool] = []
    monitor = StoreMonitor.for_app(app, 0.2)
    assert monitor is not None
    monitor.add_listener(seen.append)
    monitor.start()
    try:
        pg_cluster.stop("fast")
        _within(lambda: not monitor.available, 2.0)
        assert seen == [False]
        pg_cluster.start()
        _within(lambda: monitor.available, 2.0)
        assert seen == [False, True]
        started = time.monotonic()
        created = app.create_match("euchre")  # the pool was repaired: no backoff, no error
        assert app.get_view(created.match_id, created.seat_tokens[0]).version == created.version
        assert time.monotonic() - started < 1.0
    finally:
        monitor.stop()
        app.close()


def _within(what: Any, limit: float) -> None:
    deadline = time.monotonic() + limit
    while not what():
        assert time.monotonic() < deadline, "not within the limit"
        time.sleep(0.02)
