"""``referee bench rules``: random legal hands through the rules core, as a referee plays them.

At every decision the bench asks for the seat to act and the full legal set, picks one action
at random and applies it through the checked ``apply`` (which validates it again, as the
service does). With ``--baseline openspiel`` it runs OpenSpiel's C++ Euchre the same way in the
same process, for a side-by-side ratio.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from referee.rules.compiled import compiled_modules
from referee.rules.registry import find_game


def _play_ours(
    game: Any, rules: Any, rng: random.Random, pack: list[int], first: int, count: int
) -> int:
    """Play ``count`` random hands as a referee would (hand numbers ``first`` on, for the
    dealer); return the decisions taken."""
    randrange = rng.randrange
    n = game.num_seats
    apply, legal_actions, current_seat = game.apply, game.legal_actions, game.current_seat
    decisions = 0
    for h in range(first, first + count):
        rng.shuffle(pack)
        dealer = h % n
        state = game.new_hand(game.deal(pack, dealer), dealer, rules)
        seat = current_seat(state)
        while seat is not None:
            legal = legal_actions(state)
            state = apply(state, seat, legal[randrange(len(legal))]).state
            seat = current_seat(state)
            decisions += 1
        game.result(state)
    return decisions


def _play_openspiel(game: Any, rng: random.Random, count: int) -> int:
    """OpenSpiel's Euchre the same way: ``legal_actions()`` at every decision, chance outcomes
    sampled for the deal; return the decisions taken."""
    randrange = rng.randrange
    decisions = 0
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[randrange(len(legal))])
                decisions += 1
        state.returns()
    return decisions


def _openspiel_euchre() -> Any:
    import pyspiel  # type: ignore[import-not-found]  # optional: pip install .[bench]

    return pyspiel.load_game("euchre")


def _timed(
    engine: str, game: str, seconds: float, play: Callable[[int, int], int]
) -> dict[str, Any]:
    """Call ``play(first_hand, 50)`` (it returns the decisions taken) until ``seconds`` have
    passed; return hands and decisions per second."""
    hands = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        decisions += play(hands, 50)
        hands += 50
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "engine": engine,
        "game": game,
        "hands": hands,
        "decisions": decisions,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(hands / elapsed, 1),
        "decisions_per_second": round(decisions / elapsed, 1),
    }


def bench_rules(game_name: str, seconds: float, seed: int = 1) -> dict[str, Any]:
    """Play random hands for about ``seconds``; return hands and decisions per second."""
    game = find_game(game_name)
    rules = game.rules_class()
    rng = random.Random(seed)
    pack = list(game.pack)
    return _timed(
        "trick-referee",
        game.name,
        seconds,
        lambda first, count: _play_ours(game, rules, rng, pack, first, count),
    )


def bench_openspiel_euchre(seconds: float, seed: int = 1) -> dict[str, Any]:
    """OpenSpiel's Euchre (C++ via pyspiel), random legal hands through :func:`_play_openspiel`."""
    game = _openspiel_euchre()
    rng = random.Random(seed)
    return _timed(
        "openspiel", "euchre", seconds, lambda _, count: _play_openspiel(game, rng, count)
    )


def play_hands(game_name: str, hands: int, engine: str = "ours", seed: int = 1) -> dict[str, Any]:
    """Exactly ``hands`` random hands through the benchmark's loop, with the CPU time they took.

    For a count that does not depend on the machine's load, run it under ``valgrind
    --tool=callgrind`` with N + 1 and with 1 hands: the difference over N is the instructions
    per hand (BENCHMARKS.md). ``engine`` "openspiel" plays OpenSpiel's Euchre instead."""
    rng = random.Random(seed)
    cpu = time.process_time()
    if engine == "openspiel":
        decisions = _play_openspiel(_openspiel_euchre(), rng, hands)
        name = "euchre"
    else:
        game = find_game(game_name)
        decisions = _play_ours(game, game.rules_class(), rng, list(game.pack), 0, hands)
        name = game.name
    return {
        "engine": "openspiel" if engine == "openspiel" else "trick-referee",
        "compiled": compiled_modules(),
        "game": name,
        "hands": hands,
        "decisions": decisions,
        "cpu_seconds": round(time.process_time() - cpu, 3),
    }


def run(game_name: str, seconds: float, baseline: bool, rounds: int = 5) -> dict[str, Any]:
    """The JSON report of ``referee bench rules``.

    With a baseline, the two engines take turns: ``rounds`` rounds of ``seconds / rounds``
    each, ours then OpenSpiel's, and the ratio is taken per round; the report gives the medians.
    Taking turns keeps a change in the machine's load from landing on one engine only.
    """
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} CPUs",
        # REFEREE_COMPILE=1 builds (docs/operations.md): which rules modules run compiled
        "compiled": compiled_modules(),
    }
    if not baseline:
        report["result"] = bench_rules(game_name, seconds)
        return report
    chunk = seconds / rounds
    bench_rules(game_name, min(chunk, 0.5))  # warm-up: imports, tables, caches
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for r in range(rounds):
        ours.append(bench_rules(game_name, chunk, seed=r + 1))
        theirs.append(bench_openspiel_euchre(chunk, seed=r + 1))
    ratios = [
        a["hands_per_second"] / b["hands_per_second"] for a, b in zip(ours, theirs, strict=True)
    ]
    report["result"] = _median_run(ours)
    report["baseline"] = _median_run(theirs)
    report["ratio_hands"] = round(statistics.median(ratios), 3)
    report["ratio_hands_by_round"] = [round(x, 3) for x in ratios]
    return report


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median hands per second, with the totals over all runs."""
    ordered = sorted(runs, key=lambda r: r["hands_per_second"])
    out = dict(ordered[len(ordered) // 2])
    out["rounds"] = len(runs)
    out["hands"] = sum(r["hands"] for r in runs)
    out["decisions"] = sum(r["decisions"] for r in runs)
    out["seconds"] = round(sum(r["seconds"] for r in runs), 3)
    return out
