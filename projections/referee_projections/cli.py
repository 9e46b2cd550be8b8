"""Command-line parts of the read side: ``referee projections``, ``referee verify --chain``,
``referee bench projections`` (wired into ``referee/cli.py``)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

PROJECTIONS = ("scoreboard", "hands", "standings")  # views.PROJECTIONS, unimported


def add_parsers(sub: Any, bench: Any) -> None:
    """Add ``projections`` to the subcommands and ``projections`` to ``bench``."""
    p = sub.add_parser(
        "projections", allow_abbrev=False,  # `--view` is not `--views`: no prefix matching
        help="run the read-side views (scoreboard, hands, standings)",
        description="Catch the views up with the event log in batches, then follow it in "
        "batches (one transaction per page, polling every 50 ms when idle). Same store "
        "configuration as `referee serve`.",
    )
    p.add_argument("--views", default=",".join(PROJECTIONS), type=view_names,
                   help=f"comma-separated views (default all: {','.join(PROJECTIONS)})")
    p.add_argument("--rebuild", metavar="VIEW", help="drop VIEW, rebuild it from the log, exit")
    p.add_argument("--once", action="store_true", help="catch up and exit")
    p.add_argument("--batch", type=int, default=1000, help="events per transaction")
    p.add_argument("--metrics-port", type=int, default=None,
                   help="Prometheus /metrics port while following (default "
                   "$REFEREE_METRICS_PORT or 9464; 0 disables): lag and events per view")
    p.add_argument("--log-level", default="INFO", type=str.upper,
                   choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
    p.add_argument("--log-format", choices=["text", "json"], default=None,
                   help="text (default) or json, one object per line ($REFEREE_LOG_FORMAT)")
    p.add_argument("--export-events", metavar="MATCH_ID",
                   help="print the match's stored events (NDJSON, for verify --chain) and exit")
    b = bench.add_parser("projections", help="rebuild every view from a large log; replay time")
    b.add_argument("--hands", type=int, default=300, help="hands to play into the log")
    b.add_argument("--game", default=None,
                   help="the game played (default: belot; with --lag, the service bench's euchre)")
    b.add_argument("--batch", type=int, default=1000)
    b.add_argument("--events", type=int, default=0,
                   help="fill quickly up to about this many events (app.save batches of whole "
                   "matches) instead of --hands through submit_action")
    b.add_argument("--fill-only", action="store_true",
                   help="fill, print the schema and replay samples, don't rebuild")
    b.add_argument("--schema", default="",
                   help="PostgreSQL: reuse this schema's log (from --fill-only)")
    b.add_argument("--samples-from", metavar="REPORT",
                   help="with --schema: the --fill-only JSON report (hands to replay)")
    b.add_argument("--lag", action="store_true",
                   help="instead: scoreboard lag (s) under `referee bench service` load, views "
                   "in a separate `referee projections` process (PostgreSQL)")
    b.add_argument("--tables", type=int, help="--lag: concurrent tables (200)")
    b.add_argument("--seconds", type=float, default=20.0, help="--lag: measured seconds")
    b.add_argument("--warmup", type=float, default=5.0, help="--lag: warm-up seconds")
    b.add_argument("--rate", type=float, default=0.0,
                   help="--lag: offered actions/s (0: unpaced, as the service benchmark)")


def view_names(text: str) -> list[str]:
    """``--views``: comma-separated names of :data:`PROJECTIONS`, at least one."""
    names = [n for n in text.split(",") if n]
    unknown = [n for n in names if n not in PROJECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown view(s) {', '.join(unknown) or repr(text)}: choose from "
            f"{', '.join(PROJECTIONS)}")
    return names


def run(args: argparse.Namespace) -> int:
    """``referee projections``."""
    from referee_projections.runner import run_process

    if args.export_events:
        return _export_events(args.export_events)
    from referee.config import SettingsError, settings_from_env
    from referee.service import logs, metrics

    try:
        logs.configure(args.log_level, args.log_format)
        port = args.metrics_port
        if port is None:  # only a process that keeps following serves metrics by default
            port = 0 if args.once or args.rebuild else settings_from_env().metrics_port
    except SettingsError as exc:
        print(f"referee projections: {exc}", file=sys.stderr)
        return 2
    metrics.serve_http("0.0.0.0", port)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    names = args.views if isinstance(args.views, list) else view_names(args.views)
    return run_process(names, rebuild=args.rebuild, once=args.once, batch_size=args.batch,
                       stop=stop)


def _export_events(match_id: str) -> int:
    from uuid import UUID

    from referee.application import LogReader
    from referee.config import settings_from_env
    from referee_projections.queries import event_log

    log = LogReader.open(settings_from_env())
    try:
        for e in event_log(log, UUID(match_id)):
            print(json.dumps(e, sort_keys=True))
    finally:
        log.close()
    return 0


def verify_chain(target: str) -> tuple[int, dict[str, Any]]:
    """``referee verify --chain TARGET``: an exported event log (NDJSON file) or a match id
    checked in the configured store. Exit 0 intact, 1 broken, 2 unreadable/unknown.

    The report gives the chain head (``head``, the hash of the event at ``version``). To check
    a head saved earlier, append it to the target: ``TARGET@VERSION:HASH`` (the event at
    ``VERSION`` must still hash to ``HASH``; ``anchor_ok`` in the report)."""
    from referee.domain.chain import check_chain
    from referee_projections.queries import check_anchor

    anchor: tuple[int, str] | None = None
    if not Path(target).is_file() and "@" in target:
        target, _, saved = target.rpartition("@")
        version, _, head = saved.partition(":")
        if not (version.isdigit() and int(version) > 0 and head):
            return 2, {"ok": False, "error": {"reason": "INVALID_ARGUMENT",
                                              "message": f"{saved!r}: the anchor is VERSION:HASH"}}
        anchor = (int(version), head)
    path = Path(target)
    if path.is_file():
        try:
            events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        except (OSError, ValueError) as exc:
            return 2, {"ok": False, "error": {"reason": "INVALID_LOG", "message": str(exc)}}
    else:
        from uuid import UUID

        from referee.application import LogReader
        from referee.config import settings_from_env
        from referee.domain.errors import MatchNotFoundError
        from referee_projections.queries import event_log

        try:
            match_id = UUID(target)
        except ValueError:
            return 2, {"ok": False, "error": {"reason": "INVALID_ARGUMENT",
                                              "message": f"{target!r}: no such file, not a UUID"}}
        log = LogReader.open(settings_from_env())
        try:
            events = event_log(log, match_id)
        except MatchNotFoundError as exc:
            return 2, {"ok": False, "error": {"reason": exc.reason, "message": exc.message}}
        finally:
            log.close()
    report = check_chain(events)
    out = report.to_json()
    out["version"] = report.events if report.ok else 0
    if anchor is not None:
        problem = check_anchor(events, *anchor)
        out["anchor_ok"] = problem is None
        if problem is not None:
            out["ok"] = False
            out["message"] = f"{report.message}; {problem}" if report.message else problem
    return (0 if out["ok"] else 1), out


def bench(args: argparse.Namespace) -> int:
    from referee.benchmarks.projections import run_bench, run_lag

    if args.lag:
        game = args.game or "euchre"  # the service bench's game
        print(json.dumps(run_lag(args.tables, args.seconds, args.warmup, game,
                                 rate=args.rate), indent=2))
        return 0
    samples = None
    if args.samples_from:
        samples = json.loads(Path(args.samples_from).read_text())["samples"]
    print(json.dumps(run_bench(args.hands, args.game or "belot", args.batch, events=args.events,
                               schema=args.schema, fill_only=args.fill_only,
                               samples=samples), indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(2)
