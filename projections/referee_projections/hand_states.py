"""The states of recently replayed hands, so that a dispute walk replays a hand once.

``Queries.replay`` shows a hand's state before any action; walking a hand step by step used
to replay it from the deal at every step (the square of its length). :class:`HandStates`
keeps, for the most recently asked hands (a bounded LRU), every state of one replay
through :func:`referee.rules.handrecord.replay`, the one replay loop. The key holds the
actions themselves, so a hand still being played (the auditor may replay it) is replayed
again once it has more of them. States are immutable (``Game.apply`` returns new ones)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any

from referee.rules.errors import RulesError
from referee.rules.game import Deal, Game
from referee.rules.handrecord import replay
from referee.rules.params import RuleSet
from referee.rules.seats import Seat

_Entry = tuple[list[Any], RulesError | None]


class HandStates:
    """Every state of the last ``size`` hands replayed (thread-safe)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._lru: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._guard = threading.Lock()
        self.replays = 0
        """Hands replayed (the misses), for the tests and the curious."""

    def state(self, key: Hashable, game: Game[Any], deal: Deal, dealer: Seat, rules: RuleSet,
              actions: Sequence[tuple[Seat, str]], index: int) -> Any:
        """The state after ``actions[:index]``, as ``replay_to`` gives it.

        :raises RulesError: one of those actions is refused."""
        full = (key, tuple(actions))
        with self._guard:
            entry = self._lru.get(full)
            if entry is not None:
                self._lru.move_to_end(full)
        if entry is None:
            entry = self._replay(game, deal, dealer, rules, actions)
            with self._guard:
                self._lru[full] = entry
                while len(self._lru) > self.size:
                    self._lru.popitem(last=False)
        states, error = entry
        if index < len(states):
            return states[index]
        assert error is not None
        raise error

    def _replay(self, game: Game[Any], deal: Deal, dealer: Seat, rules: RuleSet,
                actions: Sequence[tuple[Seat, str]]) -> _Entry:
        self.replays += 1
        states = [game.new_hand(deal, dealer, rules)]
        for played in replay(game, deal, dealer, rules, actions):
            if played.error is not None:
                return states, played.error
            states.append(played.after)
        return states, None
