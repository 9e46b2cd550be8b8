"""One state of a dispute replay: where every card is, the legal set, why the rules refuse
each other action the seat to act could name in its phase, the action taken."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.rules.cards import CARD_NAMES, iter_cards
from referee.rules.errors import RulesError
from referee.rules.game import Game, explained_actions
from referee_projections.store import Doc


def refusals(game: Game[Any], state: Any) -> list[Doc]:
    """Why each action of :func:`~referee.rules.game.explained_actions` is refused at
    ``state``: its rule, reason and message, as the referee would have answered it."""
    seat = game.current_seat(state)
    out: list[Doc] = []
    if seat is None:
        return out
    for a in explained_actions(game, state):
        try:
            game.apply(state, seat, a)
        except RulesError as exc:
            out.append({"action": game.format_action(a), "rule": exc.rule or "",
                        "reason": exc.reason, "message": exc.message})
    return out


def step(game: Game[Any], state: Any, index: int, actions: Sequence[Sequence[Any]]) -> Doc:
    """The parts of a replay step that belong to the state before action ``index`` of a
    hand's ``actions`` (``(seat, text, time)`` each; ``index == len(actions)``: the end)."""
    cards = {k: [CARD_NAMES[c] for c in iter_cards(v)]
             for k, v in game.card_locations(state).items()}
    out: Doc = {
        "index": index, "to_act": game.current_seat(state), "cards": cards,
        "state": game.audit_view(state),
        "legal": [game.format_action(a) for a in game.legal_actions(state)],
        "illegal": refusals(game, state), "action": None,
    }
    if index < len(actions):
        seat, text, ts = actions[index]
        out["action"] = {"index": index, "seat": seat, "action": text, "time": ts}
    return out
