"""Per-peer bounds: how fast a peer may call without a credential, how many streams it holds.

A peer is the caller's network address without its port (``ipv4:10.0.0.7``), as gRPC reports
it: every connection from one host shares its budget. Calls with no token are the anonymous
ones (a match created without the organiser's credential included); they draw on a token
bucket per peer. Watch streams count against a per-peer ceiling while open, and against one
for the whole process (``total``: past it a stream is refused at once, RESOURCE_EXHAUSTED
``TOO_MANY_STREAMS``, rather than slowing every other stream and the players). Behind a proxy
every caller shares the proxy's address: raise the limits there, or require the organiser
credential (``REFEREE_ORGANISER_TOKEN``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

import grpc

from referee.config import Settings
from referee.domain.errors import RateLimitedError, StreamLimitError

_MAX_PEERS = 10_000  # buckets kept (least recently used go first)
#: Metadata the HTTP gateway (``referee.service.gateway``) sends with each call: the HTTP
#: client it calls for, in gRPC's peer form. Believed only on the server's private Unix socket,
#: where nothing but the gateway of the same process connects.
CLIENT_HEADER = "x-referee-client"


def peer_host(peer: str) -> str:
    """``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``; ``ipv6:[::1]:5678`` -> ``ipv6:[::1]``."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        return f"{kind}:{rest.rsplit(':', 1)[0]}"
    return peer


def peer_of(context: grpc.ServicerContext) -> str:
    """The caller: gRPC's peer, or the HTTP client a call through the gateway is made for."""
    peer: str = context.peer()
    if peer.startswith("unix:"):
        for key, value in context.invocation_metadata() or ():
            if key == CLIENT_HEADER and isinstance(value, str):
                return value
    return peer


class PeerLimits:
    """The anonymous-call bucket and the stream count of every peer (thread-safe)."""

    def __init__(self, rate: float, burst: int, streams: int, total: int = 0) -> None:
        self.rate, self.burst, self.streams = rate, max(burst, 1), streams
        self.total = total  # open streams of the whole process (0: no limit)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._open: dict[str, int] = {}
        self._all = 0
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> PeerLimits:
        return cls(settings.anonymous_rate, settings.anonymous_burst, settings.streams_per_peer,
                   settings.streams_total)

    def anonymous_call(self, peer: str) -> None:
        """Take one call from ``peer``'s bucket.

        :raises RateLimitedError: when it is empty (with the time until one is back)."""
        if self.rate <= 0:
            return
        host = peer_host(peer)
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.pop(host, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            allowed = tokens >= 1.0
            self._buckets[host] = (tokens - 1.0 if allowed else tokens, now)
            while len(self._buckets) > _MAX_PEERS:
                self._buckets.popitem(last=False)
        if not allowed:
            wait = (1.0 - tokens) / self.rate
            raise RateLimitedError(
                f"too many calls without a credential from {host}: at most {self.rate:g} "
                f"a second (burst {self.burst}); retry in {wait:.1f}s or present a token",
                wait, limit=self.rate,
            )

    @contextlib.contextmanager
    def stream(self, peer: str) -> Iterator[None]:
        """Hold one of ``peer``'s stream places (and one of the process's) while the block
        runs.

        :raises StreamLimitError: when the peer holds all of its places, or the process
            serves as many streams as it may."""
        host = peer_host(peer)
        with self._lock:
            held = self._open.get(host, 0)
            if self.streams > 0 and held >= self.streams:
                raise StreamLimitError(
                    f"{host} already holds {held} open streams, the most one peer may; "
                    "close one first", limit=self.streams,
                )
            if self.total > 0 and self._all >= self.total:
                raise StreamLimitError(
                    f"this server already serves {self._all} open streams, the most it may "
                    "(REFEREE_STREAMS_TOTAL); retry later or on another replica",
                    limit=self.total, scope="server",
                )
            self._open[host] = held + 1
            self._all += 1
        try:
            yield
        finally:
            with self._lock:
                self._all -= 1
                left = self._open[host] - 1
                if left:
                    self._open[host] = left
                else:
                    del self._open[host]
