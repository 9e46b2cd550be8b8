"""The card play of the belote family, written once for Bulgarian Belot and Coinche: which
cards a seat may play (BG-P1 .. BG-P7, CO-P1 .. CO-P6) and what the tricks add up to.

The two games play their cards by the same rule (the Coinche seed: "comme une partie de
belote") but for two of Coinche's variant parameters, which are fields of :class:`PlayRules`:
``undertrump`` (CO-P5d, "pisser": unable to over-trump, still play a lower trump; Belot's
BG-P5d frees the seat) and ``raise_over_partner`` (CO-P3 in tout atout).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from referee.rules.cards import SUIT_MASKS, Card, CardSet, Suit
from referee.rules.game import TrickTaken
from referee.rules.games.belote_family import ALL_TRUMPS, NO_TRUMPS, TABLES, Mode
from referee.rules.seats import Seat
from referee.rules.tricks import answer


class PlayRules(NamedTuple):
    """What decides the legal cards under one contract (:func:`play_rules` builds them)."""

    mode: Mode
    power: tuple[tuple[int, ...], ...]
    """``POWER[mode]``: per led suit, the power of each card (BG-T1, CO-C3)."""
    above: tuple[CardSet, ...]
    """``ABOVE[mode]``: per card, the cards of its suit that beat it."""
    trumps: CardSet
    """The trump suit's cards in a suit contract, else 0 (no duty to trump when void)."""
    raising: int
    """Bit ``s`` set when a seat following suit ``s`` must beat the best card of it: the trump
    suit, every suit in all trumps (BG-P3, CO-P3), none in no trumps (BG-P4)."""
    raise_over_partner: bool
    """In all trumps, raise even when the partner is winning (BG-P3; CO-P3's variant)."""
    undertrump: bool
    """Void, unable to over-trump an opponent's trump: still play a lower trump (CO-P5d)."""


def _play_rules(mode: Mode, undertrump: bool, raise_over_partner: bool) -> PlayRules:
    t = TABLES[mode]
    raising = 0b1111 if mode == ALL_TRUMPS else 0 if mode == NO_TRUMPS else 1 << mode
    return PlayRules(
        mode, t.power, t.above, t.trumps, raising, raise_over_partner or mode != ALL_TRUMPS,
        undertrump,
    )  # fmt: skip


_PLAY_RULES: Final = {
    (mode, under, over): _play_rules(mode, under, over)
    for mode in range(6)
    for under in (False, True)
    for over in (False, True)
}


def play_rules(mode: Mode, *, undertrump: bool = False, raise_over_partner: bool = True
               ) -> PlayRules:
    """The (shared, prebuilt) play rules of a contract; the defaults are Belot's."""
    return _PLAY_RULES[mode, undertrump, raise_over_partner]


def legal_cards(rules: PlayRules, hand: CardSet, seat: Seat, led: Suit, best: Card, winner: Seat
             ) -> CardSet:
    """The cards ``seat`` holding ``hand`` may play to a started trick whose led suit is
    ``led`` and which ``winner`` is winning with ``best`` (BG-P2 .. BG-P7, CO-P2 .. CO-P6).

    Follow suit; in a suit that must be raised, beat the best card if able (even over the
    partner, unless ``raise_over_partner`` is off in all trumps). Void: with the partner
    winning, any card; else trump, over-trumping an opponent's trump if able; unable, a lower
    trump (``undertrump``) or any card.
    """
    led_cards = SUIT_MASKS[led]
    partner = winner == (seat + 2) & 3
    if (rules.raising >> led) & 1 and (rules.raise_over_partner or not partner):
        raise_to = rules.above[best]
    else:
        raise_to = led_cards
    trumps = 0 if partner else rules.trumps
    return answer(
        hand,
        led_cards,
        raise_to,
        trumps,
        rules.above[best] if (trumps >> best) & 1 else trumps,
        rules.undertrump,
    )


def team_tally(tricks: Iterable[TrickTaken]) -> tuple[list[int], list[int], int]:
    """Card points and tricks won per team (seats ``s`` and ``s + 2`` are team ``s & 1``),
    and the team that won the last trick."""
    points = [0, 0]
    won = [0, 0]
    last = 0
    for taken in tricks:
        last = taken.winner & 1
        points[last] += taken.points
        won[last] += 1
    return points, won, last

