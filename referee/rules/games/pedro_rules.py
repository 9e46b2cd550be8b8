"""Pedro's rule parameters (``rules/euchre-pedro-ulti.md`` §2 and §4.2): the seed's rules by
default, then the reference's; every point where the sources differ is a named parameter."""

from __future__ import annotations

import dataclasses

from referee.rules.params import RuleSet, param


@dataclasses.dataclass(frozen=True)
class PedroRules(RuleSet):
    """Pedro's rule parameters (§2 and §4.2); defaults follow the seed, then the reference."""

    min_bid: int = param(1, "PE-7", "lowest bid (KATZ/DENEXA: 1; PIDRO: 6)", minimum=1, maximum=14)
    fourteen_overcall: bool = param(
        False, "PE-7", "a bid of 14 may be topped by another 14 (PIDRO)"
    )
    all_pass: str = param(
        "redeal",
        "PE-9",
        "when the first three pass: the dealer may pass too and dealer+1 deals again (seed); "
        "the dealer must bid, 6 or more (PIDRO, 'dealer_forced'); or the dealer may also "
        "name trump with no minimum, bid:0 (KATZ, 'dealer_free')",
        choices=("redeal", "dealer_forced", "dealer_free"),
    )
    discard_rule: str = param(
        "at_least_three",
        "PE-12",
        "at least three cards, never a counting trump (seed); or every non-trump, trumps only "
        "beyond six (KATZ; PIDRO's kill rule gives the same sets), 'all_non_trumps'",
        choices=("at_least_three", "all_non_trumps"),
    )
    dealer_robs_pack: bool = param(
        False,
        "PE-13",
        "the dealer, served last, picks cards from the rest of the widow instead of drawing "
        "blind (KATZ, DENEXA, WP)",
    )
    low_point: str = param(
        "trick_winner",
        "PE-4",
        "the point for the 2 of trump goes to the side winning its trick (seed) or to the side "
        "of the player who played it (Pitch/PIDRO, 'played_by')",
        choices=("trick_winner", "played_by"),
    )
    defenders_score_own: bool = param(
        False,
        "PE-21",
        "on a made bid the defenders also score the points they took (PIDRO, KATZ-style, JC-CINCH)",
    )
    failed_bid: str = param(
        "defenders_score_bid",
        "PE-22",
        "on a failed bid: the defenders score the bid (seed); the defenders score their own "
        "points plus the bid (POKERWINER, 'fail_opponents_own_plus_bid'); the makers score "
        "minus the bid and the defenders their own points (PIDRO, 'fail_minus_bid')",
        choices=("defenders_score_bid", "fail_opponents_own_plus_bid", "fail_minus_bid"),
    )
    target_score: int = param(50, "PE-23", "points that win the match (seed: e.g. 50)", minimum=1)
    both_reach_target: str = param(
        "makers_win",
        "PE-23",
        "when both sides reach the target in one hand: the bidding side counts first and wins "
        "(JC-CINCH, PIDRO), or the higher total wins (makers on a tie), 'higher_score'",
        choices=("makers_win", "higher_score"),
    )
