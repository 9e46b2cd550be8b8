"""``referee.persistence``: PostgreSQL that fails fast (settings, bounded retry, timeouts, the
group commit during an outage)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID, uuid4

import psycopg
import psycopg_pool
import pytest
from eventsourcing.persistence import OperationalError

from referee.application import Referee
from referee.config import POSTGRES_FACTORY, settings_from_env
from referee.domain.errors import StoreUnavailableError
from referee.persistence import ATTEMPTS, PostgresFactory, bounded_retry, is_outage
from tests.pg_cluster import PgCluster

PG = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_HOST": "db",
      "POSTGRES_USER": "u", "POSTGRES_PASSWORD": "", "POSTGRES_DBNAME": "d"}


def test_eventsourcing_postgres_selects_the_fail_fast_factory_with_short_defaults(
    tmp_path: Path,
) -> None:
    settings = settings_from_env(PG)
    assert settings.store_env["PERSISTENCE_MODULE"] == POSTGRES_FACTORY
    assert settings.backend == "postgres"
    assert settings.store_env["POSTGRES_CONNECT_TIMEOUT"] == "2"
    assert settings.store_env["POSTGRES_STATEMENT_TIMEOUT"] == "10"
    assert settings.store_env["POSTGRES_PASSWORD"] == ""  # passed on as before
    again = settings_from_env(settings.store_env)  # the mapped environment maps to itself
    assert again.store_env == settings.store_env
    own = settings_from_env({**PG, "POSTGRES_CONNECT_TIMEOUT": "7",
                             "POSTGRES_STATEMENT_TIMEOUT": "0", "REFEREE_STORE_PING_SECONDS": "0"})
    assert own.store_env["POSTGRES_CONNECT_TIMEOUT"] == "7"
    assert own.store_env["POSTGRES_STATEMENT_TIMEOUT"] == "0"
    assert own.store_ping == 0
    assert settings_from_env({"REFEREE_DATA_DIR": str(tmp_path)}).backend == "sqlite"


def test_a_bad_timeout_is_a_clear_error() -> None:
    env = {**settings_from_env(PG).store_env, "POSTGRES_STATEMENT_TIMEOUT": "soon"}
    with pytest.raises(OSError, match="POSTGRES_STATEMENT_TIMEOUT must be a whole number"):
        PostgresFactory(env)


def test_outages_are_told_from_failed_statements() -> None:
    def caused_by(cause: BaseException) -> OperationalError:
        exc = OperationalError(str(cause))
        exc.__cause__ = cause
        return exc

    assert is_outage(caused_by(psycopg_pool.PoolTimeout("no connection")))
    assert is_outage(caused_by(psycopg.OperationalError("connection refused")))  # no SQLSTATE
    assert is_outage(caused_by(psycopg.errors.AdminShutdown("terminating connection")))
    assert is_outage(StoreUnavailableError("down"))
    assert not is_outage(caused_by(psycopg.errors.QueryCanceled("statement timeout")))
    assert not is_outage(caused_by(psycopg.errors.DeadlockDetected("deadlock")))
    assert not is_outage(OperationalError("database is locked"))  # SQLite
    assert not is_outage(ValueError("x"))


def _failing(exc: Callable[[], BaseException]) -> tuple[Callable[[], None], list[float]]:
    calls: list[float] = []

    def method() -> None:
        calls.append(time.monotonic())
        raise exc()

    return method, calls


def test_bounded_retry_never_retries_a_pool_timeout_and_stops_after_three() -> None:
    def timed_out() -> OperationalError:
        exc = OperationalError("couldn't get a connection")
        exc.__cause__ = psycopg_pool.PoolTimeout()
        return exc

    method, calls = _failing(timed_out)
    with pytest.raises(OperationalError):
        bounded_retry(method)()
    assert len(calls) == 1
    method, calls = _failing(lambda: OperationalError("server closed the connection"))
    with pytest.raises(OperationalError):
        bounded_retry(method)()
    assert len(calls) == ATTEMPTS
    method, calls = _failing(lambda: ValueError("not a store error"))
    with pytest.raises(ValueError):
        bounded_retry(method)()
    assert len(calls) == 1


@pytest.mark.postgres
def test_events_go_to_the_insert_function_in_binary(postgres_env: dict[str, str],
                                                     tmp_path: Path) -> None:
    """With DB functions on (the default), the recorder passes the events in binary (%b): a
    subclass of eventsourcing's recorder, not a patch of a live one; the rows are the same."""
    env = {**postgres_env, "REFEREE_DATA_DIR": str(tmp_path),
           "POSTGRES_SCHEMA": "binary_" + uuid4().hex[:10]}
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                         user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                         dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {env['POSTGRES_SCHEMA']}")
    app = Referee(settings_from_env(env))
    try:
        statement = app.recorder.sql_invoke_pg_function_insert_events  # type: ignore[attr-defined]
        assert "%b" in statement.as_string(None)
        created = app.create_match("euchre")
        stored = app.recorder.select_events(created.match_id)
        assert [e.originator_version for e in stored] == [1, 2]
        assert app.get_match(created.match_id).version == created.version
    finally:
        app.close()


@pytest.mark.postgres
def test_a_long_statement_is_cancelled(postgres_env: dict[str, str]) -> None:
    factory = PostgresFactory({**settings_from_env(postgres_env).store_env,
                               "POSTGRES_STATEMENT_TIMEOUT": "1"})
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError, match="statement timeout"), \
                factory.datastore.transaction(commit=False) as curs:
            curs.execute("SELECT pg_sleep(5)")
        assert time.monotonic() - started < 3
    finally:
        factory.close()


@pytest.mark.postgres
def test_commits_waiting_when_the_store_goes_down_all_fail_within_seconds(
    pg_cluster: PgCluster,
) -> None:
    """The group commit hands an outage to every caller of a batch at once, instead of
    trying each one alone (each would wait for a connection)."""
    app = Referee(settings_from_env(pg_cluster.env()))
    try:
        moves = []  # (match, token, a legal action), read while the store is up
        for _ in range(8):
            created = app.create_match("euchre")
            seat = app.get_view(created.match_id, created.seat_tokens[0]).to_act
            assert seat is not None
            token = created.seat_tokens[seat]
            moves.append((created.match_id, token,
                          app.get_view(created.match_id, token).legal_actions[0]))
        pg_cluster.stop("fast")
        errors: list[BaseException] = []

        def act(match_id: UUID, token: str, action: str) -> None:
            try:
                app.submit_action(match_id, token, action)  # from the cache: no read first
            except BaseException as exc:
                errors.append(exc)

        started = time.monotonic()
        threads = [threading.Thread(target=act, args=move) for move in moves]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        took = time.monotonic() - started
    finally:
        app.close()
    assert len(errors) == len(moves)
    assert all(is_outage(e) for e in errors), errors
    assert took < 6, f"{took:.1f}s"
