"""Coinche's card values and the scoring of one deal by the seed's formulas
(``rules/belot-coinche.md`` §2.2 CO-C1, CO-C2 and §2.7 CO-S1 .. CO-S6)."""

from __future__ import annotations

from typing import Final

from referee.rules.cards import ACE, JACK, KING, NINE, QUEEN, RANK_OF, TEN
from referee.rules.games.belote_family import ALL_TRUMPS, CARD_POINTS, NO_TRUMPS, PACK_MASK
from referee.rules.games.coinche_rules import CoincheRules

SA: Final = NO_TRUMPS
TA: Final = ALL_TRUMPS


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
    if denom == SA:
        return POINTS_SA
    if denom == TA:
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
