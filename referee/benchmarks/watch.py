"""``referee bench watch``: players and many watchers of the same matches, on one server.

Starts ``referee serve`` on a throw-away SQLite store (``--server-checkout DIR``: the server
of another checkout, a baseline, run the same way), creates ``--matches`` public Euchre
matches and opens ``--watchers`` ``WatchMatch`` streams spread evenly over them (spectators,
heartbeat 60 s; ``--scoreboard``: ``WatchScoreboard`` streams instead, each woken when the
projection worker commits the match's new scoreboard) from ``--watcher-procs`` client
processes. Then players make ``--rate``
actions a second in all (round robin over the matches; random legal play mirrored with the
rules core, so ``SubmitAction`` is their only call) for ``--seconds``, and then nobody acts
for ``--idle-seconds``. The report (JSON):

- ``actions_per_s``: what the players kept (of ``--rate`` offered) and their ``SubmitAction``
  latency p50/p99/max (ms);
- ``delivery_ms``: from the start of the action's ``SubmitAction`` to its arrival at a
  watcher, p50/p99/max, over a sample of streams (up to 100 per client process; an update
  that brings several versions counts for each);
- ``messages_per_s``: updates the watchers received (all streams);
- ``server_cpu`` (share of one core) while playing and ``idle_server_cpu`` while nobody acts,
  ``server_rss_mib`` at the end; the watcher processes' CPU (they share the machine).

``--burst N`` instead opens N streams at once and counts how each began (``OK``: its first
message came; else the status it ended with), the server's intake of a reconnecting crowd.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

from trick_referee_client.sdk import bearer

STREAMS_PER_CHANNEL = 90  # under HTTP/2's 100 concurrent streams per connection
OPEN_BATCH = 100  # streams opened at once (each batch waits for its first messages)
SAMPLE = 100  # streams per watcher process whose every message is timed
PACKS = 60  # fixed deals per match (Euchre to 1,000 points: the match does not end)


def run(watchers: int = 1000, matches: int = 1, rate: float = 20.0, seconds: float = 20.0,
        idle_seconds: float = 10.0, watcher_procs: int = 2, server_checkout: str = "",
        settle: float = 3.0, scoreboard: bool = False) -> dict[str, Any]:
    from referee.benchmarks.service import _start, _status_kib, _stop, _tree_cpu

    with tempfile.TemporaryDirectory(prefix="referee-bench-watch-") as data:
        env = dict(os.environ, REFEREE_DATA_DIR=data, REFEREE_ANONYMOUS_RATE="0",
                   REFEREE_STREAMS_PER_PEER=str(2 * watchers + 16))
        env.pop("PERSISTENCE_MODULE", None)
        if server_checkout:
            env["PYTHONPATH"] = os.path.abspath(server_checkout)
        proc, address = _start([sys.executable, "-m", "referee", "serve", "--address",
                                "127.0.0.1:0", "--metrics-port", "0"], env, cwd=data)
        procs: list[subprocess.Popen[str]] = []
        try:
            tables = asyncio.run(_create(address, matches))
            per_proc = [watchers // watcher_procs + (i < watchers % watcher_procs)
                        for i in range(watcher_procs)]
            cfg = {"address": address, "matches": [t["match_id"] for t in tables],
                   "scoreboard": scoreboard}
            first = 0
            for n in per_proc:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "referee.benchmarks.watch",
                     json.dumps(dict(cfg, streams=n, first=first))],
                    stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True))
                first += n
            for p in procs:  # each says "ready" once all its streams are open
                assert p.stdout is not None
                line = p.stdout.readline()
                if line.strip() != "ready":
                    raise RuntimeError(f"a watcher process failed: {line!r}")
            time.sleep(settle)
            pids = [p.pid for p in procs]
            cpu0, clients0, t0 = _cpu(proc.pid), sum(_tree_cpu(pids).values()), time.time()
            played = asyncio.run(_play(address, tables, rate, seconds))
            cpu1, clients1, t1 = _cpu(proc.pid), sum(_tree_cpu(pids).values()), time.time()
            time.sleep(settle)
            cpu2, t2 = _cpu(proc.pid), time.time()
            time.sleep(idle_seconds)
            cpu3, t3 = _cpu(proc.pid), time.time()
            rss = _status_kib(proc.pid, "VmRSS") / 1024
            reports = []
            for p in procs:
                assert p.stdin is not None and p.stdout is not None
                p.stdin.write("stop\n")
                p.stdin.flush()
                reports.append(json.loads(p.stdout.readline()))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait(10)
            _stop(proc)
    delays: list[float] = []
    received = 0
    errors: dict[str, int] = {}
    for r in reports:
        received += sum(n for start, n in r["counts"] if t0 <= start < t1)
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
        for m, before, version, at in r["samples"]:
            sent = played["sent"][m]
            for v in range(before + 1, version + 1):
                if v in sent and t0 <= sent[v] < t1:
                    delays.append(at - sent[v])
    lat = played["latencies"]
    return {
        "server": os.path.abspath(server_checkout) if server_checkout else "this checkout",
        "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, Python "
                   f"{platform.python_version()}",
        "stream": "WatchScoreboard" if scoreboard else "WatchMatch",
        "watchers": watchers, "matches": matches, "offered_actions_per_s": rate,
        "actions_per_s": round(played["actions"] / (t1 - t0), 1),
        "submit_ms": _pcts(lat), "delivery_ms": _pcts(delays),
        "delivery_samples": len(delays),
        "messages_per_s": round(received / (t1 - t0)),
        "server_cpu": round((cpu1 - cpu0) / (t1 - t0), 3),
        "watcher_procs_cpu": round((clients1 - clients0) / (t1 - t0), 3),
        "idle_server_cpu": round((cpu3 - cpu2) / (t3 - t2), 4),
        "server_rss_mib": round(rss),
        "errors": errors | played["errors"],
    }


def _cpu(pid: int) -> float:
    from referee.benchmarks.service import _tree_cpu

    return sum(_tree_cpu([pid]).values())


def _pcts(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    s = sorted(values)

    def at(p: float) -> float:
        return round(1000 * s[min(len(s) - 1, int(p * len(s)))], 1)

    return {"p50": at(0.50), "p99": at(0.99), "max": round(1000 * s[-1], 1)}


async def _create(address: str, matches: int) -> list[dict[str, Any]]:
    import grpc

    from referee.api.v1 import referee_pb2 as pb
    from referee.api.v1 import referee_pb2_grpc as pbg
    from referee.rules.cards import CARD_NAMES
    from referee.rules.registry import find_game

    game = find_game("euchre")
    rng = random.Random(24)
    out = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pbg.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        for _ in range(matches):
            packs = []
            for _ in range(PACKS):
                cards = [CARD_NAMES[c] for c in game.pack]
                rng.shuffle(cards)
                packs.append(cards)
            created = await stub.CreateMatch(pb.CreateMatchRequest(
                game="euchre", rules={"target_score": pb.RuleValue(int_value=1000)},
                public_spectators=True, fixed_deals=[pb.FixedDeal(cards=p) for p in packs]))
            out.append({"match_id": created.match_id, "packs": packs,
                        "tokens": [t.token for t in created.seat_tokens],
                        "version": created.version})
    return out


async def _play(address: str, tables: list[dict[str, Any]], rate: float, seconds: float
                ) -> dict[str, Any]:
    """Actions at ``rate`` a second over all tables, round robin, for ``seconds``."""
    import grpc

    from referee.api.v1 import referee_pb2 as pb
    from referee.api.v1 import referee_pb2_grpc as pbg
    from referee.rules.cards import parse_card
    from referee.rules.registry import find_game

    game = find_game("euchre")
    rules = game.rules_class.from_dict({"target_score": 1000})
    rng = random.Random(7)
    sent: list[dict[int, float]] = [{} for _ in tables]
    latencies: list[float] = []
    errors: dict[str, int] = {}
    actions = 0
    stop_at = time.time() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pbg.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]

        async def table(i: int) -> None:
            nonlocal actions
            t = tables[i]
            every = len(tables) / rate
            next_at = time.time() + every * i / len(tables)
            match_state = game.new_match(rules, 0)
            state: Any = None
            hand = 0
            version = t["version"]
            while time.time() < stop_at and hand <= len(t["packs"]):
                if state is None:
                    deal = game.deal([parse_card(c) for c in t["packs"][hand]],
                                     match_state.dealer)
                    state = game.new_hand(deal, match_state.dealer, rules)
                    hand += 1
                seat = game.current_seat(state)
                assert seat is not None
                action = rng.choice(game.legal_actions(state))
                delay = next_at - time.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                next_at = max(next_at + every, time.time() - every)
                started = time.time()
                t0 = time.perf_counter()
                try:
                    resp = (await stub.SubmitAction(pb.SubmitActionRequest(
                        match_id=t["match_id"],
                        action=game.format_action(action), command_id=uuid.uuid4().hex,
                        expected_version=version), timeout=30,
        metadata=bearer(t["tokens"][seat]))).outcome
                except grpc.aio.AioRpcError as exc:
                    errors[exc.code().name] = errors.get(exc.code().name, 0) + 1
                    return
                latencies.append(time.perf_counter() - t0)
                actions += 1
                for v in range(version + 1, resp.version + 1):
                    sent[i][v] = started
                version = resp.version
                state = game.apply(state, seat, action).state
                if game.is_terminal(state):
                    match_state = game.after_hand(match_state, game.result(state), rules)
                    state = None

        await asyncio.gather(*(table(i) for i in range(len(tables))))
    return {"sent": sent, "latencies": latencies, "errors": errors, "actions": actions}


# ------------------------------------------------------------------ the watcher processes


async def _watch(cfg: dict[str, Any]) -> dict[str, Any]:
    import grpc

    from referee.api.v1 import projections_pb2 as ppb
    from referee.api.v1 import referee_pb2 as pb

    matches: list[str] = cfg["matches"]
    n, first = cfg["streams"], cfg["first"]
    channels = [grpc.aio.insecure_channel(cfg["address"], options=[
        ("grpc.use_local_subchannel_pool", 1)]) for _ in range(-(-n // STREAMS_PER_CHANNEL))]
    every = max(1, n // SAMPLE)
    samples: list[tuple[int, int, int, float]] = []
    counts: dict[int, int] = {}  # messages by second
    errors: dict[str, int] = {}
    if cfg.get("scoreboard"):
        method = "/referee.api.v1.ProjectionsService/WatchScoreboard"
        serialize = ppb.WatchScoreboardRequest.SerializeToString

        def parse(data: bytes) -> Any:  # the scoreboard of a WatchScoreboardResponse
            return ppb.WatchScoreboardResponse.FromString(data).scoreboard

        def request(match_id: str) -> Any:
            return ppb.WatchScoreboardRequest(match_id=match_id)
    else:
        method = "/referee.api.v1.RefereeService/WatchMatch"
        serialize, parse = pb.WatchMatchRequest.SerializeToString, pb.WatchMatchResponse.FromString

        def request(match_id: str) -> Any:
            return pb.WatchMatchRequest(match_id=match_id, heartbeat_seconds=60)

    async def stream(i: int, opened: asyncio.Future[None]) -> None:
        m = (first + i) % len(matches)
        sampled = i % every == 0
        call = channels[i // STREAMS_PER_CHANNEL].unary_stream(
            method, request_serializer=serialize,
            response_deserializer=parse if sampled else None)
        version = 0
        try:
            async for msg in call(request(matches[m])):
                now = time.time()
                if not opened.done():
                    opened.set_result(None)
                    if sampled:
                        version = msg.version
                    continue
                second = int(now)
                counts[second] = counts.get(second, 0) + 1
                if sampled and not getattr(msg, "heartbeat", False):
                    samples.append((m, version, msg.version, now))
                    version = msg.version
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED or not opened.done():
                errors[exc.code().name] = errors.get(exc.code().name, 0) + 1
            if not opened.done():
                opened.set_result(None)

    loop = asyncio.get_running_loop()
    tasks = []
    for start in range(0, n, OPEN_BATCH):
        batch = [loop.create_future() for _ in range(min(OPEN_BATCH, n - start))]
        tasks += [asyncio.create_task(stream(start + j, f)) for j, f in enumerate(batch)]
        await asyncio.gather(*batch)
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for c in channels:
        await c.close()
    return {"samples": samples, "counts": sorted(counts.items()), "errors": errors}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_watch(json.loads(sys.argv[1])))), flush=True)


def run_burst(streams: int = 2500, server_checkout: str = "") -> dict[str, Any]:
    """Open ``streams`` ``WatchMatch`` streams all at once (no waiting between them) and
    count how each began: ``OK`` (its first message came) or the status it ended with."""
    from referee.benchmarks.service import _start, _stop

    with tempfile.TemporaryDirectory(prefix="referee-bench-burst-") as data:
        env = dict(os.environ, REFEREE_DATA_DIR=data, REFEREE_ANONYMOUS_RATE="0",
                   REFEREE_STREAMS_PER_PEER=str(2 * streams + 16))
        env.pop("PERSISTENCE_MODULE", None)
        if server_checkout:
            env["PYTHONPATH"] = os.path.abspath(server_checkout)
        proc, address = _start([sys.executable, "-m", "referee", "serve", "--address",
                                "127.0.0.1:0", "--metrics-port", "0"], env, cwd=data)
        try:
            outcomes = asyncio.run(_burst(address, streams))
        finally:
            _stop(proc)
    return {"server": os.path.abspath(server_checkout) if server_checkout else "this checkout",
            "streams_opened_at_once": streams, "outcomes": outcomes}


async def _burst(address: str, n: int) -> dict[str, int]:
    import grpc

    from referee.api.v1 import referee_pb2 as pb
    from referee.api.v1 import referee_pb2_grpc as pbg

    channels = [grpc.aio.insecure_channel(address, options=[
        ("grpc.use_local_subchannel_pool", 1)]) for _ in range(-(-n // STREAMS_PER_CHANNEL))]
    stubs = [pbg.RefereeServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
    created = await stubs[0].CreateMatch(pb.CreateMatchRequest(game="euchre",
                                                               public_spectators=True))

    async def one(i: int) -> str:
        call = stubs[i // STREAMS_PER_CHANNEL].WatchMatch(pb.WatchMatchRequest(
            match_id=created.match_id, heartbeat_seconds=60), timeout=60)
        try:
            async for _ in call:
                return "OK"
            return "ENDED"
        except grpc.aio.AioRpcError as exc:
            return str(exc.code().name)
        finally:
            call.cancel()

    outcomes: dict[str, int] = {}
    for outcome in await asyncio.gather(*(one(i) for i in range(n))):
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    for c in channels:
        await c.close()
    return outcomes
