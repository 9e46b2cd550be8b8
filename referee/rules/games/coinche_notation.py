"""Coinche's actions in record notation (``docs/hand-record.md``), and the JSON form of a
contract in facts and views."""

from __future__ import annotations

from typing import Final

from referee.rules.cards import (
    CARD_NAMES,
    KING,
    PACK_32,
    QUEEN,
    RANK_OF,
    cards_in,
    parse_card,
)
from referee.rules.errors import InvalidActionError
from referee.rules.game import (
    JSON,
    VERB_BASE,
    Action,
)
from referee.rules.games.belote_declarations import (
    COMBO_BY_MASK,
    COMBO_MASKS,
)
from referee.rules.games.belote_family import (
    PACK_MASK,
)
from referee.rules.games.coinche_state import (
    ANNOUNCE_BASE,
    BELOTE_BASE,
    BID_BASE,
    CAPOT_LI,
    DENOM_NAMES,
    GENERALE_LI,
    LEVEL_NAMES,
    N_LEVELS,
    NUMERIC_VALUES,
    REBELOTE_BASE,
    VERB_NAMES,
    VERBS,
    Contract,
    bid_code,
    li_text,
)


def parse_action(text: str) -> Action:
    verb, sep, arg = text.partition(":")
    if not sep:
        code = VERBS.get(text)
        if code is None:
            raise InvalidActionError(
                f"{text!r} is not a Coinche action (pass, bid:<value><denomination>, "
                "coinche, surcoinche, announce:<cards>, play:<card>, belote:<card>, "
                "rebelote:<card>)"
            )
        return code
    if verb == "play":
        c = parse_card(arg)
        if not (PACK_MASK >> c) & 1:
            raise InvalidActionError(f"{arg!r} is not in the Coinche pack (7 to ace)")
        return c
    if verb in ("belote", "rebelote"):
        c = parse_card(arg)
        if RANK_OF[c] not in (KING, QUEEN):
            raise InvalidActionError(
                f"{text!r}: {verb} is said with the king or queen of trumps (CO-A4)"
            )
        return (BELOTE_BASE if verb == "belote" else REBELOTE_BASE) + c
    if verb == "bid":
        return _parse_bid(text, arg)
    if verb == "announce":
        m = 0
        parts = arg.split(",")
        for part in parts:
            m |= 1 << parse_card(part)
        index = COMBO_BY_MASK.get(m)
        if index is None or m.bit_count() != len(parts):
            raise InvalidActionError(
                f"{text!r} is not an announcement: give the cards of a sequence of 3 or more "
                "in one suit or of a carre of 9, 10, J, Q, K or A, e.g. announce:7H,8H,9H "
                "(CO-A1)"
            )
        return ANNOUNCE_BASE + index
    raise InvalidActionError(f"{text!r} is not a Coinche action: unknown verb {verb!r}")

def _parse_bid(text: str, arg: str) -> Action:
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

def format_action(action: Action) -> str:
    if 0 <= action < VERB_BASE:
        return "play:" + CARD_NAMES[action]
    if action >= REBELOTE_BASE:
        return "rebelote:" + CARD_NAMES[action - REBELOTE_BASE]
    if action >= BELOTE_BASE:
        return "belote:" + CARD_NAMES[action - BELOTE_BASE]
    if action >= ANNOUNCE_BASE:
        m = COMBO_MASKS[action - ANNOUNCE_BASE]
        return "announce:" + ",".join(CARD_NAMES[c] for c in cards_in(m))
    if action >= BID_BASE:
        li, d = divmod(action - BID_BASE, 6)
        return f"bid:{li_text(li)}{DENOM_NAMES[d]}"
    return VERB_NAMES[action]

def all_actions() -> list[Action]:
    kq = [c for c in PACK_32 if RANK_OF[c] in (KING, QUEEN)]
    return sorted(
        [
            *PACK_32,
            *VERBS.values(),
            *(bid_code(li, d) for li in range(N_LEVELS) for d in range(6)),
            *(ANNOUNCE_BASE + i for i in range(len(COMBO_MASKS))),
            *(BELOTE_BASE + c for c in kq),
            *(REBELOTE_BASE + c for c in kq),
        ]
    )



def text_of(action: Action) -> str:
    """The action's notation for a message, or its code if it is no Coinche action."""
    try:
        return format_action(action)
    except (KeyError, IndexError):
        return str(action)


def contract_json(ct: Contract) -> dict[str, JSON]:
    return {
        "bid": _BID_TEXT[bid_code(ct.li, ct.denom)],
        "value": ct.value,
        "denomination": DENOM_NAMES[ct.denom],
        "bidder": ct.bidder,
        "team": ct.bidder & 1,
        "coinche": LEVEL_NAMES[ct.level],
    }


_BID_TEXT: Final = {
    code: format_action(code)[4:]
    for code in (bid_code(li, d) for li in range(N_LEVELS) for d in range(6))
}
"""The text of each bid (``"80H"``, ``"capotTA"``)."""
ALL_ACTIONS: Final = frozenset(all_actions())
