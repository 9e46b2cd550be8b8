"""The Python SDK of the referee: :class:`RefereeClient` and its errors.

It talks to the referee only over gRPC, through the generated stubs it carries
(``trick_referee_client.api.v1``), and needs only grpcio, protobuf and grpcio-status.
"""

from trick_referee_client.errors import (
    BadToken,
    IllegalAction,
    MatchNotFound,
    MatchOver,
    NotYourTurn,
    PermissionDenied,
    RefereeError,
    VersionConflict,
)
from trick_referee_client.sdk import RefereeClient

__version__ = "0.1.0"

__all__ = [
    "BadToken", "IllegalAction", "MatchNotFound", "MatchOver", "NotYourTurn", "PermissionDenied",
    "RefereeClient", "RefereeError", "VersionConflict",
]
