"""Ulti (Hungarian, three players): contracts, scoring and the game module."""

from referee.rules.games.ulti.game import GAME, Ulti, UltiState
from referee.rules.games.ulti.ruleset import UltiRules

__all__ = ["GAME", "Ulti", "UltiRules", "UltiState"]
