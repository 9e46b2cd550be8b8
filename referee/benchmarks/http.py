"""``referee bench http``: the HTTP/JSON gateway beside gRPC, on one server.

Starts ``referee serve --http`` on a throw-away SQLite store and plays ``--tables`` Euchre
tables at once through each transport in turn (``--rounds`` alternating rounds of
``--seconds``): every action is a ``GetView`` of the seat to act (its legal actions) and a
``SubmitAction`` of a random legal one; the same driver speaks gRPC (``grpc.aio``, binary
protobuf) or HTTP (``aiohttp``, protobuf's JSON), so only the transport differs. The report
(JSON), per transport, medians over the rounds: actions a second, ``SubmitAction`` and
``GetView`` latency p50/p99 (ms), server CPU per action (ms), and the HTTP/gRPC ratios.
"""

from __future__ import annotations

import asyncio
import os
import platform
import random
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee.api.v1 import referee_pb2 as pb
from referee.benchmarks.stats import percentile

RS = "/referee.api.v1.RefereeService"
Call = Callable[[str, Message, type[Message], str], Awaitable[Any]]


def run(tables: int = 50, seconds: float = 10.0, rounds: int = 3) -> dict[str, Any]:
    from referee.benchmarks.service import _stop, _tree_cpu

    with tempfile.TemporaryDirectory(prefix="referee-bench-http-") as data:
        env = dict(os.environ, REFEREE_DATA_DIR=data, REFEREE_ANONYMOUS_RATE="0")
        env.pop("PERSISTENCE_MODULE", None)
        proc, grpc_address, http_address = _start(env, data)
        try:
            results: dict[str, list[dict[str, float]]] = {"grpc": [], "http": []}
            for _ in range(rounds):
                for kind in results:
                    before = sum(_tree_cpu([proc.pid]).values())
                    played = asyncio.run(_round(kind, grpc_address, http_address, tables,
                                                seconds))
                    cpu = sum(_tree_cpu([proc.pid]).values()) - before
                    played["server_cpu_ms_per_action"] = 1000 * cpu / max(played["actions"], 1)
                    results[kind].append(played)
        finally:
            _stop(proc)
    summary = {k: {m: round(statistics.median(r[m] for r in rs), 3) for m in rs[0]}
               for k, rs in results.items()}
    g, h = summary["grpc"], summary["http"]
    return {
        "tables": tables, "seconds": seconds, "rounds": rounds, **summary,
        "http_over_grpc": {
            "actions_per_s": round(h["actions_per_s"] / g["actions_per_s"], 3),
            "submit_p99": round(h["submit_p99_ms"] / g["submit_p99_ms"], 3),
            "server_cpu_per_action": round(
                h["server_cpu_ms_per_action"] / g["server_cpu_ms_per_action"], 3),
        },
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
                   f"{platform.python_version()}, load {os.getloadavg()[0]:.1f}",
    }


def _start(env: dict[str, str], cwd: str) -> tuple[Any, str, str]:
    """``referee serve --http`` on free ports: the process, its gRPC and HTTP addresses."""
    from referee.benchmarks.service import _start as start_server

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    proc, address = start_server(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0", "--http", str(free)], env, cwd)
    return proc, address, f"127.0.0.1:{free}"


async def _round(kind: str, grpc_address: str, http_address: str, tables: int,
                 seconds: float) -> dict[str, float]:
    import aiohttp
    import grpc

    async with grpc.aio.insecure_channel(grpc_address) as channel, \
            aiohttp.ClientSession(f"http://{http_address}") as session:

        async def over_grpc(path: str, request: Message, answer: type[Message],
                            token: str) -> Any:
            call = channel.unary_unary(path, request_serializer=_bytes,
                                       response_deserializer=answer.FromString)
            return await call(request, metadata=[("authorization", f"Bearer {token}")])

        async def over_http(path: str, request: Message, answer: type[Message],
                            token: str) -> Any:
            headers = {"Content-Type": "application/json"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            async with session.post(path, data=json_format.MessageToJson(request),
                                    headers=headers) as response:
                text = await response.text()
                if response.status != 200:
                    raise RuntimeError(f"{path}: {response.status} {text}")
                return json_format.Parse(text, answer())

        call: Call = over_grpc if kind == "grpc" else over_http
        matches = [await call(f"{RS}/CreateMatch", pb.CreateMatchRequest(
            game="euchre", players=["a", "b", "c", "d"]), pb.CreateMatchResponse, "")
            for _ in range(tables)]
        submit: list[float] = []
        view: list[float] = []
        deadline = time.perf_counter() + seconds
        start = time.perf_counter()
        await asyncio.gather(*(_table(call, m, deadline, random.Random(i), submit, view)
                               for i, m in enumerate(matches)))
        elapsed = time.perf_counter() - start
    return {"actions": len(submit), "actions_per_s": len(submit) / elapsed,
            "submit_p50_ms": _pct(submit, 0.5), "submit_p99_ms": _pct(submit, 0.99),
            "view_p50_ms": _pct(view, 0.5), "view_p99_ms": _pct(view, 0.99)}


async def _table(call: Call, match: Any, deadline: float, rng: random.Random,
                 submit: list[float], view: list[float]) -> None:
    """Random legal play at one table until ``deadline`` (or the match's end)."""
    tokens = {t.seat: t.token for t in match.seat_tokens}
    seat = 0
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        seen = await call(f"{RS}/GetView", pb.GetViewRequest(match_id=match.match_id),
                          pb.GetViewResponse, tokens[seat])
        view.append(1000 * (time.perf_counter() - t0))
        if seen.match_over:
            return
        if seen.to_act != seat or not seen.legal_actions:
            seat = seen.to_act
            continue
        t0 = time.perf_counter()
        await call(f"{RS}/SubmitAction", pb.SubmitActionRequest(
            match_id=match.match_id, action=rng.choice(list(seen.legal_actions))),
            pb.SubmitActionResponse, tokens[seat])
        submit.append(1000 * (time.perf_counter() - t0))
        seat = (seat + 1) % len(tokens)  # usually next; a wrong guess costs one more view


def _bytes(message: Message) -> bytes:
    data: bytes = message.SerializeToString()
    return data


def _pct(values: list[float], p: float) -> float:
    return round(percentile(values, p), 3)
