"""``referee bench claims``: how long the referee takes to check a claim.

For every game (or ``--game``) and every number of tricks left from 1 to the tricks of a
hand (at most 10: 8 in Belot and Coinche, 10 in Ulti, 5 in Euchre, 6 in Pedro),
``--positions`` seeded random positions at the start of a trick, reached by random legal
play; the seat to act claims all the remaining tricks (or ``--tricks k``: at least k, where
k tricks are left). Each check is timed as the referee runs it
(``referee.rules.claims.check_claim``, the winning line or the defence included, within the
referee's search budget). Reports p50, p99 and max in milliseconds per game and tricks
left, how many claims held, how many the budget left undecided, and the most positions one
check searched.
"""

from __future__ import annotations

import os
import platform
import random
import time
from typing import Any

from referee.benchmarks.stats import percentile
from referee.domain.match import CLAIM_BUDGET
from referee.rules.claims import ALL, ClaimTooDeep, check_claim, in_trick_play, remaining_tricks
from referee.rules.game import Game, TrickTaken
from referee.rules.registry import GAMES


def _tricks_per_hand(game: Game[Any], rng: random.Random) -> int:
    """The tricks of a hand, from one random deal played to its trick play."""
    state = _play_to(game, rng, None)
    return remaining_tricks(game, state)


def _play_to(game: Game[Any], rng: random.Random, left: int | None) -> Any:
    """A state at the start of a trick with ``left`` tricks left (None: the first trick)."""
    while True:
        pack = list(game.pack)
        rng.shuffle(pack)
        dealer = rng.randrange(game.num_seats)
        state = game.new_hand(game.deal(pack, dealer), dealer, game.rules_class())
        trick_start = False
        while not game.is_terminal(state):
            if in_trick_play(game, state):
                if left is None:
                    return state
                here = remaining_tricks(game, state)
                if here < left:
                    break
                if here == left and trick_start:
                    return state
            seat = game.current_seat(state)
            assert seat is not None
            legal = game.legal_actions(state)
            step = game.apply(state, seat, legal[rng.randrange(len(legal))])
            trick_start = any(isinstance(f, TrickTaken) for f in step.facts) or not in_trick_play(
                game, state)
            state = step.state


def run(positions: int = 50, games: list[str] | None = None, tricks: int = ALL,
        seed: int = 20) -> dict[str, Any]:
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, CPython {platform.python_version()}, "
                   f"{os.cpu_count()} CPUs",
        "claim": "all the remaining tricks" if tricks == ALL else f"at least {tricks} tricks",
        "positions": positions,
        "budget_positions": CLAIM_BUDGET,
        "games": {},
    }
    for name in games or list(GAMES):
        game = GAMES[name]
        rng = random.Random(f"bench-claims-{name}-{seed}")
        most = min(_tricks_per_hand(game, rng), 10)  # every trick of a hand: 8, 10 in Ulti
        rows: dict[str, Any] = {}
        every: list[float] = []
        for left in range(1, most + 1):
            if tricks != ALL and tricks > left:
                continue
            times: list[float] = []
            held = undecided = nodes = 0
            for _ in range(positions):
                state = _play_to(game, rng, left)
                seat = game.current_seat(state)
                assert seat is not None
                t0 = time.perf_counter()
                try:
                    check = check_claim(game, state, seat, tricks, CLAIM_BUDGET)
                except ClaimTooDeep:
                    undecided += 1
                else:
                    held += check.holds
                    nodes = max(nodes, check.nodes)
                times.append((time.perf_counter() - t0) * 1000)
            every += times
            rows[str(left)] = {
                "p50_ms": round(percentile(times, 0.5), 2),
                "p99_ms": round(percentile(times, 0.99), 2),
                "max_ms": round(max(times), 2),
                "held": held, "undecided": undecided, "most_positions": nodes,
            }
        report["games"][name] = {
            "by_tricks_left": rows,
            "all": {"p50_ms": round(percentile(every, 0.5), 2),
                    "p99_ms": round(percentile(every, 0.99), 2),
                    "max_ms": round(max(every, default=0.0), 2)},
        }
    return report
