"""``referee serve --workers N``: N server processes sharing one port (``SO_REUSEPORT``).

The parent only supervises: it reserves the port (when the address asks for port 0), starts N
``referee serve`` children on it with ``REFEREE_REUSE_PORT=1``, prints ``listening on`` once
all of them are, and forwards SIGTERM/SIGINT to each, so every child stops gracefully (its
acknowledged actions are already committed). If a child dies, the others are stopped and the
parent exits 1, for the supervisor above to restart the lot.

The kernel spreads *connections* (not calls) over the children, so a client's channel sticks
to one process and so does every match it drives through it. Each child has its own aggregate
cache; the store's optimistic concurrency and the fresh re-check of a conflicting action
(``referee.application``) keep two children acting on one match correct. In-process
projections (the SQLite default) run in the first child only.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence

from referee.service.signals import stop_event

log = logging.getLogger("referee.service")

REUSE_PORT_ENV = "REFEREE_REUSE_PORT"
WORKER_ENV = "REFEREE_WORKER"


def worker_count(text: str) -> int:
    """``--workers``: a positive number, or ``auto`` (the CPUs this process may use)."""
    if text == "auto":
        return max(1, len(os.sched_getaffinity(0)))
    n = int(text)
    if n < 1:
        raise ValueError("--workers must be at least 1")
    return n


def split_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) as ``(host, port)``."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def _reserve(host: str) -> socket.socket:
    """A bound (not listening) ``SO_REUSEPORT`` socket on a free port of ``host``."""
    family = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, 0))
    return sock


def _ready(child: subprocess.Popen[str], index: int) -> None:
    """Wait for a child's ``listening on`` line, then forward the rest of its output."""
    assert child.stdout is not None
    line = child.stdout.readline()
    if "listening on" not in line:
        raise RuntimeError(f"worker {index} did not start: {line!r}")
    threading.Thread(target=_forward, args=(child.stdout,), daemon=True).start()


def _forward(stream: object) -> None:
    for line in stream:  # type: ignore[attr-defined]
        sys.stdout.write(line)
        sys.stdout.flush()


def serve_workers(
    address: str, workers: int, grace: float, metrics_port: int, argv: Sequence[str]
) -> int:
    """Run ``workers`` children of ``referee serve ARGV`` on ``address`` until a signal."""
    host, port = split_address(address)
    reservation = _reserve(host) if port == 0 else None
    if reservation is not None:
        port = reservation.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    children: list[subprocess.Popen[str]] = []
    try:
        # The first worker creates the tables (if missing) before the others start, so
        # their CREATE ... IF NOT EXISTS statements do not race.
        for i in range(workers):
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            env[REUSE_PORT_ENV], env[WORKER_ENV] = "1", str(i)
            if i > 0:  # the views are followed by one process only
                env["REFEREE_PROJECTIONS"] = "off"
            cmd = [
                sys.executable, "-m", "referee", "serve", *argv,
                "--address", f"{shown}:{port}", "--workers", "1", "--grace", str(grace),
                "--metrics-port", str(metrics_port + i if metrics_port else 0),
            ]  # fmt: skip
            children.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True))
            if i == 0:
                _ready(children[0], 0)
        for i, child in enumerate(children[1:], 1):
            _ready(child, i)
    except BaseException:
        _stop_all(children, grace)
        raise
    finally:
        if reservation is not None:
            reservation.close()
    stopping = stop_event()  # before "listening on", as in a single server
    log.warning("referee: %d workers on %s:%d", workers, shown, port)
    print(f"listening on {shown}:{port} ({workers} workers)", flush=True)

    failed = None
    while not stopping.wait(0.2):
        failed = next((c for c in children if c.poll() is not None), None)
        if failed is not None:
            log.error(
                "worker pid %d exited with %s: stopping the others", failed.pid, failed.returncode
            )
            break
    codes = _stop_all(children, grace)
    return 1 if failed is not None or any(codes) else 0


def _stop_all(children: Sequence[subprocess.Popen[str]], grace: float) -> list[int]:
    """SIGTERM each child, wait for all (grace plus time to close), SIGKILL stragglers."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    codes = []
    for child in children:
        try:
            codes.append(child.wait(grace + 30))
        except subprocess.TimeoutExpired:
            child.kill()
            codes.append(child.wait())
    return codes
