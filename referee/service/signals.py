"""Stopping on SIGTERM or SIGINT: shared by ``referee serve`` and its ``--workers`` parent."""

from __future__ import annotations

import signal
import threading


def stop_event() -> threading.Event:
    """An event that the first SIGTERM or SIGINT sets (installs the handlers; main thread)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return stop
