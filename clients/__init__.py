"""Python clients of the referee: the SDK (:class:`RefereeClient`), ``referee-client``, bots.

They talk to the referee only over gRPC (``referee.api.v1``) and read records with the public
record format (``referee.rules.handrecord``).
"""

from clients.errors import (
    BadToken,
    IllegalAction,
    MatchNotFound,
    MatchOver,
    NotYourTurn,
    PermissionDenied,
    RefereeError,
    VersionConflict,
)
from clients.sdk import RefereeClient

__all__ = [
    "BadToken", "IllegalAction", "MatchNotFound", "MatchOver", "NotYourTurn", "PermissionDenied",
    "RefereeClient", "RefereeError", "VersionConflict",
]
