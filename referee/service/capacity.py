"""How many calls the gRPC server takes in, for a server with many watch streams.

gRPC's own limits, as channel arguments of the server, each from a setting:

- ``REFEREE_MAX_PENDING_CALLS`` (default 10000): calls that arrived but that the server has
  not taken up yet (``grpc.server.max_pending_requests``; gRPC's default is 1000, and past
  it, up to its hard limit at 3x, it refuses a growing share of new calls at random). A burst
  of thousands of new streams (watchers reconnecting after a restart) waits its turn instead
  of being refused. Past the hard limit (twice this) gRPC itself refuses the call (the
  client sees an error of gRPC's, not one of ours);
- ``REFEREE_MAX_UNREQUESTED_S`` (default 30, gRPC's): how long such a call may wait before
  gRPC cancels it (``grpc.server_max_unrequested_time_in_server``);
- ``REFEREE_MAX_STREAMS_PER_CONNECTION`` (default 100, HTTP/2's usual): concurrent calls on
  one client connection (``grpc.max_concurrent_streams``); a client wanting more opens more
  connections.

The streams a process serves in all, and per caller address, are the referee's own limits
(``REFEREE_STREAMS_TOTAL``, ``REFEREE_STREAMS_PER_PEER``, :mod:`referee.service.peers`):
past them a stream is refused at once with RESOURCE_EXHAUSTED ``TOO_MANY_STREAMS``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from referee.config import read_int


def capacity_options(env: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """The server's call-intake channel arguments from ``env`` (default ``os.environ``).

    :raises referee.config.SettingsError: for a value out of range."""
    env = os.environ if env is None else env
    pending = read_int(env, "REFEREE_MAX_PENDING_CALLS", 10_000, 1, 1_000_000)
    return [
        ("grpc.server.max_pending_requests", pending),
        ("grpc.server.max_pending_requests_hard_limit", 2 * pending),
        ("grpc.server_max_unrequested_time_in_server",
         read_int(env, "REFEREE_MAX_UNREQUESTED_S", 30, 1, 3600)),
        ("grpc.max_concurrent_streams",
         read_int(env, "REFEREE_MAX_STREAMS_PER_CONNECTION", 100, 1, 100_000)),
    ]
