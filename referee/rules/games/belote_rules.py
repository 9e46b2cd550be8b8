"""The rule parameters of the belote family (``rules/belot-coinche.md``): Bulgarian Belot's
(§1 and the BG rows of §3) and Coinche's (§2 and §3 V14–V35). Defaults follow the seeds, then
the reference's DEFAULT where a seed is silent or contradicts itself; each variant a named
parameter."""

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


@dataclasses.dataclass(frozen=True)
class CoincheRules(RuleSet):
    """Coinche's rule parameters (§2 and §3 V14–V35); defaults follow the seed, then the
    reference's DEFAULT where the seed is silent or contradicts itself."""

    first_hand_offset: str = choice("CO-D3", "who speaks and leads first: dealer+1 in turn order "
                                    "(DEFAULT) or dealer-1 (the seed's literal 'left of the "
                                    "dealer')", "+1", "-1")
    cards_before_auction: int = param(
        8, "CO-D4", "cards each seat holds during the auction: 8 (DEFAULT), 5 (the seed's literal "
        "reading: 3+2, auction, then 3), 6 (Saint-Etienne)", minimum=5, maximum=8)
    redeal_same_dealer: bool = param(
        False, "CO-B6", "after an all-pass deal the same dealer deals again (ContrAI)")
    ranked_denominations: bool = param(False, "CO-B2", "an equal value in a higher denomination "
                                       "overcalls (C < D < H < S < SA < TA; pagat)")
    max_bid: int = param(160, "CO-B2", "highest numeric bid before capot (V33; some tables go to "
                         "180)", minimum=160, maximum=180)
    generale: bool = param(False, "CO-B1", "the generale bid (one player takes all 8) (V30)")
    generale_value: int = param(500, "CO-S1", "contract value of a generale (V30)", minimum=1)
    coinche_out_of_turn: bool = param(
        False, "CO-B4", "an opponent may coinche out of turn, 'a la volee' (V26)")
    coinche_freezes: bool = param(True, "CO-B4", "a coinche freezes the auction; off: "
                                  "'decoincher', a higher bid cancels it (V27)")
    capot_doublable: bool = param(True, "CO-B8", "a capot bid may be coinched (V28)")
    undertrump_required: bool = param(
        True, "CO-P5", "void and unable to overtrump an opponent: must still play a lower trump "
        "('pisser', V24); off: any card (FFB contree)")
    ta_raise_over_partner: bool = param(True, "CO-P3", "in tout atout, must beat the led suit "
                                        "even when the partner is winning (V25)")
    ta_values: str = choice("CO-C2", "tout atout card values: pagat J14 9-9 A6 10-5 K3 Q1, or "
                            "FFB 2015 J13 9-9 A6 10-5 K3 Q2 (V31)", "pagat", "ffb2015")
    sa_carre_scale: str = choice("CO-A1", "carres in sans atout: ffb (4 A 200, 4 10 150, 4 "
                                 "K/Q/J/9 100) or as in a suit contract", "ffb", "standard")
    announcement_tie: str = choice("CO-A3", "equal best announcements of both teams: nobody "
                                   "scores (FFB), or the first announced wins (V32)",
                                   "cancel", "first")
    belote_must_be_said: bool = param(True, "CO-A4", "belote counts only when 'belote' and "
                                      "'rebelote' are said with the K and Q (FFB 2016)")
    belote_to_defence_on_failure: bool = param(
        False, "CO-S3", "a failed taker's belote goes to the defence ('prenable', FFB contree); "
        "DEFAULT 'imprenable' (V23)")
    floor82: bool = param(
        True, "CO-S1", "a numeric contract also needs 82 card points, announcements excluded (V16)")
    announcements_help_contract: bool = param(
        True, "CO-A5", "announcements and belote count towards the contract (V17)")
    must_beat_defence: bool = param(
        False, "CO-S1", "the taker must also score more than the defence (FFB coinche PDF, V18)")
    surcoinche_mult: int = param(4, "CO-S4", "surcoinche multiplier: 4 (seed) or 3 (FFB Equipe "
                                 "Ludique, Cannes) (V19)", minimum=3, maximum=4)
    made_mult_scope: str = choice("CO-S4", "coinched contract made: card + C*M (contract), "
                                  "(card + C)*M (whole), 160 + C*M (flat160) (V20)",
                                  "contract", "whole", "flat160")
    failed_mult_scope: str = choice("CO-S5", "coinched contract failed: the whole defence total "
                                    "* M (seed), or only C*M (Cannes) (V21)", "whole", "contract")
    failure_base: str = choice("CO-S3", "defence base when the contract fails: 162+C (seed), "
                               "160+C, 160, 162, C (V22)", "162+C", "160+C", "160", "162", "C")
    capot_value: int = param(250, "CO-S1", "contract value C of a capot bid (V29)", minimum=1)
    capot_card_points: int = param(252, "CO-S1", "card points of a team that takes all 8 "
                                   "tricks: 252 (FFB) or 250 (pagat)", minimum=250, maximum=252)
    rounding: str = choice("CO-S6", "card points exact (seed), or rounded to the nearest 10 with "
                           "85 -> 90 after deciding the contract (FFB) (V34)", "none", "nearest10")
    target_score: int = param(701, "CO-G1", "points that end the match", minimum=1)
    tie_at_target: str = choice("CO-G2", "both teams level at the target: play on (DEFAULT) or "
                                "a draw (V35)", "play_on", "draw")
