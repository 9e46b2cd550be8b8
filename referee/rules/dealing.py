"""Helpers shared by the games for dealing and for checking a recorded deal."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from referee.rules.cards import CARD_NAMES, Card, CardSet, bit, mask_of
from referee.rules.errors import RecordError
from referee.rules.game import Deal


def check_deal(
    deal: Deal,
    pack: Sequence[Card],
    hand_sizes: Sequence[int],
    stock_size: int,
    game: str,
) -> list[CardSet]:
    """Check that ``deal`` is exactly ``pack`` in the expected shape; return the hands as sets.

    :raises RecordError: naming the first problem (wrong size, a card twice, a card not in
        this game's pack, a missing card).
    """
    if len(deal.hands) != len(hand_sizes):
        raise RecordError(
            f"{game} is dealt to {len(hand_sizes)} seats, the deal has {len(deal.hands)} hands",
            "deal.hands",
        )
    for s, (hand, size) in enumerate(zip(deal.hands, hand_sizes, strict=True)):
        if len(hand) != size:
            raise RecordError(
                f"seat {s} must hold {size} cards at its first decision, not {len(hand)}",
                f"deal.hands[{s}]",
            )
    if len(deal.stock) != stock_size:
        raise RecordError(
            f"{game} leaves {stock_size} cards in the stock, not {len(deal.stock)}", "deal.stock"
        )
    hands = [mask_of(hand) for hand in deal.hands]
    union = mask_of(deal.stock)
    for m in hands:
        union |= m
    in_pack = _pack_mask(tuple(pack))
    if union == in_pack and stock_size + sum(hand_sizes) == len(pack):
        return hands  # the usual case: every card once
    seen = 0
    places = [(f"deal.hands[{s}]", h) for s, h in enumerate(deal.hands)]
    places.append(("deal.stock", deal.stock))
    for where, cards in places:
        for c in cards:
            b = bit(c)
            if not b & in_pack:
                raise RecordError(f"{CARD_NAMES[c]} is not in the {game} pack", where)
            if seen & b:
                raise RecordError(f"{CARD_NAMES[c]} is dealt twice", where)
            seen |= b
    missing = [CARD_NAMES[c] for c in pack if not seen & bit(c)]
    raise RecordError(f"the deal lacks {', '.join(missing)}", "deal")


_pack_mask: Final = functools.cache(mask_of)
"""The set of a pack's cards, kept per pack."""
