"""A real HTTP receiver for the webhook tests: ``http.server`` in a thread on a port of
127.0.0.1, answering from a script (a status, or a pause longer than the sender waits), and
checking every signature the way the Standard Webhooks spec describes it, independently of the
referee's own signing code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def verify(secret: str, headers: dict[str, str], body: bytes, tolerance: float = 300) -> bool:
    """The spec's verification: the key is the base64 after ``whsec_``; the signed content is
    ``{webhook-id}.{webhook-timestamp}.{body}``; ``webhook-signature`` is a space-separated
    list of ``version,base64`` entries, one ``v1`` of which must equal HMAC-SHA256 (compared in
    constant time); the timestamp must be within ``tolerance`` seconds of now."""
    msg_id, stamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not (msg_id and stamp.isdigit() and headers.get("webhook-signature")):
        return False
    if abs(time.time() - int(stamp)) > tolerance:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = hmac.new(key, msg_id.encode() + b"." + stamp.encode() + b"." + body,
                        hashlib.sha256).digest()
    for entry in headers["webhook-signature"].split(" "):
        version, _, sig = entry.partition(",")
        if version == "v1" and hmac.compare_digest(base64.b64decode(sig), expected):
            return True
    return False


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int  # the status answered (0: none, the receiver paused past the timeout)
    verified: bool

    @property
    def message_id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)  # type: ignore[no-any-return]


@dataclass
class Receiver:
    """POSTs to any path: each answered by the next entry of :attr:`script` (an int status, or
    a float: seconds to wait before answering 200), then 200 once the script is used up; but
    the first :attr:`fail_first` attempts of each webhook-id are answered 500."""

    secret: str
    port: int = field(default_factory=free_port)
    script: list[int | float] = field(default_factory=list)
    fail_first: int = 0
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/referee?x=1"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver._lock:
                    seen = sum(r.message_id == headers.get("webhook-id")
                               for r in receiver.received)
                    step = receiver.script.pop(0) if receiver.script else 200
                    if seen < receiver.fail_first:
                        step = 500
                status = 200 if isinstance(step, float) else step
                entry = Received(headers, body, status, verify(receiver.secret, headers, body))
                if isinstance(step, float):
                    entry.answered = 0
                    time.sleep(step)
                with receiver._lock:
                    receiver.received.append(entry)
                try:
                    self.send_response(status)
                    self.send_header("content-length", "0")
                    self.end_headers()
                except OSError:  # the sender gave up waiting
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def answered_ok(self) -> dict[str, Received]:
        """The last 2xx-answered request of each webhook-id."""
        with self._lock:
            return {r.message_id: r for r in self.received if 200 <= r.answered < 300}

    def wait_for(self, count: int, timeout: float = 30.0) -> dict[str, Received]:
        """Wait until ``count`` distinct webhook-ids were answered 2xx."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ok = self.answered_ok()
            if len(ok) >= count:
                return ok
            time.sleep(0.05)
        raise AssertionError(f"{len(self.answered_ok())} of {count} webhooks delivered: "
                             f"{[(r.message_id, r.answered) for r in self.received]}")
