"""The match result after rulings: computed here, and only here, for every surface (the
match's views, the scoreboard, standings, exports and ``referee verify``).

Rulings add an ``adjust`` per side to the scores as played. The official scores are the
as-played scores plus every adjustment. Once the match is over its official winner is:
the side a forfeit names (a forfeit on time decides the match whatever the scores); else,
without rulings, the rules' winner; else the one side with the highest official score (a tie
is a draw: no winner).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def adjusted(scores: Sequence[int], rulings: Sequence[Mapping[str, Any]]) -> list[int]:
    """The scores with every ruling's ``adjust`` added."""
    out = list(scores)
    for r in rulings:
        out = [a + b for a, b in zip(out, r["adjust"], strict=True)]
    return out


def official_winner(scores: Sequence[int], winner: int | None,
                    rulings: Sequence[Mapping[str, Any]], forfeit: object = None
                    ) -> int | None:
    """The winner of a finished match after rulings (see the module docstring)."""
    if forfeit is not None or not rulings:
        return winner
    final = adjusted(scores, rulings)
    best = max(final)
    leaders = [i for i, s in enumerate(final) if s == best]
    return leaders[0] if len(leaders) == 1 else None


def match_result(scores: Sequence[int], winner: int | None, over: bool,
                 rulings: Sequence[Mapping[str, Any]] = (),
                 forfeit: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The result in the record's shape: the official ``scores``, ``winner`` (once over)
    and ``over``, the ``as_played`` figures beside them, and the forfeit if any."""
    out: dict[str, Any] = {
        "scores": adjusted(scores, rulings),
        "winner": official_winner(scores, winner, rulings, forfeit) if over else None,
        "over": over,
        "as_played": {"scores": list(scores), "winner": winner if over else None},
    }
    if forfeit is not None:
        out["forfeit"] = dict(forfeit)
    return out


def ruling_entry(ruling: Mapping[str, Any]) -> dict[str, Any]:
    """A ruling as a match record lists it (``docs/hand-record.md``): hand, kind, adjust,
    reason."""
    return {"hand": ruling["hand"], "kind": ruling["kind"], "adjust": list(ruling["adjust"]),
            "reason": ruling["reason"]}
