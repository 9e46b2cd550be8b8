"""Scoring one Bulgarian Belot deal from the teams' raw points (``rules/belot-coinche.md``
§1.7: BG-S2 .. BG-S8 and the rounding rules BG-R1 .. BG-R4)."""

from __future__ import annotations

from typing import NamedTuple

from referee.rules.games.belot_rules import BelotRules
from referee.rules.games.belote_family import ALL_TRUMPS, NO_TRUMPS, Mode


class DealScore(NamedTuple):
    """What one deal writes down: ``points`` per team, points ``hanging`` into the pot, the team
    that takes the pot carried in (``None`` when the deal hangs), and the outcome word."""

    points: tuple[int, int]
    hanging: int
    pot_winner: int | None
    outcome: str


def round_all(x: int) -> int:
    """BG-R1: tenths, half up."""
    return (x + 5) // 10


def round_team(mode: Mode, x: int, higher: bool, rules: BelotRules) -> int:
    """BG-R2 / BG-R3: one team's match points; ``higher`` says it has more raw points."""
    if mode == NO_TRUMPS or (mode < NO_TRUMPS and rules.bg_suit_rounding == "half_up"):
        v = round_all(x)
    else:
        q, m = divmod(x, 10)
        problem = 4 if mode == ALL_TRUMPS else 6
        v = q + 1 if m > problem or (m == problem and not higher) else q
    return v


def _min_one(raw: int, v: int, other: int, rules: BelotRules) -> tuple[int, int]:
    """``bg_small_side_min_one`` (V11): a side that took points and rounds to 0 gets 1, moved
    from the ``other`` side's figure so that the two still add up (BG-R)."""
    if rules.bg_small_side_min_one and raw > 0 and v == 0:
        return 1, other - 1
    return v, other


def score_deal(
    mode: Mode,
    level: int,
    declarer_team: int,
    raw: tuple[int, int],
    valat: bool,
    rules: BelotRules,
) -> DealScore:
    """Score one deal from the teams' raw points (BG-S2 .. BG-S8).

    ``raw`` already holds card points, last ten, declarations and belot, NT doubling and the
    valat 90. ``level`` is 1, 2 (contra), 4 (recontra) or 8 (surcontra).
    """
    b = declarer_team
    o = 1 - b
    total = raw[0] + raw[1]
    coef = level
    doubled = level > 1
    if valat and doubled:  # BG-S8: contra falls away (V3: unless it keeps its multiplier)
        if rules.bg_valat_contra == "winner_takes_all":
            coef = 1
        elif rules.bg_valat_contra == "undoubled":
            doubled = False
    pts = [0, 0]
    if doubled:  # BG-S7
        v = coef * round_all(total)
        if raw[b] == raw[o]:
            return DealScore((0, 0), v, None, "hanging")
        w = 0 if raw[0] > raw[1] else 1
        pts[w] = v
        return DealScore((pts[0], pts[1]), 0, w, "made" if w == b else "inside")
    if raw[b] < raw[o]:  # BG-S4
        pts[o] = round_all(total)
        return DealScore((pts[0], pts[1]), 0, o, "inside")
    if raw[b] == raw[o]:  # BG-S5
        pts[o], hanging = _min_one(
            raw[o], round_team(mode, raw[o], True, rules), round_team(mode, raw[b], False, rules),
            rules,
        )  # fmt: skip
        return DealScore((pts[0], pts[1]), hanging, None, "hanging")
    pts[o], pts[b] = _min_one(  # BG-S3
        raw[o], round_team(mode, raw[o], False, rules), round_team(mode, raw[b], True, rules),
        rules,
    )  # fmt: skip
    return DealScore((pts[0], pts[1]), 0, b, "made")
