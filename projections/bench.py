"""``referee bench projections``: fill a fresh store with played hands, rebuild every view from
the log (events/s, one transaction per batch) and time dispute replays.

The store is PostgreSQL when ``POSTGRES_HOST`` is set (a fresh schema), else SQLite in a
temporary directory. Figures are measured, never asserted.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import tempfile
import time
import uuid
from typing import Any

from projections.queries import Queries
from projections.runner import BatchRunner
from projections.store import open_view
from projections.views import PROJECTIONS
from referee.application import Referee
from referee.config import settings_from_env

AUDITOR = "bench-auditor"


def _env() -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": tempfile.mkdtemp(prefix="referee-bench-"),
           "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if os.environ.get("POSTGRES_HOST"):
        import psycopg

        schema = "bench_" + uuid.uuid4().hex[:10]
        keys = ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_USER", "POSTGRES_PASSWORD",
                "POSTGRES_DBNAME")
        pg = {k: os.environ[k] for k in keys if os.environ.get(k)}
        with psycopg.connect(host=pg["POSTGRES_HOST"], port=pg.get("POSTGRES_PORT", "5432"),
                             user=pg.get("POSTGRES_USER"), password=pg.get("POSTGRES_PASSWORD"),
                             dbname=pg.get("POSTGRES_DBNAME"), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        env.update(pg, PERSISTENCE_MODULE="eventsourcing.postgres", POSTGRES_SCHEMA=schema)
    return env


def _fill(app: Referee, game: str, hands: int, rng: random.Random) -> list[tuple[Any, int]]:
    finished: list[tuple[Any, int]] = []
    while len(finished) < hands:
        c = app.create_match(game)
        while len(finished) < hands:
            view = app.get_view(c.match_id, AUDITOR)
            if view.match_over:
                break
            seat = view.to_act
            assert seat is not None
            legal = app.get_view(c.match_id, c.seat_tokens[seat]).legal_actions
            answer = app.submit_action(c.match_id, c.seat_tokens[seat], rng.choice(legal))
            if answer.hand_over:
                finished.append((c.match_id, view.hand))
    return finished


def run_bench(hands: int = 300, game: str = "belot", batch: int = 1000) -> dict[str, Any]:
    env = _env()
    app = Referee(settings_from_env(env))
    try:
        t0 = time.perf_counter()
        finished = _fill(app, game, hands, random.Random(1))
        fill_s = time.perf_counter() - t0
        events = app.recorder.max_notification_id() or 0
        report: dict[str, Any] = {
            "store": app.settings.backend, "game": game, "hands": hands, "events": events,
            "fill_seconds": round(fill_s, 2), "batch": batch,
            "python": platform.python_version(), "cpus": os.cpu_count(), "views": {},
        }
        total_s = 0.0
        for name, cls in PROJECTIONS.items():
            runner = BatchRunner(app, cls, open_view(name, app.settings), batch)
            t0 = time.perf_counter()
            n = runner.rebuild()
            dt = time.perf_counter() - t0
            total_s += dt
            report["views"][name] = {"events": n, "seconds": round(dt, 3),
                                     "events_per_s": round(n / dt)}
        report["all_views_events_per_s"] = round(len(PROJECTIONS) * events / total_s)
        q = Queries(app)
        sample = random.Random(2).sample(finished, min(50, len(finished)))
        mid, end = [], []
        for match_id, hand in sample:
            n_actions = q.replay(match_id, hand, 0, AUDITOR)["actions"]
            t0 = time.perf_counter()
            q.replay(match_id, hand, n_actions // 2, AUDITOR)
            mid.append((time.perf_counter() - t0) * 1e3)
            t0 = time.perf_counter()
            q.replay(match_id, hand, n_actions, AUDITOR)
            end.append((time.perf_counter() - t0) * 1e3)
        report["replay_ms"] = {
            "middle_median": round(statistics.median(mid), 2),
            "middle_max": round(max(mid), 2),
            "end_median": round(statistics.median(end), 2),
            "end_max": round(max(end), 2),
            "samples": len(sample),
        }
        return report
    finally:
        app.close()
