"""Bounds on everything a caller sends: one table of limits, one error for all of them.

Every string, list, byte string and JSON document a request carries has a size limit, so no
caller can make the referee hold or store more than a bounded amount per request
(``referee.service.request_limits`` applies the per-field table to every decoded request;
the application checks what it stores for good: player names, JSON documents). A breach is
:class:`~referee.domain.errors.LimitExceededError` (INVALID_ARGUMENT, reason
``LIMIT_EXCEEDED``), naming the field, the limit and the size found.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from referee.domain.errors import LimitExceededError, MalformedRequestError

#: Largest request the server decodes (gRPC's own check, before any handler runs).
MAX_REQUEST_BYTES = 1 << 20
#: Any string field not listed in ``referee.service.request_limits``.
MAX_STRING = 256
#: Any repeated field not listed there.
MAX_ITEMS = 64
#: Any bytes field not listed there.
MAX_BYTES = 1024

MAX_PLAYER_NAME = 64
MAX_TITLE = 128
"""Tournament and entrant names."""
MAX_TOKEN = 256
MAX_ACTION = 64
MAX_COMMAND_ID = 128
MAX_REASON = 2000
MAX_RULING_POINTS = 1_000_000
"""Most points one ruling may take from or add to a side: far beyond any game's scores, and
small enough that no number of rulings takes a score out of the API's int64."""
MAX_FIXED_DEALS = 256
MAX_CARDS = 64
MAX_WEBHOOK_URL = 2048
MAX_WEBHOOK_SECRET = 100
"""Characters of a ``whsec_`` secret (the base64 of at most 64 bytes is 88)."""
MAX_LIST_LIMIT = 1000
"""Most rows one list call returns (``limit`` above it is answered with this many)."""

HEARTBEAT_DEFAULT = 10
HEARTBEAT_MIN = 1
HEARTBEAT_MAX = 300


def check_length(field: str, value: str | bytes | list[Any], limit: int, unit: str) -> None:
    """:raises LimitExceededError: if ``value`` has more than ``limit`` ``unit``."""
    if len(value) > limit:
        raise LimitExceededError(
            f"{field} has {len(value)} {unit}; the limit is {limit}",
            field=field, limit=limit, size=len(value),
        )


def check_name(field: str, name: str, limit: int = MAX_PLAYER_NAME) -> str:
    """A display name as stored: at most ``limit`` characters, not blank, and no control or
    format characters (they would reach every terminal that prints the name).

    :raises LimitExceededError, MalformedRequestError:"""
    check_length(field, name, limit, "characters")
    if not name.strip():
        raise MalformedRequestError(f"{field} is blank", field=field)
    for ch in name:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            raise MalformedRequestError(
                f"{field} contains the control character U+{ord(ch):04X}; names must be "
                "printable text", field=field,
            )
    return name


def heartbeat(seconds: int) -> float:
    """A stream's heartbeat interval: 0 asks for the default.

    :raises LimitExceededError: outside :data:`HEARTBEAT_MIN`..:data:`HEARTBEAT_MAX`."""
    if seconds == 0:
        return float(HEARTBEAT_DEFAULT)
    if not HEARTBEAT_MIN <= seconds <= HEARTBEAT_MAX:
        raise LimitExceededError(
            f"heartbeat_seconds must be 0 (default {HEARTBEAT_DEFAULT}) or "
            f"{HEARTBEAT_MIN}..{HEARTBEAT_MAX}, not {seconds}",
            field="heartbeat_seconds", limit=HEARTBEAT_MAX,
        )
    return float(seconds)
