"""A hand in words: actions, announcements and results as an arbiter reads them, never as JSON.

One card notation everywhere: rank and suit symbol, ``10♦``, ``Q♠`` (:func:`card`); suits as
``♠ spades`` (Ulti adds the Hungarian name: ``♥ hearts (piros)``). Each game's vocabulary
(``bid:80TA`` is "bids 80 in all trumps (tout atout)", Belot's ``level`` 2 is "doubled
(contra)") is here; anything a game adds later still reads as words (:func:`value`), never as
raw JSON. Stdlib only, beside :mod:`referee.rules.render`, which draws the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from referee.rules.cards import (
    HUNGARIAN_SUIT_NAMES,
    RANK_LETTERS,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    named_in,
)

SYMBOLS = dict(zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True))
NAMES = dict(zip(SUIT_LETTERS, SUIT_NAMES, strict=True))
HUNGARIAN = {letter: HUNGARIAN_SUIT_NAMES[s] for letter, s in zip(SUIT_LETTERS, SUITS,
                                                                        strict=True)}
DENOMINATIONS = {"NT": "no trumps", "AT": "all trumps", "SA": "no trumps (sans atout)",
                 "TA": "all trumps (tout atout)"}
LEVELS = {1: "not doubled", 2: "doubled (contra)", 4: "redoubled (recontra)",
          8: "surcontra (×8)"}
SEQUENCES = {"terca": "a terca (3 in a row)", "kvarta": "a kvarta (4 in a row)",
             "kvinta": "a kvinta (5 or more in a row)", "kare": "a kare (four of a kind)",
             "tierce": "a tierce (3 in a row)", "cinquante": "a cinquante (4 in a row)",
             "cent": "a cent (5 or more in a row)", "carre": "a carré (four of a kind)"}
OUTCOMES = {"made": "made", "inside": "inside: the declarers failed",
            "hanging": "hanging: the points wait in the pot for the next deal"}
FEATS = {"silent_100": "silent 100", "silent_ulti": "silent ulti",
         "silent_durchmars": "silent durchmars"}


def is_card(text: object) -> bool:
    """Whether ``text`` is a card in record notation (``TH``)."""
    return (isinstance(text, str) and len(text) == 2 and text[0] in RANK_LETTERS
            and text[1] in SUIT_LETTERS)


def card(text: str) -> str:
    """``"TH"`` -> ``"10♥"``; anything else unchanged."""
    if not is_card(text):
        return text
    return ("10" if text[0] == "T" else text[0]) + SYMBOLS[text[1]]


def cards(items: Sequence[str]) -> str:
    """Cards in the one notation, space-separated (``-`` for none)."""
    return " ".join(card(c) for c in items) or "-"


def suit(letter: str, game: str = "") -> str:
    """``"S"`` -> ``"♠ spades"``; a denomination (``NT``, ``TA``) in words."""
    if letter in SYMBOLS:
        extra = f" ({HUNGARIAN[letter]})" if game == "ulti" else ""
        return f"{SYMBOLS[letter]} {NAMES[letter]}{extra}"
    return DENOMINATIONS.get(letter, letter)


def ulti_contract(key: str) -> str:
    """An Ulti bid key (``teritett_betli``) as its title (``Terített betli``)."""
    from referee.rules.games.ulti.contracts import by_key

    try:
        return by_key(key).title
    except KeyError:
        return key.replace("_", " ")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n in (1, -1) else "s")


@dataclass(frozen=True)
class Table:
    """Who sits where, for naming seats and sides in words."""

    game: str
    seats: int
    players: Sequence[str] = ()
    dealer: int = -1

    @property
    def side_count(self) -> int:
        """How many sides score, from the game's contract (``sides_of``): the teams of a
        partnership game, else one per seat (also for a game this referee does not know)."""
        from referee.rules.game import sides_of
        from referee.rules.registry import find_game

        try:
            game = find_game(self.game)
        except ValueError:
            return self.seats
        return sides_of(game) if game.num_seats == self.seats else self.seats

    @property
    def teams(self) -> bool:
        """Scores per team: seats ``i`` and ``i + sides`` play together."""
        return 0 < self.side_count < self.seats

    def seat(self, seat: object) -> str:
        """``seat 0 · Anna`` (``seat 0`` without a name)."""
        if not isinstance(seat, int) or isinstance(seat, bool):
            return "nobody" if seat is None else value(seat, self)
        name = self.players[seat] if 0 <= seat < len(self.players) else ""
        return f"seat {seat}" + (f" · {name}" if name and name != f"seat {seat}" else "")

    def side(self, index: object) -> str:
        """A team (``team 1: seats 1 & 3 · Béla & Dani``) or, without partnerships, a seat."""
        if not self.teams or not isinstance(index, int) or isinstance(index, bool):
            return self.seat(index)
        members = range(index, self.seats, self.side_count)
        names = [self.players[s] for s in members if s < len(self.players) and self.players[s]]
        who = f" · {' & '.join(names)}" if len(names) == len(members) else ""
        return f"team {index} (seats {' & '.join(map(str, members))}{who})"

    def sides(self) -> list[str]:
        """Who the scores are for: the teams, or (no partnerships) the seats."""
        return [self.side(i) for i in range(self.side_count)]

    def per_side(self, numbers: Sequence[object], unit: str = "") -> str:
        """``team 0 (...): 37 · team 1 (...): 0``."""
        return " · ".join(f"{self.side(i)}: {value(n, self)}{unit}"
                          for i, n in enumerate(numbers))


def value(v: object, table: Table | None = None) -> str:
    """Any JSON value in words: cards in the one notation, yes/no, lists and objects as
    ``key value`` phrases (what a game's result or fact holds that this module does not
    know yet reads as words too)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return card(v) if is_card(v) else v.replace("_", " ")
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, Sequence):
        if v and all(is_card(x) for x in v):
            return cards([str(x) for x in v])
        return "; ".join(value(x, table) for x in v)
    if isinstance(v, Mapping):
        parts = []
        for k, x in v.items():
            if table is not None and k in ("seat", "maker", "declarer", "bidder"):
                parts.append(f"{k} {table.seat(x)}")
            else:
                parts.append(f"{str(k).replace('_', ' ')} {value(x, table)}")
        return ", ".join(parts)
    return str(v)


# -- actions -------------------------------------------------------------------------------

def action(game: str, action_text: str, *, seat: int = -1, dealer: int = -1
           ) -> tuple[str, list[str]]:
    """An action as words and the cards it names (drawn after the words):
    ``("bids ♠ spades", [])``, ``("declares", ["7S", "8S", "9S"])``."""
    verb, _, arg = action_text.partition(":")
    named = arg.split(",") if arg else []
    held = named_in(action_text)
    if verb == "pass":
        return "passes", []
    if verb == "play":
        return "plays", held
    if verb in ("belot", "belote", "rebelote"):
        return f"plays, saying {verb}", held
    if verb == "bid":
        return f"bids {_bid(game, arg)}", []
    if verb == "name":
        return f"names {suit(arg, game)} trump", []
    if verb == "order_up":
        return ("picks up the upcard" if seat == dealer else "orders up the upcard"), []
    if verb == "discard":
        if game == "ulti":
            return "lays two cards aside as the talon", held
        return "discards", held
    words = {
        "contra": "says contra (doubles)", "recontra": "says recontra (redoubles)",
        "surcontra": "says surcontra", "coinche": "coinches (doubles)",
        "surcoinche": "surcoinches (redoubles)", "declare": "declares",
        "announce": "announces", "alone": "goes alone", "partner": "plays with partner",
        "defend_alone": "defends alone", "defend_partner": "defends with partner",
        "pickup": "picks up the talon", "stand": "stands: the auction ends",
        "take": "takes from the widow",
    }
    if verb in ("kontra", "rekontra"):
        return f"says {verb} on {', '.join(named)}", []
    if verb in words:
        return words[verb], held
    return verb.replace("_", " ") + ("" if held or not arg else f" {value(arg)}"), held


def _bid(game: str, arg: str) -> str:
    if game == "ulti":
        return ulti_contract(arg)
    if game == "coinche":
        for denomination in ("TA", "SA", "C", "D", "H", "S"):
            if arg.upper().endswith(denomination) and len(arg) > len(denomination):
                amount = arg[: -len(denomination)]
                return f"{amount} in {suit(denomination)}"
        return arg
    if arg in SYMBOLS or arg in DENOMINATIONS:
        return suit(arg, game)
    return arg


# -- announcements -------------------------------------------------------------------------

def announcement(game: str, what: str, data: Mapping[str, object], table: Table) -> str:
    """A fact the referee announced (``Announced``), as a sentence."""
    who = table.seat(data.get("seat"))
    found = _ANNOUNCE.get(what)
    if found is not None:
        text = found(game, data, table, who)
        if text:
            return text
    return f"{what.replace('_', ' ')}: {value(dict(data), table)}"


def _contract(game: str, d: Mapping[str, object], t: Table, who: str) -> str:
    if game == "ulti":
        return (f"Contract: {ulti_contract(str(d.get('contract')))}, declarer "
                f"{t.seat(d.get('declarer'))}")
    if game == "coinche":
        doubled = {"coinche": ", coinched (×2)", "surcoinche": ", surcoinched"}.get(
            str(d.get("coinche")), "")
        return (f"Contract: {_bid(game, str(d.get('bid')))} by {t.seat(d.get('bidder'))}"
                f"{doubled}")
    if game == "pedro":
        return f"{t.seat(d.get('maker'))} wins the auction with {d.get('bid')}"
    level = d.get("level")
    doubled = f", {LEVELS[level]}" if isinstance(level, int) and level in LEVELS and \
        level > 1 else ""
    return f"Contract: {suit(str(d.get('contract')), game)}, declarer " \
           f"{t.seat(d.get('declarer'))}{doubled}"


def _trump(game: str, d: Mapping[str, object], t: Table, who: str) -> str:
    trump = suit(str(d.get("trump")), game)
    if game == "euchre":
        how = "the upcard ordered up" if d.get("round") == 1 else "named in round 2"
        return f"{trump} is trump, made by {t.seat(d.get('maker'))} ({how})"
    if game == "pedro":
        return f"{trump} is trump; {t.seat(d.get('maker'))} must make {d.get('bid')}"
    return f"{who} names {trump} trump"


def _declared(game: str, d: Mapping[str, object], t: Table, who: str) -> str:
    kind = str(d.get("kind"))
    return f"{who} {'declares' if game == 'belot' else 'announces'} {SEQUENCES.get(kind, kind)}"


def _shown(game: str, d: Mapping[str, object], t: Table, who: str) -> str:
    shown = d.get("shown")
    items = shown if isinstance(shown, list) else []
    listed = "; ".join(_combination(x, t) for x in items if isinstance(x, Mapping))
    team = d.get("scoring_team")
    points = d.get("points")
    if isinstance(team, int) and isinstance(points, list) and 0 <= team < len(points):
        scored = f"{t.side(team)} scores {plural(points[team], 'point')} for them"
    elif team is not None:
        scored = f"{t.side(team)} scores them"
    else:
        scored = "equal best on both sides: nobody scores them"
    return f"Announcements shown: {listed}; {scored}"


def _combination(x: Mapping[str, object], t: Table) -> str:
    kind = str(x.get("kind"))
    held = x.get("cards")
    shown = f" {cards([str(c) for c in held])}" if isinstance(held, list) else ""
    points = f", {x['points']} points" if "points" in x else ""
    return f"{t.seat(x.get('seat'))}: {kind}{shown}{points}"


Sentence = Callable[[str, Mapping[str, object], Table, str], str]
_ANNOUNCE: dict[str, Sentence] = {
    "contract": _contract,
    "trump": _trump,
    "declaration": _declared,
    "announce": _declared,
    "announcements": _shown,
    "belot": lambda g, d, t, who: f"{who} says belot (king and queen of "
                                  f"{suit(str(d.get('suit')), g)})",
    "belote": lambda g, d, t, who: f"{who} says belote with {card(str(d.get('card')))}",
    "rebelote": lambda g, d, t, who: f"{who} says rebelote with {card(str(d.get('card')))}",
    "coinche": lambda g, d, t, who: f"{who} coinches",
    "surcoinche": lambda g, d, t, who: f"{who} surcoinches",
    "alone": lambda g, d, t, who: f"{who} " + ("goes alone: the partner sits out"
                                              if d.get("alone") else "plays with partner"),
    "defend_alone": lambda g, d, t, who: f"{who} defends alone",
    "discard": lambda g, d, t, who: (
        f"{who} discards {value(d['cards'])}" if isinstance(d.get("cards"), list)
        else f"{who} lays two cards aside (the talon)"),
    "refill": lambda g, d, t, who: _refill(d, t),
    "widow": lambda g, d, t, who: "The rest of the widow is turned face up: "
                                  + value(d.get("cards"), t),
    "bid": lambda g, d, t, who: f"{who} bids {ulti_contract(str(d.get('contract')))}",
    "pass": lambda g, d, t, who: f"{who} passes",
    "pickup": lambda g, d, t, who: f"{who} picks up the talon",
    "stand": lambda g, d, t, who: f"{who} stands: the auction is over",
    "marriage": lambda g, d, t, who: f"{who} announces a {d.get('value')} in "
                                     f"{suit(str(d.get('suit')), g)}",
    "kontra": lambda g, d, t, who: f"{who} says kontra on {value(d.get('components'))}",
    "rekontra": lambda g, d, t, who: f"{who} says rekontra on {value(d.get('components'))}",
    "no_kontra": lambda g, d, t, who: f"{who} says no kontra",
    "open_hand": lambda g, d, t, who: f"{who}'s hand is shown to everyone: "
                                      + value(d.get("hand"), t),
}


def _refill(d: Mapping[str, object], t: Table) -> str:
    served = d.get("served")
    if not isinstance(served, list):
        return ""
    parts = [f"{plural(n, 'card')} to {t.seat((t.dealer + 1 + i) % t.seats)}"
             for i, n in enumerate(served) if isinstance(n, int) and n]
    return "The dealer serves from the widow: " + (", ".join(parts) or "nothing")


# -- results -------------------------------------------------------------------------------

def result_rows(game: str, result: Mapping[str, object], table: Table
                ) -> list[tuple[str, str | list[str]]]:
    """A hand's result as ``(label, words)`` rows, the points first; a number per side
    (``points``, ``tricks``, ...) is a list of words, one per side (:meth:`Table.sides`)."""
    rows: list[tuple[str, str | list[str]]] = []
    for key, v in result.items():
        label, text = _RESULT.get(key, (key.replace("_", " ").capitalize(), _value))
        if (text in _PER_SIDE and isinstance(v, list) and len(v) == len(table.sides())
                and all(isinstance(x, int | float) for x in v)):
            rows.append((label, [value(x) for x in v]))
        else:
            rows.append((label, text(game, v, table)))
    rows.sort(key=lambda row: row[0] != "Points this hand")
    return rows


def headline(result: Mapping[str, object], table: Table) -> str:
    """One sentence: who scores what (or that the deal was thrown in)."""
    if result.get("void"):
        return "Thrown in: nobody scores; the deal passes on."
    points = result.get("points")
    if not isinstance(points, list):
        return ""
    parts = [f"{table.side(i)} {'scores' if n >= 0 else 'loses'} "
             f"{plural(abs(n), 'point')}" for i, n in enumerate(points)
             if isinstance(n, int) and not isinstance(n, bool) and n]
    text = "; ".join(parts) or "nobody scores"
    return text[0].upper() + text[1:] + "."


def _value(game: str, v: object, t: Table) -> str:
    return value(v, t)


def _per_side(game: str, v: object, t: Table) -> str:
    return t.per_side(v) if isinstance(v, list) else value(v, t)


def _seat(game: str, v: object, t: Table) -> str:
    return t.seat(v)


def _side(game: str, v: object, t: Table) -> str:
    return t.side(v) if v is not None else "none"


def _trump_words(game: str, v: object, t: Table) -> str:
    return suit(v, game) if isinstance(v, str) else "none (no trump)"


def _contract_words(game: str, v: object, t: Table) -> str:
    if isinstance(v, Mapping):
        return _contract(game, v, t, "").removeprefix("Contract: ")
    if game == "ulti":
        return ulti_contract(str(v))
    return suit(str(v), game)


def _listed(v: object, say: Callable[[Mapping[str, object]], str]) -> str:
    """Each mapping of the list ``v`` in words (``say``), joined; "none" for none."""
    items = v if isinstance(v, list) else []
    return "; ".join(say(x) for x in items if isinstance(x, Mapping)) or "none"


def _combinations(game: str, v: object, t: Table) -> str:
    return _listed(v, lambda x: _combination(x, t))


def _belots(game: str, v: object, t: Table) -> str:
    if isinstance(v, list) and all(isinstance(x, Mapping) for x in v):
        return _listed(v, lambda x: f"{t.seat(x.get('seat'))} in "
                                    f"{suit(str(x.get('suit')), game)}")
    return _per_side(game, v, t)


def _components(game: str, v: object, t: Table) -> str:
    def say(c: Mapping[str, object]) -> str:
        kontra = c.get("kontra")
        doubled = ""
        if isinstance(kontra, Mapping):
            levels = [f"×{n} against {t.seat(int(s))}" for s, n in kontra.items()
                      if isinstance(n, int) and n > 1 and str(s).isdigit()]
            doubled = f" ({', '.join(levels)})" if levels else ""
        won = "won" if c.get("won") else "lost"
        return f"{c.get('name')} {won}, {c.get('value')} per defender{doubled}"

    return _listed(v, say)


def _marriages(game: str, v: object, t: Table) -> str:
    return _listed(v, lambda m: f"{t.seat(m.get('seat'))}: {m.get('value')} in "
                                f"{suit(str(m.get('suit')), game)}"
                                f"{'' if m.get('counts', True) else ' (does not count)'}")


def _silent(game: str, v: object, t: Table) -> str:
    def say(f: Mapping[str, object]) -> str:
        feat = str(f.get("feat"))
        name = FEATS.get(feat, feat.replace("_", " "))
        return f"{name} by {t.seat(f.get('seat'))} ({f.get('value')})"

    return _listed(v, say)


def _card_points(game: str, v: object, t: Table) -> str:
    if isinstance(v, Mapping):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    return _per_side(game, v, t)


Words = Callable[[str, object, Table], str]
_RESULT: dict[str, tuple[str, Words]] = {}


def _add(keys: Sequence[str], label: str, fn: Words) -> None:
    for key in keys:
        _RESULT[key] = (label, fn)


_PER_SIDE: tuple[Words, ...] = (_per_side, _card_points, _belots)
_add(["points"], "Points this hand", _per_side)
_add(["tricks"], "Tricks taken", _per_side)
_add(["card_points"], "Card points", _card_points)
_add(["raw"], "Points before rounding", _per_side)
_add(["points_taken"], "Points taken", _per_side)
_add(["announcement_points"], "Announcement points", _per_side)
_add(["contract"], "Contract", _contract_words)
_add(["trump"], "Trump", _trump_words)
_add(["declarer"], "Declarer", _seat)
_add(["maker"], "Maker", _seat)
_add(["lone_defender"], "Lone defender", _seat)
_add(["last_trick"], "Last trick (10 points) to", _side)
_add(["valat"], "Valat (every trick) by", _side)
_add(["pot_winner"], "Takes the pot", _side)
_add(["declarations", "announcements"], "Announced combinations", _combinations)
_add(["belots"], "Belot", _belots)
_add(["belote"], "Belote points", _belots)
_add(["components"], "Components", _components)
_add(["marriages"], "20s and 40s", _marriages)
_add(["silent"], "Silent feats", _silent)
_add(["talon"], "Talon", _value)
_add(["bid"], "Bid", _value)
_add(["widow_points"], "Points left in the widow", _value)
_add(["hanging"], "Points put in the pot", _value)
_add(["level"], "Doubling", lambda game, v, t: LEVELS.get(v, value(v)) if isinstance(v, int)
     else value(v))
_add(["outcome"], "Outcome", lambda game, v, t: OUTCOMES.get(str(v), value(v)))
_add(["made"], "Contract made", lambda game, v, t: "yes" if v else "no: the contract failed")
_add(["euchred"], "Euchred", lambda game, v, t: "yes: the makers took fewer than 3 tricks"
     if v else "no")
_add(["alone"], "Maker alone", lambda game, v, t: value(v))
_add(["capot"], "Capot (all 8 tricks)", lambda game, v, t: value(v))
_add(["void"], "Thrown in", lambda game, v, t: "yes: nobody scores" if v else "no")
_add(["redeal"], "Dealt again", lambda game, v, t: value(v))
_add(["played"], "Played", lambda game, v, t: "yes" if v else "no: the first player paid")
