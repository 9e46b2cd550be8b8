"""The trick-taking kernel: what every trick game here says the same way, written once.

- :class:`Trick`: a trick in play (its leader, the cards in play order, the led suit, the seat
  and card winning so far).
- :class:`TrickTables`: one game's effective suits and rank orders under one trump, built once
  by :func:`trick_tables` from the pack, the trump and the variant's card order (a bower that
  counts as trump is an effective suit; all trumps and no trumps are an order without a trump).
- :func:`answer`: the cards a seat may play to a started trick, from the duties a game
  picks: follow suit, beat the best card of the led suit, trump when void, over-trump, and
  under-trump when over-trumping is impossible. :func:`follow_suit` and :func:`beat` are its
  two simplest cases.

Cards are ``int`` and sets of cards ``int`` bitmasks (:mod:`referee.rules.cards`); every table
is a tuple indexed by card, so the play path is lookups and ``&``. Pure, stdlib only.

>>> from referee.rules.cards import ACE, HEARTS, NINE, PACK_24, SPADES, cards_in, mask_of, names
>>> from referee.rules.cards import card_name, parse_card
>>> t = trick_tables(PACK_24, by_rank(range(NINE, ACE + 1)), trump=HEARTS)
>>> trick = lead(t, 0, parse_card("KS"))
>>> trick = play(trick, t.power[trick.led], 1, parse_card("9H"))  # a trump wins
>>> trick.winner, card_name(trick.best)
(1, '9H')
>>> hand = mask_of(parse_card(c) for c in ("AS", "TH", "JH", "9C"))
>>> names(cards_in(answer(hand, t.suit_cards[SPADES], t.suit_cards[SPADES], 0, 0, False)))
['AS']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, NamedTuple

from referee.rules.cards import RANK_OF, SUIT_OF, SUITS, Card, CardSet, Rank, Suit, mask_of
from referee.rules.seats import Seat

__all__ = [
    "NO_TRUMP",
    "TRUMP_POWER",
    "ClaimOrder",
    "Trick",
    "TrickTables",
    "answer",
    "beat",
    "by_rank",
    "claim_order",
    "follow_suit",
    "lead",
    "play",
    "trick_tables",
    "winner_index",
]

NO_TRUMP: Final[Suit] = -1
"""The trump of a deal without one (no trumps, all trumps, a colourless contract)."""

TRUMP_POWER: Final = 100
"""A trump's power is ``TRUMP_POWER + strength``: above every card of a plain suit."""


class Trick(NamedTuple):
    """A trick in play. Immutable: :func:`lead` starts one, :func:`play` adds a card.

    ``led`` is the effective suit of the lead (a bower's trump suit), ``winner`` and ``best``
    the seat and card that would win if the trick ended now (BG-P7: "currently winning").
    """

    leader: Seat
    cards: tuple[Card, ...]
    """The cards in play order, the lead first."""
    led: Suit
    winner: Seat
    best: Card

    def plays(self, seats: int = 4, skip: Seat = -1) -> tuple[tuple[Seat, Card], ...]:
        """``(seat, card)`` in play order, the seats turning from the leader and passing over
        ``skip`` (the partner of a seat playing alone)."""
        out = []
        seat = self.leader
        for c in self.cards:
            out.append((seat, c))
            seat = (seat + 1) % seats
            if seat == skip:
                seat = (seat + 1) % seats
        return tuple(out)


class TrickTables(NamedTuple):
    """One game's card tables under one trump (:func:`trick_tables` builds them)."""

    trump: Suit
    """The trump suit, :data:`NO_TRUMP` for none."""
    suit_of: tuple[Suit, ...]
    """Per card: its effective suit (a left bower's is the trump); -1 outside the pack."""
    suit_cards: tuple[CardSet, ...]
    """Per suit: the cards of the pack whose effective suit it is (``hand & suit_cards[led]``
    is what a seat holds of the led suit)."""
    trumps: CardSet
    """The trump suit's cards (0 without a trump)."""
    strength: tuple[int, ...]
    """Per card: its rank within its effective suit, 0 the lowest; -1 outside the pack."""
    above: tuple[CardSet, ...]
    """Per card: the cards of its effective suit that beat it (the set to raise or over-trump
    with)."""
    power: tuple[tuple[int, ...], ...]
    """``power[led][card]``: the highest power wins the trick; a trump is worth
    :data:`TRUMP_POWER` + strength, a card of the led suit its strength, anything else -1."""


def by_rank(
    order: Iterable[Rank], trump_order: Iterable[Rank] | None = None, trump: Suit = NO_TRUMP
) -> Callable[[Card], int]:
    """A card's strength from rank orders, lowest first: ``order`` for every suit, or
    ``trump_order`` for the ``trump`` suit. Ranks not in an order have strength -1."""
    plain = _strengths(order)
    trumps = plain if trump_order is None else _strengths(trump_order)

    def strength(c: Card) -> int:
        return (trumps if SUIT_OF[c] == trump else plain)[RANK_OF[c]]

    return strength


def _strengths(order: Iterable[Rank]) -> tuple[int, ...]:
    ranks = list(order)
    return tuple(ranks.index(r) if r in ranks else -1 for r in range(13))


def trick_tables(
    pack: Sequence[Card],
    strength: Callable[[Card], int],
    trump: Suit = NO_TRUMP,
    suit_of: Callable[[Card], Suit] | None = None,
) -> TrickTables:
    """Build a game's tables once: ``strength(card)`` is the card's rank within its effective
    suit (higher beats lower, below :data:`TRUMP_POWER`), ``suit_of(card)`` its effective suit
    (the printed suit by default; a bower returns the trump)."""
    in_pack = mask_of(pack)
    eff = tuple(
        -1 if not (in_pack >> c) & 1 else SUIT_OF[c] if suit_of is None else suit_of(c)
        for c in range(52)
    )
    strong = tuple(strength(c) if eff[c] >= 0 else -1 for c in range(52))
    assert max(strong) < TRUMP_POWER, "a strength must stay below TRUMP_POWER"
    suit_cards = tuple(sum(1 << c for c in pack if eff[c] == s) for s in SUITS)
    above = tuple(
        0
        if eff[c] < 0
        else sum(1 << d for d in pack if eff[d] == eff[c] and strong[d] > strong[c])
        for c in range(52)
    )
    power = tuple(
        tuple(
            -1
            if eff[c] < 0
            else TRUMP_POWER + strong[c]
            if eff[c] == trump
            else strong[c]
            if eff[c] == led
            else -1
            for c in range(52)
        )
        for led in SUITS
    )
    trumps = suit_cards[trump] if trump >= 0 else 0
    return TrickTables(trump, eff, suit_cards, trumps, strong, above, power)


# -- the trick ------------------------------------------------------------------------------

_new_tuple: Final = tuple.__new__
_TRICK: Final = Trick
"""``_new_tuple(_TRICK, fields)``: a Trick without the NamedTuple constructor's call (``Final``
names: compiled code reads them as constants, not from the module's dict)."""


def lead(tables: TrickTables, seat: Seat, c: Card) -> Trick:
    """A trick that ``seat`` leads with ``c``."""
    return _new_tuple(_TRICK, (seat, (c,), tables.suit_of[c], seat, c))


def play(trick: Trick, power: tuple[int, ...], seat: Seat, c: Card) -> Trick:
    """``trick`` after ``seat`` plays ``c``; ``power`` is ``tables.power[trick.led]``. The first
    card of the highest power wins (a later equal card does not beat it)."""
    leader, cards, led, winner, best = trick
    if power[c] > power[best]:
        winner, best = seat, c
    return _new_tuple(_TRICK, (leader, cards + (c,), led, winner, best))  # noqa: RUF005 (cheaper)


def winner_index(power: tuple[int, ...], cards: Sequence[Card]) -> int:
    """The index in ``cards`` (play order) of the card that wins them, ``power`` being
    ``tables.power[led]``."""
    best = 0
    for i in range(1, len(cards)):
        if power[cards[i]] > power[cards[best]]:
            best = i
    return best


# -- what a seat may play -------------------------------------------------------------------


def follow_suit(hand: CardSet, led_cards: CardSet) -> CardSet:
    """Follow suit if able, else anything."""
    return (hand & led_cards) or hand


def beat(cards: CardSet, above: CardSet) -> CardSet:
    """The ``cards`` that beat (are in ``above``), or all of them when none can: "raise if you
    can" (over-trumping, or beating the led suit's best card)."""
    return (cards & above) or cards


def answer(
    hand: CardSet,
    led_cards: CardSet,
    beat: CardSet,
    trumps: CardSet,
    overtrump: CardSet,
    undertrump: bool,
) -> CardSet:
    """The cards a seat holding ``hand`` may play to a started trick.

    - ``led_cards``: every card of the led (effective) suit. A seat holding some must play
      ``hand & beat`` if that is not empty, else any card it holds of the led suit.
      ``beat`` is ``led_cards`` where there is no duty to raise, the cards above the best of
      the led suit where there is (``tables.above[best]``), and the led suit and the trumps
      where a seat may trump instead of following.
    - ``trumps``: the trumps a void seat must play if it holds any; 0 where it need not
      (no trump, no duty to trump, or the partner is winning). ``overtrump``: of those, the
      ones it must play if it can: the trumps above the best trump in the trick
      (``tables.above[best]``), or ``trumps`` when no trump is in it yet.
    - ``undertrump``: unable to over-trump, it must still play a (lower) trump; if not, any
      card.
    """
    follow = hand & led_cards
    if follow:
        return (hand & beat) or follow
    held = hand & trumps
    if not held:
        return hand
    return (held & overtrump) or (held if undertrump else hand)


# -- what a claim's search may treat as one card --------------------------------------------


class ClaimOrder(NamedTuple):
    """The cards in play (in the hands and in the trick on the table) in the order that
    decides tricks, for a claim's search (:mod:`referee.rules.claims`, a game's
    ``claim_order`` hook): two cards of one seat that sit next to each other in a ladder,
    with no card in play between them but that seat's, win and lose the same tricks and
    are legal together, so the search tries one of them."""

    ladders: tuple[tuple[Card, ...], ...]
    """Per effective suit, its cards in play, the weakest first (a bower in the trump's)."""
    distinct: CardSet = 0
    """Cards that a rule of the game tells apart from their neighbours (Ulti's ulti seven,
    held for the last trick): never merged with another card, still between them."""
    trumps: CardSet = 0
    """The trumps in play, given only where the hand is played to its last trick (so the
    highest trump in play takes a trick: it must be played, and nothing beats it)."""
    to_the_end: bool = True
    """The hand is played to its last trick (it does not stop early): every card in play
    will be played."""
    follows: bool = True
    """A seat holding a card of the led suit must play one (not so where it may trump
    instead, as in Pedro)."""


def claim_order(tables: TrickTables, in_play: CardSet, distinct: CardSet = 0,
                to_the_end: bool = True, follows: bool = True) -> ClaimOrder:
    """The :class:`ClaimOrder` of the cards ``in_play`` under ``tables``: trick power
    within an effective suit is the whole of what a claim (tricks, not points) can tell
    cards apart by, but for the ``distinct`` cards. ``to_the_end``: the hand is played to
    its last trick (it does not stop early), so its ``trumps`` are given. ``follows``: a
    seat holding the led suit must play it."""
    strength = tables.strength
    ladders = []
    for cards in tables.suit_cards:
        held = cards & in_play
        if held:
            ladders.append(tuple(sorted(
                (c for c in range(52) if (held >> c) & 1), key=strength.__getitem__)))
    return ClaimOrder(tuple(ladders), distinct & in_play,
                      tables.trumps & in_play if to_the_end else 0, to_the_end, follows)
