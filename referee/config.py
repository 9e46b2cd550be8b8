"""Configuration from the environment only.

Every value is checked when read: a bad one raises :class:`SettingsError`, one line naming
the variable and what it may be (``referee serve`` prints it and exits 2).

- ``REFEREE_DATA_DIR`` (default: the user's data directory, :func:`default_data_dir`, not the
  working directory): where the embedded SQLite store lives.
- ``PERSISTENCE_MODULE=eventsourcing.postgres`` with ``POSTGRES_*``: PostgreSQL instead
  (``POSTGRES_ENABLE_DB_FUNCTIONS`` defaults to ``y``), through ``referee.persistence``, which
  fails fast when the database is down:
  ``POSTGRES_CONNECT_TIMEOUT`` (default 2, eventsourcing's is 30): seconds to wait for a pooled
  connection, and libpq's connect timeout; ``POSTGRES_STATEMENT_TIMEOUT`` (default 10, 0: none):
  each session's ``statement_timeout`` and ``tcp_user_timeout`` (libpq ``options``: set 0
  behind a PgBouncer that refuses that startup parameter).
- ``REFEREE_STORE_PING_SECONDS`` (default 1, 0: off): how often ``referee serve`` pings
  PostgreSQL; while a ping fails, calls that need the store answer ``STORE_UNAVAILABLE`` at once
  and health is NOT_SERVING (``referee.store_health``).
- ``CREATE_TABLE`` (eventsourcing's setting, default ``y``): ``n`` runs no DDL at start-up,
  neither eventsourcing's nor the referee's own (the rejection table), so the referee can
  start on a read-only standby and serve reads.
- ``REFEREE_AUDITOR_TOKEN``: the auditor credential (unset: no auditor).
- ``REFEREE_ORGANISER_TOKEN``: when set, only callers presenting it (or the auditor's token)
  may create matches; unset, anyone may (local play).
- ``REFEREE_ANONYMOUS_RATE`` (default 20) and ``REFEREE_ANONYMOUS_BURST`` (default 100): calls
  per second, and the burst, that one peer address may make without a credential (match
  creation without the organiser token, calls with no token); ``0`` turns the limit off.
- ``REFEREE_STREAMS_PER_PEER`` (default 256): open watch streams per peer address.
- ``REFEREE_STREAMS_TOTAL`` (default 20000): open watch streams in one server process.
- ``REFEREE_REJECTIONS_PER_MATCH`` (default 200) and ``REFEREE_REJECTIONS_TOTAL`` (default
  100000): bounds of the rejection audit trail (a table next to the events; in memory on POPO),
  kept per seat; attempts by callers holding no seat token of the match have their own
  ``REFEREE_REJECTIONS_ANONYMOUS`` (default 50) per match, so they never push a seat's out.
- ``AGGREGATE_CACHE_MAXSIZE`` (default 20000): open matches kept in memory by the application's
  own cache (eventsourcing's repository cache is left off: it would copy and re-read the
  stream on every use).
- ``REFEREE_FRESH_READS`` (default ``y``): before a read, fetch events written by *other*
  processes (one small query). ``n`` serves reads from the cache alone (one replica per match).
- ``REFEREE_FOLLOW_MS`` (default 500): while anyone watches a match, how often one thread
  looks for events other processes wrote (one query for the whole process), to wake their
  watchers; with ``REFEREE_FRESH_READS=n`` nobody looks.
- ``REFEREE_COMMIT_BATCH`` (default 512): most actions committed in one transaction.
- ``REFEREE_GRPC_WORKERS`` (default 256): gRPC server threads, i.e. calls served at once;
  callers waiting for a group commit hold one each, so this caps the batch size.
- ``REFEREE_PROJECTIONS`` (default ``inprocess``): ``referee serve`` follows the read-side
  views in a thread of its own, on every store; ``separate`` (or ``off``) leaves them to
  ``referee projections`` processes.
- ``REFEREE_METRICS_PORT`` (default 9464, 0: off): the Prometheus port of ``referee serve``.
- ``REFEREE_HTTP_PORT`` (default 0: off): ``referee serve`` also serves the API as JSON over
  HTTP there (``--http``).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

#: The PostgreSQL factory behind ``PERSISTENCE_MODULE=eventsourcing.postgres`` (eventsourcing's,
#: with short timeouts and a bounded retry).
POSTGRES_FACTORY = "referee.persistence:PostgresFactory"
#: ``PERSISTENCE_MODULE`` values, and what each means (for the error that lists them).
STORES = {
    "eventsourcing.sqlite": "embedded SQLite, the default",
    "eventsourcing.postgres": "PostgreSQL, with POSTGRES_*",
    "eventsourcing.popo": "in memory, nothing kept",
}
#: ``REFEREE_PROJECTIONS``: ``inprocess`` (default) follows the views in a thread of
#: ``referee serve``; ``separate`` (or ``off``) leaves them to ``referee projections``.
PROJECTION_MODES = ("inprocess", "separate", "off")
APP_DIR_NAME = "trick-referee"
_TRUE = ("y", "yes", "1", "true", "on")
_FALSE = ("n", "no", "0", "false", "off")
N = TypeVar("N", int, float)


class SettingsError(ValueError):
    """A setting (environment variable or flag) with a value it may not have; the message is
    one line naming it and saying what is allowed."""


def shown(value: str) -> str:
    """``value`` as an error message may quote it: printable and short."""
    return value if value.isprintable() and len(value) <= 200 else repr(value[:200])


def _raw(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return None if value is None or not value.strip() else value.strip()


def _number(env: Mapping[str, str], name: str, default: N, kind: Callable[[str], N],
            minimum: N, maximum: N | None, what: str) -> N:
    raw = _raw(env, name)
    if raw is None:
        return default
    rule = f"{what} >= {minimum:g}" + (f" and <= {maximum:g}" if maximum is not None else "")
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < minimum or (
            maximum is not None and value > maximum):
        raise SettingsError(f"{name}={shown(raw)}: must be {rule} (default {default:g})")
    return value


def read_int(env: Mapping[str, str], name: str, default: int, minimum: int = 0,
             maximum: int | None = None) -> int:
    """Whole-number setting ``name`` of ``env`` (unset or empty: ``default``).
    :raises SettingsError: for anything else than a whole number in range."""
    return _number(env, name, default, int, minimum, maximum, "a whole number")


def read_float(env: Mapping[str, str], name: str, default: float, minimum: float = 0.0,
               maximum: float | None = None) -> float:
    """Numeric setting ``name`` of ``env`` (unset or empty: ``default``).
    :raises SettingsError: for anything else than a number in range."""
    return _number(env, name, default, float, minimum, maximum, "a number")


def read_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Yes/no setting ``name`` of ``env``: y/yes/1/true/on or n/no/0/false/off."""
    raw = _raw(env, name)
    if raw is None:
        return default
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise SettingsError(f"{name}={shown(raw)}: must be y or n (also yes/no, true/false, 1/0, "
                        f"on/off; default {'y' if default else 'n'})")


def read_choice(env: Mapping[str, str], name: str, choices: tuple[str, ...],
                default: str) -> str:
    """Setting ``name`` of ``env``, one of ``choices`` (case-insensitive)."""
    raw = _raw(env, name)
    if raw is None:
        return default
    if raw.lower() not in choices:
        raise SettingsError(f"{name}={shown(raw)}: must be one of {', '.join(choices)} "
                            f"(default {default})")
    return raw.lower()


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the embedded store lives when ``REFEREE_DATA_DIR`` is not set: the user's data
    directory (``$XDG_DATA_HOME/trick-referee``, by default ``~/.local/share/trick-referee``
    on Linux; the platform's equivalent elsewhere), whatever the working directory."""
    import platformdirs

    env = os.environ if env is None else env
    xdg = env.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # also on macOS, where platformdirs ignores it
        return Path(xdg) / APP_DIR_NAME
    return Path(platformdirs.user_data_dir(APP_DIR_NAME, appauthor=False))


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the application needs, read once from the environment."""

    store_env: dict[str, str]
    auditor_token: str | None
    organiser_token: str | None = None
    anonymous_rate: float = 20.0
    anonymous_burst: int = 100
    streams_per_peer: int = 256
    streams_total: int = 20_000
    rejections_per_match: int = 200
    rejections_anonymous: int = 50
    rejections_total: int = 100_000
    cache_size: int = 20_000
    fresh_reads: bool = True
    commit_batch: int = 512
    commit_delay: float = 0.005
    follow_interval: float = 0.5
    grpc_workers: int = 256
    store_ping: float = 1.0
    projections: str = "inprocess"
    """``inprocess``: ``referee serve`` follows the views itself; ``separate``: it does not."""
    metrics_port: int = 9464
    http_port: int = 0

    @property
    def backend(self) -> str:
        module = self.store_env["PERSISTENCE_MODULE"]
        return "postgres" if module == POSTGRES_FACTORY else module.rsplit(".", 1)[-1]

    @property
    def store_location(self) -> str:
        """Where the events are, for the start-up line: a file, or the database."""
        env = self.store_env
        if self.backend == "sqlite":
            return f"SQLite {Path(env['SQLITE_DBNAME']).resolve()}"
        if self.backend == "postgres":
            where = f"{env.get('POSTGRES_HOST', '')}:{env.get('POSTGRES_PORT', '5432')}"
            schema = f", schema {env['POSTGRES_SCHEMA']}" if env.get("POSTGRES_SCHEMA") else ""
            return f"PostgreSQL {where}/{env.get('POSTGRES_DBNAME', '')}{schema}"
        return "in memory (nothing is kept)"


def _store_env(env: Mapping[str, str]) -> dict[str, str]:
    store: dict[str, str] = {}
    module = _raw(env, "PERSISTENCE_MODULE") or "eventsourcing.sqlite"
    if module == POSTGRES_FACTORY:
        module = "eventsourcing.postgres"
    if module not in STORES:
        allowed = "; ".join(f"{k} ({v})" for k, v in STORES.items())
        raise SettingsError(f"PERSISTENCE_MODULE={shown(module)}: must be one of {allowed}")
    store["PERSISTENCE_MODULE"] = module
    if module == "eventsourcing.sqlite":
        data_dir = Path(_raw(env, "REFEREE_DATA_DIR") or default_data_dir(env)).expanduser()
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SettingsError(f"REFEREE_DATA_DIR={shown(str(data_dir))}: cannot create it "
                                f"({exc.strerror or exc}); set it to a writable directory"
                                ) from None
        store["SQLITE_DBNAME"] = env.get("SQLITE_DBNAME") or str(data_dir / "referee.sqlite")
        store["SQLITE_LOCK_TIMEOUT"] = str(read_int(env, "SQLITE_LOCK_TIMEOUT", 10))
    elif module == "eventsourcing.postgres":
        try:
            import psycopg  # noqa: F401  (optional: the [postgres] extra)
            import psycopg_pool  # noqa: F401
        except ImportError:
            raise SettingsError("PERSISTENCE_MODULE=eventsourcing.postgres needs psycopg: "
                                "pip install 'trick-referee[postgres]'") from None
        store["PERSISTENCE_MODULE"] = POSTGRES_FACTORY
        store["POSTGRES_ENABLE_DB_FUNCTIONS"] = env.get("POSTGRES_ENABLE_DB_FUNCTIONS", "y")
        for key, value in env.items():
            if key.startswith("POSTGRES_"):
                store[key] = value
        read_int(env, "POSTGRES_PORT", 5432, 1, 65535)
        read_bool(env, "POSTGRES_ENABLE_DB_FUNCTIONS", True)
        store["POSTGRES_CONNECT_TIMEOUT"] = str(read_int(env, "POSTGRES_CONNECT_TIMEOUT", 2, 1))
        store["POSTGRES_STATEMENT_TIMEOUT"] = str(read_int(env, "POSTGRES_STATEMENT_TIMEOUT", 10))
    if _raw(env, "CREATE_TABLE"):
        read_bool(env, "CREATE_TABLE", True)
        store["CREATE_TABLE"] = env["CREATE_TABLE"]
    return store


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``environ`` (default ``os.environ``).

    :raises SettingsError: for a value a setting may not have (the message names it).
    """
    env = dict(os.environ if environ is None else environ)
    return Settings(
        store_env=_store_env(env),
        auditor_token=env.get("REFEREE_AUDITOR_TOKEN") or None,
        organiser_token=env.get("REFEREE_ORGANISER_TOKEN") or None,
        anonymous_rate=read_float(env, "REFEREE_ANONYMOUS_RATE", 20.0),
        anonymous_burst=read_int(env, "REFEREE_ANONYMOUS_BURST", 100, 1),
        streams_per_peer=read_int(env, "REFEREE_STREAMS_PER_PEER", 256, 1),
        streams_total=read_int(env, "REFEREE_STREAMS_TOTAL", 20_000, 1),
        rejections_per_match=read_int(env, "REFEREE_REJECTIONS_PER_MATCH", 200),
        rejections_anonymous=read_int(env, "REFEREE_REJECTIONS_ANONYMOUS", 50),
        rejections_total=read_int(env, "REFEREE_REJECTIONS_TOTAL", 100_000),
        cache_size=read_int(env, "AGGREGATE_CACHE_MAXSIZE", 20_000, 1),
        fresh_reads=read_bool(env, "REFEREE_FRESH_READS", True),
        commit_batch=read_int(env, "REFEREE_COMMIT_BATCH", 512, 1),
        commit_delay=read_float(env, "REFEREE_COMMIT_DELAY_MS", 5.0, 0.0, 1000.0) / 1000,
        follow_interval=read_float(env, "REFEREE_FOLLOW_MS", 500.0, 1.0) / 1000,
        grpc_workers=read_int(env, "REFEREE_GRPC_WORKERS", 256, 1),
        store_ping=read_float(env, "REFEREE_STORE_PING_SECONDS", 1.0),
        projections=read_choice(env, "REFEREE_PROJECTIONS", PROJECTION_MODES, "inprocess")
        .replace("off", "separate"),
        metrics_port=read_int(env, "REFEREE_METRICS_PORT", 9464, 0, 65535),
        http_port=read_int(env, "REFEREE_HTTP_PORT", 0, 0, 65535),
    )


class StartupError(RuntimeError):
    """``referee serve`` could not start (the store cannot be opened, ...); the message is
    one line for the operator."""


def one_line(exc: BaseException) -> str:
    """``exc``'s message on one line (the first non-empty one), for start-up errors."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
