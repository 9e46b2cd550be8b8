"""Coinche in words. Reading and writing its actions in record notation (bids such as
``bid:80H``, announcements, belote and rebelote); the JSON of a contract in facts and views;
and why an action is refused, with the CO rule it breaks."""

from __future__ import annotations

from typing import Final

from referee.rules import cards
from referee.rules.errors import IllegalActionError, InvalidActionError
from referee.rules.game import JSON, VERB_BASE, Action
from referee.rules.games import belote_text
from referee.rules.games.belote_declarations import COMBO_MASKS, FR_KINDS
from referee.rules.games.belote_family import KING_QUEEN
from referee.rules.games.belote_state import AUCTION, BeloteState, Ctx, playable_cards
from referee.rules.games.coinche_state import (
    ANNOUNCE_BASE,
    BELOTE_BASE,
    BID_BASE,
    CAPOT_LI,
    COINCHE,
    DENOM_NAMES,
    GENERALE_LI,
    LEVEL_NAMES,
    NUMERIC_VALUES,
    REBELOTE_BASE,
    SURCOINCHE,
    VERBS,
    bid_code,
)
from referee.rules.seats import Seat


def _read_bid(text: str, arg: str) -> Action:
    up = arg.upper()
    for d in (4, 5, 0, 1, 2, 3):  # the two-letter denominations first
        name = DENOM_NAMES[d]
        if up.endswith(name):
            value = up[: -len(name)]
            break
    else:
        raise InvalidActionError(
            f"{text!r}: a bid ends with its denomination C, D, H, S, SA or TA, e.g. bid:80H"
        )
    if value == "CAPOT":
        return bid_code(CAPOT_LI, d)
    if value == "GENERALE":
        return bid_code(GENERALE_LI, d)
    if value.isdigit() and int(value) in NUMERIC_VALUES and value[0] != "0":
        return bid_code(NUMERIC_VALUES.index(int(value)), d)
    raise InvalidActionError(
        f"{text!r}: a bid's value is 80, 90, ... 180, capot or generale (CO-B1)"
    )


_BID_TEXT: Final = {
    bid_code(li, d): value + DENOM_NAMES[d]
    for li, value in enumerate([*map(str, NUMERIC_VALUES), "capot", "generale"])
    for d in range(6)
}
"""The text of each bid (``"80H"``, ``"capotTA"``)."""


def contract_json(ct: Ctx) -> dict[str, JSON]:
    return {
        "bid": _BID_TEXT[ct.top],
        "value": ct.value,
        "denomination": DENOM_NAMES[ct.contract],
        "bidder": ct.bidder,
        "team": ct.bidder & 1,
        "coinche": LEVEL_NAMES[ct.level],
    }


# -- refusals -------------------------------------------------------------------------------------


def illegal(state: BeloteState, seat: Seat, action: Action) -> IllegalActionError:
    """Explain why ``action`` is refused, naming the rule."""
    if action not in ALL_ACTIONS:
        return IllegalActionError(f"action code {action} is not a Coinche action", "CO-B1")
    text = format_action(action)
    if state.phase == AUCTION:
        return illegal_call(state, seat, action, text)
    ct = state.ctx
    if VERB_BASE <= action < ANNOUNCE_BASE:  # a call
        return IllegalActionError(
            f"{text!r}: the auction is over; the contract is {_BID_TEXT[ct.top]}",
            "CO-B6",
        )
    hand = state.hand(seat)
    if ANNOUNCE_BASE <= action < BELOTE_BASE:
        m = COMBO_MASKS[action - ANNOUNCE_BASE]
        if state.tricks:
            return IllegalActionError(
                f"{text!r}: announcements are made with your card to trick 1", "CO-A2"
            )
        if (missing := belote_text.not_held(text, hand, m, "CO-A2")) is not None:
            return missing
        return IllegalActionError(
            f"{text!r}: a card may be used in one announcement only", "CO-A2"
        )
    c = action % 64
    if not (hand >> c) & 1:
        return IllegalActionError(f"{text!r}: you do not hold {cards.CARD_NAMES[c]}", "CO-P1")
    if action >= BELOTE_BASE:
        pair = KING_QUEEN[cards.SUIT_OF[c]]
        if not ct.kq[seat] & pair:
            return IllegalActionError(
                f"{text!r}: belote is the king and queen of a trump suit, both dealt to you",
                "CO-A4",
            )
        if (playable_cards(state) >> c) & 1:
            if action >= REBELOTE_BASE:
                return IllegalActionError(
                    f"{text!r}: rebelote goes with the second of the pair, after belote "
                    "with the first",
                    "CO-A4",
                )
            return IllegalActionError(
                f"{text!r}: belote is said with the first of the pair; this is the second",
                "CO-A4",
            )
    return belote_text.illegal_card(state, c, text, VOCAB)


def illegal_call(
    state: BeloteState, seat: Seat, action: Action, text: str
) -> IllegalActionError:
    ctx = state.ctx
    r, top, bidder, level = ctx.rules, ctx.top, ctx.bidder, ctx.level
    if action < VERB_BASE or action >= ANNOUNCE_BASE:
        what = (
            "cards are played"
            if action < VERB_BASE or action >= BELOTE_BASE
            else ("announcements are made")
        )
        return IllegalActionError(
            f"{text!r}: the auction is running; {what} after it "
            "(call pass, bid:<value><denomination>, coinche or surcoinche)",
            "CO-B1",
        )
    same_team = top >= 0 and (seat - bidder) % 2 == 0
    if action == COINCHE:
        if top < 0:
            return IllegalActionError("'coinche': there is no bid to coinche", "CO-B4")
        if same_team:
            return IllegalActionError(
                "'coinche': only the opponents of the standing bid may coinche", "CO-B4"
            )
        if level > 1:
            return IllegalActionError("'coinche': the bid is already coinched", "CO-B4")
        return IllegalActionError(
            "'coinche': a capot bid may not be coinched under these rules "
            "(capot_doublable is off)",
            "CO-B8",
        )
    if action == SURCOINCHE:
        if level != 2:
            return IllegalActionError(
                "'surcoinche': only a coinched bid may be surcoinched", "CO-B5"
            )
        return IllegalActionError(
            "'surcoinche': only the coinched team may surcoinche", "CO-B5"
        )
    li = (action - BID_BASE) // 6
    if level > 1:
        return IllegalActionError(
            f"{text!r}: the auction is frozen by the coinche; pass"
            + (" or surcoinche" if same_team else ""),
            "CO-B4",
        )
    if li == GENERALE_LI and not r.generale:
        return IllegalActionError(
            f"{text!r}: the generale is not played under these rules", "CO-B1"
        )
    if CAPOT_LI > li > (r.max_bid - 80) // 10:
        return IllegalActionError(
            f"{text!r}: numeric bids go up to {r.max_bid}, then capot", "CO-B2"
        )
    standing = format_action(top)[4:]
    return IllegalActionError(
        f"{text!r}: a bid must be higher than the standing {standing}", "CO-B2"
    )


VOCAB: Final = belote_text.Vocabulary(
    game="Coinche",
    rules="CO",
    verbs=VERBS,
    bids=_BID_TEXT,
    read_bid=_read_bid,
    said={"belote": BELOTE_BASE, "rebelote": REBELOTE_BASE},
    said_why="{verb} is said with the king or queen of trumps (CO-A4)",
    declare="announce",
    declare_base=ANNOUNCE_BASE,
    declared="announce",
    kinds=FR_KINDS,
    usage="pass, bid:<value><denomination>, coinche, surcoinche, announce:<cards>, "
    "play:<card>, belote:<card>, rebelote:<card>",
    not_combo="{text!r} is not an announcement: give the cards of a sequence of 3 or more in "
    "one suit or of a carre of 9, 10, J, Q, K or A, e.g. announce:7H,8H,9H (CO-A1)",
    play=(
        "{text!r}: must beat {best} when {led} are led {trumps}, even over the partner: play "
        "one of {names}",
        ("as trumps", "in tout atout"),
        "{text!r}: an opponent's {best} is winning: you must overtrump if you can, else play a "
        "lower trump: play one of {names}",
        "{text!r}: void in {led} with the opponents winning, you must trump: play one of "
        "{names}",
    ),
    pack_only=True,
    refuse=illegal,
    undealt="not_yet_dealt",
)
NOTATION: Final = belote_text.notation(VOCAB)
"""Coinche's notation (CO-B1, CO-A2, CO-A4)."""
format_action: Final = NOTATION.format
ALL_ACTIONS: Final = frozenset(NOTATION.every())
