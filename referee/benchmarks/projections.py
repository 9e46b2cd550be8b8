"""``referee bench projections``: fill a fresh store with played hands, rebuild every view from
the log (events/s, one transaction per batch) and time dispute replays: one step in the
middle and at the end of a hand (each from a cold cache), and a walk through the whole hand
step by step, with the states kept (``walk``), replaying each step from the deal as before
``projections/referee_projections/hand_states.py`` (``walk_replaying_each_step``), and in one
call as ``WalkReplay`` does (``walk_one_call``: the hand read and replayed once).

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

from referee.application import Referee
from referee.config import settings_from_env
from referee_projections.hand_states import HandStates
from referee_projections.queries import Queries
from referee_projections.runner import BatchRunner
from referee_projections.store import open_view
from referee_projections.views import PROJECTIONS

AUDITOR = "bench-auditor"


def _env(schema: str = "") -> dict[str, str]:
    env = {"REFEREE_DATA_DIR": tempfile.mkdtemp(prefix="referee-bench-"),
           "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if os.environ.get("POSTGRES_HOST"):
        import psycopg

        keys = ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_USER", "POSTGRES_PASSWORD",
                "POSTGRES_DBNAME")
        pg = {k: os.environ[k] for k in keys if os.environ.get(k)}
        if schema:
            env.update(pg, PERSISTENCE_MODULE="eventsourcing.postgres", POSTGRES_SCHEMA=schema)
            return env
        schema = "bench_" + uuid.uuid4().hex[:10]
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


def _fill_fast(app: Referee, game: str, events: int, rng: random.Random,
               per_save: int = 40) -> list[tuple[Any, int]]:
    """Fill the log with about ``events`` events quickly: matches are created through the
    application, then played to the end with random legal actions on a private copy of the
    aggregate (the same domain commands as ``submit_action``, without gRPC, tokens or a
    commit per action) and saved ``per_save`` matches per ``app.save`` (one transaction)."""
    finished: list[tuple[Any, int]] = []
    while (app.recorder.max_notification_id() or 0) < events:
        matches = []
        for _ in range(per_save):
            match = app.get_match(app.create_match(game).match_id)
            g = match.game
            while not match.over:
                state = match.hand_state
                seat = g.current_seat(state)
                assert seat is not None
                match.take_action(seat, g.format_action(rng.choice(g.legal_actions(state))), "")
                if match.needs_deal or match.over:
                    finished.append((match.id, match.hand.number))
                    if match.needs_deal:
                        app.deal_next(match)
            matches.append(match)
        app.save(*matches)
    return finished


def run_bench(hands: int = 300, game: str = "belot", batch: int = 1000, events: int = 0,
              schema: str = "", fill_only: bool = False,
              samples: list[tuple[Any, int]] | None = None) -> dict[str, Any]:
    """``events``: fill with :func:`_fill_fast` up to about that many events instead of
    ``hands`` hands played through ``submit_action``. ``schema``: reuse that PostgreSQL
    schema's log (no fill; ``samples`` are the hands to replay). ``fill_only``: stop after
    filling and report the schema and replay samples (to rebuild later, e.g. after
    restarting the server with other settings)."""
    env = _env(schema)
    app = Referee(settings_from_env(env))
    try:
        t0 = time.perf_counter()
        if schema:
            finished = [(uuid.UUID(str(m)), int(h)) for m, h in (samples or [])]
        elif events:
            finished = _fill_fast(app, game, events, random.Random(1))
        else:
            finished = _fill(app, game, hands, random.Random(1))
        fill_s = time.perf_counter() - t0
        n_events = app.recorder.max_notification_id() or 0
        report: dict[str, Any] = {
            "store": app.settings.backend, "schema": env.get("POSTGRES_SCHEMA", ""),
            "game": game, "hands": hands if not (events or schema) else len(finished),
            "events": n_events, "fill": "reused" if schema else (
                "fast (app.save batches)" if events else "submit_action"),
            "fill_seconds": round(fill_s, 2), "batch": batch,
            "python": platform.python_version(), "cpus": os.cpu_count(), "views": {},
        }
        sample = random.Random(2).sample(finished, min(50, len(finished)))
        report["samples"] = [[str(m), h] for m, h in sample]
        if fill_only:
            return report
        events = n_events
        total_s = 0.0
        for name, cls in PROJECTIONS.items():
            runner = BatchRunner(app.event_log, cls, open_view(name, app.settings), batch)
            t0 = time.perf_counter()
            n = runner.rebuild()
            dt = time.perf_counter() - t0
            total_s += dt
            report["views"][name] = {"events": n, "seconds": round(dt, 3),
                                     "events_per_s": round(n / dt)}
        report["all_views_events_per_s"] = round(len(PROJECTIONS) * events / total_s)
        q = Queries(app)
        mid, end, walk, ratio, uncached = [], [], [], [], []
        one_call: list[float] = []
        one_call_ratio: list[float] = []
        for match_id, hand in sample:
            n_actions = q.replay(match_id, hand, 0, AUDITOR)["actions"]
            q.hand_states = HandStates()  # each measurement from a cold cache
            t0 = time.perf_counter()
            q.replay(match_id, hand, n_actions // 2, AUDITOR)
            mid.append((time.perf_counter() - t0) * 1e3)
            q.hand_states = HandStates()
            t0 = time.perf_counter()
            q.replay(match_id, hand, n_actions, AUDITOR)
            end.append((time.perf_counter() - t0) * 1e3)
            q.hand_states = HandStates()
            t0 = time.perf_counter()
            for i in range(n_actions + 1):  # the whole hand, step by step
                q.replay(match_id, hand, i, AUDITOR)
            walk.append((time.perf_counter() - t0) * 1e3)
            ratio.append(walk[-1] / end[-1])
            q.hand_states = HandStates()
            t0 = time.perf_counter()
            walked = sum(1 for _ in q.replay_walk(match_id, hand, 0, None, AUDITOR))
            one_call.append((time.perf_counter() - t0) * 1e3)
            assert walked == n_actions + 1
            one_call_ratio.append(one_call[-1] / end[-1])
            q.hand_states = HandStates(size=0)  # as before: each step replays from the deal
            t0 = time.perf_counter()
            for i in range(n_actions + 1):
                q.replay(match_id, hand, i, AUDITOR)
            uncached.append((time.perf_counter() - t0) * 1e3)
        report["replay_ms"] = {
            "middle_median": round(statistics.median(mid), 2),
            "middle_max": round(max(mid), 2),
            "end_median": round(statistics.median(end), 2),
            "end_max": round(max(end), 2),
            "walk_median": round(statistics.median(walk), 2),
            "walk_max": round(max(walk), 2),
            "walk_over_end_median": round(statistics.median(ratio), 1),
            "walk_one_call_median": round(statistics.median(one_call), 2),
            "walk_one_call_over_end_median": round(statistics.median(one_call_ratio), 1),
            "walk_replaying_each_step_median": round(statistics.median(uncached), 2),
            "samples": len(sample),
        }
        return report
    finally:
        app.close()


def run_lag(tables: int | None = None, seconds: float = 20.0, warmup: float = 5.0,
            game: str = "euchre", clients: int = 1, rate: float = 0.0,
            interval: float = 0.05) -> dict[str, Any]:
    """Scoreboard lag under the service benchmark's load (PostgreSQL only).

    ``referee serve`` (views off) and ``referee projections`` run as two processes on a fresh
    schema; ``referee bench service``'s client processes drive ``tables`` tables as in that
    benchmark. Every ``interval`` seconds this process reads the log's head (max notification
    id) and the scoreboard view's tracking position. The lag at a sample is how long the oldest
    event the scoreboard has not processed has been in the log: now minus the time of the last
    sample whose head was still below it (an upper bound, at most ``interval`` too high);
    0 when the view is at the head."""
    import bisect
    import subprocess
    import sys
    import threading

    from referee.benchmarks import service as bs

    pg = bs._pg_env()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with bs._pg_connect(pg) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        version = conn.execute("SHOW server_version").fetchone()[0]
    n_tables = tables if tables is not None else 200
    env = dict(os.environ, PERSISTENCE_MODULE="eventsourcing.postgres", POSTGRES_SCHEMA=schema,
               REFEREE_AUDITOR_TOKEN=bs.AUDITOR, REFEREE_GRPC_WORKERS=str(max(64, n_tables + 16)),
               AGGREGATE_CACHE_MAXSIZE=str(max(20_000, 2 * n_tables)), PYTHONUNBUFFERED="1",
               REFEREE_PROJECTIONS="off")
    env.update(pg)
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "postgres": version, "loadavg_before": list(os.getloadavg())},
        "config": {"tables": n_tables, "game": game, "client_processes": clients,
                   "seconds": seconds, "warmup": warmup, "sample_interval": interval,
                   "offered_rate": rate or "unpaced (closed loop, as referee bench service)",
                   "projections": "separate `referee projections` process (all views)"},
    }
    serve = [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
             "--log-level", "WARNING", "--metrics-port", "0"]
    views: subprocess.Popen[str] | None = None
    app: Referee | None = None
    try:
        proc, address = bs._start(serve, env)
        try:
            views = subprocess.Popen([sys.executable, "-m", "referee", "projections"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     text=True)
            app = Referee(settings_from_env(env))
            board = open_view("scoreboard", app.settings)
            now = time.time()
            cfg: dict[str, Any] = {
                   "address": address, "game": game, "rules": {}, "channels": 4, "seed": 7,
                   "rate": rate, "tables_total": n_tables, "mode": "mirror",
                   "tables": n_tables, "start_at": now + 2 + warmup,
                   "stop_at": now + 2 + warmup + seconds}
            result: dict[str, Any] = {}
            driver = threading.Thread(
                target=lambda: result.update(bs._drive(cfg, clients, proc.pid)), daemon=True)
            driver.start()
            times: list[float] = []   # sample times
            heads: list[int] = []     # log head at each sample (non-decreasing)
            lags: list[float] = []
            behind: list[int] = []
            while driver.is_alive():
                t = time.time()
                head = app.recorder.max_notification_id() or 0
                pos = board.position()
                times.append(t)
                heads.append(head)
                if cfg["start_at"] <= t <= cfg["stop_at"]:
                    behind.append(head - pos)
                    if pos >= head:
                        lags.append(0.0)
                    else:  # last sample whose head was below pos + 1 (event pos+1 unwritten)
                        i = bisect.bisect_left(heads, pos + 1) - 1
                        lags.append(t - times[i] if i >= 0 else t - times[0])
                time.sleep(interval)
            driver.join()
            final_head = app.recorder.max_notification_id() or 0
            t0 = time.time()
            while board.position() < final_head and time.time() - t0 < 60:
                time.sleep(0.05)
            report["drain_seconds_after_load"] = round(time.time() - t0, 2)
        finally:
            bs._stop(proc)
        lags.sort()
        behind.sort()

        def pct(xs: list[Any], p: float) -> Any:
            return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else None

        report["service"] = result
        report["scoreboard_lag"] = {
            "samples": len(lags),
            "p50_s": round(pct(lags, 0.5), 3), "p99_s": round(pct(lags, 0.99), 3),
            "max_s": round(lags[-1], 3) if lags else None,
            "events_behind_p50": pct(behind, 0.5), "events_behind_p99": pct(behind, 0.99),
            "events_in_log": final_head,
        }
        report["loadavg_after"] = list(os.getloadavg())
        return report
    finally:
        if views is not None:
            bs._stop(views)
        if app is not None:
            app.close()
        with bs._pg_connect(pg) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
