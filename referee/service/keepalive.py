"""HTTP/2 keepalive and connection age for the gRPC server, with defaults suited to Kubernetes.

A gRPC client keeps one long-lived HTTP/2 connection and sends every call over it, so after
a scale-out the new pods get no traffic until clients reconnect. ``max_connection_age`` makes
the server end each connection after a while (gRPC adds ±10% jitter): it sends GOAWAY, calls
in flight get ``max_connection_age_grace`` to finish, and the client reconnects, re-resolving
the headless Service and landing on any pod. Watch streams still open after the grace end
with UNAVAILABLE; the SDK reopens them from the last version seen.

Keepalive pings find connections that died silently (a node gone, a NAT or load balancer that
dropped an idle flow) so their streams and state are freed. The server also accepts clients'
own keepalive pings down to ``min_ping_interval`` apart, idle connections included (gRPC's
default, 5 minutes, answers a client pinging every 30 s with GOAWAY ``too_many_pings``).

Each value is a setting (milliseconds; ``0`` turns age and keepalive off):

- ``REFEREE_KEEPALIVE_TIME_MS`` (default 60000): ping a connection idle this long;
- ``REFEREE_KEEPALIVE_TIMEOUT_MS`` (default 20000): close it when the ping is not answered
  within this;
- ``REFEREE_MAX_CONNECTION_AGE_MS`` (default 300000): end each connection after about 5 min;
- ``REFEREE_MAX_CONNECTION_AGE_GRACE_MS`` (default 30000): time calls in flight get then;
- ``REFEREE_MIN_PING_INTERVAL_MS`` (default 10000): the shortest interval between clients'
  pings that the server accepts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from referee.config import read_int

#: ``(setting, gRPC channel argument, default)``; a 0 setting leaves gRPC's own behaviour.
OPTIONS = (
    ("REFEREE_KEEPALIVE_TIME_MS", "grpc.keepalive_time_ms", 60_000),
    ("REFEREE_KEEPALIVE_TIMEOUT_MS", "grpc.keepalive_timeout_ms", 20_000),
    ("REFEREE_MAX_CONNECTION_AGE_MS", "grpc.max_connection_age_ms", 300_000),
    ("REFEREE_MAX_CONNECTION_AGE_GRACE_MS", "grpc.max_connection_age_grace_ms", 30_000),
    ("REFEREE_MIN_PING_INTERVAL_MS", "grpc.http2.min_ping_interval_without_data_ms", 10_000),
)
_DAY_MS = 24 * 3600 * 1000


def keepalive_options(env: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """The server's keepalive and connection-age channel arguments from ``env`` (default
    ``os.environ``).

    :raises referee.config.SettingsError: for a value that is not a whole number of
        milliseconds from 0 to a day."""
    env = os.environ if env is None else env
    options = []
    for name, option, default in OPTIONS:
        value = read_int(env, name, default, 0, _DAY_MS)
        if value:
            options.append((option, value))
    # Idle connections too: accept clients' pings on them (else a client keeping an idle
    # channel alive is answered with GOAWAY), and ping them as long as they stay idle.
    options.append(("grpc.keepalive_permit_without_calls", 1))
    if any(option == "grpc.keepalive_time_ms" for option, _ in options):
        options.append(("grpc.http2.max_pings_without_data", 0))
    return options
