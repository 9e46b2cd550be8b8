"""The ``referee`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (``referee games | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Trick Referee: deals, checks and records trick-taking card games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "verify",
        help="replay a hand or match record through the rules",
        description="Replay a hand or match record (spec: hand-record v1). Exit 0 when legal, "
        "1 for an illegal action or a result mismatch, 2 for a file that is not a valid record.",
    )
    p.add_argument("file", help="a referee.hand/v1 or referee.match/v1 JSON file")
    p.add_argument("--legal", action="store_true", help="list the legal set before each action")
    p.add_argument("--chain", action="store_true",
                   help="FILE is a match id (checked in the store) or an exported event log: "
                   "check the match's hash chain and report the first break")

    p = sub.add_parser("games", help="list the games and their rule parameters")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = sub.add_parser("example", help="print the path of a bundled example record")
    p.add_argument("game", nargs="?", default="euchre")

    p = sub.add_parser(
        "serve", help="run the gRPC referee service",
        description="Serve the referee over gRPC. Storage: SQLite in REFEREE_DATA_DIR (default "
        "./data), or PostgreSQL with PERSISTENCE_MODULE=eventsourcing.postgres and POSTGRES_*.",
    )
    p.add_argument("--address", default="127.0.0.1:50051", help="host:port to listen on")
    p.add_argument("--data-dir", help="SQLite data directory (sets REFEREE_DATA_DIR)")
    p.add_argument("--grace", type=float, default=5.0, help="seconds to finish calls on stop")
    p.add_argument("--log-level", default="INFO", help="DEBUG logs one line per request")
    p.add_argument(
        "--metrics-port", type=int, default=None,
        help="Prometheus /metrics port (default $REFEREE_METRICS_PORT or 9464; 0 disables)",
    )
    p.add_argument(
        "--workers", default="1",
        help="server processes sharing the port (SO_REUSEPORT): a number or 'auto' (one per "
        "CPU); worker i serves metrics on --metrics-port + i",
    )

    p = sub.add_parser("health", help="check a server's gRPC health service (exit 0: SERVING)")
    p.add_argument("--address", default="127.0.0.1:50051", help="host:port of the server")
    p.add_argument("--service", default="", help="service name ('' is the whole server)")

    p = sub.add_parser("bench", help="benchmarks")
    bench = p.add_subparsers(dest="bench", metavar="WHAT", required=True)
    b = bench.add_parser("rules", help="random legal hands per second through the rules core")
    b.add_argument("--game", default="euchre")
    b.add_argument("--seconds", type=float, default=5.0)
    b.add_argument(
        "--baseline",
        choices=["openspiel", "none"],
        default="none",
        help="also run OpenSpiel's Euchre in the same process (pip install 'trick-referee[bench]')",
    )
    b.add_argument(
        "--rounds", type=int, default=5,
        help="with a baseline: the engines take turns in this many rounds (median reported)",
    )
    b.add_argument(
        "--hands", type=int, default=None, metavar="N",
        help="play exactly N hands and report the CPU time (for instruction counts under "
        "valgrind; see BENCHMARKS.md); with --baseline openspiel, N hands of OpenSpiel's Euchre",
    )
    b = bench.add_parser(
        "service", help="accepted actions/s and latency of the gRPC service on PostgreSQL",
        description="Start `referee serve` on PostgreSQL (POSTGRES_*), drive many tables from "
        "client processes, compare with a bare gRPC echo server; JSON report.",
    )
    b.add_argument("--tables", type=int, help="concurrent tables (200; 10000 with --memory)")
    b.add_argument("--seconds", type=float, default=20.0)
    b.add_argument("--warmup", type=float, default=5.0)
    b.add_argument("--game", default="euchre")
    b.add_argument("--client", choices=["mirror", "view"], default="mirror",
                   help="mirror: client mirrors the rules, SubmitAction only; view: GetView first")
    b.add_argument("--clients", type=int, default=1, help="client processes")
    b.add_argument("--workers", type=int,
                   help="server threads for the blocking calls (default tables+16)")
    b.add_argument("--serve-workers", type=int, default=1,
                   help="server processes (referee serve --workers N)")
    b.add_argument("--channels", type=int,
                   help="gRPC channels per client process (default 4; 8 per server process "
                   "with --serve-workers > 1); a table's seats share one")
    b.add_argument("--memory", action="store_true", help="RSS with --tables open mid-hand tables")
    b.add_argument("--no-echo", action="store_true", help="skip the echo-server ceiling")
    b.add_argument("--rate", type=float, default=0.0,
                   help="offered actions/s over all tables (0: as fast as acknowledged)")

    from projections.cli import add_parsers

    add_parsers(sub, bench)

    args = parser.parse_args(argv)
    if args.command == "projections" or (args.command == "bench" and args.bench == "projections"):
        from projections import cli as projections_cli

        return (projections_cli.run(args) if args.command == "projections"
                else projections_cli.bench(args))
    if args.command == "bench" and args.bench == "service":
        from referee.bench_service import BenchError
        from referee.bench_service import run as run_service

        try:
            result = run_service(
                tables=args.tables, seconds=args.seconds, warmup=args.warmup, game=args.game,
                mode=args.client, clients=args.clients, workers=args.workers,
                serve_workers=args.serve_workers, channels=args.channels,
                memory=args.memory, echo=not args.no_echo, rate=args.rate,
            )
        except BenchError as exc:
            print(f"referee bench service: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(result, indent=2))
        return 0
    if args.command == "verify" and args.chain:
        from projections.cli import verify_chain

        code, report = verify_chain(args.file)
        print(json.dumps(report, indent=2))
        return code
    if args.command == "verify":
        from referee.verify import verify_path

        code, report = verify_path(args.file, legal=args.legal)
        print(json.dumps(report, indent=None if args.legal else 2))
        return code
    if args.command == "games":
        return _games(args.json)
    if args.command == "example":
        path = resources.files("referee") / "examples" / f"{args.game}-hand.json"
        if not path.is_file():
            print(f"no bundled example for {args.game!r}", file=sys.stderr)
            return 2
        print(path)
        return 0
    if args.command == "serve":
        import logging
        import os

        from referee.service import serve

        logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
        if args.data_dir:
            os.environ["REFEREE_DATA_DIR"] = args.data_dir
        port = args.metrics_port
        if port is None:
            port = int(os.environ.get("REFEREE_METRICS_PORT", "9464"))
        from referee.service.workers import serve_workers, worker_count

        try:
            workers = worker_count(args.workers)
        except ValueError:
            parser.error(f"--workers: a number >= 1 or 'auto', not {args.workers!r}")
        if workers > 1:
            return serve_workers(args.address, workers, args.grace, port,
                                 ["--log-level", args.log_level])
        return serve(args.address, args.grace, port)
    if args.command == "health":
        from referee.service.healthcheck import check

        return check(args.address, args.service)
    if args.command == "bench":
        from referee.bench import play_hands, run

        try:
            if args.hands is not None:
                if args.hands < 0:
                    raise ValueError(f"--hands must be 0 or more, not {args.hands}")
                engine = "openspiel" if args.baseline == "openspiel" else "ours"
                report = play_hands(args.game, args.hands, engine)
            else:
                report = run(args.game, args.seconds, args.baseline == "openspiel", args.rounds)
        except ValueError as exc:
            print(f"referee bench: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(report, indent=2))
        return 0
    parser.error(f"unknown command {args.command}")
    return 2


def _games(as_json: bool) -> int:
    from referee.rules.registry import GAMES

    data: list[dict[str, Any]] = [
        {
            "name": g.name,
            "aliases": list(g.aliases),
            "title": g.title,
            "seats": g.num_seats,
            "parameters": [s.to_json() for s in g.rules_class.param_specs()],
        }
        for g in GAMES.values()
    ]
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    for g in data:
        print(f"{g['name']} ({g['title']}, {g['seats']} seats)")
        for s in g["parameters"]:
            print(f"  {s['name']} = {json.dumps(s['default'])}  [{s['rule']}] {s['doc']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
