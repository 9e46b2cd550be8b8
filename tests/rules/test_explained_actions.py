"""What a dispute replay explains at each state (``explained_actions``): every action the
seat to act could name in its phase, and nothing the rules would refuse for another reason
than "not now" or "not your cards" left out (issue 24: a replay walk explains a few dozen
actions a step, not each of Ulti's ~700 action codes)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from referee.rules.errors import RulesError
from referee.rules.game import VERB_BASE, Game, explained_actions, named_cards
from referee.rules.registry import GAMES, find_game


def _states(game: Game, seed: int, hands: int = 4) -> Iterator[Any]:
    """Every state of a few random hands (random legal actions)."""
    rng = random.Random(seed)
    rules = game.rules_class()
    for k in range(hands):
        pack = list(game.pack)
        rng.shuffle(pack)
        dealer = k % game.num_seats
        state = game.new_hand(game.deal(pack, dealer), dealer, rules)
        while not game.is_terminal(state):
            yield state
            seat = game.current_seat(state)
            assert seat is not None
            state = game.apply(state, seat, rng.choice(list(game.legal_actions(state)))).state
        yield state


@pytest.mark.parametrize("name", sorted(GAMES))
def test_explained_actions_are_the_refused_ones_of_the_seat(name: str) -> None:
    """No legal action and no card the seat does not hold is explained, and each explained
    action is refused by the rules with a rule id (the replay's `illegal` list)."""
    game = find_game(name)
    for state in _states(game, seed=24):
        seat = game.current_seat(state)
        explained = explained_actions(game, state)
        if seat is None:
            assert explained == []
            continue
        legal = set(game.legal_actions(state))
        held = game.card_locations(state)[f"hand{seat}"]
        assert not legal & set(explained)
        assert all(a >= VERB_BASE or held >> a & 1 for a in explained)
        for a in explained:
            with pytest.raises(RulesError) as refused:
                game.apply(state, seat, a)
            assert refused.value.rule


NOT_NOW = ("is not allowed now", "the auction is on:", "the auction is running;",
           "the auction is over;")
"""How the games refuse an action of another phase (``Phased._not_now``; the Belote family's
auction refusing a card, BG-B1; its play refusing a call, BG-B6)."""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_only_actions_of_other_phases_and_cards_not_held_are_left_out(name: str) -> None:
    """An action of the game left out of the explanations is refused as "not allowed now"
    (the phase expects something else: e.g. UL-10, UL-11, UL-12, UL-14, UL-20, UL-23) or names
    a card the seat does not hold; refusals that say more (Ulti's UL-11 "pick up the talon
    before bidding", UL-12's stand and pass; a Belot declaration after the first trick) are
    all kept."""
    game = find_game(name)
    universe = game.all_actions()
    named = named_cards(game)
    kept = 0
    for state in _states(game, seed=7, hands=3):
        seat = game.current_seat(state)
        if seat is None:
            continue
        explained = set(explained_actions(game, state))
        legal = set(game.legal_actions(state))
        lacking = ~game.card_locations(state)[f"hand{seat}"]
        kept += len(explained)
        for a in universe:
            if a in explained or a in legal:
                continue
            try:
                game.apply(state, seat, a)
            except RulesError as exc:
                assert (any(words in exc.message for words in NOT_NOW)
                        or named.get(a, 0) & lacking), (game.format_action(a), exc.message)
            else:  # pragma: no cover - a failure's message
                pytest.fail(f"{game.format_action(a)} is legal but not in the legal set")
    assert kept > 0
