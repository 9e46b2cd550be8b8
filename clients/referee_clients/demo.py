"""The one-command demo: a referee (started here or reached at an address), bots in every seat,
a full match over gRPC, the scoreboard (from the referee's read side), and the exported match
record, verified."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee_clients.bots import STRATEGIES, Seat, play_all
from referee_clients.records import verify_file
from trick_referee_client.errors import RefereeError, Unavailable, ViewNotReady
from trick_referee_client.sdk import RefereeClient, Scoreboard, View

BOT_NAMES = ["Ada", "Bob", "Cleo", "Dan"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def local_referee(*, timeout: float = 30.0) -> Iterator[str]:
    """Start ``referee serve`` in a child process on a free port, with a throw-away store
    (removed when it stops); yield its address. If it does not start, the error ends with the
    end of its log."""
    address = f"127.0.0.1:{free_port()}"
    with tempfile.TemporaryDirectory(prefix="referee-demo-") as tmp:
        log_path = Path(tmp) / "referee.log"
        with log_path.open("w") as log:
            env = {k: v for k, v in os.environ.items()  # a default server, store of its own
                   if not k.startswith(("POSTGRES_", "PERSISTENCE_MODULE", "SQLITE_",
                                        "REFEREE_"))}
            proc = subprocess.Popen(
                [sys.executable, "-m", "referee", "serve", "--address", address,
                 "--data-dir", str(Path(tmp) / "data"), "--grace", "1", "--metrics-port", "0"],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            )
            try:
                with RefereeClient(address) as probe:
                    try:
                        probe.wait_ready(timeout)
                    except Unavailable as exc:
                        tail = log_path.read_text(errors="replace").strip().splitlines()[-5:]
                        raise Unavailable(f"{exc.message}; its log ends: {' | '.join(tail)}",
                                          code="UNAVAILABLE") from None
                yield address
            finally:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def target_rules(client: RefereeClient, game: str, target: int | None) -> dict[str, Any]:
    """``{P: target}`` where P is the game's match-length parameter (``GameInfo.match_length``:
    a target score, a number of deals)."""
    if target is None:
        return {}
    info = next((g for g in client.list_games() if game in (g.name, *g.aliases)), None)
    return {info.match_length if info and info.match_length else "target_score": target}


@dataclass
class DemoResult:
    """What a demo produced."""

    match_id: str
    game: str
    view: View
    record_path: Path
    hands: int
    actions: int
    verified: dict[str, Any] | None
    scoreboard: Scoreboard | None = None
    """The final scoreboard from GetScoreboard; None when the read side did not catch up."""


def final_scoreboard(client: RefereeClient, match_id: str, token: str, version: int, *,
                     wait: float = 5.0) -> Scoreboard | None:
    """The scoreboard once the read side has projected ``version``, polling up to ``wait``
    seconds (the views are eventually consistent); None if it does not get there."""
    deadline = time.monotonic() + wait
    while True:
        try:
            board = client.get_scoreboard(match_id, token, min_version=version,
                                          wait=max(0.0, deadline - time.monotonic()))
            if board.version >= version:
                return board
        except ViewNotReady:
            pass
        except RefereeError:
            return None  # e.g. a referee without the read side: fall back to the record
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def run_demo(
    client: RefereeClient, game: str, *, out_dir: Path, rules: dict[str, Any] | None = None,
    strategies: list[str] | None = None, seed: int | None = None, verify: bool = True,
) -> DemoResult:
    """Create a match of ``game``, seat bots everywhere, play it out, export and verify it."""
    info = next((g for g in client.list_games() if game in (g.name, *g.aliases)), None)
    seats = info.seats if info else 4
    names = BOT_NAMES[:seats] if seats == 4 else ["Ann", "Bela", "Csilla"][:seats]
    names += [f"Bot {s}" for s in range(len(names), seats)]  # any table size the referee lists
    strategies = strategies or ["greedy"]
    match = client.create_match(game, rules=rules, players=[
        f"{n} ({strategies[i % len(strategies)]})" for i, n in enumerate(names)])
    rng = random.Random(seed)
    bots = [Seat(s, match.tokens[s], STRATEGIES[strategies[s % len(strategies)]],
                 random.Random(rng.random())) for s in range(seats)]
    count = 0

    def counted(_: object) -> None:
        nonlocal count
        count += 1

    view = play_all(client, match.match_id, bots, on_action=counted)
    record = client.get_match_record(match.match_id, match.spectator_token)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{view.game}-{match.match_id}.json"
    path.write_text(record.to_text(), encoding="utf-8")
    verified = verify_file(path)[1] if verify else None
    board = final_scoreboard(client, match.match_id, match.spectator_token, view.version)
    return DemoResult(match.match_id, view.game, view, path.resolve(),
                      len(record.data.get("hands", [])), count, verified, board)


def default_out_dir() -> Path:
    """Where the demo writes match records without ``--out``: one folder in the user's cache
    directory (e.g. ``~/.cache/trick-referee/demo``), the same for every run."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("trick-referee", appauthor=False)) / "demo"
