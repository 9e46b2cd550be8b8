"""Seats and partnerships.

Seats are ``int`` ``0..n-1`` in turn order: the seat after ``s`` is ``(s + 1) % n``
(``docs/hand-record.md``). In four-seat partnership games the team of ``s`` is ``s % 2``.
"""

from __future__ import annotations

from typing import TypeAlias

Seat: TypeAlias = int
Team: TypeAlias = int


def team_of(seat: Seat) -> Team:
    """Team of a seat in a four-seat partnership game: seats 0 and 2 are team 0."""
    return seat & 1


def partner_of(seat: Seat) -> Seat:
    """The partner sitting opposite ``seat``."""
    return (seat + 2) & 3
