"""``referee projections`` as production runs it: its own process on PostgreSQL, following
live writes. Killed with SIGKILL in the middle of a stream of writes and restarted, every
view ends up with exactly the rows of a fresh rebuild (each event applied once); SIGTERM ends
it cleanly."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.application import Referee
from referee_projections.runner import BatchRunner
from referee_projections.store import open_view
from referee_projections.views import PROJECTIONS
from tests import procs
from tests.projections.conftest import play

EUCHRE_SHORT = {"target_score": 5}
TIMEOUT = 90.0


def start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("ab")
    return procs.popen(
        [sys.executable, "-m", "referee", "projections", "--batch", "20"],
        env={**os.environ, **env, "PYTHONUNBUFFERED": "1"}, stdout=out, stderr=subprocess.STDOUT,
    )


def wait_for(cond: Callable[[], bool], what: str, proc: subprocess.Popen[bytes],
             log: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not cond():
        assert proc.poll() is None, f"worker exited ({proc.returncode}):\n{log.read_text()}"
        assert time.monotonic() < deadline, f"timed out: {what}\n{log.read_text()}"
        time.sleep(0.05)


def positions(app: Referee) -> dict[str, int]:
    return {n: open_view(n, app.settings).position() for n in PROJECTIONS}


@pytest.mark.postgres
@pytest.mark.parametrize("env", ["postgres"], indirect=True)
def test_worker_process_killed_mid_stream_resumes_exactly_once(
        app: Referee, env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    rng = random.Random(11)

    def head() -> int:
        return app.recorder.max_notification_id() or 0

    # Events written before the worker starts: it catches up in batches, then follows.
    first = app.create_match("euchre", rules=EUCHRE_SHORT)
    play(app, first.match_id, first.seat_tokens, rng)
    h1 = head()
    proc = start(env, log)
    wait_for(lambda: min(positions(app).values()) >= h1, "catch-up", proc, log)
    assert "caught up" in log.read_text()

    # A stream of writes; SIGKILL once the worker is following them, while writes go on.
    writing: dict[str, Any] = {"error": None}
    enough = threading.Event()  # set after the kill: writes go on until then (at most 30)

    def writer() -> None:
        try:
            for _ in range(30):
                if enough.is_set():
                    break
                c = app.create_match("euchre", rules=EUCHRE_SHORT)
                play(app, c.match_id, c.seat_tokens, rng)
        except BaseException as exc:  # pragma: no cover - reported below
            writing["error"] = exc

    thread = threading.Thread(target=writer)
    thread.start()
    wait_for(lambda: min(positions(app).values()) > h1 + 30, "following live writes", proc, log)
    killed_while_writing = thread.is_alive()
    proc.kill()  # SIGKILL: no clean-up, a transaction may be half done
    assert proc.wait(TIMEOUT) == -signal.SIGKILL
    at_kill = positions(app)
    enough.set()
    thread.join(TIMEOUT)
    assert writing["error"] is None, writing["error"]
    assert killed_while_writing, "the writes ended before the kill: not mid-stream"
    final = head()
    assert min(at_kill.values()) < final, "the worker had not finished when it was killed"

    # Restarted, it resumes from each view's committed position and reaches the head.
    proc = start(env, log)
    wait_for(lambda: min(positions(app).values()) >= final, "resume", proc, log)
    # Live writes after the restart are followed too.
    last = app.create_match("euchre", rules=EUCHRE_SHORT)
    play(app, last.match_id, last.seat_tokens, rng, stop_after_hand=1)
    final = head()
    wait_for(lambda: min(positions(app).values()) >= final, "follow after restart", proc, log)

    # SIGTERM: a clean exit (0) between transactions.
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(TIMEOUT) == 0, log.read_text()
    assert "Traceback" not in log.read_text()

    # Exactly once: every view's rows equal a fresh rebuild from the whole log.
    for name, cls in PROJECTIONS.items():
        view = open_view(name, app.settings)
        assert view.position() == final
        live = view.all_rows()
        assert live, name
        BatchRunner(app.event_log, cls, view).rebuild()
        assert view.position() == final
        assert view.all_rows() == live, name
