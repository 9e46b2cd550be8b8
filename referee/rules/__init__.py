"""The pure rules core: cards, seats, the ``Game`` protocol, errors, parameters, the registry.

Standard library only: no I/O, no clock, no randomness (a layering test enforces it).
"""

from referee.rules.cards import Card, CardSet, card_name, parse_card
from referee.rules.errors import (
    IllegalActionError,
    InvalidActionError,
    NotYourTurnError,
    RecordError,
    RuleParameterError,
    RulesError,
)
from referee.rules.game import Action, Deal, Game, HandResult, MatchState, Step
from referee.rules.registry import GAMES, find_game
from referee.rules.seats import Seat

__all__ = [
    "GAMES",
    "Action",
    "Card",
    "CardSet",
    "Deal",
    "Game",
    "HandResult",
    "IllegalActionError",
    "InvalidActionError",
    "MatchState",
    "NotYourTurnError",
    "RecordError",
    "RuleParameterError",
    "RulesError",
    "Seat",
    "Step",
    "card_name",
    "find_game",
    "parse_card",
]
