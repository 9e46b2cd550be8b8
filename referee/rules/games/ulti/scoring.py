"""Evaluating and settling an Ulti deal (UL-28 .. UL-36), as pure functions of a :class:`Tally`.

The game fills a ``Tally`` from the tricks; tests may build one by hand to check the
reference's vectors directly (like OpenSpiel's ``bridge_scoring``).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from referee.rules.cards import HEARTS, SUIT_LETTERS
from referee.rules.game import JSON
from referee.rules.games.ulti.contracts import (
    BETLI,
    C20,
    C40,
    COMPONENT_NAMES,
    DURCHMARS,
    PARTI,
    ULTI,
    Contract,
)
from referee.rules.games.ulti.ruleset import UltiRules

TOTAL: Final = 90
"""Card points in a suit contract: four aces and four tens, plus 10 for the last trick."""


class Tally(NamedTuple):
    """What the play decided, as the settlement needs it."""

    declarer: int
    trump: int
    """The trump suit, or -1 in a colourless contract."""
    card_points: int
    """``cardPts(D)``: aces and tens in D's tricks, 10 for the last trick, and the talon's
    points when ``talon_to_defenders`` is off (UL-3, UL-13)."""
    tricks: tuple[int, int, int]
    """Tricks won per seat."""
    marriages: tuple[tuple[int, int], ...] = ()
    """``(seat, suit)`` of every K+O held at the start of play (UL-16); suit contracts only."""
    seven_seat: int = -1
    """The seat that played the trump 7 to trick 10, or -1."""
    last_winner: int = -1
    """The winner of trick 10, or -1 when the deal stopped early."""


def kontra_level(kon: tuple[int, ...], rek: tuple[int, ...], comp: int, seat: int) -> int:
    """1, 2 (kontra) or 4 (rekontra) for ``comp`` between the declarer and ``seat`` (UL-18)."""
    return 4 if rek[seat] & comp else (2 if kon[seat] & comp else 1)


def components(contract: Contract, rules: UltiRules) -> tuple[tuple[int, int], ...]:
    """The contract's components under ``rules`` (UL-8: without the parti when an ulti is
    bid alone and ``ulti_with_parti`` is off)."""
    comps = contract.components
    if not rules.ulti_with_parti and contract.mask == ULTI | PARTI:
        comps = tuple(cv for cv in comps if cv[0] != PARTI)
    return comps


_SEAT_KEYS: Final = ("0", "1", "2")


def settle(
    contract: Contract,
    tally: Tally,
    kon: tuple[int, ...],
    rek: tuple[int, ...],
    rules: UltiRules,
) -> tuple[tuple[int, int, int], dict[str, JSON]]:
    """Each seat's points for the deal (zero-sum) and the evaluation as JSON detail."""
    d = tally.declarer
    trump = tally.trump
    defenders = ((d + 1) % 3, (d + 2) % 3)
    tricks = tally.tricks
    mult = 2 if trump == HEARTS else 1
    side_tricks = tricks[defenders[0]] + tricks[defenders[1]]
    by_side = rules.marriage_needs_trick == "side"
    marriages: list[JSON] = []
    mar_d = mar_def = 0
    held: set[int] = set()  # the values of the declarer's marriages that count
    for s, suit in tally.marriages:
        mv = 40 if suit == trump else 20
        counts = side_tricks > 0 if by_side and s != d else tricks[s] > 0  # UL-17
        marriages.append({"seat": s, "suit": SUIT_LETTERS[suit], "value": mv, "counts": counts})
        if counts and s == d:
            mar_d += mv
            held.add(mv)
        elif counts:
            mar_def += mv
    cp_d = tally.card_points
    cp_def = TOTAL - cp_d
    dtr = tricks[d]
    seven_seat = tally.seven_seat
    last_winner = tally.last_winner
    limited = rules.declarer_marriages_limited
    won_by = {
        PARTI: cp_d + mar_d > cp_def + mar_def,  # UL-28
        C40: 40 in held and cp_d + (40 if limited else mar_d) >= 100,  # UL-29
        C20: 20 in held and cp_d + (20 if limited else mar_d) >= 100,  # UL-30
        ULTI: seven_seat == d and last_winner == d,  # UL-31
        BETLI: dtr == 0 and sum(tricks) == 10,  # UL-32
        DURCHMARS: dtr == 10,  # UL-33
    }
    points = [0, 0, 0]  # zero-sum: what a seat wins, the others pay
    out_comps: list[JSON] = []
    silent: list[JSON] = []
    for comp, v in components(contract, rules):
        won = won_by[comp]
        value = v
        if comp == PARTI and won:  # a silent 100 doubles the parti or scores its 40/20-100
            if rules.silent_100 == "double_parti":  # UL-35
                value = 2 * v if cp_d + mar_d >= 100 else v
            else:
                v40 = 2 * mult if 40 in held and cp_d + 40 >= 100 else 0
                v20 = 4 * mult if 20 in held and cp_d + 20 >= 100 else 0
                value = max(v, v40, v20)
            if value != v:
                silent.append({"feat": "silent_100", "seat": d, "value": value})
        elif comp == PARTI and rules.defenders_silent_feats and mar_def and cp_def + mar_def >= 100:
            value = 2 * v
            silent.append({"feat": "silent_100", "seat": "defenders", "value": value})
        elif comp == PARTI and contract.rank == 1:  # a lost plain Passz (UL-34)
            value = rules.lost_passz
        kontra: dict[str, JSON] = {}
        for e in defenders:
            k = kontra[_SEAT_KEYS[e]] = kontra_level(kon, rek, comp, e)
            stake = _stake(comp, value, k, won, rules.lost_ulti)
            points[e] -= stake
            points[d] += stake
        out_comps.append(
            {"name": COMPONENT_NAMES[comp], "won": won, "value": value, "kontra": kontra}
        )
    mask = contract.mask
    feats: list[tuple[str, int, int]] = []  # (feat, seat, value per opponent)
    if trump >= 0:  # UL-35: silent feats in suit contracts only, never kontra'd
        if not mask & ULTI and seven_seat == d:
            if last_winner == d:
                feats.append(("silent_ulti", d, 2 * mult))
            elif rules.lost_silent_ulti:
                feats.append(("silent_ulti_lost", d, -4 * mult))
        if not mask & DURCHMARS and dtr == 10 and rules.silent_durchmars:
            feats.append(("silent_durchmars", d, 3 * mult))
        if rules.defenders_silent_feats:
            for e in defenders:
                if seven_seat == e and last_winner == e:
                    feats.append(("silent_ulti", e, 2 * mult))
                if tricks[e] == 10:
                    feats.append(("silent_durchmars", e, 3 * mult))
    for feat, seat, value in feats:  # each opponent pays the feat's value to its seat
        silent.append({"feat": feat, "seat": seat, "value": value})
        for o in range(3):
            points[o] += 2 * value if o == seat else -value
    detail: dict[str, JSON] = {
        "contract": contract.key,
        "declarer": d,
        "trump": SUIT_LETTERS[trump] if trump >= 0 else None,
        "components": out_comps,
        "tricks": list(tricks),
        "marriages": marriages,
        "silent": silent,
    }
    if trump >= 0:
        detail["card_points"] = {"declarer": cp_d, "defenders": cp_def}
    return (points[0], points[1], points[2]), detail


def _stake(comp: int, value: int, k: int, won: bool, lost_ulti: str) -> int:
    """What a defender pays the declarer for one component at kontra level ``k`` (UL-34):
    ``v·k`` won; lost, ``-v·k``, and a lost ulti ``-2·v·k`` or ``-v·(k+1)`` (``lost_ulti``)."""
    if won:
        return value * k
    if comp == ULTI and lost_ulti == "double":
        return -2 * value * k
    if comp == ULTI and lost_ulti == "k_plus_one":
        return -value * (k + 1)
    return -value * k


def passz_not_played(first: int) -> tuple[int, int, int]:
    """UL-15 VARIANT: an unraised Passz is not played; the first player pays 2 to each."""
    points = [2, 2, 2]
    points[first] = -4
    return points[0], points[1], points[2]
