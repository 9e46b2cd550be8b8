"""``referee bench service``: the whole service on PostgreSQL, measured from outside.

The server is ``referee serve`` in its own process (PostgreSQL from ``POSTGRES_*``; a fresh
schema per run, dropped afterwards). Client processes (``--clients``) drive ``--tables``
concurrent tables over real gRPC channels with random legal play and time every
``SubmitAction``; only acknowledged actions count (each is committed before it is
acknowledged). Two client styles:

- ``mirror`` (default): the client chose each table's packs (``fixed_deals``) and mirrors the
  game with the pure rules core, so it knows the legal set and sends only ``SubmitAction``;
- ``view``: before each action the client asks ``GetView`` for the seat to act (1-2 calls per
  action), as a simple external client would.

In the same run a bare gRPC echo server (``grpc.aio`` like the referee's server, same request
and response sizes, same client code and concurrency, as many processes as server workers)
gives the ceiling for this machine; the report gives our throughput as a ratio of it.

``--memory`` instead opens ``--tables`` tables (default 10,000 in that mode), plays a few
actions at each so every hand is running, and reads the server's resident memory from
``/proc/<pid>/status``.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import re
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

from trick_referee_client.sdk import bearer

AUDITOR = "bench-auditor"
_PG_KEYS = ("POSTGRES_HOST", "POSTGRES_PORT", "POSTGRES_USER", "POSTGRES_PASSWORD",
            "POSTGRES_DBNAME")


class BenchError(Exception):
    """The benchmark cannot run (reported to the user, exit status 2)."""


# -------------------------------------------------------------------------------- server


def _pg_env() -> dict[str, str]:
    missing = [k for k in ("POSTGRES_HOST", "POSTGRES_USER", "POSTGRES_DBNAME")
               if not os.environ.get(k)]
    if missing:
        raise BenchError(
            "the service benchmark runs on PostgreSQL: set " + ", ".join(missing)
            + " (and POSTGRES_PORT, POSTGRES_PASSWORD) in the environment"
        )
    return {k: os.environ[k] for k in _PG_KEYS if os.environ.get(k)}


def _pg_connect(pg: dict[str, str]) -> Any:
    import psycopg

    try:
        return psycopg.connect(
            host=pg["POSTGRES_HOST"], port=pg.get("POSTGRES_PORT", "5432"),
            user=pg["POSTGRES_USER"], password=pg.get("POSTGRES_PASSWORD"),
            dbname=pg["POSTGRES_DBNAME"], connect_timeout=5, autocommit=True,
        )
    except psycopg.OperationalError as exc:
        raise BenchError(f"cannot reach PostgreSQL: {exc}") from None


def _start(cmd: list[str], env: dict[str, str], cwd: str | None = None
           ) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, cwd=cwd)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    if not found:
        proc.kill()
        raise BenchError(f"the server did not start: {line!r}")
    return proc, found.group(1)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return sorted(out)


def _tree_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds of each of ``pids`` and of their child processes (``--workers``)."""
    out = {}
    for p in [q for pid in pids for q in (pid, *_children(pid))]:
        try:
            out[p] = _cpu_seconds(p)
        except OSError:
            continue
    return out


def _status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


# The ceiling: a bare ``grpc.aio`` echo, the server kind ``referee serve`` runs (it takes the
# thread count like the service, but an aio echo runs no handler threads).
ECHO_SERVER = r"""
import asyncio, sys
import grpc
workers, size, reuse, port = (int(a) for a in sys.argv[1:5])
reply = b"x" * size
async def echo(request, context):
    return reply
async def main():
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Call": grpc.unary_unary_rpc_method_handler(echo)})
    s = grpc.aio.server(options=[("grpc.so_reuseport", reuse)])
    s.add_generic_rpc_handlers((handler,))
    bound = s.add_insecure_port(f"127.0.0.1:{port}")
    await s.start()
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    await s.wait_for_termination()
asyncio.run(main())
"""


# -------------------------------------------------------------------------------- client


class _Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.accepted = 0
        self.rpcs = 0
        self.errors: dict[str, int] = {}
        self.cpu = 0.0
        self.lags: list[float] = []

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def _client_main(cfg: dict[str, Any]) -> dict[str, Any]:
    import grpc

    from referee.api.v1 import referee_pb2 as pb
    from referee.api.v1 import referee_pb2_grpc as pbg
    from referee.rules.cards import CARD_NAMES
    from referee.rules.registry import find_game
    from referee.service.encoding import rule_value_pb

    # A connection of its own per channel (no shared subchannel), so that several server
    # workers (SO_REUSEPORT spreads connections) each get some of them.
    chans = [grpc.aio.insecure_channel(cfg["address"],
                                       options=[("grpc.use_local_subchannel_pool", 1)])
             for _ in range(cfg["channels"])]
    stubs = [pbg.RefereeServiceStub(c) for c in chans]  # type: ignore[no-untyped-call]
    rng = random.Random(cfg["seed"])
    game = find_game(cfg["game"])
    rules = game.rules_class.from_dict(cfg["rules"])
    start_at, stop_at = cfg["start_at"], cfg["stop_at"]
    stats = _Stats()
    mode = cfg["mode"]
    packs_per_match = 30
    interval = cfg["tables_total"] / cfg["rate"] if cfg.get("rate") else 0.0

    def pack() -> list[str]:
        cards = [CARD_NAMES[c] for c in game.pack]
        rng.shuffle(cards)
        return cards

    async def table(i: int) -> None:
        stub = stubs[i % len(stubs)]  # every seat of a table on one channel: one worker
        while time.time() < stop_at:
            packs = [pack() for _ in range(packs_per_match)] if mode == "mirror" else []
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                game=cfg["game"],
                rules={k: rule_value_pb(v) for k, v in cfg["rules"].items()},
                fixed_deals=[pb.FixedDeal(cards=p) for p in packs]))
            tokens = [t.token for t in created.seat_tokens]
            match_state = game.new_match(rules, 0)
            state: Any = None
            hand = 0
            version = created.version
            guess = 0
            next_at = time.time() + rng.random() * interval
            while time.time() < stop_at:
                if mode == "mirror":
                    if state is None:
                        if hand >= len(packs):
                            break  # out of chosen packs: next table
                        deal = game.deal([_card(c) for c in packs[hand]], match_state.dealer)
                        state = game.new_hand(deal, match_state.dealer, rules)
                        hand += 1
                    to_act = game.current_seat(state)
                    assert to_act is not None
                    seat = to_act
                    action = rng.choice(game.legal_actions(state))
                    text = game.format_action(action)
                else:
                    view = await stub.GetView(pb.GetViewRequest(
                        match_id=created.match_id), metadata=bearer(tokens[guess]))
                    stats.rpcs += 1
                    if view.match_over:
                        break
                    if view.to_act != guess:
                        guess = view.to_act
                        view = await stub.GetView(pb.GetViewRequest(
                            match_id=created.match_id), metadata=bearer(tokens[guess]))
                        stats.rpcs += 1
                    seat = guess
                    text = rng.choice(list(view.legal_actions))
                    version = view.version
                req = pb.SubmitActionRequest(
                    match_id=created.match_id, action=text,
                    command_id=uuid.uuid4().hex, expected_version=version, seat=seat)
                if interval:  # paced: this table acts every `interval` seconds
                    delay = next_at - time.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    next_at = max(next_at + interval, time.time() - interval)
                t0 = time.perf_counter()
                try:
                    resp = (await stub.SubmitAction(req, timeout=30,
                            metadata=bearer(tokens[seat]))).outcome
                except grpc.aio.AioRpcError as exc:
                    stats.error(exc.code().name)
                    break
                t1 = time.perf_counter()
                if start_at <= time.time() < stop_at:
                    stats.latencies.append(t1 - t0)
                    stats.accepted += 1
                    stats.rpcs += 1
                version = resp.version
                guess = (seat + 1) % game.num_seats
                if mode == "mirror":
                    state = game.apply(state, seat, action).state
                    if game.is_terminal(state):
                        match_state = game.after_hand(match_state, game.result(state), rules)
                        state = None
                        if not resp.hand_over:
                            stats.error("mirror out of step")
                            break
                    if resp.match_over:
                        break
                elif resp.match_over:
                    break

    async def open_table(i: int, actions: int) -> None:
        stub = stubs[i % len(stubs)]
        created = await stub.CreateMatch(pb.CreateMatchRequest(game=cfg["game"]))
        tokens = [t.token for t in created.seat_tokens]
        for _ in range(actions):
            view = await stub.GetView(pb.GetViewRequest(
                match_id=created.match_id), metadata=bearer(AUDITOR))
            v = await stub.GetView(pb.GetViewRequest(
                match_id=created.match_id), metadata=bearer(tokens[view.to_act]))
            await stub.SubmitAction(pb.SubmitActionRequest(
                match_id=created.match_id,
                action=rng.choice(list(v.legal_actions)), command_id=uuid.uuid4().hex),
        metadata=bearer(tokens[view.to_act]))

    async def echo(i: int) -> None:
        call = chans[i % len(chans)].unary_unary("/bench.Echo/Call")
        body = b"y" * cfg["request_size"]
        while time.time() < stop_at:
            t0 = time.perf_counter()
            await call(body, timeout=30)
            t1 = time.perf_counter()
            if start_at <= time.time() < stop_at:
                stats.latencies.append(t1 - t0)
                stats.accepted += 1
                stats.rpcs += 1

    if mode == "memory":
        sem = asyncio.Semaphore(cfg["concurrency"])

        async def limited(i: int) -> None:
            async with sem:
                await open_table(i, cfg["actions"])

        await asyncio.gather(*(limited(i) for i in range(cfg["tables"])))
    else:
        worker = echo if mode == "echo" else table
        window = asyncio.create_task(_cpu_window(start_at, stop_at))
        lag = asyncio.create_task(_loop_lag(start_at, stop_at))
        await asyncio.gather(*(worker(i) for i in range(cfg["tables"])))
        stats.cpu = await window
        stats.lags = await lag
    for c in chans:
        await c.close()
    return {"accepted": stats.accepted, "rpcs": stats.rpcs, "latencies": stats.latencies,
            "errors": stats.errors, "cpu": stats.cpu, "lags": stats.lags}


async def _loop_lag(start_at: float, stop_at: float, period: float = 0.01) -> list[float]:
    """How late this client's event loop wakes a 10 ms timer in the measured window: the
    part of a call's measured latency spent waiting for the client itself, not the server."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, start_at - time.time()))
    lags = []
    while time.time() < stop_at:
        t = loop.time()
        await asyncio.sleep(period)
        lags.append(max(0.0, loop.time() - t - period))
    return lags


async def _cpu_window(start_at: float, stop_at: float) -> float:
    """This process's CPU seconds between ``start_at`` and ``stop_at`` (the measured part)."""
    await asyncio.sleep(max(0.0, start_at - time.time()))
    t0 = os.times()
    await asyncio.sleep(max(0.0, stop_at - time.time()))
    t1 = os.times()
    return t1.user - t0.user + t1.system - t0.system


def _card(name: str) -> int:
    from referee.rules.cards import parse_card

    return parse_card(name)


def client_process(cfg_json: str) -> None:
    """Entry point of one client process (``python -m referee.benchmarks.service CFG``)."""
    cfg = json.loads(cfg_json)
    out = asyncio.run(_client_main(cfg))
    sys.stdout.write(json.dumps(out))


def _drive(cfg: dict[str, Any], clients: int, server_pids: int | list[int]) -> dict[str, Any]:
    """Run ``clients`` client processes sharing ``cfg['tables']``; merge their reports.
    ``server_pids``: the server process(es) whose CPU (with their children's) is measured."""
    if isinstance(server_pids, int):  # the projections benchmark passes one pid
        server_pids = [server_pids]
    per = [cfg["tables"] // clients + (1 if i < cfg["tables"] % clients else 0)
           for i in range(clients)]
    procs = []
    for i, n in enumerate(per):
        c = dict(cfg, tables=n, seed=cfg["seed"] * 1000 + i)
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "referee.benchmarks.service", json.dumps(c)],
            stdout=subprocess.PIPE, text=True))
    wait = cfg["start_at"] - time.time()
    if wait > 0:
        time.sleep(wait)
    cpu_start = _tree_cpu(server_pids)
    wait = cfg["stop_at"] - time.time()
    if wait > 0:
        time.sleep(wait)
    cpu_stop = _tree_cpu(server_pids)
    merged: dict[str, Any] = {"accepted": 0, "rpcs": 0, "latencies": [], "errors": {},
                              "client_cpu": 0.0, "lags": []}
    for p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise BenchError(f"a client process failed (exit {p.returncode})")
        r = json.loads(out)
        merged["accepted"] += r["accepted"]
        merged["rpcs"] += r["rpcs"]
        merged["latencies"] += r["latencies"]
        merged["lags"] += r.get("lags", [])
        merged["client_cpu"] += r["cpu"]
        for k, v in r["errors"].items():
            merged["errors"][k] = merged["errors"].get(k, 0) + v
    seconds = cfg["stop_at"] - cfg["start_at"]
    lat = sorted(merged["latencies"])

    lags = sorted(merged["lags"])

    def pct(p: float, values: list[float] = lat) -> float | None:
        if not values:
            return None
        return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 2)

    server_cpu = sum(cpu_stop[p] - cpu_start.get(p, 0.0) for p in cpu_stop)
    calls = max(1, merged["accepted"])
    return {
        "per_second": round(merged["accepted"] / seconds, 1),
        "rpcs_per_second": round(merged["rpcs"] / seconds, 1),
        "count": merged["accepted"],
        "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": pct(1.0),
        "server_cpu": round(server_cpu / seconds, 2),
        # CPU per acknowledged call: steadier than throughput on a shared machine.
        "server_cpu_ms_per_call": round(server_cpu / calls * 1000, 3),
        "client_cpu_ms_per_call": round(merged["client_cpu"] / calls * 1000, 3),
        "server_cpu_per_process": [round((cpu_stop[p] - cpu_start.get(p, 0.0)) / seconds, 2)
                                   for p in cpu_stop],
        "client_cpu": round(merged["client_cpu"] / seconds, 2),
        # How late the client's own event loop ran (a 10 ms timer): latency that is the
        # load generator's, included in p50/p99 above.
        "client_loop_lag_p50_ms": pct(0.50, lags), "client_loop_lag_p99_ms": pct(0.99, lags),
        "errors": merged["errors"],
    }


# ---------------------------------------------------------------------------------- main


def run(
    tables: int | None = None,
    seconds: float = 20.0,
    warmup: float = 5.0,
    game: str = "euchre",
    mode: str = "mirror",
    clients: int = 1,
    channels: int | None = None,
    workers: int | None = None,
    serve_workers: int = 1,
    memory: bool = False,
    echo: bool = True,
    metrics: bool = False,
    rate: float = 0.0,
) -> dict[str, Any]:
    """Run the benchmark and return the JSON report (see the module docstring)."""
    if memory and serve_workers != 1:
        raise BenchError("--memory measures one server process: leave --serve-workers at 1")
    pg = _pg_env()
    schema = f"bench_{secrets.token_hex(4)}"
    with _pg_connect(pg) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        version = conn.execute("SHOW server_version").fetchone()[0]
    n_tables = tables if tables is not None else (10_000 if memory else 200)
    n_workers = workers if workers is not None else max(64, n_tables + 16) if not memory else 64
    n_channels = channels if channels is not None else 4 * (1 if serve_workers == 1
                                                            else 2 * serve_workers)
    env = dict(os.environ, PERSISTENCE_MODULE="eventsourcing.postgres", POSTGRES_SCHEMA=schema,
               REFEREE_AUDITOR_TOKEN=AUDITOR, REFEREE_GRPC_WORKERS=str(n_workers),
               AGGREGATE_CACHE_MAXSIZE=str(max(20_000, 2 * n_tables)), PYTHONUNBUFFERED="1",
               REFEREE_ANONYMOUS_RATE="0",  # the load generator creates tables at will
               REFEREE_PROJECTIONS="separate")  # measured as before: the write side alone
    env.update(pg)
    report: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(), "arch": platform.machine(),
            "python": platform.python_version(), "postgres": version,
            "kernel": platform.release(), "loadavg_before": list(os.getloadavg()),
        },
        "config": {
            "tables": n_tables, "game": game, "client": mode, "client_processes": clients,
            "channels_per_client": n_channels, "grpc_workers": n_workers,
            "server_processes": serve_workers, "seconds": seconds,
            "warmup": warmup, "metrics_interceptor": metrics,
            "offered_rate": rate or "unpaced (closed loop, no think time)",
        },
    }
    serve_cmd = [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
                 "--log-level", "WARNING", "--metrics-port", "19464" if metrics else "0",
                 "--workers", str(serve_workers)]
    try:
        proc, address = _start(serve_cmd, env)
        try:
            base = {"address": address, "game": game, "rules": {}, "channels": n_channels,
                    "seed": 7, "rate": rate, "tables_total": n_tables}
            if memory:
                rss0 = _status_kib(proc.pid, "VmRSS")
                cfg = dict(base, mode="memory", tables=n_tables, actions=3, concurrency=200,
                           start_at=0, stop_at=0)
                t0 = time.time()
                _drive_memory(cfg, clients)
                rss = _status_kib(proc.pid, "VmRSS")
                report["memory"] = {
                    "open_tables": n_tables, "actions_per_table": 3,
                    "rss_mib_before": round(rss0 / 1024, 1), "rss_mib": round(rss / 1024, 1),
                    "peak_rss_mib": round(_status_kib(proc.pid, "VmHWM") / 1024, 1),
                    "kib_per_table": round((rss - rss0) / n_tables, 1),
                    "limit_mib": 1024, "within_limit": rss <= 1024 * 1024,
                    "setup_seconds": round(time.time() - t0, 1),
                }
                return report
            now = time.time()
            cfg = dict(base, mode=mode, tables=n_tables,
                       start_at=now + 2 + warmup, stop_at=now + 2 + warmup + seconds)
            report["service"] = _drive(cfg, clients, [proc.pid])
            report["service"]["loadavg_after"] = list(os.getloadavg())
        finally:
            _stop(proc)
        if echo:
            size_req = 130
            # As many echo processes as server workers, sharing the port the same way.
            reuse = str(int(serve_workers > 1))
            eprocs = [_start([sys.executable, "-c", ECHO_SERVER, str(n_workers), "200", reuse,
                              "0"], env)]
            eaddr = eprocs[0][1]
            try:
                for _ in range(serve_workers - 1):
                    eprocs.append(_start([sys.executable, "-c", ECHO_SERVER, str(n_workers),
                                          "200", reuse, eaddr.rsplit(":", 1)[1]], env))
                now = time.time()
                cfg = dict(base, address=eaddr, mode="echo", tables=n_tables,
                           request_size=size_req,
                           start_at=now + 2 + warmup, stop_at=now + 2 + warmup + seconds)
                report["echo"] = _drive(cfg, clients, [p.pid for p, _ in eprocs])
            finally:
                for p, _ in eprocs:
                    _stop(p)
            ours, ceiling = report["service"]["per_second"], report["echo"]["per_second"]
            report["ratio_actions_to_echo"] = round(ours / ceiling, 3) if ceiling else None
            report["ratio_rpcs_to_echo"] = (
                round(report["service"]["rpcs_per_second"] / ceiling, 3) if ceiling else None)
    finally:
        with _pg_connect(pg) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return report


def _drive_memory(cfg: dict[str, Any], clients: int) -> None:
    per = [cfg["tables"] // clients + (1 if i < cfg["tables"] % clients else 0)
           for i in range(clients)]
    procs = [subprocess.Popen([sys.executable, "-m", "referee.benchmarks.service",
                               json.dumps(dict(cfg, tables=n, seed=i))],
                              stdout=subprocess.PIPE, text=True) for i, n in enumerate(per)]
    for p in procs:
        p.communicate(timeout=3600)
        if p.returncode != 0:
            raise BenchError(f"a client process failed (exit {p.returncode})")


def main(argv: Sequence[str]) -> None:
    client_process(argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])

