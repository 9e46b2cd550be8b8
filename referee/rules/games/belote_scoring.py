"""Scoring one deal of the belote family (``rules/belot-coinche.md``): Bulgarian Belot's from
the teams' raw points (§1.7: BG-S2 .. BG-S8, the rounding rules BG-R1 .. BG-R4), and Coinche's
card values and seed formulas (§2.2 CO-C1, CO-C2 and §2.7 CO-S1 .. CO-S6)."""

from __future__ import annotations

from typing import Final, NamedTuple

from referee.rules.cards import ACE, JACK, KING, NINE, QUEEN, RANK_OF, TEN
from referee.rules.games.belote_family import ALL_TRUMPS, CARD_POINTS, NO_TRUMPS, PACK_MASK, Mode
from referee.rules.games.belote_rules import BelotRules, CoincheRules

# -- Bulgarian Belot (BG-S2 .. BG-S8, BG-R1 .. BG-R4) -----------------------------------------


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


# -- Coinche card values (CO-C1, CO-C2) --------------------------------------------------------

_SA_VALUES: Final = {ACE: 19, TEN: 10, KING: 4, QUEEN: 3, JACK: 2}
_TA_VALUES: Final = {
    "pagat": {JACK: 14, NINE: 9, ACE: 6, TEN: 5, KING: 3, QUEEN: 1},
    "ffb2015": {JACK: 13, NINE: 9, ACE: 6, TEN: 5, KING: 3, QUEEN: 2},
}


def _value_table(values: dict[int, int]) -> tuple[int, ...]:
    return tuple(values.get(RANK_OF[c], 0) if (PACK_MASK >> c) & 1 else 0 for c in range(52))


POINTS_SA: Final = _value_table(_SA_VALUES)
POINTS_TA: Final = {k: _value_table(v) for k, v in _TA_VALUES.items()}


def card_points_table(denom: int, rules: CoincheRules) -> tuple[int, ...]:
    """``table[card]``: card points under ``denom`` (each contract totals 152 + 10)."""
    if denom == NO_TRUMPS:
        return POINTS_SA
    if denom == ALL_TRUMPS:
        return POINTS_TA[rules.ta_values]
    return CARD_POINTS[denom]


# -- scoring (CO-S1 .. CO-S6) --------------------------------------------------------------------


def score(
    rules: CoincheRules,
    *,
    value: int,
    kind: str,
    level: int,
    card: tuple[int, int],
    ann: tuple[int, int],
    bel: tuple[int, int],
    taker: int,
    all_tricks: bool = False,
) -> tuple[bool, tuple[int, int]]:
    """Whether the contract is made and each team's points, by the seed's formulas (§2.7).

    ``card`` are card points per team including last ten (252 for a capot, see CO-S1), ``ann``
    the valid announcements after CO-A3, ``bel`` belote per team, ``taker`` the taker's team,
    ``kind`` ``"numeric"``, ``"capot"`` or ``"generale"``; ``all_tricks`` whether the taker team
    (capot) or the bidder (generale) took all 8 tricks.
    """
    t, d = taker, 1 - taker
    if kind == "numeric":
        extra_t = ann[t] + bel[t] if rules.announcements_help_contract else 0
        extra_d = ann[d] + bel[d] if rules.announcements_help_contract else 0
        made = card[t] + extra_t >= value
        if rules.floor82 and card[t] < 82:
            made = False
        if rules.must_beat_defence and card[t] + extra_t <= card[d] + extra_d:
            made = False
    else:
        made = all_tricks
    if rules.rounding == "nearest10":  # CO-S6: after deciding the contract
        card = ((card[0] + 5) // 10 * 10, (card[1] + 5) // 10 * 10)
    mult = rules.surcoinche_mult if level == 4 else level
    out = [0, 0]
    if made:
        if mult == 1:
            out[t] = card[t] + value + ann[t] + bel[t]
            out[d] = card[d] + ann[d] + bel[d]
        else:
            base = {
                "contract": card[t] + value * mult,
                "whole": (card[t] + value) * mult,
                "flat160": 160 + value * mult,
            }[rules.made_mult_scope]
            out[t] = base + ann[t] + ann[d] + bel[t]
            out[d] = bel[d]
        return True, (out[0], out[1])
    bel_t, bel_d = bel[t], bel[d]
    if rules.belote_to_defence_on_failure:
        bel_t, bel_d = 0, bel_d + bel_t
    contract_part = value * mult if (mult > 1 and rules.failed_mult_scope == "contract") else value
    base = {
        "162+C": 162 + contract_part,
        "160+C": 160 + contract_part,
        "160": 160,
        "162": 162,
        "C": contract_part,
    }[rules.failure_base]
    total = base + ann[t] + ann[d] + bel_d
    if mult > 1 and rules.failed_mult_scope == "whole":
        total *= mult
    out[t] = bel_t
    out[d] = total
    return False, (out[0], out[1])
