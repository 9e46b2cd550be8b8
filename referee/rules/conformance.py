"""Invariants every game must keep, checked over random playouts (OpenSpiel's random_sim_test).

Used by the test suite for every registered game; randomness comes in as a ``pick`` function
(the rules core never draws random numbers itself).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from referee.rules.cards import CARD_NAMES, Card, cards_in
from referee.rules.errors import IllegalActionError, NotYourTurnError
from referee.rules.game import Game, HandResult
from referee.rules.params import RuleSet
from referee.rules.seats import Seat

Pick = Callable[[int], int]
"""``pick(n)`` returns an index in ``range(n)``."""

_CARD_RE = re.compile(r"\b[2-9TJQKA][CDHS]\b")


class ConformanceError(AssertionError):
    """An invariant failed; the message says which, where."""


def check_playout(
    game: Game[Any],
    rules: RuleSet,
    pack: Sequence[Card],
    dealer: Seat,
    pick: Pick,
    *,
    thorough: bool = True,
) -> tuple[HandResult, int]:
    """Play one random deal, checking every invariant at every decision.

    Returns the result and the number of decisions. With ``thorough``, every legal action is
    applied (on the unchanged state) and every other action code is tried and must be
    refused with :class:`IllegalActionError`; otherwise a sample of each.
    """
    state = game.new_hand(game.deal(pack, dealer), dealer, rules)
    full_pack = 0
    for c in game.pack:
        full_pack |= 1 << c
    universe = list(game.all_actions())
    decisions = 0
    while True:
        _check_locations(game, state, full_pack, decisions)
        seat = game.current_seat(state)
        generated = game.legal_actions(state)
        legal = list(generated)
        _expect(len(generated) == len(legal), "len() of the legal set must match it", decisions)
        for i in (0, len(legal) // 2, len(legal) - 1):
            if legal:
                _expect(generated[i] == legal[i], "indexing the legal set must match it", decisions)
        if game.is_terminal(state):
            _expect(seat is None and not legal, "a finished deal has no seat to act", decisions)
            break
        _expect(seat is not None, "an unfinished deal must have a seat to act", decisions)
        assert seat is not None
        _expect(bool(legal), "the seat to act must have a legal action", decisions)
        _expect(legal == sorted(set(legal)), "legal actions must be sorted and unique", decisions)
        _check_views(game, state, decisions)
        before = game.audit_view(state)
        for a in legal:
            text = game.format_action(a)
            _expect(game.parse_action(text) == a, f"{text!r} must round-trip", decisions)
        tried_legal = legal if thorough else [legal[pick(len(legal))]]
        for a in tried_legal:
            game.apply(state, seat, a)
        legal_set = set(legal)
        illegal = [a for a in universe if a not in legal_set]
        if not thorough and illegal:
            illegal = [illegal[pick(len(illegal))]]
        for a in illegal:
            try:
                game.apply(state, seat, a)
            except IllegalActionError:
                pass
            else:
                raise ConformanceError(
                    f"decision {decisions}: {game.format_action(a)!r} is not in the legal set "
                    "but was accepted"
                )
        for other in range(game.num_seats):
            if other != seat:
                try:
                    game.apply(state, other, legal[0])
                except NotYourTurnError:
                    pass
                else:
                    raise ConformanceError(f"decision {decisions}: seat {other} acted out of turn")
        _expect(game.audit_view(state) == before, "a refused action changed the state", decisions)
        state = game.apply(state, seat, legal[pick(len(legal))]).state
        decisions += 1
    return game.result(state), decisions


def _expect(ok: bool, what: str, decision: int) -> None:
    if not ok:
        raise ConformanceError(f"decision {decision}: {what}")


def _check_locations(game: Game[Any], state: Any, full_pack: int, decision: int) -> None:
    union = 0
    for where, cards in game.card_locations(state).items():
        if union & cards:
            dup = [CARD_NAMES[c] for c in cards_in(union & cards)]
            raise ConformanceError(f"decision {decision}: {dup} are in two places ({where})")
        union |= cards
    if union != full_pack:
        lost = [CARD_NAMES[c] for c in cards_in(full_pack & ~union)]
        extra = [CARD_NAMES[c] for c in cards_in(union & ~full_pack)]
        raise ConformanceError(
            f"decision {decision}: pack not conserved: lost {lost}, extra {extra}"
        )


def _cards_named(view: object) -> set[str]:
    return set(_CARD_RE.findall(repr(view)))


def _check_views(game: Game[Any], state: Any, decision: int) -> None:
    """No seat's view names a card another seat holds, unless the spectators see it too."""
    public = _cards_named(game.view(state, None))
    locations = game.card_locations(state)
    for seat in range(game.num_seats):
        seen = _cards_named(game.view(state, seat))
        others = set()
        for other in range(game.num_seats):
            if other != seat:
                others |= {CARD_NAMES[c] for c in cards_in(locations.get(f"hand{other}", 0))}
        leaked = (seen & others) - public
        if leaked:
            raise ConformanceError(
                f"decision {decision}: seat {seat}'s view shows other seats' cards {sorted(leaked)}"
            )
