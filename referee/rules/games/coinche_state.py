"""Coinche's action codes."""

from __future__ import annotations

from typing import Final

from referee.rules.game import VERB_BASE, Action

DENOM_NAMES: Final = ("C", "D", "H", "S", "SA", "TA")

# -- action codes (cards 0..51 are plays) -----------------------------------------------------

PASS: Final = VERB_BASE
COINCHE: Final = VERB_BASE + 1
SURCOINCHE: Final = VERB_BASE + 2
BID_BASE: Final = VERB_BASE + 3  # + level index * 6 + denomination
NUMERIC_VALUES: Final = tuple(range(80, 190, 10))  # 80 .. 180
CAPOT_LI: Final = len(NUMERIC_VALUES)  # 11
GENERALE_LI: Final = CAPOT_LI + 1  # 12
ANNOUNCE_BASE: Final = 160  # + combination index
BELOTE_BASE: Final = 256  # + card
REBELOTE_BASE: Final = 320  # + card

VERBS: Final = {"pass": PASS, "coinche": COINCHE, "surcoinche": SURCOINCHE}
LEVEL_NAMES: Final = {1: "none", 2: "coinche", 4: "surcoinche"}


def bid_code(li: int, denom: int) -> Action:
    """The code of a bid at level index ``li`` (0 = 80 .. 10 = 180, 11 capot, 12 generale)."""
    return BID_BASE + li * 6 + denom

