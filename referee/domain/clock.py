"""Time controls: how long each seat may think, and what happens when it runs out.

A match created with a :class:`TimeControl` has a :class:`Clock`, rebuilt from the match's
own events: each event's timestamp (part of its hash, so it cannot be edited unseen) says
when the turn it starts began and how long the seat that acted took. Nothing here reads the
system clock; the application passes ``now`` in.

A seat to act may use ``action_ms`` (per action) and then its bank (``bank_ms`` for the whole
match, ``increment_ms`` added after each of its actions), plus ``lag_ms`` of network
allowance. Time beyond ``action_ms`` comes out of the bank. Past the deadline the match's
``policy`` applies: ``auto`` (the referee acts for the seat: the game's default action),
``forfeit`` (the seat's side loses the match) or ``pause`` (the table waits for an arbiter).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from referee.domain.errors import InvalidTimeControlError

POLICIES = ("auto", "forfeit", "pause")
#: Upper bounds: a day per action, a week of bank, an hour of increment, a minute of lag.
MAXIMA = {"action_ms": 86_400_000, "bank_ms": 604_800_000, "increment_ms": 3_600_000,
          "lag_ms": 60_000}
DEFAULT_LAG_MS = 1000


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """A match's time control (all times in milliseconds; 0: none)."""

    action_ms: int = 0
    bank_ms: int = 0
    increment_ms: int = 0
    lag_ms: int = DEFAULT_LAG_MS
    policy: str = "auto"

    @property
    def enabled(self) -> bool:
        return self.action_ms > 0 or self.bank_ms > 0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimeControl:
        """A validated time control. :raises InvalidTimeControlError: an unknown field, a
        value of the wrong type or out of range, an increment without a bank, an unknown
        policy, or a control with neither a per-action limit nor a bank."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidTimeControlError(
                f"unknown time control field {unknown[0]!r}: the fields are "
                f"{', '.join(sorted(known))}", field=unknown[0])
        values: dict[str, Any] = {}
        for name, top in MAXIMA.items():
            if name not in data:
                continue
            v = data[name]
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
                raise InvalidTimeControlError(
                    f"time control {name} must be a whole number of milliseconds 0..{top}, "
                    f"not {v!r}", field=name)
            values[name] = v
        policy = data.get("policy", "auto")
        if policy not in POLICIES:
            raise InvalidTimeControlError(
                f"time control policy must be one of {', '.join(POLICIES)}, not {policy!r}",
                field="policy")
        control = cls(policy=policy, **values)
        if not control.enabled:
            raise InvalidTimeControlError(
                "a time control needs action_ms (per action) or bank_ms (per seat), or both",
                field="action_ms")
        if control.increment_ms and not control.bank_ms:
            raise InvalidTimeControlError("increment_ms is added to a bank: set bank_ms too",
                                          field="increment_ms")
        return control

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _ms(delta: timedelta) -> int:
    return int(delta / timedelta(milliseconds=1))


@dataclasses.dataclass
class Clock:
    """The running clock of one match (kept by the ``Match`` aggregate, from its events)."""

    control: TimeControl
    banks_ms: list[int]
    turn_start: datetime | None = None
    """When the seat to act began its turn (None: nobody to act, or before the first deal)."""
    paused: bool = False
    used_before_pause_ms: int = 0
    extra_ms: int = 0
    """Time the arbiter granted the seat to act for this turn (on resuming)."""
    stopped_by_timeout: bool = False
    """Paused by a ``pause`` timeout (not the arbiter): resuming begins the turn afresh."""

    @classmethod
    def start(cls, control: TimeControl, seats: int) -> Clock:
        return cls(control, [control.bank_ms] * seats)

    def to_state(self) -> dict[str, Any]:
        """The whole clock as JSON (read models keep it; :meth:`from_state` reads it)."""
        return {"control": self.control.to_dict(), "banks_ms": list(self.banks_ms),
                "turn_start": None if self.turn_start is None else self.turn_start.isoformat(),
                "paused": self.paused, "used_before_pause_ms": self.used_before_pause_ms,
                "extra_ms": self.extra_ms, "stopped_by_timeout": self.stopped_by_timeout}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Clock:
        start = state["turn_start"]
        return cls(TimeControl(**state["control"]), list(state["banks_ms"]),
                   None if start is None else datetime.fromisoformat(start),
                   bool(state["paused"]), int(state["used_before_pause_ms"]),
                   int(state["extra_ms"]), bool(state.get("stopped_by_timeout", False)))

    # -- transitions (event bodies call these with the event's timestamp) -----------------
    def turn_begins(self, at: datetime) -> None:
        self.turn_start = at
        self.used_before_pause_ms = 0
        self.extra_ms = 0

    def acted(self, seat: int, at: datetime) -> None:
        """``seat`` acted at ``at``: charge its bank, add the increment, start the next turn."""
        if self.turn_start is not None and not self.paused:
            used = max(0, _ms(at - self.turn_start))
            c = self.control
            if c.bank_ms:
                over = used - c.action_ms if c.action_ms else used
                self.banks_ms[seat] = max(0, self.banks_ms[seat] - max(0, over))
                self.banks_ms[seat] += c.increment_ms
        self.turn_begins(at)

    def timed_out(self, seat: int, policy: str, at: datetime) -> None:
        """``seat`` timed out at ``at`` under ``policy``: its bank is spent, and a ``pause``
        policy stops the clock until the arbiter resumes it."""
        self.banks_ms[seat] = 0
        if policy == "pause":
            self.pause(at)
            self.stopped_by_timeout = True

    def pause(self, at: datetime) -> None:
        if self.turn_start is not None:
            self.used_before_pause_ms = max(0, _ms(at - self.turn_start))
        self.paused = True

    def resume(self, at: datetime, add_ms: int) -> None:
        """Run again from ``at``: the turn goes on where it stopped, or (after a timeout that
        paused the table) begins afresh; ``add_ms`` more for this turn."""
        self.paused = False
        if self.stopped_by_timeout:
            self.stopped_by_timeout = False
            self.turn_begins(at)
        else:
            self.turn_start = at - timedelta(milliseconds=self.used_before_pause_ms)
        self.extra_ms += add_ms

    def restart(self, at: datetime) -> None:
        """Run again from ``at`` with a fresh turn for the seat to act (an action withdrawn by
        consent: its seat is to act again; the time it used stays spent)."""
        self.paused = False
        self.stopped_by_timeout = False
        self.turn_begins(at)

    # -- queries ---------------------------------------------------------------------------
    def allowance_ms(self, seat: int) -> int:
        """What ``seat`` may use on a turn, lag allowance not included."""
        return (self.control.action_ms + self.extra_ms
                + (self.banks_ms[seat] if self.control.bank_ms else 0))

    def deadline(self, seat: int | None) -> datetime | None:
        """When ``seat`` (the seat to act) times out (None: no running clock)."""
        if seat is None or self.paused or self.turn_start is None:
            return None
        return self.turn_start + timedelta(
            milliseconds=self.allowance_ms(seat) + self.control.lag_ms)

    def expired(self, seat: int | None, now: datetime) -> bool:
        deadline = self.deadline(seat)
        return deadline is not None and now > deadline

    def to_json(self, seat: int | None, now: datetime) -> dict[str, Any]:
        """What views show: the control, each seat's bank, the seat to act's deadline and
        the time it has left (lag allowance not included)."""
        deadline = self.deadline(seat)
        left = None
        if seat is not None and self.turn_start is not None:
            used = (self.used_before_pause_ms if self.paused
                    else max(0, _ms(now - self.turn_start)))
            left = max(0, self.allowance_ms(seat) - used)
        return {
            "control": self.control.to_dict(),
            "banks_ms": list(self.banks_ms) if self.control.bank_ms else [],
            "paused": self.paused,
            "to_act": seat,
            "deadline": deadline.isoformat() if deadline is not None else None,
            "left_ms": left,
        }
