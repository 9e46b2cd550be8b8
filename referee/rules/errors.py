"""The rules' errors. All are ``ValueError`` subclasses, as in python-chess.

Each message quotes the input and names the rule broken (a rule id such as ``EU-18``) in words
a player understands; ``rule`` carries the id for programs.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class: an action the referee refuses."""

    reason = "RULES_ERROR"

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


class InvalidActionError(RulesError):
    """The action text is not valid syntax in this game (whatever the state)."""

    reason = "INVALID_ACTION"


class IllegalActionError(RulesError):
    """The action is well formed but the rules forbid it in this state."""

    reason = "ILLEGAL_ACTION"


class NotYourTurnError(RulesError):
    """The seat tried to act while another seat is to act, or the hand is over."""

    reason = "NOT_YOUR_TURN"


class RuleParameterError(ValueError):
    """An unknown rule parameter or a value of the wrong type or out of range."""


class RecordError(ValueError):
    """A hand or match record that is not valid (not about legality of its actions)."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.detail = message
        self.where = where
