"""Sending webhooks: the outbox followed from the log, each due delivery POSTed, signed, with
bounded retries (docs/webhooks.md).

:class:`WebhookWorker` is one background thread of ``referee serve`` (beside the views'
worker, :class:`~referee_projections.runner.ProjectionWorker`). Each pass it feeds the outbox
(:class:`~.outbox.OutboxProjection`) from its tracked log position, then hands the
due deliveries to a few sender threads. An attempt succeeds on a 2xx answer; anything else
(another status, a timeout, a refused connection) schedules the next attempt with exponential
backoff and jitter, until :attr:`RetryPolicy.attempts` attempts have failed and the delivery
is marked failed. ``410 Gone`` disables the endpoint. A ``Retry-After`` answer is honoured
(within the policy's longest delay).

At least once: a delivery is marked delivered only after its 2xx; a crash between the two
sends it again after the restart, with the same ``webhook-id``. On PostgreSQL the process
holding the view's lock (:class:`~referee_projections.runner.ViewLocks`) is the one sending.
"""

from __future__ import annotations

import dataclasses
import http.client
import logging
import os
import random
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from urllib.parse import urlsplit

from referee.application.ports import EventLog
from referee.config import SettingsError
from referee_projections.outbox import VIEW, OutboxProjection
from referee_projections.runner import BatchRunner, view_locks, writes
from referee_projections.store import Doc, open_view
from referee_projections.webhook_signing import signed_headers

log = logging.getLogger("referee.webhooks")
USER_AGENT = "trick-referee-webhooks/1"
MAX_ERROR = 200


class PolicyError(SettingsError):
    """A ``REFEREE_WEBHOOK_*`` setting out of range (``referee serve`` refuses to start)."""


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How often and how long a delivery is tried (``REFEREE_WEBHOOK_*``)."""

    attempts: int = 8
    """Attempts before a delivery is marked failed."""
    first_delay: float = 5.0
    """Seconds before the second attempt; each later delay is ``factor`` times longer."""
    factor: float = 4.0
    max_delay: float = 6 * 3600.0
    jitter: float = 0.2
    """Each delay is drawn from ±this fraction of itself."""
    timeout: float = 5.0
    """Seconds one attempt may take (connecting and the answer)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> RetryPolicy:
        def number(name: str, default: float, low: float, high: float) -> float:
            text = env.get(f"REFEREE_WEBHOOK_{name}", "")
            try:
                value = float(text) if text else default
            except ValueError:
                raise PolicyError(f"REFEREE_WEBHOOK_{name}={text!r} is not a number") from None
            if not low <= value <= high:
                raise PolicyError(f"REFEREE_WEBHOOK_{name}={text} is out of range "
                                  f"({low}..{high})")
            return value

        return cls(attempts=int(number("ATTEMPTS", cls.attempts, 1, 20)),
                   first_delay=number("FIRST_DELAY", cls.first_delay, 0.01, 3600),
                   factor=number("BACKOFF", cls.factor, 1, 10),
                   max_delay=number("MAX_DELAY", cls.max_delay, 0.01, 86400),
                   timeout=number("TIMEOUT", cls.timeout, 0.1, 30))

    def delay(self, failed: int, rng: random.Random) -> float:
        """Seconds from the ``failed``-th failed attempt to the next one."""
        base = min(self.first_delay * self.factor ** (failed - 1), self.max_delay)
        return base * rng.uniform(1 - self.jitter, 1 + self.jitter)

    def schedule(self) -> list[float]:
        """The delays between attempts without jitter (the docs' table)."""
        return [min(self.first_delay * self.factor ** (n - 1), self.max_delay)
                for n in range(1, self.attempts)]


@dataclasses.dataclass(frozen=True)
class Answer:
    """How one attempt ended: the HTTP status (0: none came), an error, a ``Retry-After``."""

    status: int
    error: str = ""
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def post(url: str, headers: Mapping[str, str], body: bytes, timeout: float) -> Answer:
    """POST ``body`` to ``url`` (redirects are not followed: a 3xx is a failure, as the spec
    advises); never raises for what the network or the URL's host does."""
    parts = urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = cls(parts.hostname or "", parts.port, timeout=timeout)
    try:
        conn.request("POST", path, body=body, headers={
            **headers, "content-type": "application/json", "user-agent": USER_AGENT})
        response = conn.getresponse()
        response.read(4096)
        retry_after = response.getheader("retry-after")
        after = float(retry_after) if retry_after and retry_after.isdigit() else None
        error = "" if 200 <= response.status < 300 else f"HTTP {response.status}"
        return Answer(response.status, error, after)
    except TimeoutError:
        return Answer(0, f"no answer within {timeout:g} s")
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: a host
        # that does not encode (IDNA), a bad port: the attempt fails, never the worker
        return Answer(0, (f"{type(exc).__name__}: {exc}")[:MAX_ERROR])
    finally:
        conn.close()


class WebhookWorker:
    """Feeds the outbox from the log and sends what is due (see the module docstring)."""

    def __init__(self, log: EventLog, policy: RetryPolicy | None = None, poll: float = 0.5,
                 senders: int = 4) -> None:
        self.log = log
        self.policy = policy or RetryPolicy.from_env()
        self.view = open_view(VIEW, log.settings)
        self.locks = view_locks(log)
        self.runner = BatchRunner(log, OutboxProjection, self.view,
                                  guard=None if self.locks is None else self.locks.check)
        self.poll = poll
        self._rng = random.Random()
        self._senders = ThreadPoolExecutor(senders, thread_name_prefix="referee-webhook")
        self._in_flight: set[str] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._woken = threading.Event()
        log.on_committed(self._woken.set)
        self._thread = threading.Thread(target=self._run, name="referee-webhooks", daemon=True)

    def start(self) -> WebhookWorker:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self._woken.clear()
            wait = self.poll
            try:
                if writes(self.locks, VIEW, self.view):
                    self.runner.run_once(self._stop.is_set)
                    wait = min(wait, self.send_due())
            except Exception:  # the store down...: logged, retried after a pause
                log.exception("webhook worker failed; retrying")
                if self.locks is not None:
                    self.locks.release()
                wait = 1.0
            self._woken.wait(max(wait, 0.01))

    def send_due(self) -> float:
        """Start an attempt for each due delivery not already under way; return the seconds
        until the next one is due (at most the poll interval)."""
        now = time.time()
        soonest = now + self.poll
        for key, due in self.view.children("due", ""):
            if due["next_at"] > now:
                soonest = min(soonest, due["next_at"])
                continue
            with self._guard:
                if key in self._in_flight:
                    continue
                self._in_flight.add(key)
            self._senders.submit(self._attempt, key, due["endpoint_id"])
        return soonest - now

    def _attempt(self, key: str, endpoint_id: str) -> None:
        try:
            self._try(key, endpoint_id)
        except Exception:
            log.exception("webhook delivery %s: the attempt could not be recorded", key)
        finally:
            with self._guard:
                self._in_flight.discard(key)
            self._woken.set()

    def _try(self, key: str, endpoint_id: str) -> None:
        delivery = self.view.read("delivery", key)
        endpoint = self.view.read("endpoint", endpoint_id)
        if delivery is None or delivery["state"] != "pending":
            self.view.write_now([], [("due", key)])
            return
        if endpoint is None or endpoint["disabled"]:
            why = "the endpoint was removed" if endpoint is None else endpoint["disabled"]
            self._finish(key, delivery, "cancelled", why)
            return
        stamp = int(time.time())
        body = delivery["body"].encode()
        started = time.monotonic()
        answer = post(endpoint["url"], signed_headers(endpoint["secret"],
                                                      delivery["message_id"], stamp, body),
                      body, self.policy.timeout)
        delivery["attempts"].append({
            "time": datetime.fromtimestamp(stamp, UTC).isoformat(), "status": answer.status,
            "error": answer.error, "ms": round((time.monotonic() - started) * 1000)})
        if answer.ok:
            self._finish(key, delivery, "delivered")
        elif answer.status == 410:
            endpoint["disabled"] = f"the endpoint answered 410 Gone at {_now_iso()}"
            self.view.write_now([("endpoint", endpoint_id, endpoint["scope_id"], endpoint)])
            self._finish(key, delivery, "failed", endpoint["disabled"])
        elif len(delivery["attempts"]) >= self.policy.attempts:
            self._finish(key, delivery, "failed",
                         f"{self.policy.attempts} attempts failed; the last: {answer.error}")
        else:
            delay = self.policy.delay(len(delivery["attempts"]), self._rng)
            if answer.retry_after is not None:
                delay = max(delay, min(answer.retry_after, self.policy.max_delay))
            delivery["next_at"] = time.time() + delay
            self.view.write_now([
                ("delivery", key, endpoint_id, delivery),
                ("due", key, "", {"next_at": delivery["next_at"], "endpoint_id": endpoint_id}),
            ])
        log.info("webhook %s %s to %s: %s", delivery["message_id"], delivery["event_type"],
                 endpoint["url"], answer.error or answer.status)

    def _finish(self, key: str, delivery: Doc, state: str, error: str = "") -> None:
        delivery.update(state=state, done=_now_iso(), next_at=0, error=error)
        self.view.write_now([("delivery", key, delivery["endpoint_id"], delivery)],
                            [("due", key)])

    def wake(self) -> None:
        self._woken.set()

    def stop(self) -> None:
        self._stop.set()
        self._woken.set()
        if self._thread.is_alive():
            self._thread.join(10)
        self._senders.shutdown(wait=True, cancel_futures=True)
        if self.locks is not None:
            self.locks.release()
        self.view.close()


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def start_in_process(log: EventLog, policy: RetryPolicy) -> WebhookWorker | None:
    """Send webhooks from ``referee serve`` wherever it follows the views itself
    (``REFEREE_PROJECTIONS=separate``: ``referee projections`` sends them)."""
    if log.settings.projections != "inprocess":
        return None
    return WebhookWorker(log, policy).start()
