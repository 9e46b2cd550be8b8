"""The Belote family's table of legal calls (BG-B1 .. BG-B5, CO-B1 .. CO-B8): rule sets that
differ only outside a game's ``calls_params`` share one table, so the tables stay few however
many rule sets matches use, and no call depends on a parameter the key leaves out."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest

from referee.rules.games.belot import GAME as BELOT
from referee.rules.games.belote_game import BeloteGame
from referee.rules.games.belote_state import AUCTION, CALLS
from referee.rules.games.coinche import GAME as COINCHE


def _random_rules(game: BeloteGame, rng: random.Random) -> Any:
    """A rule set with every parameter drawn at random within its declared bounds."""
    values: dict[str, Any] = {}
    for spec in game.rules_class.param_specs():
        if spec.choices:
            values[spec.name] = rng.choice(spec.choices)
        elif spec.type is bool:
            values[spec.name] = rng.random() < 0.5
        else:
            low = spec.minimum if spec.minimum is not None else 0
            high = spec.maximum if spec.maximum is not None else low + 1000
            values[spec.name] = rng.randint(low, high)
    return game.rules_class.from_dict(values)


@pytest.mark.parametrize("game", [BELOT, COINCHE], ids=["belot", "coinche"])
def test_the_calls_read_only_the_parameters_of_the_key(game: BeloteGame) -> None:
    """Along random auctions under random rules, the calls open to either team are the same
    under the defaults carrying only the key's parameters over (BG-B1 .. BG-B5, CO-B1 ..
    CO-B8), worked out afresh, not read from the shared table."""
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        rules = _random_rules(game, rng)
        keyed = dataclasses.replace(
            game.rules_class(), **{p: getattr(rules, p) for p in game.calls_params}
        )
        pack = list(game.pack)
        rng.shuffle(pack)
        state = game.new_hand(game.deal(pack, 0), 0, rules)
        while state.phase == AUCTION:
            for ours in (True, False):
                other = copy.copy(state.ctx)
                other.rules = keyed
                assert game._calls_for(other, ours) == game._calls_for(state.ctx, ours)
                checked += 1
            seat = game.current_seat(state)
            state = game.apply(state, seat, rng.choice(list(game.legal_actions(state)))).state
    assert checked > 200


@pytest.mark.parametrize("game", [BELOT, COINCHE], ids=["belot", "coinche"])
def test_matches_to_any_target_share_one_table_of_calls(game: BeloteGame) -> None:
    """A thousand rule sets differing only in the target score (BG-G1, CO-G1) add at most
    one table: a client naming new targets cannot grow the referee's memory."""
    pack = list(game.pack)
    game.new_hand(game.deal(pack, 0), 0, game.rules_class())
    before = len(CALLS)
    for target in range(1, 1001):
        game.new_hand(game.deal(pack, 0), 0, game.rules_class(target_score=target))
    assert len(CALLS) == before
