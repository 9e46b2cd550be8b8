"""A digest of seeded random play, for pinning a game's behaviour while its code is made faster.

Every full legal set, every chosen action, optionally every fact, and each deal's result go
into one SHA-256; the tests keep the digest taken before the speed work.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

from referee.rules.game import Announced, Game, HandEnded, TrickTaken
from referee.rules.params import RuleSet


def _fact_json(fact: object) -> list[object]:
    if isinstance(fact, TrickTaken):
        return ["trick", fact.to_json()]
    if isinstance(fact, HandEnded):
        return ["ended", fact.result.to_json()]
    assert isinstance(fact, Announced)
    return ["announced", fact.what, dict(fact.data)]


def playout_digest(
    game: Game[Any], variants: Sequence[RuleSet], deals: int, seed: int, *, facts: bool
) -> str:
    """The digest of ``deals`` random deals under each rule set (``random.Random(seed + v)``
    for the ``v``-th), the dealer moving on each deal."""
    digest = hashlib.sha256()
    n = game.num_seats
    for v, rules in enumerate(variants):
        rng = random.Random(seed + v)
        pack = list(game.pack)
        for k in range(deals):
            rng.shuffle(pack)
            state = game.new_hand(game.deal(pack, k % n), k % n, rules)
            while not game.is_terminal(state):
                options = game.legal_actions(state)
                digest.update(",".join(map(game.format_action, options)).encode())
                action = options[rng.randrange(len(options))]
                digest.update(game.format_action(action).encode())
                seat = game.current_seat(state)
                assert seat is not None
                step = game.apply(state, seat, action)
                if facts:
                    out = [_fact_json(f) for f in step.facts]
                    digest.update(json.dumps(out, sort_keys=True).encode())
                state = step.state
            digest.update(json.dumps(game.result(state).to_json(), sort_keys=True).encode())
    return digest.hexdigest()
