"""Euchre's rule parameters (``rules/euchre-pedro-ulti.md`` §1 and §4.1): the seed's rules by
default, each variant a named parameter."""

from __future__ import annotations

import dataclasses

from referee.rules.params import RuleSet, param


@dataclasses.dataclass(frozen=True)
class EuchreRules(RuleSet):
    """Euchre's rule parameters (§1 and §4.1); defaults follow the seed."""

    stick_the_dealer: bool = param(
        True, "EU-8", "in round 2 the dealer may not pass and must name a suit"
    )
    lone_defender: bool = param(
        True, "EU-14", "a defender may also go alone (the seed: 'pozostali gracze')"
    )
    dealer_may_discard_upcard: bool = param(
        True, "EU-11", "the dealer may lay aside the upcard just taken (OpenSpiel: no)"
    )
    defend_alone_only_vs_loner: bool = param(
        False, "EU-14", "a defender may go alone only when the maker went alone (W-EU, EGN)"
    )
    canadian: bool = param(
        False, "EU-15", "the dealer's partner who orders up in round 1 must go alone (EGN)"
    )
    loner_lead: str = param(
        "left_of_dealer",
        "EU-16",
        "who leads when someone plays alone: the next active seat after the dealer, or the "
        "seat after the lone player (W-EU, EGN LEFT_OF_LONER)",
        choices=("left_of_dealer", "left_of_loner"),
    )
    lone_defender_euchre: str = param(
        "all_five",
        "EU-23",
        "a lone defender's euchre scores 4 only with all five tricks (seed), or always "
        "(OpenSpiel, EGN)",
        choices=("all_five", "any"),
    )
    defenders_march_points: int = param(
        2,
        "EU-23",
        "defenders taking all five with nobody alone (W-EU regional: 4)",
        minimum=2,
        maximum=4,
    )
    target_score: int = param(10, "EU-24", "points that win the match", minimum=1)
