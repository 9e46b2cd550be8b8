"""Who is asking: the principals of a match and the token authority that recognises them.

Seat and spectator tokens are 256-bit random strings stored only as SHA-256 hashes; the
auditor's and the organiser's credentials come from the server's settings. Every comparison
runs in constant time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from enum import Enum
from typing import Protocol

from referee.domain.errors import (
    CreateNotAllowedError,
    PermissionDeniedError,
    UnauthenticatedError,
)


class Role(Enum):
    SEAT = "seat"
    SPECTATOR = "spectator"
    AUDITOR = "auditor"


@dataclasses.dataclass(frozen=True)
class Principal:
    """Who is asking, in one match."""

    role: Role
    seat: int | None = None


class Guarded(Protocol):
    """What :meth:`Tokens.authorize` reads of a match (a ``Match`` or :class:`Credentials`)."""

    @property
    def seat_token_hashes(self) -> list[str]: ...
    @property
    def spectator_token_hash(self) -> str: ...
    @property
    def public_spectators(self) -> bool: ...


@dataclasses.dataclass(frozen=True)
class Credentials:
    """What :meth:`Tokens.authorize` reads of a match: its token hashes and whether anyone
    may watch (read models keep these; a ``Match`` has the same attributes)."""

    seat_token_hashes: list[str]
    spectator_token_hash: str
    public_spectators: bool


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 hashes (they are 256-bit random strings)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Tokens:
    """The token authority: the auditor's and the organiser's credentials (``None``: this
    server has none) and the principal a token stands for in a match."""

    def __init__(self, auditor: str | None, organiser: str | None) -> None:
        self._auditor = auditor
        self._organiser = organiser

    def authorize(self, match: Guarded, token: str) -> Principal:
        """The principal ``token`` stands for in ``match``.

        :raises UnauthenticatedError: for a missing token (unless spectating is public) or a
            token that belongs to nobody in this match.
        """
        if token:
            if self.is_auditor(token):
                return Principal(Role.AUDITOR)
            digest = hash_token(token)
            for seat, h in enumerate(match.seat_token_hashes):
                if hmac.compare_digest(digest, h):
                    return Principal(Role.SEAT, seat)
            if hmac.compare_digest(digest, match.spectator_token_hash):
                return Principal(Role.SPECTATOR)
            raise UnauthenticatedError("the token is not valid for this match")
        if match.public_spectators:
            return Principal(Role.SPECTATOR)
        raise UnauthenticatedError("a token is required for this match")

    def is_auditor(self, token: str) -> bool:
        return _same_secret(token, self._auditor)

    def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is the organiser's credential (or the auditor's)."""
        return _same_secret(token, self._organiser) or self.is_auditor(token)

    def require_organiser(self, token: str) -> None:
        """:raises CreateNotAllowedError: unless this server lets anyone create matches or
        ``token`` is the organiser's (or the auditor's)."""
        if self._organiser is None or self.is_organiser(token):
            return
        raise CreateNotAllowedError(
            "this server lets only its organiser create matches: give the organiser token"
            if not token else "the token is not this server's organiser token",
        )

    def require_auditor(self, token: str, what: str = "do this") -> None:
        """:raises UnauthenticatedError: without a token; :raises PermissionDeniedError:
        unless ``token`` is the auditor's (both say so on a server with no auditor)."""
        if not token:
            raise UnauthenticatedError(f"the auditor token is required{self.auditor_hint}")
        if not self.is_auditor(token):
            raise PermissionDeniedError(f"only the auditor may {what}{self.auditor_hint}")

    @property
    def auditor_hint(self) -> str:
        """Added to the refusals of auditor-only requests: on a server with no auditor, says
        so and how to give it one (empty when it has one)."""
        if self._auditor:
            return ""
        return " (this server has no auditor: start it with REFEREE_AUDITOR_TOKEN set)"


def _same_secret(token: str, expected: str | None) -> bool:
    """Whether ``token`` is the configured secret ``expected`` (none configured: never), in
    constant time, compared as UTF-8 bytes (``compare_digest`` refuses a non-ASCII str)."""
    return bool(expected and token and hmac.compare_digest(token.encode(), expected.encode()))
