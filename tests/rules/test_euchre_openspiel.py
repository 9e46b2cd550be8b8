"""Differential test: our Euchre against OpenSpiel's C++ Euchre (euchre-pedro-ulti.md §1.9).

OpenSpiel plays random legal games; we replay each one and require, at every decision, the same
seat to act and the same legal set. OpenSpiel's rules are ours with two parameters set:
the dealer may not discard the upcard (EU-11 variant) and any euchre by a lone defender scores
4 (EU-23 flag). Its zero-sum returns map to our points as §1.9 says: if the makers' return is
positive they score it, otherwise the defenders score its negation.
"""

from __future__ import annotations

import os
import random

import pytest

from referee.rules.cards import card_name, parse_card
from referee.rules.game import Deal
from referee.rules.games.euchre import ALONE, BID1, BID2, DEFEND, DISCARD, Euchre, EuchreRules

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is a dev dependency")

GAME = Euchre()
RULES = EuchreRules(dealer_may_discard_upcard=False, lone_defender_euchre="any")
SUITS = {"Clubs": "C", "Diamonds": "D", "Hearts": "H", "Spades": "S"}
GAMES = int(os.environ.get("REFEREE_OPENSPIEL_GAMES", "1500"))


def ours(os_card: str) -> str:
    """OpenSpiel writes suit then rank (HQ); records write rank then suit (QH)."""
    return os_card[1] + os_card[0]


def translate(phase: int, text: str) -> str:
    """OpenSpiel's action string, in our vocabulary, given our phase."""
    if phase == BID1:
        return "pass" if text == "Pass" else "order_up"
    if phase == BID2:
        return "pass" if text == "Pass" else "name:" + SUITS[text]
    if phase == DISCARD:
        return "discard:" + ours(text)
    if phase == ALONE:
        return "alone" if text == "Alone" else "partner"
    if phase == DEFEND:
        return "defend_alone" if text == "Alone" else "defend_partner"
    return "play:" + ours(text)


def test_same_seat_same_legal_set_same_score_as_openspiel() -> None:
    game = pyspiel.load_game("euchre", {"allow_lone_defender": True, "stick_the_dealer": True})
    rng = random.Random(2024)
    for _ in range(GAMES):
        os_state = game.new_initial_state()
        dealt = []
        while os_state.is_chance_node():
            action = rng.choice(os_state.chance_outcomes())[0]
            dealt.append(os_state.action_to_string(action))
            os_state.apply_action(action)
        dealer = "NESW".index(dealt[0])
        # OpenSpiel deals one card at a time starting with the dealer, then turns the upcard.
        hands: list[list[int]] = [[] for _ in range(4)]
        for k, text in enumerate(dealt[1:21]):
            hands[(dealer + k) % 4].append(parse_card(ours(text)))
        upcard = parse_card(ours(dealt[21]))
        rest = [c for c in GAME.pack if c != upcard and not any(c in h for h in hands)]
        state = GAME.new_hand(Deal(tuple(map(tuple, hands)), (upcard, *rest)), dealer, RULES)
        while not os_state.is_terminal():
            seat = os_state.current_player()
            assert GAME.current_seat(state) == seat
            expected = {
                translate(state.phase, os_state.action_to_string(a))
                for a in os_state.legal_actions()
            }
            assert {GAME.format_action(a) for a in GAME.legal_actions(state)} == expected, (
                f"dealer {dealer}, upcard {card_name(upcard)}"
            )
            action = rng.choice(os_state.legal_actions())
            text = translate(state.phase, os_state.action_to_string(action))
            state = GAME.apply(state, seat, GAME.parse_action(text)).state
            os_state.apply_action(action)
        assert GAME.is_terminal(state)
        returns = os_state.returns()
        makers = state.maker & 1
        expected_points = [0, 0]
        if returns[makers] > 0:
            expected_points[makers] = int(returns[makers])
        else:
            expected_points[1 - makers] = int(-returns[makers])
        assert list(GAME.result(state).points) == expected_points
