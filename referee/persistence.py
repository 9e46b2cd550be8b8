"""PostgreSQL that fails fast: eventsourcing's PostgreSQL persistence with short timeouts and a
bounded retry, so that a call fails within seconds when the database is down, not minutes.

``referee.config`` selects :class:`PostgresFactory` (``referee.config.POSTGRES_FACTORY``) when
``PERSISTENCE_MODULE=eventsourcing.postgres``, and sets the defaults of the settings below.
Compared with eventsourcing's own factory:

- its recorders call eventsourcing's undecorated methods (``__wrapped__``) under
  :func:`bounded_retry` (at most three attempts within one second, never after the pool timed
  out) instead of ``@retry(max_attempts=10, wait=0.2)``;
- the pool waits ``POSTGRES_CONNECT_TIMEOUT`` seconds for a connection, which is also libpq's
  ``connect_timeout``; it gives up reconnecting after as long (it grows again as soon as a
  caller asks, or :func:`recover_pools` is called), so a database back from an outage is used
  at once rather than after the pool's exponential backoff;
- every session gets ``statement_timeout`` (``POSTGRES_STATEMENT_TIMEOUT`` seconds, 0: none)
  and the same ``tcp_user_timeout``, so a statement on a dead link ends too.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
import weakref
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import eventsourcing.postgres as es_postgres
import psycopg
import psycopg_pool
from eventsourcing.persistence import InterfaceError, OperationalError
from eventsourcing.utils import Environment, EnvType
from psycopg.sql import SQL, Identifier

from referee.domain.errors import StoreUnavailableError

ATTEMPTS = 3
RETRY_BUDGET = 1.0  # seconds after the first attempt during which a failure is retried
log = logging.getLogger("referee.persistence")
P = ParamSpec("P")
R = TypeVar("R")

_pools: weakref.WeakSet[psycopg_pool.ConnectionPool[Any]] = weakref.WeakSet()
# SQLSTATEs of a lost or refused connection: class 08, and the server shutting down or not
# yet accepting connections (57P01-57P03). A cancelled statement (57014) is not an outage.
_OUTAGE_STATES = ("08", "57P01", "57P02", "57P03")


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the store cannot be reached, as opposed to a
    failed statement: the pool timed out or is closed, the connection was lost or refused, the
    server is shutting down."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, StoreUnavailableError | InterfaceError | psycopg.InterfaceError
                      | psycopg_pool.PoolTimeout | psycopg_pool.PoolClosed):
            return True
        if isinstance(seen, psycopg.OperationalError):
            state = seen.sqlstate
            return state is None or state.startswith(_OUTAGE_STATES)
        seen = seen.__cause__
    return False


def _pool_gave_up(exc: BaseException) -> bool:
    return isinstance(exc.__cause__, psycopg_pool.PoolTimeout | psycopg_pool.PoolClosed)


def bounded_retry(method: Callable[P, R]) -> Callable[P, R]:
    """``method`` without eventsourcing's retry decorator (its ``__wrapped__``), retried on
    ``InterfaceError``/``OperationalError`` at most :data:`ATTEMPTS` times and only within
    :data:`RETRY_BUDGET` seconds: enough to get past a pooled connection that broke while
    idle, never a wait for a database that is down (a pool timeout is not retried)."""
    inner: Callable[P, R] = getattr(method, "__wrapped__", method)

    @functools.wraps(inner)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        start = time.monotonic()
        attempt = 1
        while True:
            try:
                return inner(*args, **kwargs)
            except (InterfaceError, OperationalError) as exc:
                if (attempt >= ATTEMPTS or _pool_gave_up(exc)
                        or time.monotonic() - start > RETRY_BUDGET):
                    raise
                attempt += 1

    return call


#: eventsourcing's recorder methods that carry its ``@retry`` (ten attempts around a pool wait).
RETRIED = ("insert_events", "select_events", "select_notifications", "max_notification_id",
           "insert_tracking", "max_tracking_id", "has_tracking_id")
T = TypeVar("T")


def failing_fast(cls: type[T]) -> type[T]:
    """Class decorator: run the recorder's :data:`RETRIED` methods (those it has) under
    :func:`bounded_retry` instead of eventsourcing's retry."""
    for name in RETRIED:
        if hasattr(cls, name):
            setattr(cls, name, bounded_retry(getattr(cls, name)))
    return cls


@failing_fast
class AggregateRecorder(es_postgres.PostgresAggregateRecorder):
    """eventsourcing's, failing fast."""


@failing_fast
class ApplicationRecorder(es_postgres.PostgresApplicationRecorder):
    """eventsourcing's, failing fast, and with DB functions on (``POSTGRES_ENABLE_DB_FUNCTIONS``)
    passing the events to its insert function in binary (``%b``) rather than text (``%s``):
    the same function and rows, but psycopg dumps the array of stored-event composites in C
    instead of escaping their text form in Python (~27 -> ~9 us of CPU per event in a batch
    of 200)."""

    def __init__(self, datastore: es_postgres.PostgresDatastore, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        if datastore.enable_db_functions:
            self.sql_invoke_pg_function_insert_events = SQL(
                "SELECT * FROM {schema}.{insert_events}((%b))"
            ).format(schema=Identifier(datastore.schema),
                     insert_events=Identifier(self.pg_function_name_insert_events))


@failing_fast
class TrackingRecorder(es_postgres.PostgresTrackingRecorder):
    """eventsourcing's, failing fast."""


@failing_fast
class ProcessRecorder(es_postgres.PostgresProcessRecorder):
    """eventsourcing's, failing fast."""


def _seconds(env: Environment, key: str, default: int) -> int:
    text = env.get(key) or ""
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise OSError(f"{key} must be a whole number of seconds, got {text!r}") from None
    if value < 0:
        raise OSError(f"{key} must be 0 or more, got {text!r}")
    return value


class PostgresFactory(es_postgres.PostgresFactory):
    """eventsourcing's PostgreSQL factory with the recorders above and a pool tuned to fail
    fast (see the module docstring)."""

    POSTGRES_STATEMENT_TIMEOUT = "POSTGRES_STATEMENT_TIMEOUT"
    aggregate_recorder_class = AggregateRecorder
    application_recorder_class = ApplicationRecorder
    tracking_recorder_class = TrackingRecorder
    process_recorder_class = ProcessRecorder

    def __init__(self, env: Environment | EnvType | None) -> None:
        super().__init__(env)
        connect = _seconds(self.env, self.POSTGRES_CONNECT_TIMEOUT, 30)  # eventsourcing's
        statement = _seconds(self.env, self.POSTGRES_STATEMENT_TIMEOUT, 0)
        pool = self.datastore.pool
        pool.reconnect_timeout = max(connect, 1)
        assert isinstance(pool.kwargs, dict)
        pool.kwargs.update(connection_options(connect, statement))
        _pools.add(pool)


def connection_options(connect_timeout: int, statement_timeout: int) -> dict[str, Any]:
    """libpq parameters for a fail-fast session (see the module docstring)."""
    options: dict[str, Any] = {"connect_timeout": max(connect_timeout, 2)}
    if statement_timeout:
        options["options"] = f"-c statement_timeout={statement_timeout * 1000}"
        options["tcp_user_timeout"] = statement_timeout * 1000
    return options


def recover_pools() -> None:
    """Make every pool of this process reconnect now (after an outage): broken idle
    connections are dropped and new ones made at once, without the pool's backoff."""
    for pool in list(_pools):
        if pool.closed:
            continue
        with contextlib.suppress(Exception):
            pool.check()


def datastore_of(recorder: Any) -> es_postgres.PostgresDatastore | None:
    """The PostgreSQL datastore behind ``recorder`` (None for another store)."""
    datastore = getattr(recorder, "datastore", None)
    return datastore if isinstance(datastore, es_postgres.PostgresDatastore) else None


def dedicated_connection(datastore: es_postgres.PostgresDatastore,
                         connect_timeout: int | None = None) -> psycopg.Connection[Any]:
    """A new autocommit connection with the settings of ``datastore``'s pool, not one of the
    pool's (for the store monitor's pings and the views' advisory locks)."""
    pool = datastore.pool
    kwargs = dict(pool.kwargs) if isinstance(pool.kwargs, dict) else {}
    get_password = getattr(pool, "get_password_func", None)
    if get_password is not None:
        kwargs["password"] = get_password()
    if connect_timeout is not None:
        kwargs["connect_timeout"] = connect_timeout
    return psycopg.connect(str(pool.conninfo or ""), autocommit=True, **kwargs)
