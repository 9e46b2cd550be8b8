"""``referee-client``: play, watch, export, verify and replay matches, run tournaments.

Every command takes the connection options (``--address``, ``--tls``, ``--timeout``,
``--retries``) and ``--json``. Expected errors are one line on stderr (exit 1; 2 for a bad
record or bad usage), never a traceback.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.rules.words import Table
from referee_clients import state as local_state
from referee_clients.bots import STRATEGIES, Seat, play_all, play_seat
from referee_clients.records import RecordProblem, hand_of, load_file, replay, verify_file
from referee_clients.render import (
    action_text,
    announcement_text,
    cards_text,
    json_safe,
    json_text,
    render_view,
    result_lines,
    safe,
    scoreboard,
    scoreboard_text,
    scores_text,
    seat_name,
    side_name,
    terminal_text,
    words_table,
)
from trick_referee_client.errors import RefereeError
from trick_referee_client.sdk import (
    DEFAULT_ADDRESS,
    RefereeClient,
    ReplayStep,
    Ruling,
    Scoreboard,
    Standings,
    Update,
    View,
    rule_default,
)
from trick_referee_client.webhooks import WebhookDelivery, WebhookEndpoint


class UsageProblem(Exception):
    """A command line that cannot be carried out (exit 2)."""


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("connection and output")
    g.add_argument("--address", default=os.environ.get("REFEREE_ADDRESS", DEFAULT_ADDRESS),
                   help="referee host:port, or IP:port,IP:port,... of its replicas "
                        "(env REFEREE_ADDRESS; default %(default)s)")
    g.add_argument("--tls", action="store_true", help="connect with TLS")
    g.add_argument("--ca", metavar="PEM", help="CA certificate file for --tls (default: system)")
    g.add_argument("--timeout", type=float, default=10.0, help="deadline per call, seconds")
    g.add_argument("--retries", type=int, default=3, choices=range(5), metavar="0..4",
                   help="retries of idempotent calls when the referee is unreachable "
                        "(default %(default)s)")
    g.add_argument("--resume-for", type=_seconds, default=60.0, metavar="SECONDS",
                   help="how long a stream (watch, bot) keeps resuming while the referee is "
                        "unreachable, e.g. restarting, before giving up (default %(default)g)")
    g.add_argument("--json", action="store_true", help="print JSON for scripts")
    g.add_argument("--state", metavar="FILE", type=Path,
                   help="local token file (default $REFEREE_CLIENT_STATE or "
                        "~/.config/referee-client/state.json); written only with --save")
    return p


def _seconds(text: str, *, zero: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value >= 0 if zero else value > 0) or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a {'non-negative' if zero else 'positive'} number of seconds")
    return value


def _pause(text: str) -> float:
    return _seconds(text, zero=True)


def _match_args(p: argparse.ArgumentParser, *, seat: bool = True) -> None:
    p.add_argument("--match", required=True, metavar="ID", help="the match id")
    p.add_argument("--token", default=os.environ.get("REFEREE_TOKEN", ""),
                   help="a seat, spectator or auditor token (env REFEREE_TOKEN)")
    if seat:
        p.add_argument("--seat", type=int, help="use this seat's token from the state file")


def _auditor_env() -> str:
    return os.environ.get("REFEREE_AUDITOR_TOKEN") or os.environ.get("REFEREE_TOKEN", "")


def _version() -> str:
    """The installed distribution's version (its one source is ``referee.__version__``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trick-referee")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="referee-client", description=__doc__.split("\n\n")[0],
        epilog="Run 'referee-client COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"referee-client {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_text, description=help_text)

    add("games", "list the games and their rule parameters")

    p = add("create", "create a match; prints the match id and one secret token per seat")
    p.add_argument("--game", required=True, help="game name or alias (see 'games')")
    p.add_argument("--players", help="comma-separated player names, one per seat")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule parameter (value as JSON, else text); repeatable")
    p.add_argument("--rules", metavar="JSON", help="rule parameters as a JSON object")
    p.add_argument("--first-dealer", type=int, help="the first dealer (default 0)")
    p.add_argument("--public", action="store_true", help="anyone may watch without a token")
    p.add_argument("--deals", type=Path, metavar="FILE",
                   help="fixed deals (duplicate boards): a JSON list of packs, each a list of "
                        "card names in dealing order (or {\"cards\": [...]})")
    p.add_argument("--save", action="store_true", help="store the tokens in the state file")
    p.add_argument("--action-ms", type=int, help="a time control: milliseconds per action "
                   "(docs/clocks.md)")
    p.add_argument("--bank-ms", type=int, help="a time control: each seat's reserve")
    p.add_argument("--increment-ms", type=int, help="added to a seat's bank per action")
    p.add_argument("--lag-ms", type=int, help="network allowance per deadline (default 1000)")
    p.add_argument("--on-timeout", choices=["auto", "forfeit", "pause"],
                   help="what happens when a seat's time runs out (default auto)")
    p.add_argument("--organiser-token", default=os.environ.get("REFEREE_ORGANISER_TOKEN", ""),
                   metavar="TOKEN", help="the server's organiser credential, where it requires "
                   "one (default: $REFEREE_ORGANISER_TOKEN)")
    p.add_argument("--unchecked-claims", choices=["off", "consent"],
                   help="with consent a claim of all the remaining tricks may be put to the "
                        "other sides, unchecked (docs/claims.md)")
    p.add_argument("--undo", choices=["off", "consent"],
                   help="the undo policy (default off): with consent a seat may ask to "
                        "withdraw its last action (docs/undo.md)")

    p = add("join", "take a seat with its token (checks it; --save stores it locally)")
    _match_args(p, seat=False)
    p.add_argument("--seat", type=int, required=True, help="your seat")
    p.add_argument("--save", action="store_true", help="store the token in the state file")

    p = add("show", "show your hand and the table")
    _match_args(p)
    p = add("legal", "list your legal actions (when it is your turn)")
    _match_args(p)

    p = add("act", "submit an action in record notation, e.g. 'play:JH', 'pass', 'name:S'")
    _match_args(p)
    p.add_argument("action", help="the action")
    p.add_argument("--command-id", help="idempotency key (default: a fresh one)")
    p.add_argument("--expected-version", type=int, help="act only if the match is at this version")

    p = add("claim", "claim the remaining tricks for your side (the referee checks it against "
                     "every defence); --concede gives them to the opponents")
    _match_args(p)
    p.add_argument("tricks", nargs="?", type=int,
                   help="at least this many more tricks (default: all of them)")
    p.add_argument("--concede", action="store_true",
                   help="concede the remaining tricks of the hand instead")
    p.add_argument("--concede-match", action="store_true",
                   help="concede the whole match (resign): it ends at once")
    p.add_argument("--unchecked", action="store_true",
                   help="put a claim of all the remaining tricks to the other sides instead "
                        "(a match created with --unchecked-claims consent)")
    p.add_argument("--accept", action="store_true", help="accept the pending unchecked claim")
    p.add_argument("--reject", action="store_true", help="reject the pending unchecked claim")
    p.add_argument("--command-id", help="idempotency key (default: a fresh one)")

    p = add("undo", "ask to withdraw your last action (a match whose undo policy is consent); "
                    "--agree or --refuse answers the other side's request")
    _match_args(p)
    answer = p.add_mutually_exclusive_group()
    answer.add_argument("--agree", action="store_true", help="agree to the pending request")
    answer.add_argument("--refuse", action="store_true", help="refuse the pending request")
    p.add_argument("--command-id", help="idempotency key (default: a fresh one)")

    p = add("watch", "follow a match live (until it ends)")
    _match_args(p)
    p.add_argument("--after-version", type=int, default=0, help="start after this version")
    p.add_argument("--max-updates", type=int, help="stop after this many updates")
    p.add_argument("--color", action="store_true", help="red hearts and diamonds (ANSI)")

    p = add("scoreboard", "the match's scoreboard from the referee's read side: scores, each "
                          "finished hand's points, rulings (--watch: live)")
    _match_args(p)
    p.add_argument("--watch", action="store_true", help="print it again after every change "
                                                        "until the match ends")
    p.add_argument("--wait", type=float, default=3.0, metavar="SECONDS",
                   help="without --watch: wait this long for the scoreboard to catch up with "
                        "the match (default %(default)s)")

    p = add("standings", "a tournament's standings and duplicate comparison per board")
    p.add_argument("--tournament", required=True, metavar="ID", help="the tournament id")

    p = sub.add_parser("tournament", help="create a tournament, register entrants, attach "
                                          "matches (auditor token)",
                       description="Tournaments (auditor token): create, register, attach.")
    tsub = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                            help="create | register | attach | finalize | release | abandon")

    def auditor_add(subs: Any, name: str, help_text: str) -> argparse.ArgumentParser:
        t: argparse.ArgumentParser = subs.add_parser(name, parents=[common], help=help_text,
                                                     description=help_text)
        t.add_argument("--token", default=_auditor_env(),
                       help="the auditor token (env REFEREE_AUDITOR_TOKEN or REFEREE_TOKEN)")
        return t

    def tadd(name: str, help_text: str) -> argparse.ArgumentParser:
        return auditor_add(tsub, name, help_text)

    t = tadd("create", "create a tournament; prints its id")
    t.add_argument("--name", required=True, help="the tournament's name")
    t.add_argument("--game", required=True, help="the game every match plays")
    t.add_argument("--abandonment", choices=["forfeit", "adjusted"],
                   help="how a match ended as abandoned is scored (default forfeit: to the "
                        "side not at fault; adjusted: the score stands, a side at fault "
                        "cannot win)")
    t = tadd("register", "register an entrant (a team or a player)")
    t.add_argument("--tournament", required=True, metavar="ID", help="the tournament id")
    t.add_argument("--entrant", required=True, help="a unique name")
    t.add_argument("--members", default="", help="comma-separated player names")
    t = tadd("attach", "attach a match: the entrant of each side and its duplicate board")
    t.add_argument("--tournament", required=True, metavar="ID", help="the tournament id")
    t.add_argument("--match", required=True, metavar="ID", help="the match id")
    t.add_argument("--sides", required=True,
                   help="comma-separated entrants, side 0 first (teams; Ulti: seats)")
    t.add_argument("--board", default="", help="the duplicate board (matches on one board were "
                                               "created with the same --deals)")
    t = tadd("finalize", "close the correction window: the finished matches' results are "
                         "final (later rulings must be appeals)")
    t.add_argument("--tournament", required=True, metavar="ID", help="the tournament id")
    t = tadd("release", "let every table read a duplicate board before all have played it")
    t.add_argument("--tournament", required=True, metavar="ID", help="the tournament id")
    t.add_argument("--board", required=True, help="the board")
    t = tadd("abandon", "end a match as abandoned, the fault assigned per side (scored by the "
                        "tournament's abandonment policy)")
    t.add_argument("--tournament", default="", metavar="ID",
                   help="the tournament the match is attached to (none: scored as a forfeit)")
    t.add_argument("--match", required=True, metavar="ID", help="the match id")
    t.add_argument("--at-fault", default="", metavar="SIDES",
                   help="comma-separated sides at fault (side numbers; none: nobody)")
    t.add_argument("--reason", required=True, help="why (recorded in the event)")

    p = sub.add_parser("webhooks", help="signed webhooks of a match or a tournament: add, "
                                         "list, remove endpoints, read deliveries (auditor "
                                         "token; docs/webhooks.md)",
                       description="Signed webhooks (auditor token): add, list, remove, "
                                   "deliveries.")
    wsub = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                            help="add | list | remove | deliveries")

    def wadd(name: str, help_text: str, scope: bool = True) -> argparse.ArgumentParser:
        w = auditor_add(wsub, name, help_text)
        if scope:
            w.add_argument("--match", default="", metavar="ID", help="the match")
            w.add_argument("--tournament", default="", metavar="ID",
                           help="the tournament (its matches' events and results.final)")
        return w

    w = wadd("add", "register an endpoint URL; prints its id (and the secret, shown once, "
                    "when --secret is not given)")
    w.add_argument("url", help="http:// or https:// URL the events are POSTed to")
    w.add_argument("--secret", default=os.environ.get("REFEREE_WEBHOOK_SECRET", ""),
                   help="whsec_... (base64 of 24 to 64 bytes; env REFEREE_WEBHOOK_SECRET); "
                        "default: the referee makes one")
    w.add_argument("--events", default="", help="comma-separated types (default all): "
                   "hand.scored, match.finished, ruling.recorded, results.final")
    wadd("list", "the endpoints (never their secrets: a fingerprint)")
    w = wadd("remove", "unregister an endpoint; its pending deliveries are cancelled",
             scope=False)
    w.add_argument("endpoint", metavar="ENDPOINT_ID", help="the endpoint id")
    w = wadd("deliveries", "an endpoint's delivery log: each webhook-id, its state and "
                           "attempts", scope=False)
    w.add_argument("endpoint", metavar="ENDPOINT_ID", help="the endpoint id")
    w.add_argument("--only", default="", metavar="STATE",
                   choices=["pending", "delivered", "failed", "cancelled"],
                   help="only deliveries in this state: pending, delivered, failed, cancelled")

    p = add("ruling", "record an auditor's ruling on a finished hand (an event; history is "
                      "never edited)")
    p.add_argument("--match", required=True, metavar="ID", help="the match id")
    p.add_argument("--hand", type=int, required=True, help="the finished hand (from 1)")
    p.add_argument("--kind", required=True,
                   choices=["penalty", "annul", "correction", "artificial", "weighted",
                            "withdraw", "amend", "appeal", "redeal"],
                   help="penalty: points taken per side; annul: the hand's scores undone; "
                        "correction / appeal: points added per side; artificial: --grades; "
                        "weighted: --points as percentages; withdraw / amend: --ref; "
                        "redeal: the hand in progress (or the last scored one) cancelled "
                        "and dealt anew (docs/tournaments.md)")
    p.add_argument("--rule", default="", help="the rule or regulation cited")
    p.add_argument("--ref", type=int, default=0,
                   help="withdraw / amend: the version of the ruling changed")
    p.add_argument("--grades", default="", help="artificial: per side, comma-separated: "
                   "average_plus, average or average_minus")
    p.add_argument("--points", default="", help="comma-separated points per side, e.g. 2,0 "
                                                "(not for annul)")
    p.add_argument("--reason", required=True, help="why (required)")
    p.add_argument("--token", default=_auditor_env(),
                   help="the auditor token (env REFEREE_AUDITOR_TOKEN or REFEREE_TOKEN)")

    p = add("clocks", "pause or resume a timed table's clocks (auditor token; events)")
    p.add_argument("what", choices=["pause", "resume"], help="pause or resume")
    p.add_argument("--match", required=True, metavar="ID", help="the match id")
    p.add_argument("--reason", default="", help="pause: why (a disconnect, a ruling)")
    p.add_argument("--add-ms", type=int, default=0,
                   help="resume: more milliseconds for the seat to act")
    p.add_argument("--token", default=_auditor_env(),
                   help="the auditor token (env REFEREE_AUDITOR_TOKEN or REFEREE_TOKEN)")

    p = add("substitute", "give a seat to another player (auditor token; an event): prints "
                          "the seat's new token; the old one stops working at once")
    p.add_argument("--match", required=True, metavar="ID", help="the match id")
    p.add_argument("--seat", type=int, required=True, help="the seat")
    p.add_argument("--player", required=True, help="the player who takes the seat")
    p.add_argument("--token", default=_auditor_env(),
                   help="the auditor token (env REFEREE_AUDITOR_TOKEN or REFEREE_TOKEN)")

    p = add("export", "write a match record (or one hand's record) as JSON, or a tournament's "
                      "match records as NDJSON")
    p.add_argument("--match", metavar="ID", help="the match id")
    p.add_argument("--tournament", metavar="ID",
                   help="every match of this tournament, one referee.match/v1 record per line "
                        "(NDJSON; auditor token)")
    p.add_argument("--token", default=os.environ.get("REFEREE_TOKEN", ""),
                   help="a seat, spectator or auditor token (env REFEREE_TOKEN)")
    p.add_argument("--seat", type=int, help="use this seat's token from the state file")
    p.add_argument("--hand", type=int, help="only this hand (from 1)")
    p.add_argument("--out", type=Path, help="output file (default: stdout)")

    p = add("verify", "verify a record file (or a match's record) with the rules, or a "
                      "match's event hash chain (--chain)")
    p.add_argument("file", nargs="?", help="a referee.hand/v1 or referee.match/v1 file")
    p.add_argument("--match", metavar="ID", help="verify this match's record instead")
    p.add_argument("--chain", metavar="MATCH_ID",
                   help="have the referee check this match's event hash chain in its store "
                        "(any token of the match)")
    p.add_argument("--anchor", metavar="VERSION:HASH",
                   help="with --chain: a head saved earlier (scoreboard version and head_hash) "
                        "that must still match")
    p.add_argument("--token", default=os.environ.get("REFEREE_TOKEN", ""), help="token")
    p.add_argument("--seat", type=int, help="with --match: use this seat's saved token")
    p.add_argument("--legal", action="store_true", help="report the legal set at each step")
    p.add_argument("--deals", action="store_true",
                   help="with --match: also check each finished hand's pack commitment")

    p = add("replay", "replay a hand step by step for an arbiter (with --match: the referee's "
                      "dispute replay, with the legal set and why every other action is "
                      "illegal at each step), or render it as HTML")
    p.add_argument("file", nargs="?", help="a hand or match record file")
    p.add_argument("--match", metavar="ID",
                   help="replay this match's hand on the referee (auditor: any time; other "
                        "tokens: once the hand is over)")
    p.add_argument("--local", action="store_true",
                   help="with --match: fetch the record and replay it here instead")
    p.add_argument("--token", default=os.environ.get("REFEREE_TOKEN", ""), help="token")
    p.add_argument("--seat", type=int, help="with --match: use this seat's saved token")
    p.add_argument("--hand", type=int, help="the hand of a match (from 1; default the last)")
    p.add_argument("--cancelled", action="store_true",
                   help="--hand counts the match's cancelled deals (a redeal ruling's)")
    p.add_argument("--at", type=int, metavar="N",
                   help="show every hand after N actions (with --match: the whole state at "
                        "action index N)")
    p.add_argument("--step", action="store_true", help="wait for Enter after each action")
    p.add_argument("--legal", action="store_true", help="show the legal set before each action")
    p.add_argument("--html", type=Path, metavar="OUT", help="write the hand viewer page here")

    p = add("bot", "play one seat (or every seat) with a bot until the match ends")
    p.add_argument("--match", required=True, metavar="ID", help="the match id")
    p.add_argument("--seat", type=int, help="the seat to play")
    p.add_argument("--token", default=os.environ.get("REFEREE_TOKEN", ""), help="its token")
    p.add_argument("--tokens", help="comma-separated tokens of every seat: fill every seat")
    p.add_argument("--all", action="store_true", help="every seat, tokens from the state file")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default="greedy",
                   help="random: any legal action; greedy: a cheap heuristic (default)")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("--think", type=_pause, default=0.0, metavar="SECONDS",
                   help="wait this long before each action (a human pace; default none)")
    p.add_argument("--quiet", action="store_true", help="print only the final scores")

    p = add("demo", "start a referee (or use --address), seat bots, play a whole match")
    p.add_argument("--game", default="euchre", help="game name (default euchre)")
    p.add_argument("--target", type=int, help="a lower target score (Ulti: number of deals)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule parameter override; repeatable")
    p.add_argument("--strategy", action="append", choices=sorted(STRATEGIES),
                   help="bot strategy per seat, cycled (default greedy)")
    p.add_argument("--seed", type=int, help="random seed of the bots")
    p.add_argument("--out", type=Path, help="directory for the match record (default: "
                                            "~/.cache/trick-referee/demo or the platform's)")
    p.add_argument("--connect", action="store_true",
                   help="use the referee at --address instead of starting one")
    return parser


# -- helpers ------------------------------------------------------------------------------


def _client(args: argparse.Namespace) -> RefereeClient:
    root = Path(args.ca).read_bytes() if getattr(args, "ca", None) else None
    try:
        return RefereeClient(args.address, tls=args.tls, root_certificates=root,
                             timeout=args.timeout, retries=args.retries)
    except ValueError as exc:  # a bad address list
        raise UsageProblem(str(exc)) from None


def _state_path(args: argparse.Namespace) -> Path:
    return args.state or local_state.default_path()


def _token(args: argparse.Namespace) -> str:
    if args.token:
        return str(args.token)
    seat = getattr(args, "seat", None)
    saved = local_state.token_for(_state_path(args), args.match, seat)
    if saved:
        return saved
    if seat is not None:
        raise UsageProblem(f"no saved token for seat {seat} of match {args.match}; "
                           "pass --token (or create/join with --save)")
    return ""  # a public match


def _parse_rules(pairs: Sequence[str], base: str | None = None) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    if base:
        try:
            loaded = json.loads(base)
        except json.JSONDecodeError as exc:
            raise UsageProblem(f"--rules is not JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UsageProblem("--rules must be a JSON object")
        rules.update(loaded)
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageProblem(f"--rule wants NAME=VALUE, not {pair!r}")
        try:
            rules[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            rules[name.strip()] = value
    return rules


def _load_deals(path: Path) -> list[list[str]]:
    """``--deals FILE``: a JSON list of packs (lists of card names, or ``{"cards": [...]}``)."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageProblem(f"--deals {path}: {exc}") from None
    packs = [p.get("cards") if isinstance(p, dict) else p for p in loaded] \
        if isinstance(loaded, list) else None
    if not packs or not all(isinstance(p, list) and all(isinstance(c, str) for c in p)
                            for p in packs):
        raise UsageProblem(f"--deals {path}: want a JSON list of packs (lists of card names)")
    return [list(p) for p in packs if isinstance(p, list)]  # each checked above


def _ints(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageProblem(f"{what} wants comma-separated integers, not {text!r}") from None


def _print(text: str = "", *, err: bool = False, flush: bool = False,
           color: bool = False) -> None:
    """Print text for people: every control character in it is escaped (terminal_text)."""
    print(terminal_text(text, color=color), file=sys.stderr if err else sys.stdout, flush=flush)


def _print_json(data: Any, *, flush: bool = False) -> None:
    """Print ``data`` as one line of JSON with no raw control characters (json_text)."""
    print(json_text(data), flush=flush)


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        _print_json(data)
    else:
        _print(text)


def _view_json(view: View) -> dict[str, Any]:
    out = dict(vars(view))
    del out["table"]
    out["state"] = view.state
    return out


def _record_source(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """The record named by ``FILE`` or ``--match`` and its players."""
    if bool(args.file) == bool(args.match):
        raise UsageProblem("give either a record FILE or --match ID")
    if args.file:
        data = load_file(args.file)
    else:
        with _client(args) as client:
            data = client.get_match_record(args.match, _token(args)).data
    return data, list(data.get("players") or [])


# -- commands -----------------------------------------------------------------------------


def cmd_games(args: argparse.Namespace) -> int:
    with _client(args) as client:
        games = client.list_games()
    data: list[dict[str, Any]] = [
        {"name": g.name, "title": g.title, "seats": g.seats, "aliases": list(g.aliases),
         "partnerships": g.partnerships, "sides": g.sides, "match_length": g.match_length,
         "hidden_verbs": list(g.hidden_verbs),
             "parameters": [{"name": p.name, "type": p.type, "default": rule_default(p),
                             "rule": p.rule, "doc": p.doc} for p in g.parameters]}
            for g in games]
    lines = []
    for g in data:
        layout = (f"{g['sides']} teams" if g["partnerships"] else "each seat for itself")
        lines.append(f"{g['name']} ({g['title']}, {g['seats']} seats, {layout}; match length: "
                     f"{g['match_length']})")
        lines += [f"  {p['name']} = {json.dumps(p['default'])}  [{p['rule']}] {p['doc']}"
                  for p in g["parameters"]]
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_create(args: argparse.Namespace) -> int:
    rules = _parse_rules(args.rule, args.rules)
    players = [p.strip() for p in args.players.split(",")] if args.players else []
    with _client(args) as client:
        m = client.create_match(args.game, rules=rules, players=players,
                                first_dealer=args.first_dealer, public_spectators=args.public,
                                fixed_deals=_load_deals(args.deals) if args.deals else (),
                                organiser_token=args.organiser_token,
                                time_control=_time_control(args),
                                policies=_policies(args))
        game = client.get_view(m.match_id, m.spectator_token).game
    if args.save:
        local_state.save_tokens(_state_path(args), m.match_id, seats=dict(enumerate(m.tokens)),
                                spectator=m.spectator_token, game=game, address=args.address)
    data = {"match_id": m.match_id, "game": game, "version": m.version,
            "deal_commitment": m.deal_commitment, "spectator_token": m.spectator_token,
            "seats": [{"seat": i, "player": p, "token": t}
                      for i, (p, t) in enumerate(zip(m.players, m.tokens, strict=True))]}
    lines = [f"match {m.match_id} ({game}) created; keep these tokens secret:"]
    lines += [f"  seat {i} {p!r}: {t}" for i, (p, t) in enumerate(zip(m.players, m.tokens,
                                                                        strict=True))]
    lines.append(f"  spectator: {m.spectator_token}")
    if args.save:
        lines.append(f"tokens saved in {_state_path(args)}")
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("join needs --token (the seat token given at creation)")
    with _client(args) as client:
        view = client.get_view(args.match, args.token)
    if view.role != "seat" or view.seat != args.seat:
        raise UsageProblem(f"that token is a {view.role} token"
                           + (f" for seat {view.seat}" if view.seat is not None else "")
                           + f", not seat {args.seat}'s")
    if args.save:
        local_state.save_tokens(_state_path(args), args.match, seats={args.seat: args.token},
                                game=view.game, address=args.address)
    text = f"joined {view.game} match {args.match} as {seat_name(view.seat, view.players)}"
    if args.save:
        text += f"; token saved in {_state_path(args)}"
    _emit(args, {"joined": True, "saved": args.save, "view": _view_json(view)},
          text + "\n" + render_view(view))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _client(args) as client:
        view = client.get_view(args.match, _token(args))
    _emit(args, _view_json(view), render_view(view))
    return 0


def cmd_legal(args: argparse.Namespace) -> int:
    with _client(args) as client:
        view = client.get_view(args.match, _token(args))
    if view.legal_actions:
        text = "\n".join(view.legal_actions)
    elif view.match_over:
        text = "the match is over"
    else:
        text = f"not your turn: {seat_name(view.to_act, view.players)} is to act"
    _emit(args, {"to_act": view.to_act, "seat": view.seat, "version": view.version,
                 "legal_actions": view.legal_actions}, text)
    return 0


def cmd_act(args: argparse.Namespace) -> int:
    with _client(args) as client:
        r = client.submit_action(args.match, _token(args), args.action,
                                 command_id=args.command_id,
                                 expected_version=args.expected_version)
    data = {"version": r.version, "seat": r.seat, "action": r.action, "hand_over": r.hand_over,
            "match_over": r.match_over, "scores": r.scores, "replayed": r.replayed,
            "command_id": r.command_id, "facts": [{"kind": f.kind, **f.data} for f in r.facts]}
    lines = [f"seat {r.seat}: {action_text(r.action)} accepted (version {r.version})"
             + (" [replayed]" if r.replayed else "")]
    lines += [_fact_text(f.kind, f.data) for f in r.facts]
    _emit(args, data, "\n".join(line for line in lines if line))
    return 0


def cmd_claim(args: argparse.Namespace) -> int:
    with _client(args) as client:
        if args.concede or args.concede_match:
            r = client.concede(args.match, _token(args), command_id=args.command_id,
                               whole_match=args.concede_match)
        elif args.accept or args.reject:
            r = client.answer_claim(args.match, _token(args), args.accept,
                                    command_id=args.command_id)
        else:
            r = client.claim(args.match, _token(args), args.tricks, command_id=args.command_id,
                             unchecked=args.unchecked)
    data = {"version": r.version, "seat": r.seat, "action": r.action, "hand_over": r.hand_over,
            "match_over": r.match_over, "scores": r.scores, "replayed": r.replayed,
            "command_id": r.command_id, "facts": [{"kind": f.kind, **f.data} for f in r.facts]}
    what = ("match conceded" if args.concede_match else
            "concession accepted" if args.concede else
            "claim put to the other sides" if args.unchecked else
            "claim accepted" if args.accept else "claim rejected" if args.reject else
            "claim accepted")
    lines = [f"seat {r.seat}: {what} (version {r.version})"
             + (" [replayed]" if r.replayed else "")]
    lines += [_fact_text(f.kind, f.data) for f in r.facts]
    _emit(args, data, "\n".join(line for line in lines if line))
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    with _client(args) as client:
        if args.agree or args.refuse:
            r = client.answer_undo(args.match, _token(args), args.agree,
                                   command_id=args.command_id)
        else:
            r = client.request_undo(args.match, _token(args), command_id=args.command_id)
    data = {"version": r.version, "seat": r.seat, "action": r.action, "replayed": r.replayed,
            "command_id": r.command_id, "facts": [{"kind": f.kind, **f.data} for f in r.facts]}
    what = {"undo": "asked to withdraw its last action", "undo:agree": "agreed to the undo",
            "undo:refuse": "refused the undo"}.get(r.action, r.action)
    lines = [f"seat {r.seat} {what} (version {r.version})"
             + (" [replayed]" if r.replayed else "")]
    lines += [_fact_text(f.kind, f.data) for f in r.facts if f.kind == "action_withdrawn"]
    _emit(args, data, "\n".join(line for line in lines if line))
    return 0


def _fact_text(kind: str, data: dict[str, Any], table: Table | None = None) -> str:
    """One fact of an event as a line; announcements and results in words (``table``: who
    sits where; unknown: seats by number)."""
    table = table or words_table("", [])
    if kind == "trick_taken":
        plays = " ".join(f"{p['seat']}:{cards_text([p['card']])}" for p in data.get("plays", []))
        return f"  trick {data.get('number')}: {plays} -> seat {data.get('winner')}"
    if kind == "hand_ended":
        return f"  hand {data.get('hand')} over: " + "\n    ".join(
            result_lines(table.game, data.get("result"), table))
    if kind == "match_ended":
        return f"  match over: scores {data.get('scores')}, winner {data.get('winner')}"
    if kind == "announced":
        return "  " + announcement_text(table.game, str(data.get("what")),
                                        data.get("data") or {}, table)
    if kind == "hand_dealt":
        return f"  hand {data.get('hand')} dealt by seat {data.get('dealer')}"
    if kind == "claim_accepted":
        tricks = data.get("tricks")
        what = ("conceded the remaining tricks" if data.get("claim") == "concession" else
                "claimed all the remaining tricks" if tricks == -1 else
                f"claimed {tricks} more tricks")
        return f"  seat {data.get('seat')} {what}: the hand is played out"
    if kind == "hand_cancelled":
        why = safe(str(data.get("reason")))
        return (f"  hand {data.get('hand')} cancelled by the arbiter ({why}): scores back to "
                f"{data.get('scores')}, dealt anew by seat {data.get('dealer')}")
    if kind == "claim_proposed":
        return f"  seat {data.get('seat')} puts a claim of all the remaining tricks to the " \
               "other sides (unchecked)"
    if kind == "claim_answered":
        return f"  seat {data.get('seat')} " + ("accepted" if data.get("accept") else "rejected")
    if kind == "undo_requested":
        return f"  seat {data.get('seat')} asks to withdraw its last action (undo policy)"
    if kind == "undo_answered":
        return f"  seat {data.get('seat')} " + ("agreed" if data.get("agree") else "refused")
    if kind == "action_withdrawn":
        return f"  seat {data.get('seat')}'s action {data.get('index')} is withdrawn: " \
               f"seat {data.get('seat')} is to act again"
    if kind == "match_abandoned":
        faulty = [i for i, f in enumerate(data.get("faults") or []) if f]
        return (f"  the arbiter ended the match as abandoned ({data.get('policy')}; sides at "
                f"fault: {faulty or 'none'}): "
                + ("nobody wins" if data.get("winner") is None
                   else f"side {data.get('winner')} wins"))
    if kind == "match_conceded":
        return f"  seat {data.get('seat')}'s side conceded the match: side " \
               f"{data.get('winner')} wins"
    return ""


def cmd_watch(args: argparse.Namespace) -> int:
    token = _token(args)
    n = 0
    table: Table | None = None
    with _client(args) as client:
        for update in client.watch(args.match, token, after_version=args.after_version,
                                   heartbeat_seconds=10, resume_for=args.resume_for):
            if update.heartbeat:
                continue
            n += 1
            if update.view:
                v = update.view
                table = words_table(v.game, v.players, dealer=v.dealer)
            _print_update(args, update, table)
            if (update.view and update.view.match_over) or (
                    args.max_updates and n >= args.max_updates):
                break
    return 0


def _print_update(args: argparse.Namespace, update: Update, table: Table | None = None
                  ) -> None:
    if args.json:
        _print_json({"version": update.version, "events": [
            {"version": e.version, "hand": e.hand, "seat": e.seat, "action": e.action,
             "facts": [{"kind": f.kind, **f.data} for f in e.facts]} for e in update.events],
            "view": _view_json(update.view) if update.view else None}, flush=True)
        return
    for e in update.events:
        if e.seat is not None:
            _print(f"[{e.version}] hand {e.hand} seat {e.seat}: {action_text(e.action)}",
                   color=args.color)
        for f in e.facts:
            text = _fact_text(f.kind, f.data, table)
            if text:
                _print(text)
    if update.view:
        _print(render_view(update.view), color=args.color)
        _print("-" * 60, flush=True)


def cmd_scoreboard(args: argparse.Namespace) -> int:
    token = _token(args)
    with _client(args) as client:
        if args.watch:
            for board in client.watch_scoreboard(args.match, token, resume_for=args.resume_for):
                if args.json:
                    _print_json(_board_json(board), flush=True)
                else:
                    _print(board_text(board) + "\n" + "-" * 60, flush=True)
                if board.over:
                    break
            return 0
        version = client.get_view(args.match, token).version
        board = client.get_scoreboard(args.match, token, min_version=version, wait=args.wait)
    text = board_text(board)
    if board.version < version:
        text += (f"\n(the scoreboard is at match version {board.version}, the match at "
                 f"{version}: the read side is catching up)")
    _emit(args, {**_board_json(board), "match_version": version}, text)
    return 0


def _board_json(board: Scoreboard) -> dict[str, Any]:
    return {**board.to_json(), "match_over": board.over}


def board_text(board: Scoreboard) -> str:
    """A scoreboard as a table: each finished hand's points and the running score, rulings."""
    game, seats = board.game, len(board.players)
    head = f"{game} match {board.match_id}: {scores_text(board.scores, seats)}"
    if board.over:
        won = ("a tie" if board.winner is None
               else side_name(board.winner, seats, len(board.scores)) + " wins")
        head += f"  (over: {won})"
    else:
        head += f"  (hand {board.hand}, dealer seat {board.dealer}"
        head += f", {seat_name(board.to_act, board.players)} to act)" if board.to_act is not None \
            else ")"
    rows = [{"hand": h.hand, "dealer": h.dealer, "points": h.points,
             "void": bool(h.detail.get("void")), "running": h.scores_after} for h in board.hands]
    lines = [head, scoreboard_text(rows, board.scores, seats)]
    for r in board.rulings:
        lines.append(ruling_text(r))
    if any(r.kind != "redeal" for r in board.rulings):
        lines.append(f"with rulings: {scores_text(board.adjusted_scores, seats)}")
    ab = board.abandoned
    if ab:
        faulty = [side_name(i, seats, len(board.scores)) for i, f in enumerate(ab["at_fault"])
                  if f]
        lines.append(f"abandoned in hand {ab['hand']} ({ab['policy']}; at fault: "
                     f"{', '.join(faulty) or 'nobody'}): {safe(ab['reason'])}")
    return "\n".join(lines)


def ruling_text(r: Ruling) -> str:
    """One ruling as a line of the scoreboard."""
    rule = f" [{safe(r.rule)}]" if r.rule else ""
    if r.kind == "redeal":
        void = ", ".join(str(h) for h in r.hands) or str(r.hand)
        return (f"ruling on hand {r.hand} (version {r.version}): redeal: hand(s) {void} "
                f"cancelled, hand {r.hand} dealt anew (commitment {safe(r.commitment[:16])}"
                f"...): {safe(r.reason)}{rule}")
    return (f"ruling on hand {r.hand} (version {r.version}): {safe(r.kind)} "
            f"{', '.join(f'{a:+d}' for a in r.adjust)}: {safe(r.reason)}{rule}")


def cmd_standings(args: argparse.Namespace) -> int:
    with _client(args) as client:
        s = client.get_standings(args.tournament)
    _emit(args, s.to_json(), standings_text(s))
    return 0


def standings_text(s: Standings) -> str:
    """Ranked standings, then the duplicate comparison of each board and hand."""
    cols = ["#", "entrant", "played", "won", "lost", "drawn", "for", "against", "duplicate",
            "abandoned"]
    width = max([len("entrant"), *(len(safe(r.entrant)) for r in s.standings)])
    lines = [f"{safe(s.name)} ({s.game}), tournament {s.tournament_id}",
             f"{cols[0]:>3}  {cols[1]:<{width}}" + "".join(f"{c:>10}" for c in cols[2:])]
    for i, r in enumerate(s.standings, 1):
        lines.append(f"{i:>3}  {safe(r.entrant):<{width}}" + "".join(
            f"{v:>10}" for v in (r.played, r.won, r.lost, r.drawn, r.points_for,
                                 r.points_against, f"{r.duplicate:+d}", r.abandoned)))
    for b in s.boards:
        tables = "; ".join(
            " vs ".join(f"{safe(side)} {pts:+d} ({dup:+d})" for side, pts, dup in
                        zip(t["sides"], t["points"], t["duplicate"], strict=False))
            for t in b["tables"])
        lines.append(f"board {b['board']} hand {b['hand']}: {tables}")
    for m in s.matches:
        players = ", ".join(safe(p) for p in m["players"])
        result = ("playing" if not m["over"] else "a draw" if m.get("winner") is None
                  else f"{safe(m['sides'][m['winner']])} wins")
        ab = m.get("abandoned")
        if ab:
            faulty = [safe(e) for e, f in zip(m["sides"], ab["faults"], strict=False) if f]
            result += (f" (abandoned, {ab['policy']}; at fault: "
                       f"{', '.join(faulty) or 'nobody'})")
        lines.append(f"match {m['match_id']}: {' vs '.join(map(safe, m['sides']))} "
                     f"[{players}]: {result}")
    if not s.standings:
        lines.append("  (no entrants yet)")
    return "\n".join(lines)


def _policies(args: argparse.Namespace) -> dict[str, str] | None:
    """The table policies the ``create`` flags give (None: the defaults)."""
    chosen = {k: v for k, v in (("undo", args.undo),
                                ("unchecked_claims", args.unchecked_claims)) if v}
    return chosen or None


def _time_control(args: argparse.Namespace) -> dict[str, Any] | None:
    """The time control the ``create`` flags give (None: untimed)."""
    given = {"action_ms": args.action_ms, "bank_ms": args.bank_ms,
             "increment_ms": args.increment_ms, "lag_ms": args.lag_ms,
             "policy": args.on_timeout}
    chosen = {k: v for k, v in given.items() if v is not None}
    return chosen or None


def cmd_tournament(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("tournament commands need the auditor token (--token or "
                           "REFEREE_AUDITOR_TOKEN)")
    with _client(args) as client:
        if args.action == "create":
            tid = client.create_tournament(args.token, args.name, args.game,
                                           abandonment=args.abandonment or "")
            _emit(args, {"tournament_id": tid, "name": args.name, "game": args.game},
                  f"tournament {tid} ({args.name}, {args.game}) created")
        elif args.action == "register":
            members = [m.strip() for m in args.members.split(",") if m.strip()]
            v = client.register_entrant(args.token, args.tournament, args.entrant, members)
            _emit(args, {"tournament_id": args.tournament, "entrant": args.entrant,
                         "members": members, "version": v},
                  f"registered {args.entrant}" + (f" ({', '.join(members)})" if members else ""))
        elif args.action == "finalize":
            final = client.finalize_results(args.token, args.tournament)
            _emit(args, {"tournament_id": args.tournament, "final_matches": final},
                  f"results final: {len(final)} finished match(es); later rulings on them "
                  "must be appeals")
        elif args.action == "abandon":
            count = len(client.get_view(args.match, args.token).scores)
            faulty = set(_ints(args.at_fault, "--at-fault"))
            version, winner = client.abandon_match(
                args.token, args.match, [s in faulty for s in range(count)], args.reason,
                tournament_id=args.tournament)
            _emit(args, {"match_id": args.match, "at_fault": sorted(faulty),
                         "version": version, "winner": winner},
                  f"match {args.match} abandoned (version {version}): "
                  + ("nobody wins" if winner is None else f"side {winner} wins"))
        elif args.action == "release":
            v = client.release_board(args.token, args.tournament, args.board)
            _emit(args, {"tournament_id": args.tournament, "board": args.board, "version": v},
                  f"board {args.board} released")
        else:
            sides = [x.strip() for x in args.sides.split(",") if x.strip()]
            v = client.attach_match(args.token, args.tournament, args.match, sides, args.board)
            _emit(args, {"tournament_id": args.tournament, "match_id": args.match,
                         "sides": sides, "board": args.board, "version": v},
                  f"attached match {args.match}: {' vs '.join(sides)}"
                  + (f" on board {args.board}" if args.board else ""))
    return 0


def cmd_webhooks(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("webhook commands need the auditor token (--token or "
                           "REFEREE_AUDITOR_TOKEN)")
    scope = {}
    if args.action in ("add", "list"):
        if bool(args.match) == bool(args.tournament):
            raise UsageProblem("give either --match ID or --tournament ID")
        scope = {"match_id": args.match, "tournament_id": args.tournament}
    with _client(args) as client:
        if args.action == "add":
            events = [e.strip() for e in args.events.split(",") if e.strip()]
            endpoint, secret = client.add_webhook(args.token, args.url, secret=args.secret,
                                                  event_types=events, **scope)
            data = {**_endpoint_json(endpoint), **({"secret": secret} if secret else {})}
            _emit(args, data, f"webhook {endpoint.endpoint_id} -> {safe(endpoint.url)} "
                              f"(secret {endpoint.secret_fingerprint})"
                  + (f"\nsecret (shown once): {secret}" if secret else ""))
        elif args.action == "list":
            endpoints = client.list_webhooks(args.token, **scope)
            _emit(args, [_endpoint_json(e) for e in endpoints], "\n".join(
                f"{e.endpoint_id}  {safe(e.url)}  {','.join(e.event_types) or 'all events'}  "
                f"{e.secret_fingerprint}" + (f"  DISABLED: {safe(e.disabled)}" if e.disabled
                                             else "") for e in endpoints) or "no webhooks")
        elif args.action == "remove":
            endpoint = client.remove_webhook(args.token, args.endpoint)
            _emit(args, _endpoint_json(endpoint), f"removed webhook {endpoint.endpoint_id}")
        else:
            rows = list(client.webhook_deliveries(args.token, args.endpoint, state=args.only))
            _emit(args, [_delivery_json(d) for d in rows], "\n".join(
                f"{d.message_id}  {d.event_type:<15}  {d.state:<9}  "
                f"{len(d.attempts)} attempt(s)"
                + (f"  last: {d.attempts[-1].status or safe(d.attempts[-1].error)}"
                   if d.attempts else "")
                + (f"  {safe(d.error)}" if d.error else "") for d in rows) or "no deliveries")
    return 0


def _endpoint_json(e: WebhookEndpoint) -> dict[str, Any]:
    return {**vars(e), "created": e.created.isoformat() if e.created else None}


def _delivery_json(d: WebhookDelivery) -> dict[str, Any]:
    def when(t: Any) -> str | None:
        return t.isoformat() if t else None

    return {**vars(d), "created": when(d.created), "next_attempt": when(d.next_attempt),
            "done": when(d.done), "attempts": [{**vars(a), "time": when(a.time)}
                                               for a in d.attempts]}


def cmd_ruling(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("a ruling needs the auditor token (--token or REFEREE_AUDITOR_TOKEN)")
    points = _ints(args.points, "--points")
    with _client(args) as client:
        version, adjust = client.record_ruling(
            args.token, args.match, args.hand, args.kind, points, args.reason, rule=args.rule,
            ref=args.ref, grades=[g.strip() for g in args.grades.split(",") if g.strip()])
    _emit(args, {"match_id": args.match, "hand": args.hand, "kind": args.kind,
                 "adjust": adjust, "version": version, "reason": args.reason},
          f"hand {args.hand} cancelled and dealt anew (match version {version})"
          if args.kind == "redeal" else
          f"ruling recorded on hand {args.hand} (match version {version}): {args.kind}, "
          f"scores adjusted by {', '.join(f'{a:+d}' for a in adjust)}")
    return 0


def cmd_clocks(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("the clock commands need the auditor token (--token or "
                           "REFEREE_AUDITOR_TOKEN)")
    with _client(args) as client:
        if args.what == "pause":
            version = client.pause_clocks(args.token, args.match, args.reason)
        else:
            version = client.resume_clocks(args.token, args.match, args.add_ms)
    _emit(args, {"match_id": args.match, "clocks": args.what, "version": version},
          f"clocks {'paused' if args.what == 'pause' else 'running'} (match version {version})")
    return 0


def cmd_substitute(args: argparse.Namespace) -> int:
    if not args.token:
        raise UsageProblem("substitute needs the auditor token (--token or "
                           "REFEREE_AUDITOR_TOKEN)")
    with _client(args) as client:
        token, version = client.substitute_player(args.token, args.match, args.seat,
                                                  args.player)
    _emit(args, {"match_id": args.match, "seat": args.seat, "player": args.player,
                 "seat_token": token, "version": version},
          f"seat {args.seat} is now {args.player}'s (match version {version}); "
          f"new seat token: {token}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if bool(args.match) == bool(args.tournament):
        raise UsageProblem("give either --match ID or --tournament ID")
    if args.tournament:
        return _export_tournament(args)
    token = _token(args)
    with _client(args) as client:
        record = (client.get_hand_record(args.match, args.hand, token) if args.hand
                  else client.get_match_record(args.match, token))
    if args.out:
        args.out.write_text(record.to_text(), encoding="utf-8")
        _emit(args, {"path": str(args.out), "finished": record.finished},
              f"wrote {args.out}" + ("" if record.finished else " (not finished yet)"))
    else:
        sys.stdout.write(json_safe(record.to_text()))
    return 0


def _export_tournament(args: argparse.Namespace) -> int:
    if args.hand:
        raise UsageProblem("--hand is for --match")
    if not args.token:
        raise UsageProblem("export --tournament needs the auditor token (--token)")
    n = 0
    with _client(args) as client:
        lines = client.export_tournament(args.tournament, args.token, resume_for=args.resume_for)
        if args.out:
            with args.out.open("w", encoding="utf-8") as f:
                for line in lines:
                    f.write(line + "\n")
                    n += 1
            _emit(args, {"path": str(args.out), "records": n},
                  f"wrote {n} match records to {args.out}")
        else:
            for line in lines:
                sys.stdout.write(json_safe(line) + "\n")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    if args.chain:
        if args.file or args.match:
            raise UsageProblem("--chain takes the match id itself; no FILE or --match")
        return _verify_chain(args)
    if bool(args.file) == bool(args.match):
        raise UsageProblem("give either a record FILE, --match ID or --chain MATCH_ID")
    deals: list[dict[str, Any]] = []
    if args.match:
        token = _token(args)
        with _client(args) as client:
            record = client.get_match_record(args.match, token)
            if args.deals:
                for h in range(1, len(record.data.get("hands", [])) + 1):
                    check = client.verify_deal(args.match, h, token)
                    deals.append({"hand": h, "valid": check.valid,
                                  "recomputed": check.recompute()})
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "record.json"
            path.write_text(record.to_text(), encoding="utf-8")
            code, report = verify_file(path, legal=args.legal)
    else:
        code, report = verify_file(args.file, legal=args.legal)
    if deals:
        report["deals"] = deals
        if not all(d["valid"] and d["recomputed"] for d in deals):
            report["ok"], code = False, max(code, 1)
    if args.json:
        _print_json(report)
    elif report.get("ok"):
        _print("ok: every action is legal" + (", every pack matches its commitment"
                                             if deals else ""))
        if report.get("result"):
            data = record.data if args.match else load_file(args.file)
            table = words_table(str(data.get("game", "")), data.get("players") or [])
            _print("result: " + "\n  ".join(result_lines(table.game, report["result"], table)))
    else:
        err = report.get("error") or {}
        where = "".join(f" {k} {err[k]}" for k in ("cancelled", "hand", "index", "seat")
                        if k in err)
        _print(f"not ok:{where} {err.get('action', '')} {err.get('reason', '')}: "
               f"{err.get('message', 'a pack does not match its commitment')}".replace("  ", " "),
               err=True)
    return code


def _verify_chain(args: argparse.Namespace) -> int:
    token = args.token or local_state.token_for(_state_path(args), args.chain, args.seat) or ""
    version, head = 0, ""
    if args.anchor:
        v, sep, head = args.anchor.partition(":")
        if not (sep and v.isdigit() and head):
            raise UsageProblem(f"--anchor wants VERSION:HASH, not {args.anchor!r}")
        version = int(v)
    with _client(args) as client:
        c = client.check_chain(args.chain, token, anchor_version=version, anchor_head=head)
    data = {"ok": c.ok, "match_id": args.chain, "events": c.events, "head": c.head,
            "version": c.version, "first_break": c.first_break, "anchor_ok": c.anchor_ok,
            "message": c.message}
    if args.json:
        _print_json(data)
    elif c.ok:
        _print(f"ok: the hash chain of {c.events} events is intact (head {c.head} at version "
               f"{c.version})" + ("; the anchor matches" if c.anchor_ok else ""))
    else:
        where = (f"the chain breaks at version {c.first_break}" if c.first_break is not None
                 else "the anchor does not match" if c.anchor_ok is False else "not intact")
        _print(f"not ok: {where}: {c.message}", err=True)
    return 0 if c.ok else 1


def cmd_replay(args: argparse.Namespace) -> int:
    if args.match and not args.file and not args.html and not args.local \
            and not args.cancelled:
        return _server_replay(args)
    data, players = _record_source(args)
    hand = hand_of(data, args.hand, cancelled=args.cancelled)
    rep = replay(hand)
    if args.html:
        from referee.rules.render import render_hand

        number = args.hand or len(data.get("hands", [])) or 1
        if args.cancelled:
            number = f"{hand.get('hand')} (cancelled deal {args.hand or 'last'})"
        title = f"{rep.game.capitalize()} — hand {number}" + (
            f" of match {args.match}" if args.match else "")
        args.html.write_text(render_hand(rep, players=players, title=title), encoding="utf-8")
        _emit(args, {"html": str(args.html), "tricks": len(rep.tricks)}, f"wrote {args.html}")
        return 0
    if args.json:
        _print_json({"game": rep.game, "dealer": rep.dealer, "hands": rep.hands,
                     "stock": rep.stock, "steps": [vars(s) for s in rep.steps],
                     "tricks": rep.tricks, "result": rep.result, "error": rep.error,
                     "withdrawn": rep.withdrawn})
        return 1 if rep.error else 0
    _print(f"{rep.game} hand, dealer seat {rep.dealer}")
    if args.cancelled:
        _print(f"  cancelled by the arbiter and dealt anew: {safe(str(hand.get('reason')))}"
               + (f" [{safe(str(hand['rule']))}]" if hand.get("rule") else ""))
    for seat, cards in enumerate(rep.hands):
        _print(f"  {seat_name(seat, players)}: {cards_text(cards)}")
    if rep.stock:
        _print(f"  stock: {cards_text(rep.stock, sort=False)}")
    seats = words_table(rep.game, players, len(rep.hands), rep.dealer)

    def withdrawn(at: int) -> None:  # actions withdrawn by consent where they were made
        for w in rep.withdrawn:
            if w["index"] == at:
                _print(f"     ({seat_name(w['seat'], players)} withdrew "
                       f"{action_text(w['action'])} here, by consent)")

    for s in rep.steps:
        if args.at is not None and s.index >= args.at:
            break
        if args.legal:
            _print(f"    legal: {', '.join(s.legal)}")
        withdrawn(s.index)
        _print(f"{s.index + 1:3}. {seat_name(s.seat, players)}: {action_text(s.action)}")
        for t in s.tricks:
            _print(_fact_text("trick_taken", t) + (f" ({t['points']} points)" if t["points"]
                                                  else ""))
        for a in s.announced:
            _print(_fact_text("announced", a, seats))
        if s.error:
            _print(f"     ILLEGAL: {safe(s.error['message'])}")
        if args.step:
            input("     [Enter] ")
    if args.at is None:
        withdrawn(len(rep.steps))
    if args.at is not None:
        shown = [s for s in rep.steps if s.index < args.at]
        table = shown[-1].table if shown else {}
        _print(f"after {len(shown)} actions:")
        for seat, cards in enumerate(table.get("hands", [])):
            _print(f"  {seat_name(seat, players)} holds {cards_text(cards)}")
        trick = table.get("trick") or []
        if trick:
            _print("  on the table: " + "  ".join(f"{p['seat']}:{cards_text([p['card']])}"
                                                for p in trick))
        return 0
    if rep.result is not None:
        _print("result: " + "\n  ".join(result_lines(rep.game, rep.result, seats)))
    return 1 if rep.error else 0


def _server_replay(args: argparse.Namespace) -> int:
    """The referee's dispute replay of one hand: each action with the legal set before it and
    why every other action of the acting seat was illegal; rejected attempts and rulings."""
    token = _token(args)
    with _client(args) as client:
        board = client.get_scoreboard(args.match, token)
        hand = args.hand or (board.hands[-1].hand if board.hands else board.hand)
        if args.at is not None:
            step = client.get_replay(args.match, hand, args.at, token)
            _emit(args, step.to_json(), _state_text(step, board))
            return 0
        steps: list[ReplayStep] = []
        walk = client.replay_steps(args.match, hand, token)  # one stream, one replay
        first = next(walk)
        if not args.json:
            _print(f"{board.game} match {args.match}, hand {hand}: {first.actions} actions "
                   f"(the referee's dispute replay)" + ("" if first.finished else
                                                       ", still being played"))
            for key, cards in sorted(first.cards.items()):
                _print(f"  {_location(key, board.players)}: {cards_text(cards)}")
        for step in itertools.chain([first], walk):
            steps.append(step)
            if args.json:
                continue
            if step.action is None:
                break
            a = step.action
            _print(f"{step.action_index + 1:3}. {seat_name(a['seat'], board.players)}: "
                   f"{action_text(a['action'])}")
            _print(f"       legal: {', '.join(action_text(x) for x in step.legal)}")
            for line in _illegal_lines(step):
                _print(f"       {line}")
            if args.step:
                input("       [Enter] ")
    if args.json:
        _print_json({"match_id": args.match, "hand": hand,
                     "steps": [s.to_json() for s in steps]})
        return 0
    last = steps[-1]
    for item in last.timeline:
        if item.get("type") == "rejection":
            _print(f"rejected at {item['time']}: {seat_name(item.get('seat'), board.players)} "
                   f"tried {action_text(item['action'])}: {item['reason']} "
                   f"({item.get('rule') or '-'}) {safe(item['message'])}")
        elif item.get("type") == "ruling":
            _print(f"ruling: {safe(str(item.get('kind')))} {item.get('adjust')}: "
                   f"{safe(str(item.get('reason')))}")
        elif item.get("type") in _PROPOSALS:
            _print(f"{item['time']}: {seat_name(item.get('seat'), board.players)} "
                   + _PROPOSALS[item["type"]](item))
    if last.scoring:
        table = words_table(board.game, board.players)
        _print("result: " + "\n  ".join(
            result_lines(board.game, last.scoring.get("result"), table)))
        _print(f"scores after: {last.scoring.get('scores_after')}")
    return 0


#: The dispute replay's timeline items of undo requests and unchecked claims, in words.
_PROPOSALS: dict[str, Any] = {
    "undo_request": lambda i: f"asked to withdraw {action_text(i['action'])} (undo policy)",
    "undo_answer": lambda i: "agreed to the undo" if i.get("agree") else "refused the undo",
    "withdrawn": lambda i: f"withdrew {action_text(i['action'])}, the other sides agreeing",
    "claim_proposal": lambda i: "put a claim of all the remaining tricks to the other sides",
    "claim_answer": lambda i: "accepted the claim" if i.get("accept") else "rejected the claim",
}


def _location(key: str, players: Sequence[str]) -> str:
    if key.startswith("hand") and key[4:].isdigit():
        return seat_name(int(key[4:]), players)
    return key.replace("_", " ")


def _illegal_lines(step: ReplayStep) -> list[str]:
    """Why the other actions were illegal, one line per rule (its message with one example)."""
    groups: dict[str, list[Any]] = {}
    for x in step.illegal:
        groups.setdefault(x.rule or x.reason, []).append(x)
    lines = []
    for rule, items in groups.items():
        why = safe(items[0].message.removeprefix(f"'{items[0].action}'").lstrip(": "))
        if len(items) > 8:  # typically "not allowed now": the count and two examples
            names = (f"{len(items)} actions, e.g. "
                     + ", ".join(action_text(x.action) for x in items[:2]))
        else:
            names = ", ".join(action_text(x.action) for x in items)
        lines.append(f"illegal [{rule}]: {names}: {why}")
    return lines


def _state_text(step: ReplayStep, board: Scoreboard) -> str:
    lines = [f"{board.game} match {step.match_id}, hand {step.hand}, before action "
             f"{step.action_index} of {step.actions}"
             + ("" if step.action is not None else " (the end)" if step.finished
                else " (now: the hand is still being played)")]
    for key, cards in sorted(step.cards.items()):
        lines.append(f"  {_location(key, board.players)}: {cards_text(cards)}")
    if step.to_act is not None:
        lines.append(f"to act: {seat_name(step.to_act, board.players)}")
        lines.append(f"legal: {', '.join(action_text(x) for x in step.legal)}")
        lines += _illegal_lines(step)
    if step.action is not None:
        lines.append(f"taken: {seat_name(step.action['seat'], board.players)} "
                     f"{action_text(step.action['action'])} at {step.action['time']}")
    if step.scoring:
        table = words_table(board.game, board.players)
        lines.append("result: " + "\n  ".join(
            result_lines(board.game, step.scoring.get("result"), table)))
    return "\n".join(lines)


def cmd_bot(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    strategy = STRATEGIES[args.strategy]
    with _client(args) as client:
        if args.tokens or args.all:
            if args.tokens:
                tokens = dict(enumerate(t.strip() for t in args.tokens.split(",")))
            else:
                tokens = local_state.seat_tokens(_state_path(args), args.match)
                if not tokens:
                    raise UsageProblem(f"no saved tokens for match {args.match}")
            bots = [Seat(s, t, strategy, random.Random(rng.random()), args.think)
                    for s, t in sorted(tokens.items())]
            view = play_all(client, args.match, bots, resume_for=args.resume_for,
                            on_action=None if args.quiet or args.json else _print_action)
        else:
            if args.seat is None:
                raise UsageProblem("bot needs --seat and --token, or --tokens / --all")
            token = _token(args)
            bot = Seat(args.seat, token, strategy, random.Random(rng.random()), args.think)
            view = play_seat(client, args.match, bot, resume_for=args.resume_for,
                             on_action=None if args.quiet or args.json else _print_action)
    # The bot returns only at the match's end: anything else (the referee gone longer than
    # --resume-for) raised ResumeExhausted, a clear one-line error and exit 1.
    _emit(args, {"match_id": args.match, "scores": view.scores, "winner": view.winner,
                 "match_over": view.match_over},
          f"match over: {scores_text(view.scores, len(view.players))}" if view.match_over
          else f"stopped before the match ended: {scores_text(view.scores, len(view.players))}")
    return 0 if view.match_over else 1


def _print_action(r: Any) -> None:
    _print(f"seat {r.seat}: {action_text(r.action)}", flush=True)


def cmd_demo(args: argparse.Namespace) -> int:
    from referee_clients.demo import default_out_dir, local_referee, run_demo, target_rules

    out = args.out or default_out_dir()
    overrides = _parse_rules(args.rule)

    def go(client: RefereeClient) -> int:
        rules = {**target_rules(client, args.game, args.target), **overrides}
        result = run_demo(client, args.game, out_dir=out, rules=rules, strategies=args.strategy,
                          seed=args.seed)
        v = result.view
        board = result.scoreboard
        if board is not None:  # the referee's scoreboard (GetScoreboard)
            table = board_text(board).split("\n", 1)[1]
        else:  # the read side did not catch up in time: computed from the record
            rows = scoreboard(json.loads(result.record_path.read_text("utf-8")), v.scores)
            table = scoreboard_text(rows, v.scores, len(v.players)) + (
                "\n(scoreboard computed from the record: the referee's read side did not answer "
                "in time; a server started with REFEREE_PROJECTIONS=separate needs "
                "`referee projections` running)")
        ok = bool(result.verified and result.verified.get("ok"))
        data = {"match_id": result.match_id, "game": v.game, "players": v.players,
                "scores": v.scores, "winner": v.winner, "hands": result.hands,
                "actions": result.actions, "record": str(result.record_path), "verified": ok,
                "scoreboard": board.to_json() if board else None}
        winner = ("a tie" if v.winner is None
                  else side_name(v.winner, len(v.players), len(v.scores)) + " wins")
        text = "\n".join([
            f"{v.game}: {result.hands} hands, {result.actions} actions through gRPC; {winner}",
            "players: " + ", ".join(f"{i}={safe(p)}" for i, p in enumerate(v.players)),
            table,
            f"match record: {result.record_path}",
            "referee verify: " + ("ok" if ok else json.dumps(result.verified)),
        ])
        _emit(args, data, text)
        return 0 if ok else 1

    if args.connect:
        with _client(args) as client:
            return go(client)
    if not args.json:
        _print(f"starting a referee (a throw-away store; the match record goes to {out})",
               flush=True)
    with local_referee() as address, RefereeClient(address, timeout=args.timeout) as client:
        return go(client)


COMMANDS = {
    "games": cmd_games, "create": cmd_create, "join": cmd_join, "show": cmd_show,
    "legal": cmd_legal, "act": cmd_act, "claim": cmd_claim, "undo": cmd_undo,
    "watch": cmd_watch,
    "scoreboard": cmd_scoreboard,
    "standings": cmd_standings, "tournament": cmd_tournament, "ruling": cmd_ruling,
    "webhooks": cmd_webhooks,
    "clocks": cmd_clocks, "substitute": cmd_substitute,
    "export": cmd_export, "verify": cmd_verify, "replay": cmd_replay, "bot": cmd_bot,
    "demo": cmd_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``referee-client``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except RefereeError as exc:
        _error(args, exc.to_json(), str(exc))
        return 1
    except (RecordProblem, UsageProblem) as exc:
        _error(args, {"reason": "USAGE" if isinstance(exc, UsageProblem) else "INVALID_RECORD",
                      "message": str(exc)}, str(exc))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0


def _error(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        _print_json({"ok": False, "error": data})
    _print(f"referee-client: {safe(text)}", err=True)


if __name__ == "__main__":
    sys.exit(main())
