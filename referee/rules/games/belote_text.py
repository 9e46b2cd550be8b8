"""The belote family in words, written once for Bulgarian Belot and Coinche: reading a game's
notation, and the refusals the two games word alike, each game giving its vocabulary
(:class:`Words`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeAlias

from referee.rules.cards import (
    CARD_NAMES,
    KING,
    QUEEN,
    RANK_OF,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    Card,
    CardSet,
    cards_in,
    parse_card,
)
from referee.rules.errors import IllegalActionError, InvalidActionError
from referee.rules.game import Action
from referee.rules.games.belote_declarations import COMBO_CARDS
from referee.rules.games.belote_family import ALL_TRUMPS
from referee.rules.games.belote_state import BeloteState, playable_cards

Reader: TypeAlias = Callable[[str, str, str], Action]
"""Reads the argument of one verb: ``reader(text, verb, argument)``."""


def action_reader(
    game_name: str, usage: str, verbs: Mapping[str, Action], readers: Mapping[str, Reader]
) -> Callable[[str], Action]:
    """A game's reader of its notation: ``read(text)`` takes a bare verb of ``verbs``, or
    ``verb:argument`` read by ``readers[verb]``.

    The reader raises :class:`InvalidActionError` for anything else, naming the game
    (``game_name``) and its ``usage``.
    """

    def read(text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            code = verbs.get(text)
            if code is None:
                raise InvalidActionError(f"{text!r} is not a {game_name} action ({usage})")
            return code
        reader = readers.get(verb)
        if reader is None:
            raise InvalidActionError(
                f"{text!r} is not a {game_name} action: unknown verb {verb!r}"
            )
        return reader(text, verb, arg)

    return read


def read_king_or_queen(text: str, arg: str, why: str) -> Card:
    """The card ``arg`` names, which must be a king or a queen (the belot / belote pair,
    BG-A7, CO-A4).

    :raises InvalidActionError: quoting ``text`` and saying ``why`` otherwise.
    """
    c = parse_card(arg)
    if RANK_OF[c] not in (KING, QUEEN):
        raise InvalidActionError(f"{text!r}: {why}")
    return c


def cards_text(cs: CardSet) -> str:
    """The cards of ``cs``, lowest first, separated by spaces."""
    return " ".join(CARD_NAMES[c] for c in cards_in(cs))


def combo_text(verb: str, index: int) -> str:
    """A declaration's notation: ``verb:`` and the cards of combination ``index``."""
    return verb + ":" + ",".join(CARD_NAMES[c] for c in COMBO_CARDS[index])


def not_held(text: str, hand: CardSet, cs: CardSet, rule: str) -> IllegalActionError | None:
    """The refusal of ``text`` naming the cards of ``cs`` not in ``hand``, if any."""
    if hand & cs == cs:
        return None
    return IllegalActionError(f"{text!r}: you do not hold {cards_text(cs & ~hand)}", rule)


class Words(NamedTuple):
    """How a game words the refusal of a card the seat to act holds but may not play; each
    template is formatted with ``text`` (the action), ``led`` (the suit led), ``best`` (the
    card winning the trick), ``trumps`` and ``names`` (the cards it may play)."""

    rules: str
    """The game's rule prefix: ``BG`` or ``CO``."""
    raise_: str
    """The card follows suit but does not beat the best card (``P3``)."""
    trumps: tuple[str, str]
    """``trumps`` of ``raise_`` under a suit contract and in all trumps."""
    overtrump: str
    """Void, the seat does not over-trump an opponent's winning trump (``P5``)."""
    trump: str
    """Void, the seat does not trump the opponents' winning card (``P5``)."""


def illegal_card(state: BeloteState, c: Card, text: str, words: Words) -> IllegalActionError:
    """Why the seat to act may not play ``c``, which it holds (BG-P2 .. BG-P5, CO-P2 .. CO-P5):
    it must follow suit, raise in the trump suit, or trump."""
    led = SUIT_OF[state.trick[0]]
    mode = state.ctx.contract
    fields = {
        "text": text,
        "led": SUIT_NAMES[led],
        "best": CARD_NAMES[state.best],
        "trumps": words.trumps[mode == ALL_TRUMPS],
        "names": cards_text(playable_cards(state)),
    }
    if state.hand(state.to_act) & SUIT_MASKS[led]:
        if SUIT_OF[c] != led:
            return IllegalActionError(
                "{text!r}: must follow suit: {led} were led and you hold {names}".format(**fields),
                words.rules + "-P2",
            )
        return IllegalActionError(words.raise_.format(**fields), words.rules + "-P3")
    why = words.overtrump if SUIT_OF[state.best] == mode else words.trump
    return IllegalActionError(why.format(**fields), words.rules + "-P5")
