"""What a seat puts to the other sides of its table and they answer: an undo request, an
unchecked claim (docs/undo.md, docs/claims.md). One rule for both: each other side answers
once, by any of its seats; a refusal ends the proposal, and it is carried when every other
side has agreed."""

from __future__ import annotations

from collections.abc import Sequence

from referee.domain.errors import RefereeError


def answering_side(sides: Sequence[frozenset[int]], seat: int, asking: int,
                   agreed: Sequence[int], refusal: type[RefereeError], what: str,
                   policy: str) -> int:
    """The index in ``sides`` of the side ``seat`` answers for.

    :raises refusal: ``seat`` is on the asking seat's side, or its side already agreed (the
        message names ``what`` was asked and the ``policy``)."""
    side = next(i for i, s in enumerate(sides) if seat in s)
    if asking in sides[side]:
        raise refusal(f"seat {seat} is on the side that asked ({what}, seat {asking}): the "
                      f"other sides answer ({policy})", seat=seat)
    if side in agreed:
        raise refusal(f"seat {seat}'s side already agreed ({what}; {policy})", seat=seat)
    return side


def carried(sides: Sequence[frozenset[int]], agreed: Sequence[int]) -> bool:
    """Whether every side but the asking one has agreed."""
    return len(agreed) == len(sides) - 1
