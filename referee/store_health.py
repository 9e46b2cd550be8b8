"""Is the event store reachable? A background thread pings PostgreSQL about every second.

:class:`StoreMonitor` holds a connection of its own (not one of the pool's) and runs
``SELECT 1`` on it every ``interval`` seconds, giving each ping ``timeout`` seconds. A ping
that fails or does not answer in time marks the store **down** at once (a broken connection of
the monitor's own is first replaced, once, so a stale connection alone is not an outage); the
first ping that succeeds marks it **up** again, after making every connection pool of the
process reconnect at once (:func:`referee.persistence.recover_pools`) instead of after the
pool's backoff. Listeners hear each change (on the monitor's thread); the server turns them
into its health status and into ``STORE_UNAVAILABLE`` answers (``referee.service.store_gate``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # psycopg is optional: imported only when the store is PostgreSQL
    import psycopg

log = logging.getLogger("referee.store")
Listener = Callable[[bool], None]


class StoreMonitor:
    """Pings the store from a thread of its own; :attr:`available` says how the last ping
    went (see the module docstring)."""

    def __init__(self, connect: Callable[[], psycopg.Connection[Any]], *, interval: float = 1.0,
                 timeout: float = 1.0, on_recover: Callable[[], None] | None = None) -> None:
        if interval <= 0 or timeout <= 0:
            raise ValueError("the ping interval and timeout must be positive")
        self._connect, self.interval, self.timeout = connect, interval, timeout
        if on_recover is None:
            from referee.persistence import recover_pools

            on_recover = recover_pools
        self._on_recover = on_recover
        #: False from the first failed ping until one succeeds again.
        self.available = True
        self.down_since: float | None = None
        self._last_error = ""
        self._listeners: list[Listener] = []
        self._conn: psycopg.Connection[Any] | None = None
        self._pinging: concurrent.futures.Future[None] | None = None
        self._pinger = concurrent.futures.ThreadPoolExecutor(1, "referee-store-ping")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee-store-monitor",
                                        daemon=True)

    @classmethod
    def for_app(cls, app: Any, interval: float) -> StoreMonitor | None:
        """A monitor of ``app``'s PostgreSQL store (None for another store, or interval 0)."""
        if interval <= 0 or getattr(getattr(app, "settings", None), "backend", "") != "postgres":
            return None
        from referee.persistence import datastore_of, dedicated_connection

        datastore = datastore_of(getattr(app, "recorder", None))
        if datastore is None:
            return None

        def connect() -> psycopg.Connection[Any]:
            return dedicated_connection(datastore, connect_timeout=2)  # libpq's least

        return cls(connect, interval=interval, timeout=min(interval, 1.0))

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(available)`` on each change (on the monitor's thread)."""
        self._listeners.append(listener)

    def start(self) -> StoreMonitor:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(self.interval + self.timeout + 1)
        self._pinger.submit(self._close)  # on the pinger's thread, after a running ping
        self._pinger.shutdown(wait=False)

    def check(self) -> bool:
        """Ping once now and update :attr:`available`; return it."""
        ok = self._ping()
        if ok != self.available:
            self._changed(ok)
        return ok

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # a listener failed: logged, the monitor goes on
                log.exception("store monitor")

    def _ping(self) -> bool:
        """Whether a ping answered within the timeout (a ping still running from an earlier
        tick counts as a failure, and no second one is started)."""
        if self._pinging is not None and not self._pinging.done():
            return False
        self._pinging = self._pinger.submit(self._ping_once)
        try:
            self._pinging.result(self.timeout)
        except concurrent.futures.TimeoutError:
            self._last_error = f"no answer within {self.timeout:g}s"
            return False
        except Exception as exc:
            self._last_error = f"{type(exc).__name__}: {exc}".strip()
            return False
        return True

    def _ping_once(self) -> None:
        import psycopg

        if self._conn is not None:
            try:
                self._conn.execute("SELECT 1")
                return
            except psycopg.Error:
                self._close()  # maybe only this connection broke: try a new one, once
        self._conn = self._connect()
        self._conn.execute("SELECT 1")

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _changed(self, available: bool) -> None:
        if available:
            down = time.monotonic() - (self.down_since or time.monotonic())
            try:
                self._on_recover()
            finally:
                self.available, self.down_since = True, None
            log.warning("store available again (down %.1fs)", down)
        else:
            self.available, self.down_since = False, time.monotonic()
            log.warning("store unavailable: %s", self._last_error)
        for listener in self._listeners:
            listener(available)
