"""Bulgarian Belot's actions in record notation (``docs/hand-record.md``): reading and
writing them."""

from __future__ import annotations

from typing import Final

from referee.rules.cards import CARD_NAMES, KING, PACK_32, QUEEN, RANK_OF, Card, parse_card
from referee.rules.errors import InvalidActionError
from referee.rules.game import VERB_BASE, Action
from referee.rules.games.belot_state import (
    ALL_DECLARATIONS,
    BELOT_BASE,
    BID_BASE,
    DECL_MASK,
    DECLARE_BASE,
    MODE_NAMES,
    VERB_NAMES,
    VERBS,
)
from referee.rules.games.belote_declarations import COMBO_BY_MASK, COMBO_CARDS


def parse_action(text: str) -> Action:
    verb, sep, arg = text.partition(":")
    if not sep:
        code = VERBS.get(text)
        if code is None:
            raise InvalidActionError(
                f"{text!r} is not a Belot action (pass, bid:<C|D|H|S|NT|AT>, contra, "
                "recontra, declare:<cards>, play:<card>, belot:<card>)"
            )
        return code
    if verb == "play":
        return parse_card(arg)
    if verb == "belot":
        c = parse_card(arg)
        if RANK_OF[c] not in (KING, QUEEN):
            raise InvalidActionError(f"{text!r}: a belot is announced with a king or queen")
        return BELOT_BASE + c
    if verb == "bid":
        key = arg.upper()
        if key not in MODE_NAMES or arg != arg.strip():
            raise InvalidActionError(f"{arg!r} is not a contract: write C, D, H, S, NT or AT")
        return BID_BASE + MODE_NAMES.index(key)
    if verb == "declare":
        m = 0
        for part in arg.split(","):
            c = parse_card(part)
            if (m >> c) & 1:
                raise InvalidActionError(f"{text!r} names {CARD_NAMES[c]} twice")
            m |= 1 << c
        code = _DECL_BY_MASK.get(m)
        if code is None:
            raise InvalidActionError(
                f"{text!r} is not a declaration: name 3 to 8 cards in a row of one suit "
                "(terca, kvarta, kvinta) or the four 9s, 10s, Js, Qs, Ks or As (kare)"
            )
        return code
    raise InvalidActionError(f"{text!r} is not a Belot action: unknown verb {verb!r}")

def format_action(action: Action) -> str:
    if 0 <= action < VERB_BASE:
        return "play:" + CARD_NAMES[action]
    if BELOT_BASE <= action < BELOT_BASE + 52:
        return "belot:" + CARD_NAMES[action - BELOT_BASE]
    if action in DECL_MASK:
        return "declare:" + ",".join(CARD_NAMES[c] for c in decl_cards(action))
    if BID_BASE <= action < BID_BASE + 6:
        return "bid:" + MODE_NAMES[action - BID_BASE]
    return VERB_NAMES[action]

def all_actions() -> list[Action]:
    belots = [BELOT_BASE + c for c in PACK_32 if RANK_OF[c] in (KING, QUEEN)]
    return sorted(
        [*PACK_32, *VERBS.values(), *range(BID_BASE, BID_BASE + 6), *belots, *ALL_DECLARATIONS]
    )



def known(action: Action) -> bool:
    """Whether ``action`` is an action code of the game."""
    try:
        format_action(action)
    except (KeyError, IndexError):
        return False
    return True


def decl_cards(code: Action) -> tuple[Card, ...]:
    return COMBO_CARDS[code - DECLARE_BASE]


_DECL_BY_MASK: Final = {m: DECLARE_BASE + i for m, i in COMBO_BY_MASK.items()}
DECL_NAMES: Final = {code: tuple(CARD_NAMES[c] for c in decl_cards(code)) for code in DECL_MASK}
"""The names of the cards of each declaration code."""
