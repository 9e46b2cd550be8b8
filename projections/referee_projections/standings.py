"""Tournament standings and the duplicate comparison: a pure function of the tournament and
its matches' summaries (what the standings projection stores).

- A match counts once it is over: each side's entrant gets the match's official scores
  (rulings applied) as points for (its own) and against (the other sides'), and the official
  winner (``referee.domain.result``: the one place that rule lives; no winner is a draw). A
  match the arbiter ended as abandoned is scored by the tournament's abandonment policy
  there too; each side at fault counts it in its ``abandoned``.
- ``matches`` lists every attached match: its sides, its players as they sit now (a
  substitute's name after a substitution), and its official result.
- Duplicate boards: matches attached with the same ``board`` were dealt the same fixed
  packs, so hand ``h`` (for ``h`` up to the number of fixed deals) is the same deal at every
  table.
  For each such hand finished at two or more tables, side ``i``'s *net* at a table is
  ``(n - 1) * p_i - sum(p_others)`` (for two sides: own points minus the opponents'), with
  ``p`` the hand's points plus any ruling on that hand (a hand a ``redeal`` ruling dealt anew
  holds other cards at that table: the table is left out). Side ``i``'s comparison at table
  ``t`` is the sum over the other tables ``u`` of ``net_i(t) - net_i(u)``: the entrants who
  held the same cards are compared, and the totals are zero-sum. Against the field, as
  duplicate play scores it, each side also gets, per other table, ``matchpoints`` (2 when its
  net is higher, 1 when equal, 0 when lower) and ``scaled`` (the net difference on the game's
  difference scale, ``referee.rules.game.scaled_difference``, as bridge's IMPs).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from referee.domain.result import match_result
from referee.rules.game import scaled_difference
from referee.rules.registry import find_game


def _hand_points(summary: dict[str, Any], hand: int) -> list[int] | None:
    """Hand ``hand``'s points with its rulings, or None (not finished, or dealt anew after
    a ``redeal``: no longer the board's cards, so left out of the comparison)."""
    points = summary["hands"].get(str(hand))
    if points is None or hand in summary.get("redealt", ()):
        return None
    out = list(points)
    for r in summary["rulings"]:
        if r["hand"] == hand:
            out = [a + b for a, b in zip(out, r["adjust"], strict=True)]
    return out


def _final(summary: dict[str, Any]) -> tuple[list[int], int | None]:
    """The match's official scores and winner (``referee.domain.result``)."""
    result = match_result(summary["scores"], summary["winner"], True, summary["rulings"],
                          summary.get("forfeit"), summary.get("abandoned"))
    return result["scores"], result["winner"]


def _net(points: list[int], side: int) -> int:
    n = len(points)
    return (n - 1) * points[side] - (sum(points) - points[side])


def compute_standings(
    tournament: dict[str, Any], summaries: dict[str, dict[str, Any] | None]
) -> dict[str, Any]:
    """The standings document of one tournament."""
    rows: dict[str, dict[str, Any]] = {
        name: {"entrant": name, "played": 0, "won": 0, "lost": 0, "drawn": 0,
               "points_for": 0, "points_against": 0, "duplicate": 0, "matchpoints": 0,
               "scaled": 0, "abandoned": 0}
        for name in tournament["entrants"]
    }
    boards: dict[str, list[str]] = defaultdict(list)
    matches = []
    for mid, attached in sorted(tournament["matches"].items()):
        summary = summaries.get(mid)
        if summary is None:
            continue
        if attached["board"]:
            boards[attached["board"]].append(mid)
        entry = {"match_id": mid, "sides": list(attached["sides"]),
                 "players": list(summary["players"]), "over": summary["over"]}
        matches.append(entry)
        if not summary["over"]:
            continue
        scores, winner = _final(summary)
        abandoned = summary.get("abandoned")
        entry.update(scores=scores, winner=winner)
        if abandoned is not None:
            entry["abandoned"] = {"faults": abandoned["faults"], "policy": abandoned["policy"],
                                  "reason": abandoned["reason"]}
        for side, entrant in enumerate(attached["sides"]):
            row = rows[entrant]
            row["played"] += 1
            if abandoned is not None and abandoned["faults"][side]:
                row["abandoned"] += 1
            row["points_for"] += scores[side]
            row["points_against"] += sum(scores) - scores[side]
            if winner is None:
                row["drawn"] += 1
            elif winner == side:
                row["won"] += 1
            else:
                row["lost"] += 1
    comparisons = []
    game = find_game(tournament["game"])
    for board, mids in sorted(boards.items()):
        deals = min(summaries[m]["fixed_deals"] for m in mids)  # type: ignore[index]
        for hand in range(1, deals + 1):
            tables = []
            for mid in mids:
                points = _hand_points(summaries[mid], hand)  # type: ignore[arg-type]
                if points is not None:
                    tables.append((mid, tournament["matches"][mid]["sides"], points))
            if len(tables) < 2:
                continue
            out_tables = []
            for mid, sides, points in tables:
                dup, mps, scaled = [], [], []
                for side in range(len(points)):
                    diffs = [_net(points, side) - _net(other, side)
                             for omid, _, other in tables if omid != mid]
                    d = sum(diffs)
                    # Matchpoints: 2 for each table the side did better than, 1 for a tie.
                    mp = sum(2 if x > 0 else 1 if x == 0 else 0 for x in diffs)
                    sc = sum(scaled_difference(game, x) for x in diffs)
                    dup.append(d)
                    mps.append(mp)
                    scaled.append(sc)
                    row = rows[sides[side]]
                    row["duplicate"] += d
                    row["matchpoints"] += mp
                    row["scaled"] += sc
                out_tables.append({"match_id": mid, "sides": sides, "points": points,
                                   "duplicate": dup, "matchpoints": mps, "scaled": scaled})
            comparisons.append({"board": board, "hand": hand, "tables": out_tables})
    ranking = sorted(rows.values(), key=lambda r: (-r["won"], -r["duplicate"],
                                                    -(r["points_for"] - r["points_against"]),
                                                    r["entrant"]))
    return {"tournament_id": tournament["tournament_id"], "name": tournament["name"],
            "game": tournament["game"], "entrants": ranking, "boards": comparisons,
            "matches": len(tournament["matches"]), "results": matches,
            "abandonment": tournament.get("abandonment", "forfeit"),
            # Provisional until the correction window closes (FinalizeResults).
            "final": bool(tournament.get("final"))}
