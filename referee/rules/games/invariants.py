"""Each game's result invariants: what every scored deal must satisfy (the points add up,
the right side scores), checked over random playouts by the conformance suite
(:func:`referee.rules.conformance.check_playout` through ``Game.check_result``). They cite the
rule ids they restate. A failed invariant raises :class:`ConformanceError`.
"""

from __future__ import annotations

from typing import Any

from referee.rules.conformance import ConformanceError
from referee.rules.game import HandResult


def expect(ok: bool, what: str) -> None:
    """:raises ConformanceError: unless ``ok`` (``what``: the rule it restates, in words)."""
    if not ok:
        raise ConformanceError(f"result invariant broken: {what}")


def euchre(result: HandResult, rules: Any) -> None:
    # EU-24: only one side scores in a hand; EU-25: the values are 1, 2 or 4 (or the
    # defenders_march_points variant of EU-23).
    if _void(result):
        return
    values = {1, 2, 4, rules.defenders_march_points}
    expect(min(result.points) == 0 and max(result.points) in values,
           "EU-24, EU-25: one side scores 1, 2 or 4")
    expect(sum(result.detail["tricks"]) == 5, "a hand has five tricks")
    makers = result.detail["maker"] % 2
    expect((result.points[makers] > 0) == (result.detail["tricks"][makers] >= 3),
           "EU-21..EU-23: the makers score exactly when they take three tricks or more")


def pedro(result: HandResult, rules: Any) -> None:
    # PE-9: an all-pass deal scores nothing. PE-4: 14 points in all, minus those in the
    # face-up widow (P-T16 invariant). PE-19..PE-22: made or failed decides who scores.
    if _void(result):
        return
    d = result.detail
    taken = d["points_taken"]
    expect(sum(taken) + d["widow_points"] == 14,
           "PE-4: the points taken and those left in the widow make 14")
    makers = d["maker"] % 2
    expect(d["made"] == (taken[makers] >= d["bid"]),
           "PE-19: the bid is made when the makers take as many points")
    own = taken[1 - makers] if rules.defenders_score_own else 0
    failed = {
        "defenders_score_bid": (0, d["bid"]),
        "fail_opponents_own_plus_bid": (0, taken[1 - makers] + d["bid"]),
        "fail_minus_bid": (-d["bid"], taken[1 - makers]),
    }[rules.failed_bid]
    expected = (taken[makers], own) if d["made"] else failed
    expect((result.points[makers], result.points[1 - makers]) == expected,
           "PE-19..PE-22: each side scores as made or failed_bid says")


def ulti(result: HandResult, rules: Any) -> None:
    # UL-36: the settlement is zero-sum over the three seats; UL-3 / §3.9 invariant: the
    # declarer's and the defenders' card points make 90 in a suit contract.
    expect(sum(result.points) == 0 and len(result.points) == 3,
           "UL-36: the settlement is zero-sum over three seats")
    d = result.detail
    if d.get("played") is False:  # UL-15 variant: an unraised Passz is paid, not played
        expect(sorted(result.points) == [-4, 2, 2],
               "UL-15: the first player pays 2 to each defender")
        return
    expect(sum(d["tricks"]) <= 10, "a deal has at most ten tricks")
    if d["trump"] is not None:
        expect(sum(d["tricks"]) == 10, "UL-27: only a colourless contract stops early")
        expect(d["card_points"]["declarer"] + d["card_points"]["defenders"] == 90,
               "UL-3: the card points make 90")


def belot(result: HandResult, rules: Any) -> None:
    # BG-B6: an all-pass deal scores nothing. BG-C5: the card points are 152 / 120 / 248;
    # BG-S1: raw = (cards + last ten) x2 in NT, + declarations + belot, + 90 for a valat;
    # BG-S3..S7 / BG-R: what is written down (plus what hangs) is the rounded deal total.
    d = _eight_tricks(result)
    if d is None:
        return
    mode = d["contract"]
    expect(sum(d["card_points"]) == {"NT": 120, "AT": 248}.get(mode, 152),
           "BG-C5: the card points make 152, 120 in no trumps, 248 in all trumps")
    bonus = [0, 0]
    for decl in d["declarations"]:
        bonus[decl["seat"] % 2] += decl["points"]
    belot = [20 * sum(1 for b in d["belots"] if b["seat"] % 2 == t) for t in (0, 1)]
    expect(mode != "NT" or belot == [0, 0], "BG-A7: no belot in no trumps")
    raw = []
    for t in (0, 1):
        base = d["card_points"][t] + (10 if d["last_trick"] == t else 0)
        value = (2 * base if mode == "NT" else base + belot[t]) + bonus[t]
        raw.append(value + (90 if d["tricks"][t] == 8 else 0))
    expect(d["raw"] == raw,
           "BG-S1: the raw points are the cards, last ten, declarations, belot and valat")
    total = (raw[0] + raw[1] + 5) // 10
    written = sum(result.points) + d["hanging"]
    expect(min(result.points) >= 0 and d["hanging"] >= 0,
           "BG-S3..BG-S7: no figure written down and no pot is negative")
    declarer = d["declarer"] % 2
    # BG-S8: a valat cancels the contra, unless the V3 reading keeps its multiplier
    kept = rules.bg_valat_contra == "keeps_multiplier"
    level = d["level"] if d["valat"] is None or kept else 1
    if level > 1 or (d["level"] > 1 and rules.bg_valat_contra == "winner_takes_all"):
        expect(written == level * total and min(result.points) == 0,
               "BG-S7: under contra one side takes the deal's total times the level")
    elif raw[declarer] < raw[1 - declarer]:
        expect(result.points[declarer] == 0 and written == total,
               "BG-S4: the declarers inside score nothing, the defenders the total")
    else:
        exact = not (rules.bg_small_side_min_one
                     or rules.bg_suit_rounding != "seed")
        expect(written == total if exact else abs(written - total) <= 1,
               "BG-R: the written figures add up to the rounded total")
    expect((d["outcome"] == "hanging") == (raw[0] == raw[1]),
           "BG-S2: a deal hangs exactly when the raw points are equal")


def coinche(result: HandResult, rules: Any) -> None:
    # CO-B6c: a thrown-in deal scores nothing. CO-C1/CO-C2: card points total 162 in every
    # contract (252 to one side on a capot, CO-S1). CO-S2..CO-S5: a failed taker scores only
    # its belote; a taker that makes scores at least the contract's value; the defence of a
    # failed contract scores at least the failure base (CO-S3 / V22), which is a flat 160 or
    # 162 under those variants, so it can be below a capot's 250 or a generale's value.
    d = _eight_tricks(result)
    if d is None:
        return
    taker = d["contract"]["team"]
    values = rules.to_dict(only_changed=False)
    capot_points = values["capot_card_points"]
    expect(sum(d["card_points"]) == (capot_points if d["capot"] else 162),
           "CO-C1, CO-C2, CO-S1: the card points make 162, or the capot's figure")
    if d["made"]:
        expect(result.points[taker] >= d["contract"]["value"],
               "CO-S2, CO-S4: a taker that makes scores at least its contract")
    else:
        kept = 0 if values["belote_to_defence_on_failure"] else d["belote"][taker]
        expect(result.points[taker] == kept, "CO-S3, CO-S5: a failed taker scores only its belote")
        value = d["contract"]["value"]
        base = {"162+C": 162 + value, "160+C": 160 + value, "160": 160, "162": 162, "C": value}
        expect(result.points[1 - taker] >= base[values["failure_base"]],
               "CO-S3, CO-S5: the defence of a failed contract scores at least the failure base")


def _eight_tricks(result: HandResult) -> Any:
    """A belote-family deal's detail, its eight tricks checked; ``None`` for a deal thrown in,
    which scores nothing (BG-B6, CO-B6c)."""
    if _void(result):
        return None
    expect(sum(result.detail["tricks"]) == 8, "a deal has eight tricks")
    return result.detail


def _void(result: HandResult) -> bool:
    """Whether the deal was thrown in (everybody passed), which scores nothing."""
    if result.void:
        expect(result.points == (0, 0), "a deal thrown in scores nothing")
    return result.void
