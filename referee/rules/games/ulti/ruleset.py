"""Ulti's rule parameters: every DEFAULT and VARIANT of §3 and §4.3, named after its rule id."""

from __future__ import annotations

import dataclasses

from referee.rules.params import RuleSet, choice, param


@dataclasses.dataclass(frozen=True)
class UltiRules(RuleSet):
    """Ulti's rule parameters; defaults follow the seed, then the reference's DEFAULTs."""

    ladder: str = choice(
        "UL-9", "the bid ladder: HUWIKI's 38 bids, or the seed's minimal ladder (each feature "
        "alone, plain or piros)", "huwiki", "seed")
    equal_value_overcall: bool = param(
        True, "UL-9", "a later bid of the same value overcalls (table order); off: only a higher "
        "value does (the seed read literally, VADEX)")
    ulti_with_parti: bool = param(
        True, "UL-8", "an ulti bid also carries the parti (4+1, HUWIKI); off: ulti alone is 4")
    passz_standing: str = choice(
        "UL-15", "an unraised Passz is played (seed), or not played and the first player pays 2 "
        "to each defender (TRICKSTER, VADEX)", "play", "pay")
    auction_end: str = choice(
        "UL-12", "the holder may stand or pick up again when the turn comes back (HUWIKI), or "
        "the auction ends after two passes in a row (KJ)", "stand", "two_passes")
    raise_without_talon: bool = param(
        False, "UL-12", "a player may bid higher without picking up the talon (pagat, unverified)")
    talon_to_defenders: bool = param(
        True, "UL-13", "aces and tens in the talon count for the defenders (HUWIKI); off: declarer")
    must_beat_after_trumped: bool = param(
        True, "UL-24", "a player following suit must beat the led suit's best card even once the "
        "trick is trumped (TRICKSTER)")
    hold_ulti_seven: bool = param(
        True, "UL-25", "with an ulti, the declarer may not play the trump 7 before trick 10 "
        "unless it is the only legal card")
    marriage_needs_trick: str = choice(
        "UL-17", "a 20 or 40 counts only if its holder won a trick (seed), or the holder's side "
        "did", "holder", "side")
    declarer_marriages_limited: bool = param(
        True, "UL-17", "in 40-100 the declarer counts only the 40, in 20-100 only one 20 "
        "(HUWIKI); off: all")
    kontra_timing: str = choice(
        "UL-20", "kontra after trick 1, defenders then the declarer's rekontra (TRICKSTER), or "
        "each defender's kontra when playing to trick 1", "after_trick1", "with_first_card")
    early_stop: bool = param(
        True, "UL-27", "betli stops when the declarer wins a trick, a colourless durchmars at "
        "the first trick lost")
    lost_ulti: str = choice(
        "UL-34", "a lost ulti costs 2·v·k (HUWIKI), v·(k+1) (TRICKSTER) or v·k (seed literal)",
        "double", "k_plus_one", "single")
    lost_passz: int = param(
        1, "UL-34", "what a lost plain Passz costs each defender (TRICKSTER, VADEX: 2)",
        minimum=1, maximum=2)
    silent_100: str = choice(
        "UL-35", "a silent 100 doubles the parti (seed, VADEX), or is a silent 40-100 worth 2 / "
        "20-100 worth 4 (TRICKSTER)", "double_parti", "by_marriage")
    silent_durchmars: bool = param(
        True, "UL-35", "an unannounced durchmars earns 3 per defender (seed); off: VADEX")
    lost_silent_ulti: bool = param(
        True, "UL-35", "a declarer who plays the trump 7 to trick 10 and loses it pays 4 per "
        "defender (HUWIKI)")
    defenders_silent_feats: bool = param(
        False, "UL-35", "the defenders' silent ulti, silent durchmars and silent 100 also score "
        "(TRICKSTER, VADEX)")
    deals: int = param(
        9, "UL-36", "deals in a match (VADEX: each player is first player 3 times)",
        minimum=1, maximum=999)
