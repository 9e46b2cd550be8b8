"""The ``referee`` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any, NoReturn

from referee import __version__


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose mistakes end in one line on stderr (and exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def address_arg(text: str) -> str:
    """``--address``: ``HOST:PORT`` with a port from 0 to 65535 (``[v6]:PORT`` too)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535 or (
            ":" in host and not (host.startswith("[") and host.endswith("]"))):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not HOST:PORT with a port from 0 to 65535 (e.g. 127.0.0.1:50051, "
            "0.0.0.0:50051, [::]:50051)")
    return text


def workers_arg(text: str) -> str:
    """``--workers``: a number from 1, or ``auto``."""
    if text != "auto" and not (text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number >= 1 or 'auto'")
    return text


def _number_arg(kind: type[int] | type[float], minimum: float, maximum: float | None,
                what: str) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value != value or value < minimum or (
                maximum is not None and value > maximum):
            bound = f"from {minimum:g} to {maximum:g}" if maximum is not None else \
                f"of {minimum:g} or more"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} {bound}")
        return value
    return parse


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    from referee.config import SettingsError

    try:
        return _main(argv)
    except SettingsError as exc:  # any command that reads the settings (verify --chain, ...)
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``referee games | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    parser = OneLineParser(
        prog="referee",
        description="Trick Referee: deals, checks and records trick-taking card games.",
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
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

    p = sub.add_parser("example", help="print the path of a bundled example hand record",
                       description="Print the path of a bundled hand record of GAME, for "
                       "`referee verify`; --list prints every game's.")
    p.add_argument("game", nargs="?", default="euchre", help="a game name or alias (euchre)")
    p.add_argument("--list", action="store_true", help="print every game and its example")

    p = sub.add_parser(
        "serve", help="run the gRPC referee service",
        description="Serve the referee over gRPC. Storage: SQLite in REFEREE_DATA_DIR (default "
        "the user's data directory, e.g. ~/.local/share/trick-referee), or PostgreSQL with "
        "PERSISTENCE_MODULE=eventsourcing.postgres and POSTGRES_*. Settings: docs/operations.md.",
    )
    p.add_argument("--address", default="127.0.0.1:50051", type=address_arg,
                   help="host:port to listen on")
    p.add_argument("--data-dir", help="SQLite data directory (sets REFEREE_DATA_DIR)")
    p.add_argument("--grace", type=_number_arg(float, 0, None, "a number of seconds"),
                   default=5.0, help="seconds to finish calls on stop")
    p.add_argument("--log-level", default="INFO", type=str.upper,
                   choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
                   help="DEBUG also logs one line per call (the access log)")
    _log_arguments(p)
    p.add_argument(
        "--metrics-port", type=_number_arg(int, 0, 65535, "a port"), default=None,
        help="Prometheus /metrics port (default $REFEREE_METRICS_PORT or 9464; 0 disables)",
    )
    p.add_argument(
        "--http", type=_number_arg(int, 0, 65535, "a port"), default=None, metavar="PORT",
        help="also serve the API as JSON over HTTP on this port, streams as Server-Sent "
        "Events (default $REFEREE_HTTP_PORT or 0: off; docs/http.md)",
    )
    p.add_argument(
        "--projections", choices=["inprocess", "separate"], default=None,
        help="inprocess: this server keeps the read-side views up to date (default); "
        "separate: `referee projections` processes do (sets REFEREE_PROJECTIONS)",
    )
    p.add_argument(
        "--workers", default="1", type=workers_arg,
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

    b = bench.add_parser(
        "streams", help="server CPU of idle WatchMatch and WatchScoreboard streams",
        description="Start `referee serve` on a throw-away SQLite store, open idle streams on "
        "one match and report the server's CPU share over --seconds; JSON report.")
    b.add_argument("--streams", type=int, default=500, help="streams of each kind (500)")
    b.add_argument("--seconds", type=float, default=10.0, help="measured time (10)")
    b.add_argument("--server-checkout", default="", metavar="DIR",
                   help="run the server from another checkout (a baseline), side by side")

    b = bench.add_parser(
        "watch", help="players and many WatchMatch watchers on one server",
        description="Start `referee serve` on a throw-away SQLite store, open --watchers "
        "WatchMatch streams over --matches public matches, play --rate actions/s; report the "
        "players' actions/s and latency, delivery p50/p99, server CPU and RSS, idle CPU (JSON).")
    b.add_argument("--watchers", type=int, default=1000, help="WatchMatch streams (1000)")
    b.add_argument("--matches", type=int, default=1, help="matches they watch, evenly (1)")
    b.add_argument("--rate", type=float, default=20.0, help="actions/s over all matches (20)")
    b.add_argument("--seconds", type=float, default=20.0, help="time played (20)")
    b.add_argument("--idle-seconds", type=float, default=10.0,
                   help="then time measured with nobody acting (10)")
    b.add_argument("--watcher-procs", type=int, default=2, help="watcher client processes (2)")
    b.add_argument("--burst", type=int, default=0, metavar="N",
                   help="instead: open N streams at once and count how each began")
    b.add_argument("--scoreboard", action="store_true",
                   help="WatchScoreboard streams instead of WatchMatch")
    b.add_argument("--server-checkout", default="", metavar="DIR",
                   help="run the server from another checkout (a baseline), side by side")

    b = bench.add_parser(
        "clocks", help="deadlines of many timed tables in one process",
        description="Create --tables untimed and --tables timed tables in one process, report "
        "how late the deadlines fire (p50/p99/max) and the memory a clock adds per table.")
    b.add_argument("--tables", type=int, default=10_000, help="tables of each kind (10000)")
    b.add_argument("--action-ms", type=int, default=30_000,
                   help="each timed table's allowance, so that every table is created before "
                   "the first deadline (30000)")
    b.add_argument("--postgres", action="store_true",
                   help="on the PostgreSQL of POSTGRES_* (a schema of its own) instead of SQLite")

    b = bench.add_parser(
        "claims", help="time to check a claim, by game and tricks left",
        description="Check claims from seeded random positions with 1..8 tricks left (1..10 "
        "in Ulti) in every game: p50/p99/max milliseconds, claims held, undecided; JSON.")
    b.add_argument("--positions", type=int, default=50,
                   help="positions per game and tricks left (50)")
    b.add_argument("--game", action="append", default=None,
                   help="only this game (repeatable; default: every game)")
    b.add_argument("--tricks", type=int, default=0,
                   help="claim at least this many tricks (default 0: all the remaining ones)")

    b = bench.add_parser(
        "http", help="the HTTP/JSON gateway beside gRPC: actions/s and latency",
        description="Play --tables Euchre tables at once through gRPC and through the HTTP "
        "gateway in alternating rounds on one `referee serve --http`: actions/s, "
        "SubmitAction and GetView p50/p99, server CPU per action, the ratios; JSON.")
    b.add_argument("--tables", type=_number_arg(int, 1, 10_000, "a number of tables"),
                   default=50, help="tables played at once (50)")
    b.add_argument("--seconds", type=_number_arg(float, 1, 3600, "a number of seconds"),
                   default=10.0, help="seconds a round (10)")
    b.add_argument("--rounds", type=_number_arg(int, 1, 100, "a number of rounds"), default=3,
                   help="rounds of each transport, alternating (3; medians reported)")

    from referee_projections.cli import add_parsers

    add_parsers(sub, bench)

    args = parser.parse_args(argv)
    if args.command == "projections" or (args.command == "bench" and args.bench == "projections"):
        from referee_projections import cli as projections_cli

        return (projections_cli.run(args) if args.command == "projections"
                else projections_cli.bench(args))
    if args.command == "bench" and args.bench == "streams":
        from referee.benchmarks import streams

        if args.streams < 1 or args.seconds <= 0:
            print("referee bench streams: --streams must be 1 or more and --seconds above 0",
                  file=sys.stderr)
            return 2
        print(json.dumps(streams.run(args.streams, args.seconds,
                                     server_checkout=args.server_checkout), indent=2))
        return 0
    if args.command == "bench" and args.bench == "claims":
        from referee.benchmarks import claims
        from referee.rules.registry import GAMES

        unknown = [g for g in args.game or () if g not in GAMES]
        if args.positions < 1 or args.tricks < 0 or unknown:
            print("referee bench claims: --positions must be 1 or more, --tricks 0 or more, "
                  f"--game one of {', '.join(GAMES)}", file=sys.stderr)
            return 2
        print(json.dumps(claims.run(args.positions, args.game, args.tricks or -1), indent=2))
        return 0
    if args.command == "bench" and args.bench == "watch":
        from referee.benchmarks import watch

        if (args.watchers < 1 or args.matches < 1 or args.rate <= 0 or args.seconds <= 0
                or args.watcher_procs < 1):
            print("referee bench watch: --watchers, --matches and --watcher-procs must be 1 "
                  "or more, --rate and --seconds above 0", file=sys.stderr)
            return 2
        if args.burst > 0:
            print(json.dumps(watch.run_burst(args.burst, args.server_checkout), indent=2))
            return 0
        print(json.dumps(watch.run(args.watchers, args.matches, args.rate, args.seconds,
                                   args.idle_seconds, args.watcher_procs,
                                   args.server_checkout, scoreboard=args.scoreboard),
                         indent=2))
        return 0
    if args.command == "bench" and args.bench == "clocks":
        from referee.benchmarks import clocks

        if args.tables < 1 or args.action_ms < 1:
            print("referee bench clocks: --tables and --action-ms must be 1 or more",
                  file=sys.stderr)
            return 2
        print(json.dumps(clocks.run(args.tables, args.action_ms, args.postgres), indent=2))
        return 0
    if args.command == "bench" and args.bench == "http":
        from referee.benchmarks import http as http_bench

        print(json.dumps(http_bench.run(args.tables, args.seconds, args.rounds), indent=2))
        return 0
    if args.command == "bench" and args.bench == "service":
        from referee.benchmarks.service import BenchError
        from referee.benchmarks.service import run as run_service

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
        from referee_projections.cli import verify_chain

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
        return _example(args.game, args.list)
    if args.command == "serve":
        return _serve(args)
    if args.command == "health":
        from referee.service.healthcheck import check

        return check(args.address, args.service)
    if args.command == "bench":
        from referee.benchmarks.rules import play_hands, run

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


def _example(game: str, list_all: bool) -> int:
    from referee.rules.registry import GAMES, find_game

    def path_of(name: str) -> Any:
        return resources.files("referee") / "examples" / f"{name}-hand.json"

    if list_all:
        for name in GAMES:
            print(f"{name}\t{path_of(name)}")
        return 0
    try:
        name = find_game(game).name
    except Exception:
        print(f"referee example: unknown game {game!r}: one of {', '.join(GAMES)}",
              file=sys.stderr)
        return 2
    path = path_of(name)
    if not path.is_file():
        print(f"referee example: no bundled example for {name!r}", file=sys.stderr)
        return 2
    print(path)
    return 0


def _serve(args: argparse.Namespace) -> int:
    """``referee serve``: settings and address checked first; a start-up mistake ends in one
    line on stderr (exit 2 for a bad setting, 1 when the server cannot start)."""
    from referee.config import SettingsError, StartupError, settings_from_env
    from referee.service import logs
    from referee.service.credentials import check_credentials
    from referee.service.workers import REUSE_PORT_ENV, serve_workers, worker_count

    if args.data_dir:
        os.environ["REFEREE_DATA_DIR"] = args.data_dir
    if args.projections:
        os.environ["REFEREE_PROJECTIONS"] = args.projections
    workers = worker_count(args.workers)
    try:
        logs.configure(args.log_level, args.log_format, grpc_logs=args.log_grpc or None,
                       access=args.access_log or None)
        settings = settings_from_env()
        check_credentials()  # no placeholder or short REFEREE_*_TOKEN
        port = settings.metrics_port if args.metrics_port is None else args.metrics_port
        http = settings.http_port if args.http is None else args.http
        if os.environ.get(REUSE_PORT_ENV) != "1":  # a worker's siblings hold the port
            _check_address(args.address)
        _note_old_data_dir(settings)
        if workers > 1:
            try:
                return serve_workers(args.address, workers, args.grace, port,
                                     ["--log-level", args.log_level, "--http", str(http),
                                      *_log_argv(args)])
            except RuntimeError as exc:  # a worker did not start (it said why on stderr)
                raise StartupError(str(exc)) from exc
        from referee.composition import serve

        return serve(args.address, args.grace, port, http)
    except SettingsError as exc:
        print(f"referee serve: {exc}", file=sys.stderr)
        return 2
    except (StartupError, OSError) as exc:
        print(f"referee serve: {exc}", file=sys.stderr)
        return 1


def _log_arguments(p: argparse.ArgumentParser) -> None:
    """The logging flags of ``serve`` (referee.service.logs)."""
    p.add_argument("--log-format", choices=["text", "json"], default=None,
                   help="text (default) or json: one JSON object per line "
                   "(default $REFEREE_LOG_FORMAT)")
    p.add_argument("--log-grpc", action="store_true",
                   help="let grpc's own loggers through at --log-level (default: warnings "
                   "only; $REFEREE_LOG_GRPC=y)")
    p.add_argument("--access-log", action="store_true",
                   help="log one line per call (method, code, match id, peer, duration) at "
                   "INFO ($REFEREE_ACCESS_LOG=y; always on at DEBUG)")


def _log_argv(args: argparse.Namespace) -> list[str]:
    """The logging flags given, for the worker processes."""
    return ([f"--log-format={args.log_format}"] if args.log_format else []) + (
        ["--log-grpc"] if args.log_grpc else []) + (["--access-log"] if args.access_log else [])


def _check_address(address: str) -> None:
    """Fail with one clear line, before anything starts, when ``address`` cannot be listened
    on (grpc's own error says only "Failed to bind").

    :raises OSError: the host does not resolve, is not local, or the port is taken.
    """
    import errno
    import socket

    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host or None, int(port), type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise OSError(f"--address {address}: cannot resolve {host!r} ({exc.strerror})") from None
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does
        try:
            sock.bind(sockaddr)
        except OSError as exc:
            why = ("the port is in use (another `referee serve`?)" if exc.errno == errno.EADDRINUSE
                   else f"{exc.strerror}; is {host} an address of this machine?")
            raise OSError(f"cannot listen on {address}: {why}") from None


def _note_old_data_dir(settings: Any) -> None:
    """Say so when ``./data`` holds a store of an older version, which used ``./data`` as the
    default data directory: this one is elsewhere now."""
    import logging
    from pathlib import Path

    old = Path("data", "referee.sqlite")
    if os.environ.get("REFEREE_DATA_DIR") or settings.backend != "sqlite" or not old.is_file():
        return
    if old.resolve() != Path(settings.store_env["SQLITE_DBNAME"]).resolve():
        logging.getLogger("referee").warning(
            "note: %s is not used: the store is %s (set REFEREE_DATA_DIR=./data to use that one)",
            old.resolve(), settings.store_location)


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
