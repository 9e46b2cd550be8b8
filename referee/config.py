"""Configuration from the environment only.

- ``REFEREE_DATA_DIR`` (default ``./data``): where the embedded SQLite store lives.
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
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

#: The PostgreSQL factory behind ``PERSISTENCE_MODULE=eventsourcing.postgres`` (eventsourcing's,
#: with short timeouts and a bounded retry).
POSTGRES_FACTORY = "referee.persistence:PostgresFactory"


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the application needs, read once from the environment."""

    store_env: dict[str, str]
    auditor_token: str | None
    organiser_token: str | None = None
    anonymous_rate: float = 20.0
    anonymous_burst: int = 100
    streams_per_peer: int = 256
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

    @property
    def backend(self) -> str:
        module = self.store_env["PERSISTENCE_MODULE"]
        return "postgres" if module == POSTGRES_FACTORY else module.rsplit(".", 1)[-1]


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``environ`` (default ``os.environ``)."""
    env = dict(os.environ if environ is None else environ)
    store: dict[str, str] = {}
    module = env.get("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    store["PERSISTENCE_MODULE"] = module
    if module == "eventsourcing.sqlite":
        data_dir = Path(env.get("REFEREE_DATA_DIR", "./data"))
        data_dir.mkdir(parents=True, exist_ok=True)
        store["SQLITE_DBNAME"] = env.get("SQLITE_DBNAME", str(data_dir / "referee.sqlite"))
        store["SQLITE_LOCK_TIMEOUT"] = env.get("SQLITE_LOCK_TIMEOUT", "10")
    elif module in ("eventsourcing.postgres", POSTGRES_FACTORY):
        store["PERSISTENCE_MODULE"] = POSTGRES_FACTORY
        store["POSTGRES_ENABLE_DB_FUNCTIONS"] = env.get("POSTGRES_ENABLE_DB_FUNCTIONS", "y")
        for key, value in env.items():
            if key.startswith("POSTGRES_"):
                store[key] = value
        store["POSTGRES_CONNECT_TIMEOUT"] = env.get("POSTGRES_CONNECT_TIMEOUT") or "2"
        store["POSTGRES_STATEMENT_TIMEOUT"] = env.get("POSTGRES_STATEMENT_TIMEOUT") or "10"
    if env.get("CREATE_TABLE"):
        store["CREATE_TABLE"] = env["CREATE_TABLE"]
    return Settings(
        store_env=store,
        auditor_token=env.get("REFEREE_AUDITOR_TOKEN") or None,
        organiser_token=env.get("REFEREE_ORGANISER_TOKEN") or None,
        anonymous_rate=float(env.get("REFEREE_ANONYMOUS_RATE", "20")),
        anonymous_burst=int(env.get("REFEREE_ANONYMOUS_BURST", "100")),
        streams_per_peer=int(env.get("REFEREE_STREAMS_PER_PEER", "256")),
        rejections_per_match=int(env.get("REFEREE_REJECTIONS_PER_MATCH", "200")),
        rejections_anonymous=int(env.get("REFEREE_REJECTIONS_ANONYMOUS", "50")),
        rejections_total=int(env.get("REFEREE_REJECTIONS_TOTAL", "100000")),
        cache_size=int(env.get("AGGREGATE_CACHE_MAXSIZE", "20000")),
        fresh_reads=env.get("REFEREE_FRESH_READS", "y").lower() in ("y", "yes", "1", "true", "on"),
        commit_batch=int(env.get("REFEREE_COMMIT_BATCH", "512")),
        commit_delay=float(env.get("REFEREE_COMMIT_DELAY_MS", "5")) / 1000,
        follow_interval=float(env.get("REFEREE_FOLLOW_MS", "500")) / 1000,
        grpc_workers=int(env.get("REFEREE_GRPC_WORKERS", "256")),
        store_ping=float(env.get("REFEREE_STORE_PING_SECONDS", "1")),
    )
