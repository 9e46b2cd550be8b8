"""Coinche's action codes, its state and the cache of its legal calls."""

from __future__ import annotations

from typing import Final

from referee.rules.cards import CardSet
from referee.rules.compiled import mypyc_attr
from referee.rules.game import VERB_BASE, Action
from referee.rules.games.belote_state import AUCTION, BeloteState, Ctx
from referee.rules.seats import Seat

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


# -- state ---------------------------------------------------------------------------------------


@mypyc_attr(serializable=True, acyclic=True)
class CoincheState(BeloteState):
    """One Coinche deal (:class:`belote_state.BeloteState`), with what it shows of its ctx."""

    @property
    def auc(self) -> tuple[tuple[tuple[Seat, Action], ...], int, Seat, int, int]:
        """``(calls, top, bidder, level, passes)``: the calls so far, the standing bid's code
        (-1 for none), its bidder, 1 / 2 (coinche) / 4 (surcoinche), consecutive passes."""
        c = self.ctx
        return c.calls, c.top, c.bidder, c.level, c.passes

    @property
    def ct(self) -> Ctx | None:
        """The ctx with the contract's tables, from the play on; ``None`` before."""
        return None if self.phase == AUCTION or self.ctx.top < 0 else self.ctx

    @property
    def pm(self) -> CardSet:
        """The cards the seat to act may play."""
        return self.playable()
