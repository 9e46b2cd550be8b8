"""Bulgarian Belot's rule parameters (``rules/belot-coinche.md`` §1 and the BG rows of §3):
the seed's rules by default, each variant a named parameter."""

from __future__ import annotations

import dataclasses

from referee.rules.params import RuleSet, choice, param


@dataclasses.dataclass(frozen=True)
class BelotRules(RuleSet):
    """Bulgarian Belot's rule parameters (§1 and the BG rows of §3); defaults follow the seed."""

    target_score: int = param(151, "BG-G1", "match points that end the game", minimum=1)
    bg_double_freezes_auction: bool = param(False, "BG-B5", "after a contra no higher contract "
                                            "may be bid (V2; default: bidding goes on)")
    bg_surcontra: bool = param(False, "BG-B1", "a third doubling level, surcontra (x8), by the "
                               "defenders after a recontra (V12, regional)")
    bg_valat_contra: str = choice(
        "BG-S8", "a valat under contra: the contra falls away and the side with more points "
        "takes the undoubled total (winner_takes_all, NikolayIT); or the deal is scored as "
        "undoubled (undoubled); or the contra stays, the side with more points taking the total "
        "x2 / x4 (keeps_multiplier, the source text: the valat premium is doubled too) (V3)",
        "winner_takes_all", "undoubled", "keeps_multiplier")
    bg_valat_exit: str = choice(
        "BG-G2", "'с капо не се излиза': one more (non-valat, non-void) deal after a deciding "
        "valat; or the game ends only on a non-valat deal the winner scored in (NikolayIT); or "
        "off (V5)", "one_more_deal", "winner_scores_last", "off")
    bg_seq8: str = choice("BG-A5", "an 8-card run is one kvinta (100), or kvinta plus terca "
                          "(120, NikolayIT, V6)", "kvinta", "kvinta_terca")
    bg_kare_order: str = choice("BG-A6", "100-point kares rank by trump value A>10>K>Q (seed), "
                                "or by rank A>K>Q>10 (NikolayIT, V7)", "value", "rank")
    bg_declaration_contest: str = choice(
        "BG-A6", "sequences and kares are two separate contests (seed), or one combined contest "
        "(the 2001 program, V8)", "separate", "combined")
    bg_nt_declarations: bool = param(False, "BG-A2", "declarations allowed in No Trumps at face "
                                     "value, not doubled (2001 program, V9)")
    bg_suit_rounding: str = choice("BG-R2", "suit contracts round ...5 down and a ...6 towards "
                                   "the smaller side (seed), or half up (V10)", "seed", "half_up")
    bg_small_side_min_one: bool = param(
        False, "BG-R1", "a side with any points never rounds to 0: it takes 1 from the other "
        "side, so that both still add up to the rounded total (BG-R; the 2001 program, V11)")
