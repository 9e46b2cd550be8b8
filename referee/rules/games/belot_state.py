"""Bulgarian Belot's action codes and its tables of belots (BG-A7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from referee.rules.game import VERB_BASE, Action
from referee.rules.games.belote_declarations import bg_points, bg_resolve
from referee.rules.games.belote_family import ALL_TRUMPS, KING_QUEEN, NO_TRUMPS
from referee.rules.games.belote_rules import BelotRules
from referee.rules.seats import Seat

# -- action codes (cards 0..51 are plays) ---------------------------------------------------

PASS: Final = VERB_BASE
BID_BASE: Final = VERB_BASE + 1  # + mode: C D H S NT AT (BG-C2 order)
CONTRA: Final = VERB_BASE + 7
RECONTRA: Final = VERB_BASE + 8
SURCONTRA: Final = VERB_BASE + 9
BELOT_BASE: Final = 2 * VERB_BASE  # + card: play the card announcing belot (BG-A7)
DECLARE_BASE: Final = 3 * VERB_BASE  # + index in belote_declarations.COMBO_MASKS

MODE_NAMES: Final = ("C", "D", "H", "S", "NT", "AT")
MODE_TITLES: Final = ("clubs", "diamonds", "hearts", "spades", "no trumps", "all trumps")
VERBS: Final = {"pass": PASS, "contra": CONTRA, "recontra": RECONTRA, "surcontra": SURCONTRA}
LEVEL_AFTER: Final = {CONTRA: 2, RECONTRA: 4, SURCONTRA: 8}
LEVEL_NAMES: Final = {1: None, 2: "contra", 4: "recontra", 8: "surcontra"}


def decl_points(code: Action, rules: BelotRules) -> int:
    """Value of a declaration (BG-A1; ``bg_seq8``)."""
    return bg_points(code - DECLARE_BASE, rules)


def resolve_declarations(declared: Sequence[tuple[Seat, Action]], rules: BelotRules) -> list[int]:
    """Points each declaration ``(seat, code)`` scores after the contests (BG-A5, BG-A6, V8:
    :func:`belote_declarations.bg_resolve`)."""
    return bg_resolve([(seat, code - DECLARE_BASE) for seat, code in declared], rules)


# -- the auction and the contract ----------------------------------------------------------


BELOT_CARDS: Final = tuple(
    KING_QUEEN[m] if m < NO_TRUMPS else (sum(KING_QUEEN) if m == ALL_TRUMPS else 0)
    for m in range(6)
)
"""Per mode, the cards that can carry a belot (BG-A7)."""
