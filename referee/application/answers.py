"""What the use cases answer: plain frozen dataclasses, no behaviour."""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID

from referee.application.principals import Principal
from referee.domain.match import Outcome
from referee.rules.game import JSON


@dataclasses.dataclass(frozen=True)
class Created:
    match_id: UUID
    players: list[str]
    seat_tokens: list[str]
    spectator_token: str
    version: int
    commitment: str


@dataclasses.dataclass(frozen=True)
class Answer:
    """The answer to one accepted action (and to its retries)."""

    outcome: Outcome
    hand_over: bool
    match_over: bool
    scores: list[int]
    replayed: bool = False


@dataclasses.dataclass(frozen=True)
class View:
    """What one principal may see of a match at one version."""

    match_id: UUID
    version: int
    game: str
    principal: Principal
    hand: int
    dealer: int
    to_act: int | None
    legal_actions: list[str]
    scores: list[int]
    match_over: bool
    winner: int | None
    state: dict[str, JSON]
    players: list[str]
    commitment: str
    clock: dict[str, Any] | None = None
    """The clock (``referee.domain.clock.Clock.to_json``); None for an untimed match."""
    undo: dict[str, Any] | None = None
    """The pending undo request (``referee.domain.match.Match.undo_json``), if any."""
    claim: dict[str, Any] | None = None
    """The pending unchecked claim (``referee.domain.match.Match.claim_json``), if any."""


@dataclasses.dataclass(frozen=True)
class PublicEvent:
    """One stored event as a principal may see it."""

    version: int
    hand: int
    seat: int | None
    action: str
    facts: list[dict[str, Any]]


@dataclasses.dataclass(frozen=True)
class DealCheck:
    commitment: str
    nonce: str
    cards: list[str]
    valid: bool
