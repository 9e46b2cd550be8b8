"""Bulgarian Belot in words: the record notation of its calls, declarations and cards (read and
written), and the refusals, each naming the BG rule that forbids the action."""

from __future__ import annotations

from typing import Final

from referee.rules import cards
from referee.rules.errors import IllegalActionError, InvalidActionError
from referee.rules.game import VERB_BASE, Action
from referee.rules.games import belote_text
from referee.rules.games.belot_state import (
    BELOT_BASE,
    BID_BASE,
    CONTRA,
    DECLARE_BASE,
    MODE_NAMES,
    MODE_TITLES,
    RECONTRA,
    VERBS,
)
from referee.rules.games.belote_declarations import BG_KINDS, COMBO_MASKS
from referee.rules.games.belote_family import ALL_TRUMPS, KING_QUEEN, NO_TRUMPS
from referee.rules.games.belote_state import AUCTION, BeloteState, playable_cards
from referee.rules.phased import known
from referee.rules.seats import Seat

_BIDS: Final = {name: BID_BASE + mode for mode, name in enumerate(MODE_NAMES)}


def _read_bid(text: str, arg: str) -> Action:
    code = _BIDS.get(arg.upper())
    if code is None:
        raise InvalidActionError(f"{arg!r} is not a contract: write C, D, H, S, NT or AT")
    return code


# -- refusals -------------------------------------------------------------------------------------


def illegal(state: BeloteState, seat: Seat, action: Action) -> IllegalActionError:
    """Explain why ``action`` is refused, naming the rule."""
    if not known(format_action, action):
        return IllegalActionError(f"action code {action} is not a Belot action", "BG-B1")
    text = format_action(action)
    if state.phase == AUCTION:
        return illegal_call(state, action, text)
    hand = state.hand(seat)
    if action < VERB_BASE or BELOT_BASE <= action < BELOT_BASE + 52:
        c = action - BELOT_BASE if action >= BELOT_BASE else action
        if not (hand >> c) & 1:
            return IllegalActionError(f"{text!r}: you do not hold {cards.CARD_NAMES[c]}", "BG-P1")
        if not (playable_cards(state) >> c) & 1:
            return belote_text.illegal_card(state, c, text, VOCAB)
        return illegal_belot(state, hand, c, text)
    if 0 <= action - DECLARE_BASE < len(COMBO_MASKS):
        return illegal_declaration(state, seat, hand, action, text)
    return IllegalActionError(
        f"{text!r}: the auction is over; play a card (play:<card>)", "BG-B6"
    )


def illegal_call(state: BeloteState, action: Action, text: str) -> IllegalActionError:
    top = state.ctx.contract
    if action < VERB_BASE or action >= BELOT_BASE:
        return IllegalActionError(
            f"{text!r}: the auction is on: call pass, bid:<contract>, contra or recontra "
            "(declarations and cards come after it)",
            "BG-B1",
        )
    if BID_BASE <= action < BID_BASE + 6:
        if state.ctx.rules.bg_double_freezes_auction and state.ctx.level > 1:
            return IllegalActionError(
                f"{text!r}: after a contra no higher contract may be bid "
                "(bg_double_freezes_auction)",
                "BG-B5",
            )
        return IllegalActionError(
            f"{text!r}: a bid must be higher than the standing "
            f"{MODE_TITLES[top]} (clubs < diamonds < hearts < spades < no trumps < "
            "all trumps)",
            "BG-B2",
        )
    ours = top >= 0 and not (state.to_act ^ state.ctx.bidder) & 1
    if action == CONTRA:
        why = (
            "there is no contract to double"
            if top < 0
            else "your own team's contract cannot be doubled"
            if ours
            else "the contract is already doubled"
        )
        return IllegalActionError(f"'contra': {why}", "BG-B3")
    if action == RECONTRA:
        why = (
            "only a doubled contract can be redoubled"
            if top < 0 or state.ctx.level != 2
            else "only the team that bid the contract may redouble"
        )
        return IllegalActionError(f"'recontra': {why}", "BG-B4")
    why = (
        "surcontra is not played under these rules (bg_surcontra)"
        if not state.ctx.rules.bg_surcontra
        else "only the defenders may answer a recontra with surcontra"
    )
    return IllegalActionError(f"'surcontra': {why}", "BG-B1")


def illegal_belot(
    state: BeloteState, hand: cards.CardSet, c: cards.Card, text: str
) -> IllegalActionError:
    mode = state.ctx.contract
    if mode == NO_TRUMPS:
        return IllegalActionError(f"{text!r}: there is no belot in no trumps", "BG-A2")
    if mode != ALL_TRUMPS and cards.SUIT_OF[c] != mode:
        return IllegalActionError(
            f"{text!r}: a belot is the king and queen of trumps ({cards.SUIT_NAMES[mode]})", "BG-A7"
        )
    if hand & KING_QUEEN[cards.SUIT_OF[c]] != KING_QUEEN[cards.SUIT_OF[c]]:
        return IllegalActionError(
            f"{text!r}: a belot is announced with the first of the king and queen, while "
            "you hold both",
            "BG-A7",
        )
    return IllegalActionError(
        f"{text!r}: in all trumps a belot counts only on a lead or when following suit, "
        "not on a discard",
        "BG-A7",
    )


def illegal_declaration(
    state: BeloteState, seat: Seat, hand: cards.CardSet, code: Action, text: str
) -> IllegalActionError:
    if state.ctx.contract == NO_TRUMPS and not state.ctx.rules.bg_nt_declarations:
        return IllegalActionError(f"{text!r}: there are no declarations in no trumps", "BG-A2")
    if state.tricks:
        return IllegalActionError(
            f"{text!r}: declarations are made only with your card to the first trick",
            "BG-A3",
        )
    m = COMBO_MASKS[code - DECLARE_BASE]
    if (missing := belote_text.not_held(text, hand, m, "BG-A3")) is not None:
        return missing
    for who, other in state.decls:
        if who == seat and COMBO_MASKS[other] & m:
            return IllegalActionError(
                f"{text!r}: a card counts in one declaration only, and you already "
                f"declared {format_action(DECLARE_BASE + other)}",
                "BG-A4",
            )
    return IllegalActionError(
        f"{text!r}: declare the whole run of consecutive cards you hold, not a part of it",
        "BG-A1",
    )


VOCAB: Final = belote_text.Vocabulary(
    game="Belot",
    rules="BG",
    verbs=VERBS,
    bids={code: name for name, code in _BIDS.items()},
    read_bid=_read_bid,
    said={"belot": BELOT_BASE},
    said_why="a belot is announced with a king or queen",
    declare="declare",
    declare_base=DECLARE_BASE,
    declared="declaration",
    kinds=BG_KINDS,
    usage="pass, bid:<C|D|H|S|NT|AT>, contra, recontra, declare:<cards>, play:<card>, "
    "belot:<card>",
    not_combo="{text!r} is not a declaration: name 3 to 8 cards in a row of one suit (terca, "
    "kvarta, kvinta) or the four 9s, 10s, Js, Qs, Ks or As (kare)",
    play=(
        "{text!r}: must play higher than {best} in {led} ({trumps} must be raised, even over a "
        "partner); you may play {names}",
        ("trumps", "all trumps"),
        "{text!r}: you are out of {led} and an opponent's trump {best} is winning: you must "
        "over-trump with {names}",
        "{text!r}: you are out of {led} and the opponents are winning: you must trump with "
        "{names}",
    ),
    twice="{text!r} names {card} twice",
    refuse=illegal,
    undealt="stock",
)
NOTATION: Final = belote_text.notation(VOCAB)
"""Belot's notation (BG-B1, BG-A3, BG-A7)."""
format_action: Final = NOTATION.format
