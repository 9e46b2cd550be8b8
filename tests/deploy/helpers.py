"""Start ``referee serve`` as a real process on free ports."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests import procs

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(env: dict[str, str], *args: str) -> tuple[subprocess.Popen[str], str]:
    """``referee serve --address 127.0.0.1:0 ARGS`` with ``env`` on top of a clean store
    environment; returns the process and the address it printed."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE"))}
    full.update(env, PYTHONUNBUFFERED="1")
    proc = procs.popen(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0", "--grace", "2",
         *args],
        cwd=ROOT, env=full, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    if not found:
        proc.kill()
        raise AssertionError(f"no address in {line!r}")
    return proc, found.group(1)
