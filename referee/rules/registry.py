"""The explicit registry of games: names and aliases to game objects (python-chess style)."""

from __future__ import annotations

from typing import Any

from referee.rules.game import Game
from referee.rules.games.belot import Belot
from referee.rules.games.coinche import Coinche
from referee.rules.games.euchre import Euchre
from referee.rules.games.pedro import Pedro
from referee.rules.games.ulti import Ulti

GAMES: dict[str, Game[Any]] = {g.name: g for g in (Belot(), Euchre(), Pedro(), Coinche(), Ulti())}
"""Every registered game by its canonical name, in a stable order."""

_ALIASES: dict[str, str] = {
    alias: game.name for game in GAMES.values() for alias in (game.name, *game.aliases)
}


def find_game(name: str) -> Game[Any]:
    """The game registered as ``name`` or one of its aliases (case-insensitive).

    :raises ValueError: for an unknown name, listing the known ones.
    """
    key = _ALIASES.get(name.strip().lower())
    if key is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return GAMES[key]


def register(game: Game[Any]) -> None:
    """Add ``game`` under its name and aliases (a plug-in, or a game that exists only in a
    test). :raises ValueError: if the name or an alias is taken."""
    names = (game.name, *game.aliases)
    taken = [n for n in names if n in _ALIASES]
    if taken:
        raise ValueError(f"already registered: {', '.join(taken)}")
    GAMES[game.name] = game
    for n in names:
        _ALIASES[n] = game.name


def unregister(name: str) -> None:
    """Remove the game registered as ``name`` and its aliases."""
    game = GAMES.pop(find_game(name).name)
    for n in (game.name, *game.aliases):
        _ALIASES.pop(n, None)
