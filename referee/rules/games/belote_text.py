"""The belote family in words, written once for Bulgarian Belot and Coinche: the notation of a
game's actions and the refusals the two games word alike, each game giving its
:class:`Vocabulary`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from referee.rules.cards import (
    CARD_NAMES,
    KING,
    PACK_32,
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
from referee.rules.games.belote_declarations import COMBO_BY_MASK, COMBO_CARDS, N_COMBOS
from referee.rules.games.belote_family import ALL_TRUMPS, PACK_MASK
from referee.rules.games.belote_state import BeloteState, playable_cards
from referee.rules.seats import Seat


class Vocabulary(NamedTuple):
    """A game's notation (``docs/hand-record.md``) and the words of its facts and refusals."""

    game: str
    rules: str
    """The game's rule prefix: ``BG`` or ``CO``."""
    verbs: Mapping[str, Action]
    """The bare calls (``pass`` ...)."""
    bids: Mapping[Action, str]
    """Each bid's code and how it is written after ``bid:``."""
    read_bid: Callable[[str, str], Action]
    """``read_bid(text, argument)``: the bid ``bid:argument`` names."""
    said: Mapping[str, Action]
    """The verbs of a card said with a belot (``belot``; ``belote``, ``rebelote``) and their
    code of card 0; what may follow them (``{verb}``) a king or queen."""
    said_why: str
    declare: str
    """The verb of a declaration, its code that of combination 0 plus :attr:`declare_base`."""
    declare_base: Action
    declared: str
    """The fact of a declaration: ``declaration`` or ``announce``."""
    kinds: tuple[str, ...]
    """What the others hear of each combination (``belote_declarations.BG_KINDS`` ...)."""
    undealt: str
    """The name of the cards not dealt yet in ``card_locations``."""
    usage: str
    """The actions as the refusal of an unknown one lists them."""
    not_combo: str
    """The refusal of a declaration that is no combination (``{text}``)."""
    play: tuple[str, tuple[str, str], str, str]
    """The refusals of a card the seat to act holds but may not play: it follows suit but does
    not beat the best card (``P3``; then ``trumps`` under a suit contract and in all trumps);
    void, it does not over-trump an opponent's winning trump, or does not trump the opponents'
    winning card (``P5``). Templates of ``text`` (the action), ``led`` (the suit led), ``best``
    (the card winning the trick), ``trumps`` and ``names`` (the cards it may play)."""
    refuse: Callable[[BeloteState, Seat, Action], IllegalActionError]
    """``refuse(state, seat, action)``: why the seat to act may not do ``action``, naming the
    rule (``BeloteGame._illegal``)."""
    pack_only: bool = False
    """Whether ``play:`` refuses a card outside the 32 (else the play refuses it)."""
    twice: str | None = None
    """The refusal of a declaration naming a card twice (``{text}``, ``{card}``), if any; else
    it is :attr:`not_combo`."""


class Notation(NamedTuple):
    """How a game reads and writes its actions (``docs/hand-record.md``)."""

    parse: Callable[[str], Action]
    format: Callable[[Action], str]
    every: Callable[[], list[Action]]
    """All the game's action codes, sorted."""
    words: Vocabulary
    """What it is written from."""


def notation(v: Vocabulary) -> Notation:
    """The notation ``v`` describes: ``verb`` or ``verb:argument``, each argument a card, a
    bid or a declaration's cards (BG-B1, BG-A3, BG-A7, CO-B1, CO-A2, CO-A4)."""
    texts = {c: "play:" + CARD_NAMES[c] for c in range(52)}
    texts.update((code, verb) for verb, code in v.verbs.items())
    texts.update((code, "bid:" + bid) for code, bid in v.bids.items())
    texts.update((v.declare_base + i, combo_text(v.declare, i)) for i in range(N_COMBOS))
    for verb, base in v.said.items():
        texts.update((base + c, f"{verb}:{CARD_NAMES[c]}") for c in range(52))
    kq = [c for c in PACK_32 if RANK_OF[c] in (KING, QUEEN)]
    every = sorted([*PACK_32, *v.verbs.values(), *v.bids, *(base + c for base in v.said.values()
                    for c in kq), *range(v.declare_base, v.declare_base + N_COMBOS)])

    def read(text: str) -> Action:
        verb, sep, arg = text.partition(":")
        if not sep:
            code = v.verbs.get(text)
            if code is None:
                raise InvalidActionError(f"{text!r} is not a {v.game} action ({v.usage})")
            return code
        if verb == "play":
            c = parse_card(arg)
            if v.pack_only and not (PACK_MASK >> c) & 1:
                raise InvalidActionError(f"{arg!r} is not in the {v.game} pack (7 to ace)")
            return c
        if verb == "bid":
            return v.read_bid(text, arg)
        if verb in v.said:
            c = parse_card(arg)
            if RANK_OF[c] not in (KING, QUEEN):
                raise InvalidActionError(f"{text!r}: " + v.said_why.format(verb=verb))
            return v.said[verb] + c
        if verb == v.declare:
            return v.declare_base + read_combo(text, arg)
        raise InvalidActionError(f"{text!r} is not a {v.game} action: unknown verb {verb!r}")

    def read_combo(text: str, arg: str) -> int:
        m = 0
        twice = False
        for part in arg.split(","):
            c = parse_card(part)
            if (m >> c) & 1:
                if v.twice is not None:
                    raise InvalidActionError(v.twice.format(text=text, card=CARD_NAMES[c]))
                twice = True
            m |= 1 << c
        index = COMBO_BY_MASK.get(m)
        if index is None or twice:
            raise InvalidActionError(v.not_combo.format(text=text))
        return index

    return Notation(read, texts.__getitem__, every.copy, v)


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


def illegal_card(state: BeloteState, c: Card, text: str, words: Vocabulary) -> IllegalActionError:
    """Why the seat to act may not play ``c``, which it holds (BG-P2 .. BG-P5, CO-P2 .. CO-P5):
    it must follow suit, raise in the trump suit, or trump."""
    led = SUIT_OF[state.trick[0]]
    mode = state.ctx.contract
    raise_, trumps, overtrump, trump = words.play
    fields = {
        "text": text,
        "led": SUIT_NAMES[led],
        "best": CARD_NAMES[state.best],
        "trumps": trumps[mode == ALL_TRUMPS],
        "names": cards_text(playable_cards(state)),
    }
    if state.hand(state.to_act) & SUIT_MASKS[led]:
        if SUIT_OF[c] != led:
            return IllegalActionError(
                "{text!r}: must follow suit: {led} were led and you hold {names}".format(**fields),
                words.rules + "-P2",
            )
        return IllegalActionError(raise_.format(**fields), words.rules + "-P3")
    why = overtrump if SUIT_OF[state.best] == mode else trump
    return IllegalActionError(why.format(**fields), words.rules + "-P5")
