"""Conformance: every registered game keeps the referee's invariants over seeded random deals.

For thousands of deals per game: the pack is conserved at every decision, exactly one seat is
to act until the deal ends, every legal action applies cleanly, every other action code is
refused with IllegalActionError and every other seat with NotYourTurnError, refused actions
change nothing, views never show another seat's cards, and the points add up (each game's
``check_result``).
"""

from __future__ import annotations

import os
import random

import pytest

from referee.rules.conformance import check_playout
from referee.rules.registry import GAMES

DEALS = int(os.environ.get("REFEREE_CONFORMANCE_DEALS", "2000"))
THOROUGH = 200
"""Deals on which every legal and every illegal action is tried at every decision."""
CHUNK = 50
"""Deals per test case, so that progress shows. A game's first case (thorough deals) is in the
quick path; the others are marked ``slow``."""
COPIES = range(0, 40, 10)
"""The first deal of each case of :func:`test_states_and_facts_copy_and_pickle`."""


def test_every_game_declares_its_result_invariants() -> None:
    """Issue 17: the result invariants are the game's (``Game.check_result``), so this suite
    runs every registered game without naming one."""
    for game in GAMES.values():
        assert callable(getattr(game, "check_result", None)), game.name


@pytest.mark.parametrize(("name", "first"), [
    pytest.param(name, first, id=f"{name}-{first}", marks=[pytest.mark.slow] if first else [])
    for name in GAMES for first in range(0, DEALS, CHUNK)
])
def test_random_playouts_keep_the_invariants(name: str, first: int) -> None:
    game = GAMES[name]
    specs = game.rules_class.param_specs()
    for i in range(first, min(first + CHUNK, DEALS)):
        rng = random.Random(f"conformance-{name}-{i}")  # each deal seeded: cases split freely
        pack = list(game.pack)
        rng.shuffle(pack)
        # Every fourth deal runs with one rule parameter flipped to a non-default value.
        rules = game.rules_class()
        if i % 4 == 3:
            rules = game.rules_class.from_dict(_variant(specs[(i // 4) % len(specs)], rng))
        result, decisions = check_playout(
            game, rules, pack, i % game.num_seats, rng.randrange, thorough=i < THOROUGH
        )
        assert decisions > 0
        game.check_result(result, rules)  # type: ignore[attr-defined]


def _variant(spec, rng: random.Random) -> dict[str, object]:  # type: ignore[no-untyped-def]
    if spec.type is bool:
        return {spec.name: not spec.default}
    if spec.choices:
        return {spec.name: rng.choice([c for c in spec.choices if c != spec.default])}
    low = spec.minimum if spec.minimum is not None else 1
    high = spec.maximum if spec.maximum is not None else low + 20
    return {spec.name: rng.randint(low, high)}


@pytest.mark.parametrize(("name", "first"), [
    pytest.param(name, first, id=f"{name}-{first}", marks=[pytest.mark.slow] if first else [])
    for name in GAMES for first in COPIES
])
def test_states_and_facts_copy_and_pickle(name: str, first: int) -> None:
    """The service deep-copies matches (``Referee.get_match``) and may pickle them: every
    state and fact of random deals (40 a game, 10 a case) survives both, and the copy plays on
    identically."""
    import copy
    import pickle

    game = GAMES[name]
    rules = game.rules_class()
    for k in range(first, first + COPIES.step):
        rng = random.Random(f"copy-{name}-{k}")
        pack = list(game.pack)
        rng.shuffle(pack)
        state = game.new_hand(game.deal(pack, k % game.num_seats), k % game.num_seats, rules)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            action = legal[rng.randrange(len(legal))]
            seat = game.current_seat(state)
            assert seat is not None
            step = game.apply(state, seat, action)
            for other in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
                again = game.apply(other, seat, action)
                assert again.facts == step.facts
                assert game.view(again.state, seat) == game.view(step.state, seat)
            assert pickle.loads(pickle.dumps(step.facts)) == step.facts
            state = step.state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_action_that_names_unseen_cards_is_hidden(name: str) -> None:
    """Hidden information: an action other than a card play that names cards (a discard, a
    declaration's cards) is read only by its seat while the hand runs, so its verb must be
    one of the game's ``hidden_verbs`` (the Game contract's ``is_public``)."""
    from itertools import islice

    from referee.rules.cards import CARD_NAMES
    from referee.rules.game import is_public

    game = GAMES[name]
    cards = frozenset(CARD_NAMES)
    for action in islice(game.all_actions(), 50_000):
        text = game.format_action(action)
        verb, _, arg = text.partition(":")
        names_cards = any(part.strip().upper() in cards for part in arg.split(","))
        if verb != "play" and names_cards:
            assert not is_public(game, text), f"{name}: {text!r} would be shown to every seat"
        if verb == "play":
            assert is_public(game, text)
