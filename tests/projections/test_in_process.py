"""``referee serve`` keeps the views itself on PostgreSQL too (no ``referee projections``
needed), leaves them to separate workers with ``REFEREE_PROJECTIONS=separate`` (and then says
so in ``VIEW_NOT_READY``), and of several processes on one database only one writes a view."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee_projections.runner import ProjectionWorker
from referee_projections.views import PROJECTIONS
from tests.deploy.helpers import start_server
from trick_referee_client.errors import ViewNotReady
from trick_referee_client.sdk import RefereeClient

pytestmark = [pytest.mark.postgres,
              pytest.mark.parametrize("env", ["postgres"], indirect=True)]


def eventually(cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.05)


def test_serve_on_postgres_answers_scoreboards_by_itself(env: dict[str, str]) -> None:
    proc, address = start_server(env, "--metrics-port", "0")  # no flag, no other process
    try:
        with RefereeClient(address, retries=0) as client:
            m = client.create_match("euchre", players=["a", "b", "c", "d"])
            deadline = time.monotonic() + 20
            while True:
                try:
                    board = client.get_scoreboard(m.match_id, m.spectator_token)
                    break
                except ViewNotReady:
                    assert time.monotonic() < deadline, "the in-process views never caught up"
                    time.sleep(0.05)
            assert board.players == ["a", "b", "c", "d"] and board.state == "playing"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_separate_projections_say_what_to_run(env: dict[str, str]) -> None:
    proc, address = start_server(env, "--metrics-port", "0", "--projections", "separate")
    try:
        with RefereeClient(address, retries=0) as client:
            m = client.create_match("euchre")
            time.sleep(0.5)  # nothing would have caught up in process anyway
            with pytest.raises(ViewNotReady) as caught:
                client.get_scoreboard(m.match_id, m.spectator_token)
            assert "`referee projections`" in caught.value.message
            assert "REFEREE_PROJECTIONS=separate" in caught.value.message
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_one_process_writes_each_view_and_another_takes_over(app: Referee,
                                                             env: dict[str, str]) -> None:
    other = Referee(settings_from_env(env))  # a second server on the same database
    first = ProjectionWorker(app.event_log, poll=0.05).start()
    eventually(lambda: first.locks is not None and all(first.locks.holds(n) for n in PROJECTIONS),
               "the first worker takes every view")
    second = ProjectionWorker(other.event_log, poll=0.05).start()
    try:
        app.create_match("euchre")
        first.wait(timeout=20)
        time.sleep(1.5)  # the second has tried (and failed) to take the views meanwhile
        assert second.locks is not None and not any(second.locks.holds(n) for n in PROJECTIONS)
        assert second.error is None and first.error is None

        first.stop()  # the first server stops: the second takes over and follows new writes
        other.create_match("coinche")
        second.wait(timeout=20)
        assert all(second.locks.holds(n) for n in PROJECTIONS)
        assert second.error is None
    finally:
        first.stop()
        second.stop()
        other.close()


def test_a_rebuild_is_refused_while_a_server_writes_the_view(app: Referee, env: dict[str, str],
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    from referee_projections.runner import run_process

    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    try:
        eventually(lambda: worker.locks is not None and worker.locks.holds("scoreboard"),
                   "the worker takes the scoreboard view")
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        with pytest.raises(SystemExit, match="the scoreboard view is being written by another "
                                             "process"):
            run_process(list(PROJECTIONS), rebuild="scoreboard")
    finally:
        worker.stop()


def test_views_hold_few_connections_and_give_them_back(env: dict[str, str]) -> None:
    """A server's views (three written, three read) used a pool of five connections each and
    never closed them: a test run on PostgreSQL's default ``max_connections=100`` ran out
    ("too many clients"). Now each view has a one-connection pool, closed with its owner."""
    import psycopg

    from referee_projections.queries import Queries

    def backends() -> int:
        with psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                             user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"],
                             dbname=env["POSTGRES_DBNAME"], autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM pg_stat_activity "
                               "WHERE backend_type = 'client backend'").fetchone()
            return int(row[0]) - 1 if row else 0  # not this one

    before = backends()
    app = Referee(settings_from_env(env))
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    queries = Queries(app)
    m = app.create_match("euchre", players=["a", "b", "c", "d"])
    worker.wait()
    assert queries.scoreboard(m.match_id, m.seat_tokens[0])["players"] == ["a", "b", "c", "d"]
    pool = int(app.settings.store_env.get("POSTGRES_POOL_SIZE", "5"))
    # The log's pool and its health probe; six views, each its one pooled connection plus the
    # one eventsourcing opens to create tables; the views' lock. (Before: 36.)
    assert backends() - before <= pool + 1 + 6 * 2 + 1
    worker.stop()
    app.close()  # closes the queries' views too
    eventually(lambda: backends() <= before, "every connection given back", 10.0)
