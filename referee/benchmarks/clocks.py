"""``referee bench clocks``: many open tables with running clocks in one process.

Creates ``--tables`` untimed tables, then as many timed ones (policy ``pause``, so each table
times out once), each with ``--action-ms`` to think, on a throw-away store (SQLite, or the
PostgreSQL of ``POSTGRES_*`` with ``--postgres``). Reports how late the deadlines fired (each
``TimedOut`` event's timestamp against the deadline it records: p50, p99, max) and the memory
a table takes with and without a clock (resident set growth per table).
"""

from __future__ import annotations

import gc
import os
import platform
import resource
import tempfile
import time
from datetime import datetime
from typing import Any

from referee.application import Referee
from referee.benchmarks.stats import percentile
from referee.config import settings_from_env
from referee.domain.match import Match


def _rss_kib() -> int:
    """The resident set now (Linux: /proc), else the peak."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def run(tables: int = 10_000, action_ms: int = 30_000, postgres: bool = False
        ) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="referee-bench-clocks-") as data:
        env = {"REFEREE_DATA_DIR": data, "AGGREGATE_CACHE_MAXSIZE": str(4 * tables)}
        if postgres:
            env.update({k: v for k, v in os.environ.items() if k.startswith("POSTGRES_")})
            env["PERSISTENCE_MODULE"] = "eventsourcing.postgres"
            env["POSTGRES_SCHEMA"] = f"bench_clocks_{os.getpid()}"
        app = Referee(settings_from_env(env))
        try:
            gc.collect()
            rss0 = _rss_kib()
            for _ in range(tables):
                app.create_match("euchre")
            gc.collect()
            rss1 = _rss_kib()
            t0 = time.monotonic()
            ids = [app.create_match("euchre", time_control={
                "action_ms": action_ms, "lag_ms": 0, "policy": "pause"}).match_id
                for _ in range(tables)]
            created_s = time.monotonic() - t0
            gc.collect()
            rss2 = _rss_kib()
            assert len(app.timers) == tables, "every timed table has a running deadline"
            lateness_ms: list[float] = []
            pending = set(ids)
            stop = time.monotonic() + action_ms / 1000 + created_s + 60
            while pending and time.monotonic() < stop:
                time.sleep(0.5)
                for match_id in list(pending):
                    match = app.live.peek(match_id)
                    if match is None or match.last_timeout is None:
                        continue
                    pending.discard(match_id)
            for match_id in ids:
                for e in app.repository.event_store.get(match_id, gt=3):
                    if isinstance(e, Match.TimedOut):
                        deadline = datetime.fromisoformat(e.deadline)
                        lateness_ms.append((e.timestamp - deadline).total_seconds() * 1000)
                        break
        finally:
            app.close()
    untimed = (rss1 - rss0) / tables
    timed = (rss2 - rss1) / tables
    return {
        "machine": f"{platform.machine()}, CPython {platform.python_version()}, "
                   f"{os.cpu_count()} CPUs",
        "store": "postgres" if postgres else "sqlite",
        "tables": tables,
        "action_ms": action_ms,
        "timed_out": len(lateness_ms),
        "missed": len(ids) - len(lateness_ms),
        "late_ms": {"p50": round(percentile(lateness_ms, 0.5), 1),
                    "p99": round(percentile(lateness_ms, 0.99), 1),
                    "max": round(max(lateness_ms, default=0.0), 1)},
        "creating_timed_tables_s": round(created_s, 1),
        "kib_per_table": {"untimed": round(untimed, 2), "timed": round(timed, 2),
                          "clock": round(timed - untimed, 2)},
    }
