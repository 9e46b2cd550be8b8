"""The match result after rulings: computed here, and only here, for every surface (the
match's views, the scoreboard, standings, exports and ``referee verify``).

Rulings add an ``adjust`` per side to the scores as played. The official scores are the
as-played scores plus every adjustment. Once the match is over its official winner is:
for a match the arbiter ended as abandoned, the winner its abandonment policy gives
(:func:`abandoned_winner`); else the side a forfeit names (a forfeit on time decides the
match whatever the scores); else, without rulings, the rules' winner; else the one side with
the highest official score (a tie is a draw: no winner). A ``redeal`` ruling (a hand cancelled
and dealt anew) changes no score: it is not counted here, and a match record lists it under
``cancelled``, not ``rulings``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The kind of the ruling that cancels a hand and deals it anew (``Match.cancel_hand``).
REDEAL = "redeal"


def score_rulings(rulings: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rulings that adjust scores (every kind but ``redeal``)."""
    return [r for r in rulings if r.get("kind") != REDEAL]


def adjusted(scores: Sequence[int], rulings: Sequence[Mapping[str, Any]]) -> list[int]:
    """The scores with every ruling's ``adjust`` added."""
    out = list(scores)
    for r in score_rulings(rulings):
        out = [a + b for a, b in zip(out, r["adjust"], strict=True)]
    return out


#: How a tournament scores a match its arbiter ends as abandoned (docs/tournaments.md).
ABANDONMENT_POLICIES = ("forfeit", "adjusted")


def abandoned_winner(scores: Sequence[int], abandoned: Mapping[str, Any]) -> int | None:
    """The winner of a match ended as abandoned, from its (official) ``scores`` and the
    abandonment's ``faults`` (one per side: at fault or not) and ``policy``:

    - ``forfeit``: the match goes to the side not at fault; where several are not (Ulti),
      to the one of them with the highest score, the lower side on a tie; where none is, or
      every side is, nobody wins (a draw);
    - ``adjusted``: the score stands as it is, but no side at fault may win: the side not at
      fault with the highest score wins, a tie between them is a draw; nobody wins when
      every side is at fault.
    """
    faults = list(abandoned["faults"])
    clean = [i for i, f in enumerate(faults) if not f]
    if not clean:
        return None
    best = max(scores[i] for i in clean)
    leaders = [i for i in clean if scores[i] == best]
    if abandoned["policy"] == "forfeit":
        return None if len(clean) == len(faults) else leaders[0]
    return leaders[0] if len(leaders) == 1 else None


def official_winner(scores: Sequence[int], winner: int | None,
                    rulings: Sequence[Mapping[str, Any]], forfeit: object = None,
                    abandoned: Mapping[str, Any] | None = None) -> int | None:
    """The winner of a finished match after rulings (see the module docstring)."""
    if abandoned is not None:
        return abandoned_winner(adjusted(scores, rulings), abandoned)
    if forfeit is not None or not score_rulings(rulings):
        return winner
    final = adjusted(scores, rulings)
    best = max(final)
    leaders = [i for i, s in enumerate(final) if s == best]
    return leaders[0] if len(leaders) == 1 else None


def match_result(scores: Sequence[int], winner: int | None, over: bool,
                 rulings: Sequence[Mapping[str, Any]] = (),
                 forfeit: Mapping[str, Any] | None = None,
                 abandoned: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The result in the record's shape: the official ``scores``, ``winner`` (once over)
    and ``over``, the ``as_played`` figures beside them, and the forfeit or the abandonment
    if any."""
    out: dict[str, Any] = {
        "scores": adjusted(scores, rulings),
        "winner": (official_winner(scores, winner, rulings, forfeit, abandoned) if over
                   else None),
        "over": over,
        "as_played": {"scores": list(scores), "winner": winner if over else None},
    }
    if forfeit is not None:
        out["forfeit"] = dict(forfeit)
    if abandoned is not None:
        out["abandoned"] = {k: abandoned[k] for k in ("faults", "policy", "hand", "reason")}
    return out


def ruling_entry(ruling: Mapping[str, Any]) -> dict[str, Any]:
    """A ruling as a match record lists it (``docs/hand-record.md``): hand, kind, adjust,
    reason."""
    return {"hand": ruling["hand"], "kind": ruling["kind"], "adjust": list(ruling["adjust"]),
            "reason": ruling["reason"]}


def record_rulings(rulings: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The ``rulings`` of a match record: the score rulings (a redeal is in ``cancelled``)."""
    return tuple(ruling_entry(r) for r in score_rulings(rulings))


def cancellation(pack: Sequence[str], commitment: str, nonce: str, reason: str, rule: str,
                 replay: str | None) -> dict[str, Any]:
    """What a match record says of a cancelled deal besides its hand record
    (``docs/hand-record.md``, ``cancelled``): the ``pack`` in the order dealt, its
    ``commitment`` and ``nonce`` (anyone can check them), the ruling's ``reason`` and
    ``rule``, and, for the hand ruled on, the commitment its ``replay`` was dealt with."""
    out: dict[str, Any] = {"pack": list(pack), "commitment": commitment, "nonce": nonce,
                           "reason": reason, "rule": rule}
    if replay is not None:
        out["replay"] = replay
    return out
