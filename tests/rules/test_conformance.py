"""Conformance: every registered game keeps the referee's invariants over seeded random deals.

For thousands of deals per game: the pack is conserved at every decision, exactly one seat is
to act until the deal ends, every legal action applies cleanly, every other action code is
refused with IllegalActionError and every other seat with NotYourTurnError, refused actions
change nothing, views never show another seat's cards, and the points add up (RESULT_CHECKS).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest

from referee.rules.conformance import check_playout
from referee.rules.game import HandResult
from referee.rules.games.belot import BelotRules
from referee.rules.games.pedro import PedroRules
from referee.rules.params import RuleSet
from referee.rules.registry import GAMES

DEALS = int(os.environ.get("REFEREE_CONFORMANCE_DEALS", "2000"))
THOROUGH = 200
"""Deals on which every legal and every illegal action is tried at every decision."""
CHUNK = 50
"""Deals per test case, so that progress shows. A game's first case (thorough deals) is in the
quick path; the others are marked ``slow``."""
COPIES = range(0, 40, 10)
"""The first deal of each case of :func:`test_states_and_facts_copy_and_pickle`."""


def _euchre_points(result: HandResult, rules: RuleSet) -> None:
    # EU-24: only one side scores in a hand; EU-25: the values are 1, 2 or 4 (or the
    # defenders_march_points variant of EU-23).
    if result.void:
        assert result.points == (0, 0)
        return
    values = {1, 2, 4, rules.defenders_march_points}
    assert min(result.points) == 0 and max(result.points) in values
    assert sum(result.detail["tricks"]) == 5
    makers = result.detail["maker"] % 2
    assert (result.points[makers] > 0) == (result.detail["tricks"][makers] >= 3)


def _pedro_points(result: HandResult, rules: RuleSet) -> None:
    # PE-9: an all-pass deal scores nothing. PE-4: 14 points in all, minus those in the
    # face-up widow (P-T16 invariant). PE-19..PE-22: made or failed decides who scores.
    if result.void:
        assert result.points == (0, 0)
        return
    assert isinstance(rules, PedroRules)
    d = result.detail
    taken = d["points_taken"]
    assert sum(taken) + d["widow_points"] == 14
    makers = d["maker"] % 2
    assert d["made"] == (taken[makers] >= d["bid"])
    own = taken[1 - makers] if rules.defenders_score_own else 0
    failed = {
        "defenders_score_bid": (0, d["bid"]),
        "fail_opponents_own_plus_bid": (0, taken[1 - makers] + d["bid"]),
        "fail_minus_bid": (-d["bid"], taken[1 - makers]),
    }[rules.failed_bid]
    expected = (taken[makers], own) if d["made"] else failed
    assert (result.points[makers], result.points[1 - makers]) == expected


def _ulti_points(result: HandResult, rules: RuleSet) -> None:
    # UL-36: the settlement is zero-sum over the three seats; UL-3 / §3.9 invariant: the
    # declarer's and the defenders' card points make 90 in a suit contract.
    assert sum(result.points) == 0 and len(result.points) == 3
    d = result.detail
    if d.get("played") is False:  # UL-15 variant: an unraised Passz is paid, not played
        assert sorted(result.points) == [-4, 2, 2]
        return
    assert sum(d["tricks"]) <= 10
    if d["trump"] is not None:
        assert sum(d["tricks"]) == 10
        assert d["card_points"]["declarer"] + d["card_points"]["defenders"] == 90


def _belot_points(result: HandResult, rules: RuleSet) -> None:
    # BG-B6: an all-pass deal scores nothing. BG-C5: the card points are 152 / 120 / 248;
    # BG-S1: raw = (cards + last ten) x2 in NT, + declarations + belot, + 90 for a valat;
    # BG-S3..S7 / BG-R: what is written down (plus what hangs) is the rounded deal total.
    assert isinstance(rules, BelotRules)
    if result.void:
        assert result.points == (0, 0)
        return
    d = result.detail
    mode = d["contract"]
    assert sum(d["tricks"]) == 8
    assert sum(d["card_points"]) == {"NT": 120, "AT": 248}.get(mode, 152)
    bonus = [0, 0]
    for decl in d["declarations"]:
        bonus[decl["seat"] % 2] += decl["points"]
    belot = [20 * sum(1 for b in d["belots"] if b["seat"] % 2 == t) for t in (0, 1)]
    assert mode != "NT" or belot == [0, 0]
    raw = []
    for t in (0, 1):
        base = d["card_points"][t] + (10 if d["last_trick"] == t else 0)
        value = (2 * base if mode == "NT" else base + belot[t]) + bonus[t]
        raw.append(value + (90 if d["tricks"][t] == 8 else 0))
    assert d["raw"] == raw
    total = (raw[0] + raw[1] + 5) // 10
    written = sum(result.points) + d["hanging"]
    assert min(result.points) >= 0 and d["hanging"] >= 0
    declarer = d["declarer"] % 2
    # BG-S8: a valat cancels the contra, unless the V3 reading keeps its multiplier
    kept = rules.bg_valat_contra == "keeps_multiplier"
    level = d["level"] if d["valat"] is None or kept else 1
    if level > 1 or (d["level"] > 1 and rules.bg_valat_contra == "winner_takes_all"):
        assert written == level * total and min(result.points) == 0
    elif raw[declarer] < raw[1 - declarer]:
        assert result.points[declarer] == 0 and written == total
    else:
        exact = not (rules.bg_small_side_min_one
                     or rules.bg_suit_rounding != "seed")
        assert written == total if exact else abs(written - total) <= 1
    assert (d["outcome"] == "hanging") == (raw[0] == raw[1])


def _coinche_points(result: HandResult, rules: RuleSet) -> None:
    # CO-B6c: a thrown-in deal scores nothing. CO-C1/CO-C2: card points total 162 in every
    # contract (252 to one side on a capot, CO-S1). CO-S2..CO-S5: a failed taker scores only
    # its belote; a taker that makes scores at least the contract's value; the defence of a
    # failed contract scores at least the failure base (CO-S3 / V22), which is a flat 160 or
    # 162 under those variants, so it can be below a capot's 250 or a generale's value.
    if result.void:
        assert result.points == (0, 0)
        return
    d = result.detail
    taker = d["contract"]["team"]
    assert sum(d["tricks"]) == 8
    values = rules.to_dict(only_changed=False)
    capot_points = values["capot_card_points"]
    assert sum(d["card_points"]) == (capot_points if d["capot"] else 162)
    if d["made"]:
        assert result.points[taker] >= d["contract"]["value"]
    else:
        kept = 0 if values["belote_to_defence_on_failure"] else d["belote"][taker]
        assert result.points[taker] == kept
        value = d["contract"]["value"]
        base = {"162+C": 162 + value, "160+C": 160 + value, "160": 160, "162": 162, "C": value}
        assert result.points[1 - taker] >= base[values["failure_base"]]


RESULT_CHECKS: dict[str, Callable[[HandResult, RuleSet], None]] = {
    "belot": _belot_points,
    "coinche": _coinche_points,
    "euchre": _euchre_points,
    "pedro": _pedro_points,
    "ulti": _ulti_points,
}


def test_every_game_has_a_result_check() -> None:
    assert set(RESULT_CHECKS) == set(GAMES)


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
        RESULT_CHECKS[name](result, rules)


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
