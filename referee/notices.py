"""Changes announced between the processes of one PostgreSQL store: LISTEN/NOTIFY.

Each process that commits (a replica of ``referee serve``, or ``referee projections`` for
the views) sends, right after each commit, a notification on the store's channel
(:data:`CHANNEL` and the schema) whose payload
names what changed: ``INSTANCE|VIEW|ID:VERSION,ID:VERSION...`` (``VIEW`` empty for the log's
aggregates, else a view's name such as ``scoreboard``); a payload stays under PostgreSQL's
8,000 bytes (a large commit sends several). Sending runs on a thread of its own (in one
transaction on a connection of the store's pool), so a slow store never holds the writer.

Each ``referee serve`` listens on a dedicated connection (:meth:`Notices.listen`); a
notification from another process wakes the watchers of what it names (the notifier port,
:class:`~referee.changes.ChangeWaiters`), so a watch stream on any replica follows a match
played through another one without polling. When the listening connection breaks, the
listener says so (:attr:`Notices.connected`, its listeners: the server's health status) and
reconnects; once back, it wakes every watcher (a notification may have been missed
meanwhile). SQLite has one process: nothing to announce.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from referee.changes import ChangeWaiters, keys_of

_log = logging.getLogger("referee.notices")

CHANNEL = "referee_changes"
"""The channel's name (then ``_`` and the store's schema: one channel per store)."""
PAYLOAD_BYTES = 7_000
"""At most this many bytes of payload per notification (PostgreSQL's limit is 8,000)."""
RETRY = 1.0
"""Seconds between two attempts to reconnect the listening connection."""
WAIT = 1.0
"""Seconds the listener waits for notifications before it looks whether to stop."""
CHECK = 5.0
"""Seconds without a notification after which the listener checks its connection."""


def payloads(instance: str, view: str, versions: Mapping[Any, int]) -> list[str]:
    """The notifications announcing ``versions`` (aggregate id -> version) of ``view``."""
    head = f"{instance}|{view}|"
    out: list[str] = []
    part: list[str] = []
    size = len(head)
    for key, version in versions.items():
        item = f"{key}:{version}"
        if part and size + len(item) + 1 > PAYLOAD_BYTES:
            out.append(head + ",".join(part))
            part, size = [], len(head)
        part.append(item)
        size += len(item) + 1
    if part:
        out.append(head + ",".join(part))
    return out


def parse(payload: str) -> tuple[str, str, dict[uuid.UUID, int]] | None:
    """``(instance, view, {aggregate id: version})`` of a notification (None: not ours)."""
    try:
        instance, view, items = payload.split("|", 2)
        versions: dict[uuid.UUID, int] = {}
        for item in items.split(","):
            key, _, version = item.rpartition(":")
            versions[uuid.UUID(key)] = int(version)
    except ValueError:
        return None
    return instance, view, versions


class Notices:
    """This process's side of :data:`CHANNEL` (see the module docstring). ``connect()`` opens
    a dedicated autocommit connection (to listen on); ``transaction()`` is a context of a
    cursor in a transaction committed at its end, on a pooled connection (to send);
    ``changes`` is woken by the others' notifications;
    ``advance_log``: whether a read of the log sees an announced version at once (fresh
    reads), so that the log's versions may be noted as well as woken."""

    def __init__(self, connect: Callable[[], Any], transaction: Callable[[], Any],
                 changes: ChangeWaiters, advance_log: bool = True, channel: str = CHANNEL
                 ) -> None:
        self.instance, self.channel = uuid.uuid4().hex[:12], channel
        self.changes, self.advance_log = changes, advance_log
        self._connect, self._transaction = connect, transaction
        #: Whether the listening connection is up (False before :meth:`listen`).
        self.connected = False
        self._listeners: list[Callable[[bool], None]] = []
        self._pending: dict[str, dict[Any, int]] = {}
        self._guard = threading.Lock()
        self._send_wanted = threading.Event()
        self._stop = threading.Event()
        self._sender: threading.Thread | None = None
        self._listener: threading.Thread | None = None
        self._up = threading.Event()

    # -- sending ---------------------------------------------------------------------------
    def send(self, view: str, versions: Mapping[Any, int]) -> None:
        """Announce ``versions`` of ``view`` ("" for the log) to the other processes, soon
        (any thread; the sender thread sends, several commits joined)."""
        if not versions or self._stop.is_set():
            return
        with self._guard:
            pending = self._pending.setdefault(view, {})
            for key, version in versions.items():
                pending[key] = max(version, pending.get(key, -1))
            if self._sender is None:
                self._sender = _start(self._send_loop, "referee-notify")
        self._send_wanted.set()

    def _send_loop(self) -> None:
        while not self._stop.is_set():
            self._send_wanted.wait(1.0)
            self._send_wanted.clear()
            with self._guard:
                pending, self._pending = self._pending, {}
            notes = [p for view, versions in pending.items()
                     for p in payloads(self.instance, view, versions)]
            if not notes:
                continue
            try:
                with self._transaction() as cursor:
                    for note in notes:
                        cursor.execute("SELECT pg_notify(%s, %s)", (self.channel, note))
            except Exception:  # the store is down: the others' listeners reconnect and
                _log.debug("notifying failed", exc_info=True)  # wake everyone then

    # -- listening -------------------------------------------------------------------------
    def listen(self, wait: float = 2.0) -> Notices:
        """Start listening to the other processes (a thread with its own connection); wait
        up to ``wait`` seconds for it to be connected."""
        if self._listener is None:
            self._listener = _start(self._listen_loop, "referee-listen")
        self._up.wait(wait)
        return self

    @property
    def started(self) -> bool:
        """Whether :meth:`listen` was called (before, nothing says it should be connected)."""
        return self._listener is not None

    def add_listener(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(connected)`` each time the listening connection goes up or down
        (on the listener's thread)."""
        self._listeners.append(listener)

    def _listen_loop(self) -> None:
        from psycopg.sql import SQL, Identifier  # (PostgreSQL only: not imported before)

        while not self._stop.is_set():
            conn: Any = None
            try:
                conn = self._connect()
                conn.execute(SQL("LISTEN {0}").format(Identifier(self.channel)))
                self._set(True)
                self.changes.wake_all()  # what was missed while not listening
                quiet = 0.0
                while not self._stop.is_set():
                    heard = False
                    for note in conn.notifies(timeout=WAIT, stop_after=256):
                        heard = True
                        self._heard(note.payload)
                    quiet = 0.0 if heard else quiet + WAIT
                    if quiet >= CHECK:  # a quiet connection: still alive?
                        conn.execute("SELECT 1")
                        quiet = 0.0
            except Exception as exc:
                if not self._stop.is_set():
                    _log.warning("listening for other processes' changes failed (%s); "
                                 "reconnecting", str(exc).strip().split("\n")[0])
            finally:
                _close(conn)
                self._set(False)
            self._stop.wait(RETRY)

    def _heard(self, payload: str) -> None:
        parsed = parse(payload)
        if parsed is None or parsed[0] == self.instance:
            return  # our own commit: its watchers were woken by it
        _, view, versions = parsed
        keys = keys_of(view, versions)
        if view or self.advance_log:
            self.changes.advance(keys)
        else:  # a read may not see the version yet: no note of it, only a wake
            self.changes.wake(list(keys))

    def _set(self, connected: bool) -> None:
        if connected == self.connected:
            return
        self.connected = connected
        if connected:
            self._up.set()
        for listener in self._listeners:
            try:
                listener(connected)
            except Exception:
                _log.exception("a listener of the notifications' connection failed")

    def close(self) -> None:
        self._stop.set()
        self._send_wanted.set()
        for thread in (self._sender, self._listener):
            if thread is not None:
                thread.join(5)


def _start(target: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def _close(conn: Any) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()
