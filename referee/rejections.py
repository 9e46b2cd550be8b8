"""The rejection trail: refused attempts, kept for the auditor (not match events).

Bounded per match and per caller: each seat of a match keeps its last ``per_match`` refusals,
and callers holding no seat token of the match (no token, a spectator's, a wrong one) share a
ring of ``anonymous`` of their own, so nobody who does not hold a seat can push a seat's
evidence out. At most ``total`` entries are kept overall; past that, the attempts of callers
without a seat go first (kept to a tenth of ``total``), then the oldest entries.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections import OrderedDict, deque
from typing import Any


@dataclasses.dataclass(frozen=True)
class Rejection:
    match_id: str
    seat: int | None
    """The seat whose token made the attempt (``None``: a caller holding no seat token)."""
    action: str
    reason: str
    rule: str
    message: str
    time: str


class RejectionLog:
    """The trail in memory (the POPO store); see the module docstring for the bounds."""

    def __init__(self, per_match: int, total: int, anonymous: int = 50) -> None:
        self.per_match, self.total, self.anonymous = per_match, total, anonymous
        self._rings: OrderedDict[str, dict[int | None, deque[Rejection]]] = OrderedDict()
        self._count = 0
        self._lock = threading.Lock()

    def add(self, rejection: Rejection) -> None:
        with self._lock:
            rings = self._rings.get(rejection.match_id)
            if rings is None:
                rings = self._rings[rejection.match_id] = {}
            self._rings.move_to_end(rejection.match_id)
            ring = rings.get(rejection.seat)
            if ring is None:
                size = self.anonymous if rejection.seat is None else self.per_match
                ring = rings[rejection.seat] = deque(maxlen=max(size, 1))
            if len(ring) == ring.maxlen:
                self._count -= 1
            ring.append(rejection)
            self._count += 1
            while self._count > self.total:
                self._drop_oldest()

    def _drop_oldest(self) -> None:
        """Drop one entry: an anonymous one while they hold over a tenth of the total, else
        the oldest entry of the least recently refused match."""
        anonymous = [(mid, rings[None]) for mid, rings in self._rings.items()
                     if rings.get(None)]
        if sum(len(r) for _, r in anonymous) > self.total // 10:
            match_id, ring = anonymous[0]
        else:
            match_id, rings = next(iter(self._rings.items()))
            ring = min((r for r in rings.values() if r), key=lambda r: r[0].time)
        ring.popleft()
        self._count -= 1
        rings = self._rings[match_id]
        for seat in [s for s, r in rings.items() if not r]:
            del rings[seat]
        if not rings:
            del self._rings[match_id]

    def list(self, match_id: str = "", limit: int = 0) -> list[Rejection]:
        with self._lock:
            if match_id:
                rings = list(self._rings.get(match_id, {}).values())
            else:
                rings = [r for rs in self._rings.values() for r in rs.values()]
            items = sorted((r for ring in rings for r in ring), key=lambda r: r.time)
        return items[-limit:] if limit > 0 else items

    def flush(self) -> None:
        """Nothing to write: the in-memory log is the store."""


class StoredRejectionLog:
    """The rejection trail in a table next to the events (SQLite or PostgreSQL), so it
    survives a restart, with the bounds of the module docstring enforced on insert.

    ``add`` only queues (a refusal is answered at once); the group-commit writer thread
    flushes the queue in one transaction after each batch of events, ``list`` and ``close``
    flush first. A crash can lose the refusals of the last few milliseconds, never events.
    """

    def __init__(self, datastore: Any, per_match: int, total: int, table: str,
                 create_table: bool = True, anonymous: int = 50) -> None:
        self.per_match, self.total, self.anonymous = per_match, total, anonymous
        self._ds = datastore
        self._pending: list[Rejection] = []
        self._pending_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._postgres = type(datastore).__module__.startswith("eventsourcing.postgres")
        if self._postgres:
            schema = datastore.schema
            self._table = f'"{schema}"."{table}"'
            ddl = [
                f"CREATE TABLE IF NOT EXISTS {self._table} (id bigserial PRIMARY KEY, "
                "match_id text NOT NULL, seat integer, action text NOT NULL, "
                "reason text NOT NULL, rule text NOT NULL, message text NOT NULL, "
                "time text NOT NULL)",
                f'CREATE INDEX IF NOT EXISTS "{table}_match_idx" ON {self._table} '
                "(match_id, id)",
            ]
        else:
            self._table = f'"{table}"'
            ddl = [
                f"CREATE TABLE IF NOT EXISTS {self._table} (id INTEGER PRIMARY KEY "
                "AUTOINCREMENT, match_id TEXT NOT NULL, seat INTEGER, action TEXT NOT NULL, "
                "reason TEXT NOT NULL, rule TEXT NOT NULL, message TEXT NOT NULL, "
                "time TEXT NOT NULL)",
                f'CREATE INDEX IF NOT EXISTS "{table}_match_idx" ON {self._table} '
                "(match_id, id)",
            ]
        # CREATE_TABLE=n (eventsourcing's setting, e.g. on a read-only standby): no DDL, and
        # the count is read in a transaction that writes nothing.
        with self._write_lock, self._ds.transaction(commit=create_table) as curs:
            for statement in ddl if create_table else ():
                curs.execute(statement)
            curs.execute(f"SELECT count(*) AS n FROM {self._table}")
            self._count = int(self._first(curs.fetchone()))
        self._since_recount = 0

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s") if self._postgres else text

    @staticmethod
    def _first(row: Any) -> Any:
        if isinstance(row, dict):
            return next(iter(row.values()))
        return row[0]

    def _transaction(self) -> Any:
        return self._ds.transaction(commit=True)

    @staticmethod
    def _rowcount(curs: Any) -> int:
        return max(getattr(curs, "sqlite_cursor", curs).rowcount or 0, 0)

    def add(self, rejection: Rejection) -> None:
        with self._pending_lock:
            self._pending.append(rejection)

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def flush(self) -> None:
        """Write the queued refusals and enforce the bounds, in one transaction."""
        with self._write_lock:
            with self._pending_lock:
                batch, self._pending = self._pending, []
            if not batch:
                return
            t = self._table
            with self._transaction() as curs:
                curs.executemany(
                    self._sql(f"INSERT INTO {t} (match_id, seat, action, reason, rule, "
                              "message, time) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                    [(r.match_id, r.seat, r.action, r.reason, r.rule, r.message, r.time)
                     for r in batch],
                )
                self._count += len(batch)
                self._since_recount += len(batch)
                for match_id, seat in collections.Counter((r.match_id, r.seat) for r in batch):
                    self._trim_ring(curs, match_id, seat)
                # Other processes write too: recount now and then, and before trimming.
                if self._count > self.total or self._since_recount >= 1000:
                    self._recount(curs)
                if self._count > self.total:
                    curs.execute(self._sql(
                        f"DELETE FROM {t} WHERE seat IS NULL AND id <= (SELECT id FROM {t} "
                        "WHERE seat IS NULL ORDER BY id DESC LIMIT 1 OFFSET ?)"),
                        (self.total // 10,))
                    self._count -= self._rowcount(curs)
                if self._count > self.total:
                    curs.execute(self._sql(
                        f"DELETE FROM {t} WHERE id <= (SELECT id FROM {t} "
                        "ORDER BY id DESC LIMIT 1 OFFSET ?)"), (self.total,))
                    self._count -= self._rowcount(curs)

    def _trim_ring(self, curs: Any, match_id: str, seat: int | None) -> None:
        """Keep the newest rows of one caller's ring in one match."""
        t = self._table
        who = "seat IS NULL" if seat is None else "seat = ?"
        keep = self.anonymous if seat is None else self.per_match
        args: tuple[Any, ...] = (match_id,) if seat is None else (match_id, seat)
        curs.execute(self._sql(
            f"DELETE FROM {t} WHERE match_id = ? AND {who} AND id <= (SELECT id FROM {t} "
            f"WHERE match_id = ? AND {who} ORDER BY id DESC LIMIT 1 OFFSET ?)"),
            (*args, *args, max(keep, 1)))
        self._count -= self._rowcount(curs)

    def _recount(self, curs: Any) -> None:
        curs.execute(f"SELECT count(*) AS n FROM {self._table}")
        self._count = int(self._first(curs.fetchone()))
        self._since_recount = 0

    def list(self, match_id: str = "", limit: int = 0) -> list[Rejection]:
        self.flush()
        t = self._table
        cols = "match_id, seat, action, reason, rule, message, time"
        cap = limit if limit > 0 else self.total
        with self._ds.transaction(commit=False) as curs:
            if match_id:
                curs.execute(self._sql(f"SELECT {cols} FROM {t} WHERE match_id = ? "
                                       "ORDER BY id DESC LIMIT ?"), (match_id, cap))
            else:
                curs.execute(self._sql(f"SELECT {cols} FROM {t} ORDER BY id DESC LIMIT ?"),
                             (cap,))
            rows = curs.fetchall()
        out = []
        for row in reversed(rows):
            v = list(row.values()) if isinstance(row, dict) else list(row)
            out.append(Rejection(v[0], v[1], v[2], v[3], v[4], v[5], v[6]))
        return out
