"""What a claim's search may treat as one card (issue 20): each game's ``claim_order`` and
``claim_card`` hooks, and the equivalence the search draws from them.

Cards next to each other in a ladder of ``claim_order`` (with no card in play between them but
their holder's) are searched once. That is sound only if they take the same tricks: checked
here against the brute-force enumerator on random end positions of every game, and for the
cards a rule tells apart (Ulti's ulti seven, UL-25) or places outside its printed suit
(Pedro's left pedro, PE-3; Euchre's left bower, EU-3).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from referee.rules.cards import parse_card
from referee.rules.claims import _Search, remaining_tricks, side_of_seat
from referee.rules.game import VERB_BASE, Game, TrickTaken
from referee.rules.games.belot_state import BELOT_BASE, DECLARE_BASE
from referee.rules.games.coinche_state import ANNOUNCE_BASE, BELOTE_BASE, REBELOTE_BASE
from referee.rules.registry import GAMES
from tests.rules.test_claims import brute, end_position


def _in_play(game: Game[Any], state: Any) -> int:
    """The cards of the ladders: every card the hand may still play."""
    out = 0
    for ladder in game.claim_order(state).ladders:  # type: ignore[attr-defined]
        for c in ladder:
            assert not (out >> c) & 1, "a card in two ladders"
            out |= 1 << c
    return out


@pytest.mark.parametrize("name", list(GAMES))
def test_the_ladders_hold_the_cards_in_play_by_trick_power(name: str) -> None:
    """Each ladder is one effective suit, weakest first: a card led and followed by the next
    card of its ladder loses the trick to it (BG-T1, CO-C3, EU-20, PE-17, UL-26)."""
    game = GAMES[name]
    rng = random.Random(f"ladders-{name}")
    for _ in range(40):
        state = end_position(game, rng, 4)
        hands = game.card_locations(state)
        held = sum(v for k, v in hands.items() if k.startswith("hand"))
        in_play = _in_play(game, state)
        assert held & ~in_play == 0 or name == "euchre"  # every card held (but a lone hand's)
        tables = _tables(game, state)
        for ladder in game.claim_order(state).ladders:  # type: ignore[attr-defined]
            suit = tables.suit_of[ladder[0]]
            for low, high in itertools.pairwise(ladder):
                assert tables.suit_of[high] == suit
                assert tables.power[suit][high] > tables.power[suit][low]


def _tables(game: Game[Any], state: Any) -> Any:
    if game.name in ("belot", "coinche"):
        from referee.rules.games.belote_family import TABLES

        return TABLES[state.ctx.contract]
    if game.name == "ulti":
        from referee.rules.games.ulti.game import TABLES as UT

        return UT[state.fx.trump]
    module = __import__(f"referee.rules.games.{game.name}", fromlist=["TABLES"])
    return module.TABLES[state.trump]


@pytest.mark.parametrize("name", list(GAMES))
def test_cards_searched_once_take_the_same_tricks(name: str) -> None:
    """Two legal cards that the search merges (the same run of a ladder) leave positions
    worth the same tricks to every side, by the brute-force enumerator."""
    game = GAMES[name]
    rng = random.Random(f"equivalent-{name}")
    merged = 0
    for _ in range(80):
        state = end_position(game, rng, 3)
        seat = game.current_seat(state)
        assert seat is not None
        side = side_of_seat(game, state, seat)
        search = _Search(game, side, state)
        runs: dict[int, list[int]] = {}
        for a in game.legal_actions(state):
            if 0 <= a < VERB_BASE:
                runs.setdefault(search._top(a, seat, 0), []).append(a)
        for cards in runs.values():
            if len(cards) > 1:
                merged += 1
                worth = {brute(game, game.apply(state, seat, c).state, side) for c in cards}
                assert len(worth) == 1, (name, game.audit_view(state), cards)
    assert merged, "the random positions merge some cards"


def _hold_state(rng: random.Random) -> Any:
    """An Ulti hand in trick play whose declarer holds the ulti seven (UL-25) with other
    trumps above it, and it is the declarer's turn to lead."""
    game = GAMES["ulti"]
    while True:
        state = end_position(game, rng, 9)
        fx = state.fx
        if fx.hold and state.trick is None and game.current_seat(state) == fx.declarer:
            hand = state.hands[fx.declarer]
            if hand & fx.hold and (hand & _tables(game, state).trumps & ~fx.hold):
                return state


def test_ulti_the_ulti_seven_is_never_merged_ul25() -> None:
    """UL-25: the declarer may not play the trump seven before the last trick, so it is
    not equivalent to the trump eight above it, even held together."""
    game = GAMES["ulti"]
    rng = random.Random("ulti-seven")
    for _ in range(5):
        state = _hold_state(rng)
        order = game.claim_order(state)  # type: ignore[attr-defined]
        seven = state.fx.hold.bit_length() - 1
        assert order.distinct == state.fx.hold
        assert parse_card(f"7{'CDHS'[state.fx.trump]}") == seven
        search = _Search(game, frozenset({state.fx.declarer}), state)
        assert search._top(seven, state.fx.declarer, 0) == seven
        eight = seven + 1
        if (state.hands[state.fx.declarer] >> eight) & 1:  # the eight's run stops at it
            assert search._top(eight, state.fx.declarer, 0) != seven


def test_ulti_a_hand_that_may_stop_early_gives_no_trumps_ul27() -> None:
    """UL-27: a colourless hand may stop at a trick; the search's sure-loss bound (the
    highest trump takes a trick) is only for hands played to the last trick."""
    game = GAMES["ulti"]
    rng = random.Random("ulti-stop")
    seen = 0
    for _ in range(200):
        state = end_position(game, rng, 8)
        order = game.claim_order(state)  # type: ignore[attr-defined]
        if state.fx.stop:
            assert order.trumps == 0
            seen += 1
        else:
            assert order.trumps == _tables(game, state).trumps & _in_play(game, state)
    assert seen


def test_pedro_the_left_pedro_is_a_trump_just_below_the_right_pedro_pe3() -> None:
    """PE-3: the five of the other suit of the trump's colour is a trump, directly below
    the right pedro: in the trump ladder, not in its printed suit's."""
    game = GAMES["pedro"]
    rng = random.Random("pedro-left")
    checked = 0
    for _ in range(300):
        state = end_position(game, rng, 6)
        t = state.trump
        right, left = parse_card(f"5{'CDHS'[t]}"), parse_card(f"5{'CDHS'[3 - t]}")
        ladders = game.claim_order(state).ladders  # type: ignore[attr-defined]
        trumps = next(x for x in ladders if any(_tables(game, state).suit_of[c] == t for c in x))
        if left in trumps and right in trumps:
            i = trumps.index(left)
            assert trumps[i + 1] == right
            checked += 1
        for x in ladders:
            if x is not trumps:
                assert left not in x
    assert checked


def test_euchre_the_left_bower_is_a_trump_and_a_seat_sitting_out_holds_none_eu3_eu13() -> None:
    """EU-3: the left bower ranks between the right bower and the ace of trumps. EU-13,
    EU-14: the partner of a seat playing alone plays no card, so none of its cards is in
    play."""
    game = GAMES["euchre"]
    rng = random.Random("euchre-bowers")
    alone = bowers = 0
    for _ in range(400):
        state = end_position(game, rng, 5)
        in_play = _in_play(game, state)
        for s in range(4):
            if (state.out >> s) & 1:
                assert not in_play & state.hands[s]
                alone += 1
        t = state.trump
        right, left = parse_card(f"J{'CDHS'[t]}"), parse_card(f"J{'CDHS'[3 - t]}")
        for ladder in game.claim_order(state).ladders:  # type: ignore[attr-defined]
            if right in ladder and left in ladder:
                assert ladder.index(right) > ladder.index(left)
                assert all(_tables(game, state).suit_of[c] == t for c in ladder)
                bowers += 1
    assert alone and bowers


@pytest.mark.parametrize("name", ["belot", "coinche"])
def test_belote_a_card_said_with_belot_is_the_card_a_declaration_none_bg_a7_co_a4(
    name: str,
) -> None:
    """BG-A7, CO-A4: playing the king or queen of trumps saying belot (belote, rebelote)
    plays that card; a declaration (BG-A3, CO-A2) plays none and changes no trick. The
    two are points, not tricks: for a claim (of tricks) the king and queen of trumps are
    neighbours like any others."""
    game = GAMES[name]
    kh = parse_card("KH")
    bases = (BELOT_BASE,) if name == "belot" else (BELOTE_BASE, REBELOTE_BASE)
    declare = DECLARE_BASE if name == "belot" else ANNOUNCE_BASE
    for base in bases:
        assert game.claim_card(base + kh) == kh  # type: ignore[attr-defined]
    assert game.claim_card(kh) == kh  # type: ignore[attr-defined]
    assert game.claim_card(declare) is None  # type: ignore[attr-defined]
    assert game.claim_card(declare + 5) is None  # type: ignore[attr-defined]


def _sweeps(game: Game[Any], state: Any, side: frozenset[int]) -> bool:
    """Whether ``side`` takes every trick left against every defence: the enumerator of
    ``brute``, cut short as soon as the answer is known (exact all the same)."""
    if game.is_terminal(state):
        return True
    seat = game.current_seat(state)
    assert seat is not None
    outcomes = (
        not any(isinstance(f, TrickTaken) and f.winner not in side for f in step.facts)
        and _sweeps(game, step.state, side)
        for step in (game.apply(state, seat, a) for a in game.legal_actions(state)))
    return any(outcomes) if seat in side else all(outcomes)


def _claim_at(game: Game[Any], rng: random.Random, most_left: int
              ) -> tuple[Any, int, frozenset[int], _Search]:
    """A random end position, the seat to act, its side, and the search of its claim."""
    state = end_position(game, rng, most_left)
    seat = game.current_seat(state)
    assert seat is not None
    side = side_of_seat(game, state, seat)
    return state, seat, side, _Search(game, side, state)


#: Random positions per game for the bounds, and the most tricks left in them.
BOUND_POSITIONS = 1500
BOUND_MOST_LEFT = {"ulti": 6, "euchre": 5, "pedro": 5}


@pytest.mark.parametrize("name", list(GAMES))
def test_the_sure_bounds_at_a_tricks_start_agree_with_the_enumerator(name: str) -> None:
    """The all-tricks bounds of the search at a trick's start (``_Search._sure``: a sure
    win, a sure loss) are exact: wherever one fires, the enumerator finds the same, with up
    to 4 tricks left (6 in Ulti, 5 in Euchre and Pedro); among the sure wins, some where
    the leader hands the lead to a partner that takes the rest itself (``_Search._crosses``)
    and would not take every trick itself. (Pedro's hands hold only trumps, PE-11: the
    other seats hold one till the last, and only the sure loss fires.)"""
    game = GAMES[name]
    rng = random.Random(f"claim-bounds-{name}")
    fired = {1: 0, -1: 0, "crosses": 0}
    for _ in range(BOUND_POSITIONS):
        state, seat, side, search = _claim_at(game, rng, BOUND_MOST_LEFT.get(name, 4))
        if search.table:  # mid-trick: the bounds are for a trick's start
            continue
        sure = search._sure(seat, 0)
        if not sure:
            continue
        fired[sure] += 1
        assert (sure > 0) == _sweeps(game, state, side), (name, game.audit_view(state))
        assert search.order is not None
        trumps, hand = search.order.trumps, search.hands[seat]
        if sure > 0 and not search._leads_out(seat, hand, trumps, 0):
            fired["crosses"] += search._crosses(seat, hand, trumps, 0)
    if name == "pedro":  # its hands are trumps only (PE-11): another seat holds a trump
        fired.pop(1), fired.pop("crosses")
    assert all(fired.values()), fired


#: Claims' positions per game for the side-led key, and the most tricks left in them.
LEAD_KEY_ROOTS = 200
LEAD_KEY_MOST_LEFT = {"ulti": 6, "euchre": 5, "pedro": 6}


def _side_takes_tricks(game: Game[Any], state: Any, side: frozenset[int], tricks: int,
                       rng: random.Random) -> tuple[Any, int] | None:
    """``(state, cards played)`` after ``tricks`` tricks played at random from ``state``,
    each taken by ``side`` (None: another side took one, or the hand ended)."""
    played = 0
    while tricks:
        seat = game.current_seat(state)
        if seat is None:
            return None
        step = game.apply(state, seat, rng.choice(game.legal_actions(state)))
        state = step.state
        for f in step.facts:
            if isinstance(f, TrickTaken):
                if f.winner not in side:
                    return None
                played |= sum(1 << c for _, c in f.plays)
                tricks -= 1
    return (None if game.is_terminal(state) else state), played


@pytest.mark.parametrize("name", list(GAMES))
def test_positions_meeting_on_the_side_led_key_sweep_alike(name: str) -> None:
    """The all-tricks search's memo key at a trick's start that the claiming side leads
    (``_Search._lead_key``) counts a defender's dead cards per seat and its low cards per
    seat and ladder, not which they are: positions reached from one claim's position that
    meet on it have the same answer by the enumerator, some of them told apart by the
    full canonical key (``_Search.key``)."""
    game = GAMES[name]
    rng = random.Random(f"claim-lead-key-{name}")
    merged = 0
    for _ in range(LEAD_KEY_ROOTS):
        root, _, side, search = _claim_at(game, rng, LEAD_KEY_MOST_LEFT.get(name, 5))
        if search.table or remaining_tricks(game, root) < 3:
            continue
        groups: dict[int, dict[Any, tuple[bool, Any]]] = {}
        for _ in range(100):
            reached = _side_takes_tricks(game, root, side, rng.choice((1, 2, 2)), rng)
            if reached is None or reached[0] is None:
                continue
            state, played = reached
            leader = game.current_seat(state)
            assert leader is not None and leader in side
            where = tuple(sorted(game.card_locations(state).items()))
            group = groups.setdefault(search._lead_key(leader, played), {})
            if where not in group:
                group[where] = (_sweeps(game, state, side), search.key(state, played))
        for group in groups.values():
            answers = {a for a, _ in group.values()}
            assert len(answers) == 1, (name, game.audit_view(root))
            merged += len({k for _, k in group.values()}) > 1
    assert merged >= 10, merged
