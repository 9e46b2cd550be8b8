"""The event-sourced model: the ``Match`` aggregate, its events and its errors."""

from referee.domain.match import Match

__all__ = ["Match"]
