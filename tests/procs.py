"""Processes that the tests start (``referee serve``, ``referee projections``): none outlives
the test run.

:func:`popen` starts each in a process group of its own; :func:`stop_all`, run at the end of the
session (``tests/conftest.py``; after Ctrl-C or SIGTERM too), ends every group still running,
with whatever its leader started (the workers of ``referee serve --workers``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import Any

_started: list[subprocess.Popen[Any]] = []


def popen(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kwargs)`` in a new process group that :func:`stop_all`
    ends."""
    proc: subprocess.Popen[Any] = subprocess.Popen(args, start_new_session=True, **kwargs)
    _started.append(proc)
    return proc


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def stop_all(grace: float = 10.0) -> list[int]:
    """SIGTERM every group started here that still has a process, SIGKILL what is left after
    ``grace`` seconds; returns the groups that were still running."""
    for proc in _started:
        proc.poll()  # reap a leader that has ended, so that only live processes count
    running = [p.pid for p in _started if _signal_group(p.pid, 0)]
    for pgid in running:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in _started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(max(0.0, deadline - time.monotonic()))
    while any(_signal_group(pgid, 0) for pgid in running) and time.monotonic() < deadline:
        time.sleep(0.05)  # the leader's children, reparented
    for pgid in running:
        _signal_group(pgid, signal.SIGKILL)
    for proc in _started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
    _started.clear()
    return running
