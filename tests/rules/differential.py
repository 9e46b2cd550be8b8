"""Differential traces of the rules core: seeded random hands per game and per variant
parameter, digested step by step (legal sets, facts, views, results, match scores).

The digests in ``differential_digests.json`` were recorded from the code before the
trick-taking kernel (issue 18); any change of behaviour, however small, changes a digest.
Re-record with
``python -m tests.rules.differential`` only for a change of behaviour that is intended, and
say which digests changed and why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.rules.game import Game
from referee.rules.params import ParamSpec, ParamValue
from referee.rules.registry import GAMES

DIGESTS = Path(__file__).with_name("differential_digests.json")
DEFAULT_HANDS = 300
VARIANT_HANDS = 50


def canon(obj: Any) -> Any:
    """A JSON-ready, deterministic form of a fact, result or view."""
    if hasattr(obj, "to_json"):
        return canon(obj.to_json())
    if hasattr(obj, "_asdict"):
        return {"_": type(obj).__name__, **{k: canon(v) for k, v in obj._asdict().items()}}
    if isinstance(obj, dict):
        return {str(k): canon(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, frozenset, set)):
        items = [canon(v) for v in obj]
        return sorted(items, key=repr) if isinstance(obj, (set, frozenset)) else items
    return obj


def other_value(spec: ParamSpec) -> ParamValue:
    """A non-default value of a parameter: a bool flipped, each other choice, an int's bound."""
    if spec.type is bool:
        return not spec.default
    if spec.choices:
        raise ValueError("choices: use every other choice")
    assert isinstance(spec.default, int)
    if spec.minimum is not None and spec.minimum != spec.default:
        return spec.minimum
    if spec.maximum is not None and spec.maximum != spec.default:
        return spec.maximum
    return spec.default + 1


def variants(game: Game[Any]) -> Iterator[tuple[str, dict[str, ParamValue]]]:
    """``("default", {})``, then one non-default setting per parameter (every other choice)."""
    yield "default", {}
    for spec in game.rules_class.param_specs():
        if spec.choices:
            for choice in spec.choices:
                if choice != spec.default:
                    yield f"{spec.name}={choice}", {spec.name: choice}
        else:
            value = other_value(spec)
            yield f"{spec.name}={value}", {spec.name: value}


def seed_of(game: str, label: str) -> int:
    """The random seed of one game's variant (stable across runs and machines)."""
    return int.from_bytes(hashlib.sha256(f"{game}/{label}".encode()).digest()[:4], "big")


def digest(game: Game[Any], given: dict[str, ParamValue], hands: int, seed: int) -> str:
    """Play ``hands`` seeded random deals through matches under these rules; return the
    digest of everything observable at every step."""
    rng = random.Random(seed)
    rules = game.rules_class.from_dict(given)
    h = hashlib.sha256()

    def put(*what: Any) -> None:
        h.update(json.dumps(canon(what), sort_keys=True, separators=(",", ":")).encode())

    match = game.new_match(rules, 0)
    for _ in range(hands):
        pack = list(game.pack)
        rng.shuffle(pack)
        dealer = match.dealer
        state = game.new_hand(game.deal(pack, dealer), dealer, rules)
        put("deal", dealer, game.audit_view(state))
        while not game.is_terminal(state):
            seat = game.current_seat(state)
            assert seat is not None
            legal = list(game.legal_actions(state))
            action = legal[rng.randrange(len(legal))]
            step = game.apply(state, seat, action)
            state = step.state
            put(seat, [game.format_action(a) for a in legal], game.format_action(action),
                step.facts, game.view(state, (seat + 1) % game.num_seats))
        result = game.result(state)
        put("result", result, game.audit_view(state), game.view(state, None))
        match = game.after_hand(match, result, rules)
        put("match", match)
        if match.over:
            match = game.new_match(rules, rng.randrange(game.num_seats))
    return h.hexdigest()


def all_digests() -> dict[str, dict[str, str]]:
    """Every game's digests: the defaults over many hands, each variant over fewer."""
    out: dict[str, dict[str, str]] = {}
    for name in sorted(GAMES):
        game = GAMES[name]
        out[name] = {
            label: digest(game, given, DEFAULT_HANDS if not given else VARIANT_HANDS,
                          seed=seed_of(name, label))
            for label, given in variants(game)
        }
    return out


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps(all_digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DIGESTS}")
