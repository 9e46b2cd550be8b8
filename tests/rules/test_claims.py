"""Checked claims (issue 20, item 1): the solver agrees with a brute-force enumerator.

The enumerator plays out every line from the position (no memo, no ordering, no cut-off
beyond the end of the hand): the claimer's side takes the most tricks it can force is the
plain minimax over ``legal_actions``/``apply``. On many random end positions of every
registered game (reached by seeded random legal play), every accept and every refusal of
:func:`referee.rules.claims.check_claim` must agree with it, the winning line must be a legal
play of the hand that makes the claim, and a refusal's defence a legal play.
"""

from __future__ import annotations

import itertools
import os
import random
from typing import Any

import pytest

from referee.rules.claims import (
    ALL,
    ClaimError,
    check_claim,
    claim_sides,
    concession_line,
    in_trick_play,
    remaining_tricks,
    replay_line,
)
from referee.rules.game import Game, TrickTaken
from referee.rules.registry import GAMES

#: Positions per game and the most tricks left in them (the enumerator is exponential).
POSITIONS = int(os.environ.get("CLAIMS_POSITIONS", "60"))
MOST_LEFT = {"ulti": 4}
DEFAULT_MOST_LEFT = int(os.environ.get("CLAIMS_MOST_LEFT", "3"))


def brute(game: Game[Any], state: Any, side: frozenset[int]) -> tuple[int, bool]:
    """``(tricks, sweep)``: the most tricks the side can force from ``state`` (minimax over
    every line), and whether it can take every trick left against every defence."""
    if game.is_terminal(state):
        return 0, True
    seat = game.current_seat(state)
    assert seat is not None
    values = []
    for action in game.legal_actions(state):
        step = game.apply(state, seat, action)
        won = lost = 0
        for f in step.facts:
            if isinstance(f, TrickTaken):
                won += f.winner in side
                lost += f.winner not in side
        tricks, sweep = brute(game, step.state, side)
        values.append((tricks + won, sweep and not lost))
    if seat in side:
        return max(v[0] for v in values), any(v[1] for v in values)
    return min(v[0] for v in values), all(v[1] for v in values)


def end_position(game: Game[Any], rng: random.Random, most_left: int) -> Any:
    """A state in trick play with at most ``most_left`` tricks left (sometimes mid-trick),
    reached by random legal play from a random deal."""
    while True:
        pack = list(game.pack)
        rng.shuffle(pack)
        dealer = rng.randrange(game.num_seats)
        state = game.new_hand(game.deal(pack, dealer), dealer, game.rules_class())
        stop_at = rng.randrange(4)  # plays into the trick before stopping
        while not game.is_terminal(state):
            if in_trick_play(game, state) and remaining_tricks(game, state) <= most_left:
                if stop_at == 0:
                    return state
                stop_at -= 1
            legal = game.legal_actions(state)
            seat = game.current_seat(state)
            assert seat is not None
            state = game.apply(state, seat, legal[rng.randrange(len(legal))]).state


def tricks_in(game: Game[Any], state: Any, line: Any, side: frozenset[int]) -> tuple[int, int]:
    won = lost = 0
    for seat, action in line:
        step = game.apply(state, seat, action)
        for f in step.facts:
            if isinstance(f, TrickTaken):
                won += f.winner in side
                lost += f.winner not in side
        state = step.state
    return won, lost


@pytest.mark.parametrize("name", list(GAMES))
def test_the_solver_agrees_with_the_enumerator(name: str) -> None:
    _agree(name, f"claims-{name}", POSITIONS, MOST_LEFT.get(name, DEFAULT_MOST_LEFT))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_the_solver_agrees_with_the_enumerator_deeper(name: str) -> None:
    """More positions, one trick deeper: the equivalent cards, the canonical key and the
    bounds of the search (issue 20) met in more shapes."""
    _agree(name, f"claims-deep-{name}", 200, MOST_LEFT.get(name, DEFAULT_MOST_LEFT) + 1)


def _agree(name: str, seed: str, positions: int, most: int) -> None:
    game = GAMES[name]
    rng = random.Random(seed)
    seen = {"all": [0, 0], "k": [0, 0]}
    for _ in range(positions):
        state = end_position(game, rng, most)
        seat = game.current_seat(state)
        assert seat is not None
        claimer = rng.choice([seat, rng.randrange(game.num_seats)])
        check = check_claim(game, state, claimer, ALL)
        side = check.side
        forced, sweep = brute(game, state, side)
        assert check.holds == sweep, (name, game.audit_view(state), claimer)
        seen["all"][check.holds] += 1
        _check_line(game, state, check, side, sweep_claim=True)
        left = remaining_tricks(game, state)
        k = rng.randint(1, left)
        check = check_claim(game, state, claimer, k)
        assert check.holds == (forced >= k), (name, game.audit_view(state), claimer, k)
        seen["k"][check.holds] += 1
        _check_line(game, state, check, side, sweep_claim=False)
    # The random positions exercise both answers.
    assert all(v[0] and v[1] for v in seen.values()), seen


def _check_line(game: Game[Any], state: Any, check: Any, side: frozenset[int],
                sweep_claim: bool) -> None:
    end = replay_line(game, state, check.line)  # every action legal
    won, lost = tricks_in(game, state, check.line, side)
    if check.holds:
        assert game.is_terminal(end), "an accepted claim's line ends the hand"
        assert (lost == 0) if sweep_claim else (won >= check.tricks)
    elif sweep_claim:
        assert lost >= 1 or game.is_terminal(end) is False


@pytest.mark.parametrize("name", list(GAMES))
def test_a_concession_plays_out_the_hand_trick_by_trick_for_the_opponents(name: str) -> None:
    """Each trick of a concession's line goes to the opponents unless no way of playing it
    (from where it stood) gives it to them: checked by enumerating the trick's plays."""
    game = GAMES[name]
    rng = random.Random(f"concede-{name}")
    for _ in range(30):
        state = end_position(game, rng, 8)
        seat = game.current_seat(state)
        assert seat is not None
        line = concession_line(game, state, seat)
        mine = next(s for s in claim_sides(game, state) if seat in s)
        start = state
        for s, a in line:
            step = game.apply(state, s, a)
            state = step.state
            for f in step.facts:
                if isinstance(f, TrickTaken):
                    if f.winner in mine:
                        assert not _can_give(game, start, mine), "a trick it could give away"
                    start = state
        assert game.is_terminal(state)


def _can_give(game: Game[Any], state: Any, mine: frozenset[int]) -> bool:
    """Whether some way of playing the rest of the current trick gives it to the others."""
    seat = game.current_seat(state)
    if seat is None:
        return False
    for action in game.legal_actions(state):
        step = game.apply(state, seat, action)
        taken = [f for f in step.facts if isinstance(f, TrickTaken)]
        if taken:
            if taken[0].winner not in mine:
                return True
        elif not game.is_terminal(step.state) and _can_give(game, step.state, mine):
            return True
    return False


def test_claims_are_made_in_trick_play_and_of_a_sensible_number() -> None:
    for game in GAMES.values():
        rng = random.Random(f"misuse-{game.name}")
        pack = list(game.pack)
        rng.shuffle(pack)
        state = game.new_hand(game.deal(pack, 0), 0, game.rules_class())
        with pytest.raises(ClaimError):  # the auction
            check_claim(game, state, 0, ALL)
        state = end_position(game, rng, 2)
        seat = game.current_seat(state)
        assert seat is not None
        with pytest.raises(ClaimError):
            check_claim(game, state, seat, remaining_tricks(game, state) + 1)
        with pytest.raises(ClaimError):
            check_claim(game, state, seat, 0)


def test_ulti_sides_are_the_declarer_against_the_defenders() -> None:
    game = GAMES["ulti"]
    state = end_position(game, random.Random("ulti-sides"), 5)
    declarer = state.declarer
    sides = claim_sides(game, state)
    assert frozenset({declarer}) in sides
    assert frozenset(s for s in range(3) if s != declarer) in sides


def test_a_game_that_exists_only_in_the_tests() -> None:
    """Six seats in three partnerships (tests/minigame.py): the solver knows no game."""
    from tests.minigame import registered

    with registered() as game:
        rng = random.Random("claims-triads")
        for _ in range(25):
            state = end_position(game, rng, 2)
            seat = game.current_seat(state)
            assert seat is not None
            check = check_claim(game, state, seat, ALL)
            assert len(check.side) == 2
            forced, sweep = brute(game, state, check.side)
            assert check.holds == sweep
            check = check_claim(game, state, seat, 1)
            assert check.holds == (forced >= 1)


def _hands(game: Game[Any], state: Any) -> dict[int, int]:
    """Each seat's hand in play, as ``card_locations`` gives it (``hand0``, ``hand1`` ...)."""
    return {int(k[4:]): h for k, h in game.card_locations(state).items() if k.startswith("hand")}


def _at_a_tricks_start(game: Game[Any], state: Any) -> bool:
    """Whether no card of the game's ``claim_order`` lies on the table."""
    held = sum(_hands(game, state).values())
    order = game.claim_order(state)  # type: ignore[attr-defined]
    return all((held >> c) & 1 for ladder in order.ladders for c in ladder)


def _leads_out(game: Game[Any], state: Any, seat: int) -> tuple[bool, bool]:
    """The test's own reading of the bound "the leader takes every trick itself": no other
    seat holds a trump unless ``seat`` holds only trumps, and in each ladder ``seat`` holds
    only cards above every other seat's card in play (its partners' too), or ``t`` such top
    cards and no other seat holds more than ``t`` of the ladder; no card on the table. The
    second answer: whether it holds by the count alone (a card of ``seat`` below another's)."""
    if not _at_a_tricks_start(game, state):
        return False, False
    order = game.claim_order(state)  # type: ignore[attr-defined]
    hands = _hands(game, state)
    hand = hands[seat]
    if order.trumps & ~hand and hand & ~order.trumps:
        return False, False
    counted = False
    for ladder in order.ladders:
        mine = [(hand >> c) & 1 for c in ladder]
        if not any(mine) or 0 not in mine[mine.index(1):]:
            continue
        top = mine[::-1].index(0)  # the top cards of seat: ladders run weakest first
        most = max(sum((h >> c) & 1 for c in ladder) for s, h in hands.items() if s != seat)
        if most > top:
            return False, False
        counted = True
    return True, counted


@pytest.mark.parametrize("name", list(GAMES))
def test_a_leader_holding_the_top_of_every_suit_it_holds_takes_every_trick(name: str) -> None:
    """The search's sure-win bound at a trick's start where the seat to lead holds only the
    highest cards in play of its suits (above its partner's too), or enough of them to
    draw every other seat's cards of the suit first, and no other seat can trump (or it
    holds only trumps): the enumerator agrees that its side sweeps, on every such position
    found, with two or more tricks left (four at most), the count deciding in some."""
    game = GAMES[name]
    rng = random.Random(f"claims-leads-out-{name}")
    found = counted = 0
    for _ in range(4000):
        state = end_position(game, rng, MOST_LEFT.get(name, DEFAULT_MOST_LEFT))
        seat = game.current_seat(state)
        assert seat is not None
        fires, by_count = _leads_out(game, state, seat)
        if remaining_tricks(game, state) < 2 or not fires:
            continue
        check = check_claim(game, state, seat, ALL)
        assert check.holds and brute(game, state, check.side)[1], (name, game.audit_view(state))
        found += 1
        counted += by_count
        if found >= 8 and (counted or name == "pedro"):
            break
    assert found >= 3, found
    # PE-11: Pedro's hands hold only trumps, so the count never decides there
    assert counted or name == "pedro", "no position where the count decides"


def _low_groups(game: Game[Any], state: Any, side: frozenset[int], seat: int,
                on_table: int) -> list[list[int]]:
    """The test's own reading of a defender's cards that the search takes as one in an
    all-tricks claim, in a trick the side led (``on_table``: the side's cards played to
    it): those of ladders without a trump where the side holds no card in play (one
    group), and per other ladder without a trump, those below every card in play of the
    side."""
    order = game.claim_order(state)  # type: ignore[attr-defined]
    hands = _hands(game, state)
    ours = on_table | sum(h for s, h in hands.items() if s in side)
    hand = hands[seat]
    dead: list[int] = []
    groups = []
    for ladder in order.ladders:
        if (order.trumps >> ladder[0]) & 1:
            continue
        mine = [c for c in ladder if (hand >> c) & 1 and not (order.distinct >> c) & 1]
        if not any((ours >> c) & 1 for c in ladder):
            dead += mine
        else:
            first = next(i for i, c in enumerate(ladder) if (ours >> c) & 1)
            groups.append([c for c in mine if ladder.index(c) < first])
    return [g for g in [dead, *groups] if len(g) > 1]


@pytest.mark.parametrize("name", list(GAMES))
def test_a_defenders_dead_and_low_cards_take_the_same_tricks(name: str) -> None:
    """The equivalence behind the search's merging of a defender's cards in an all-tricks
    claim: in a trick the claiming side led, a defender's cards of suits the side holds
    none of (and no trump), or below all the side's cards of their suit, give the same
    answer whichever it plays (the enumerator, on each member of each group), and the
    search agrees with the enumerator from the trick's start."""
    game = GAMES[name]
    rng = random.Random(f"claims-dead-cards-{name}")
    groups = found = 0
    for _ in range(3000):
        state = end_position(game, rng, MOST_LEFT.get(name, DEFAULT_MOST_LEFT))
        seat = game.current_seat(state)
        assert seat is not None
        side = next(s for s in claim_sides(game, state) if seat in s)
        if remaining_tricks(game, state) < 2 or not _at_a_tricks_start(game, state):
            continue
        start, on_table, hit = state, 0, False
        while True:  # the trick, at random: each defender's groups on the way
            seat = game.current_seat(state)
            if seat is None:
                break
            if seat not in side:
                for group in _low_groups(game, state, side, seat, on_table):
                    legal = set(game.legal_actions(state))
                    plays = [a for a in legal if 0 <= a < 64 and a in group]
                    sweeps = {brute(game, game.apply(state, seat, a).state, side)[1]
                              for a in plays if not _ends_trick(game, state, seat, a, side)}
                    assert len(sweeps) <= 1, (name, game.audit_view(state), group)
                    groups += len(plays) > 1
                    hit = True
            action = rng.choice(game.legal_actions(state))
            step = game.apply(state, seat, action)
            if seat in side and 0 <= action < 64:
                on_table |= 1 << action
            state = step.state
            if any(isinstance(f, TrickTaken) for f in step.facts):
                break
        if hit:
            check = check_claim(game, start, game.current_seat(start) or 0, ALL)
            assert check.holds == brute(game, start, side)[1]
            found += 1
        if groups >= 12:
            break
    assert groups >= 3, (groups, found)


def _ends_trick(game: Game[Any], state: Any, seat: int, action: int,
                side: frozenset[int]) -> bool:
    """Whether ``action`` ends the trick with another side taking it (no sweep either way)."""
    return any(isinstance(f, TrickTaken) and f.winner not in side
               for f in game.apply(state, seat, action).facts)


def _starved(game: Game[Any], state: Any, side: frozenset[int], seat: int) -> tuple[bool, bool]:
    """The test's own reading of the sure-loss bound "the side cannot throw away the cards
    of the suits a defender tops", at a trick's start that ``seat`` of the side leads, in a
    hand played to its last trick, with no distinct card in play: for some choice of one
    topped ladder per defender (its highest card in play is that defender's), a seat of
    the side holds more cards of the chosen ladders than the tricks its partner could lead
    in the other ladders while it holds none of them (the sum over those ladders of the
    partner's cards less its own, where more; none for a lone seat, which may hold a
    trump); where a partnership holds a trump (and must follow suit), one topped ladder
    and both its seats so. The second answer: whether a seat holding such cards had room
    for some of them."""
    order = game.claim_order(state)  # type: ignore[attr-defined]
    hands = _hands(game, state)
    if (seat not in side or not _at_a_tricks_start(game, state) or not order.to_the_end
            or order.distinct):
        return False, False
    ruff = len(side) > 1 and any(order.trumps & hands[s] for s in side)
    if ruff and not order.follows:
        return False, False
    tops: dict[int, list[int]] = {}  # per defender, the ladders (their index) it tops
    for i, ladder in enumerate(order.ladders):
        holder = next(s for s, h in hands.items() if (h >> ladder[-1]) & 1)
        if holder not in side:
            tops.setdefault(holder, []).append(i)
    mine = sorted(side)
    for chosen in ([(i,) for ts in tops.values() for i in ts] if ruff
                   else itertools.product(*tops.values())):
        topped = [order.ladders[i] for i in chosen]
        other = [ld for ld in order.ladders if ld not in topped]
        over = []
        for a in mine:
            held = sum((hands[a] >> c) & 1 for ld in topped for c in ld)
            room = sum(max(0, sum((hands[b] >> c) & 1 for c in ld)
                           - sum((hands[a] >> c) & 1 for c in ld))
                       for b in mine if b != a for ld in other)
            over.append((held > room, room > 0))
        if all(o for o, _ in over) if ruff else any(o for o, _ in over):
            return True, any(r for o, r in over if o)
    return False, False


@pytest.mark.parametrize("name", list(GAMES))
def test_a_side_that_cannot_throw_away_a_suit_a_defender_tops_loses_a_trick(name: str) -> None:
    """The search's sure-loss bound at a trick's start (an all-tricks claim): a defender
    keeps the highest card of a suit until it is led, so the side must throw away its
    cards of that suit while its partner leads suits it is void in; where it holds more of
    them than such leads can be, the enumerator finds a defence that takes a trick, and
    the search agrees; on every such position found with two or more tricks left, the
    partner's room deciding in some, and a partnership holding a trump in some."""
    game = GAMES[name]
    rng = random.Random(f"claims-starved-{name}")
    found = counted = ruffed = 0
    for _ in range(3000):
        state = end_position(game, rng, MOST_LEFT.get(name, DEFAULT_MOST_LEFT))
        seat = game.current_seat(state)
        assert seat is not None
        side = next(s for s in claim_sides(game, state) if seat in s)
        fires, by_room = _starved(game, state, side, seat)
        if remaining_tricks(game, state) < 2 or not fires:
            continue
        assert not brute(game, state, side)[1], (name, game.audit_view(state))
        assert not check_claim(game, state, seat, ALL).holds
        found += 1
        counted += by_room
        ruffed += len(side) > 1 and any(h & game.claim_order(state).trumps  # type: ignore[attr-defined]
                                        for s, h in _hands(game, state).items() if s in side)
        if found >= 12 and counted >= 2 and (ruffed or name in ("pedro", "belot")):
            break
    assert found >= 3 and counted, (found, counted)
    # a partnership holding a trump: where a seat must follow suit (PE-16: not in Pedro;
    # none among Belot's 3000 random end positions)
    assert ruffed or name in ("pedro", "belot"), "no position where the side holds a trump"
