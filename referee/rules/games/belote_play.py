"""The card play of the belote family, written once for Bulgarian Belot and Coinche: which
cards a seat may play (BG-P1 .. BG-P7, CO-P1 .. CO-P6) and what the tricks add up to.

The two games play their cards by the same rule (the Coinche seed: "comme une partie de
belote") but for two of Coinche's variant parameters, which are fields of :class:`PlayRules`:
``undertrump`` (CO-P5d, "pisser": unable to over-trump, still play a lower trump; Belot's
BG-P5d frees the seat) and ``raise_over_partner`` (CO-P3 in tout atout).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple, TypeAlias

from referee.rules.cards import SUIT_MASKS, SUITS, Card, CardSet, Suit
from referee.rules.game import TrickTaken
from referee.rules.games.belote_family import ALL_TRUMPS, NO_TRUMPS, TABLES, Mode
from referee.rules.seats import Seat
from referee.rules.tricks import answer

Duty: TypeAlias = tuple[CardSet, CardSet, CardSet, CardSet]
"""The masks :func:`tricks.answer` takes: the led suit's cards, those a follower must play if
able, the trumps a void seat must play, and of those the ones it must play if able."""


class PlayRules(NamedTuple):
    """What decides the legal cards under one contract (:func:`play_rules` builds them)."""

    mode: Mode
    power: tuple[tuple[int, ...], ...]
    """``POWER[mode]``: per led suit, the power of each card (BG-T1, CO-C3)."""
    duties: tuple[Duty, ...]
    """At ``(led * 52 + best) * 2 + partner``: the duties of a seat to play to a trick of the
    ``led`` suit that ``best`` is winning, for its ``partner`` (1) or an opponent (0)."""
    undertrump: bool
    """Void, unable to over-trump an opponent's trump: still play a lower trump (CO-P5d)."""


def _duties(mode: Mode, raise_over_partner: bool) -> tuple[Duty, ...]:
    """BG-P2 .. BG-P7, CO-P2 .. CO-P6 as masks: follow suit; in the trump suit (every suit in
    all trumps, none in no trumps) beat the best card if able, even over the partner (unless
    ``raise_over_partner`` is off, in all trumps); void, with an opponent winning, trump, and
    over-trump an opponent's trump if able. A partner winning frees a void seat."""
    t = TABLES[mode]
    raising = 0b1111 if mode == ALL_TRUMPS else 0 if mode == NO_TRUMPS else 1 << mode
    out = []
    for led in SUITS:
        led_cards = SUIT_MASKS[led]
        for best in range(52):
            for partner in (False, True):
                must_raise = (raising >> led) & 1 and (raise_over_partner or not partner)
                trumps = 0 if partner else t.trumps
                out.append(
                    (
                        led_cards,
                        t.above[best] if must_raise else led_cards,
                        trumps,
                        t.above[best] if (trumps >> best) & 1 else trumps,
                    )
                )
    return tuple(out)


_PLAY_RULES: Final = {
    (mode, under, over): PlayRules(
        mode, TABLES[mode].power, _duties(mode, over or mode != ALL_TRUMPS), under
    )
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
    ``led`` and which ``winner`` is winning with ``best`` (BG-P2 .. BG-P7, CO-P2 .. CO-P6:
    :func:`_duties` says which)."""
    led_cards, raise_to, trumps, over = rules.duties[
        (led * 52 + best) * 2 + (winner == (seat + 2) & 3)
    ]
    return answer(hand, led_cards, raise_to, trumps, over, rules.undertrump)


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

