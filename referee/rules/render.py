"""A self-contained HTML page of one hand: the deal, the auction, every trick, the score.

Cards are inline SVG pictures (suit pips drawn as paths, no fonts or images), and the page loads
nothing from outside, so it can be mailed to an arbiter or archived with the record.

Stdlib only, beside :mod:`referee.rules.handrecord` (as python-chess keeps ``chess.svg`` beside
its core): the referee serves it to auditors (``ProjectionsService.GetHandView``) and the
command-line client writes it (``trick replay --html``). :func:`render_record` replays a
``referee.hand/v1`` record itself; :func:`render_hand` draws any replay with the attributes of
:class:`HandReplay`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.rules.cards import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS, card_name
from referee.rules.cards import SUIT_NAMES as _SUIT_WORDS
from referee.rules.handrecord import HandRecord, read_record
from referee.rules.registry import find_game

SUITS = SUIT_LETTERS
RANKS = RANK_LETTERS
SYMBOLS = dict(zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True))
SUIT_NAMES = dict(zip(SUIT_LETTERS, _SUIT_WORDS, strict=True))
CARD_VERBS = ("play", "belot", "belote", "rebelote")


class StepLike(Protocol):
    index: int
    seat: int
    action: str
    announced: list[dict[str, Any]]


class HandReplay(Protocol):
    """What :func:`render_hand` reads (``clients.records.HandReplay`` has it too).

    Read-only members, so a replay holding ``list[Step]`` matches ``Sequence[StepLike]``.
    """

    @property
    def game(self) -> str: ...
    @property
    def dealer(self) -> int: ...
    @property
    def hands(self) -> list[list[str]]: ...
    @property
    def stock(self) -> list[str]: ...
    @property
    def steps(self) -> Sequence[StepLike]: ...
    @property
    def tricks(self) -> list[dict[str, Any]]: ...
    @property
    def result(self) -> dict[str, Any] | None: ...
    @property
    def error(self) -> dict[str, Any] | None: ...
    @property
    def auction(self) -> Sequence[StepLike]: ...


@dataclass
class Step:
    """One action of a replayed hand: the legal set before it and what it caused."""

    index: int
    seat: int
    action: str
    legal: list[str] = field(default_factory=list)
    tricks: list[dict[str, Any]] = field(default_factory=list)
    announced: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None


@dataclass
class Replayed:
    """A hand record replayed through the rules core for drawing."""

    game: str
    dealer: int
    hands: list[list[str]]
    stock: list[str]
    steps: list[Step]
    tricks: list[dict[str, Any]]
    result: dict[str, Any] | None
    error: dict[str, Any] | None

    @property
    def auction(self) -> list[Step]:
        return [s for s in self.steps if s.action.partition(":")[0] not in CARD_VERBS]


def replay_for_view(record: dict[str, Any]) -> Replayed:
    """Replay a ``referee.hand/v1`` record: each step's legal set, tricks, announcements and
    the table after it (the auditor's view), for drawing and for step-by-step replays.

    :raises ValueError: when ``record`` is not a valid hand record.
    """
    parsed = read_record(record)
    if not isinstance(parsed, HandRecord):
        raise ValueError("expected a hand record; pick a hand of the match")
    game: Any = find_game(parsed.game)
    state = game.new_hand(parsed.deal, parsed.dealer, parsed.rules)
    steps: list[Step] = []
    tricks: list[dict[str, Any]] = []
    error = None
    for i, (seat, text) in enumerate(parsed.actions):
        legal = sorted(game.format_action(a) for a in game.legal_actions(state))
        step = Step(i, seat, text, legal)
        steps.append(step)
        try:
            applied = game.apply(state, seat, game.parse_action(text))
        except ValueError as exc:
            error = {"index": i, "seat": seat, "action": text, "message": str(exc),
                     "rule": getattr(exc, "rule", "") or ""}
            step.error = error
            break
        state = applied.state
        for fact in applied.facts:
            if hasattr(fact, "plays"):
                trick = {"number": fact.number, "winner": fact.winner, "points": fact.points,
                         "plays": [{"seat": s, "card": card_name(c)} for s, c in fact.plays]}
                step.tricks.append(trick)
                tricks.append(trick)
            elif hasattr(fact, "what"):
                step.announced.append({"what": fact.what, "data": dict(fact.data)})
        step.table = game.audit_view(state)
    done = error is None and game.is_terminal(state)
    return Replayed(
        game=parsed.game, dealer=parsed.dealer,
        hands=[[card_name(c) for c in h] for h in parsed.deal.hands],
        stock=[card_name(c) for c in parsed.deal.stock], steps=steps, tricks=tricks,
        result=game.result(state).to_json() if done else None, error=error,
    )


def render_record(record: dict[str, Any], *, players: Sequence[str] = (),
                  title: str = "") -> str:
    """The page for a ``referee.hand/v1`` record (replayed here)."""
    return render_hand(replay_for_view(record), players=players, title=title)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards by suit (clubs, diamonds, hearts, spades), then rank 2..A."""
    return sorted(cards, key=lambda c: (SUITS.find(c[1:2]), RANKS.find(c[:1])))


def action_text(action: str) -> str:
    """Record notation with the cards as text: ``play:TH`` -> ``play 10♥``."""
    verb, _, arg = action.partition(":")
    if not arg:
        return verb
    parts = arg.split(",")
    if all(len(p) == 2 and p[1] in SYMBOLS for p in parts):
        return f"{verb} " + " ".join(("10" if p[0] == "T" else p[0]) + SYMBOLS[p[1]]
                                     for p in parts)
    if verb == "name" and arg in SYMBOLS:
        return f"name {SYMBOLS[arg]}"
    return f"{verb} {arg}"

FACE = "#fffdf0"
RED = "#d40000"
BLACK = "#111111"
FELT = "#1d5e33"
SUIT_PATHS = {
    "D": '<path d="M50 2 L92 50 L50 98 L8 50 Z"/>',
    "H": '<path d="M50 96 L10 54 C-8 32 14 2 38 10 C44 12 48 17 50 22 C52 17 56 12 62 10 '
         'C86 2 108 32 90 54 Z"/>',
    "S": '<path d="M50 2 C62 26 98 40 92 66 C88 84 64 86 55 72 L62 98 H38 L45 72 '
         'C36 86 12 84 8 66 C2 40 38 26 50 2 Z"/>',
    "C": '<circle cx="50" cy="27" r="22"/><circle cx="26" cy="60" r="22"/>'
         '<circle cx="74" cy="60" r="22"/><path d="M44 55 H56 L62 98 H38 Z"/>',
}
RANK_LABELS = {"T": "10"}


def card_svg(card: str, *, width: int = 64) -> str:
    """One card as an inline SVG picture with ``data-card`` set to its record notation."""
    rank, suit = card[0], card[1]
    colour = RED if suit in "DH" else BLACK
    label = RANK_LABELS.get(rank, rank)
    pip = SUIT_PATHS[suit]
    height = width * 7 // 5
    return (
        f'<svg class="card" data-card="{card}" data-suit="{suit}" width="{width}" '
        f'height="{height}" viewBox="0 0 100 140" role="img" '
        f'aria-label="{label} of {SUIT_NAMES[suit]}" xmlns="http://www.w3.org/2000/svg">'
        f'<rect x="2" y="2" width="96" height="136" rx="9" fill="{FACE}" stroke="#555" '
        f'stroke-width="2"/>'
        f'<text x="9" y="30" font-family="sans-serif" font-weight="bold" font-size="26" '
        f'fill="{colour}">{label}</text>'
        f'<g fill="{colour}" transform="translate(10 37) scale(0.18)">{pip}</g>'
        f'<g fill="{colour}" transform="translate(25 55) scale(0.55)">{pip}</g>'
        f"</svg>"
    )


def _seat_label(seat: int, players: Sequence[str], dealer: int) -> str:
    name = f"Seat {seat}" + (f" · {players[seat]}" if seat < len(players) and players[seat] else "")
    return html.escape(name + (" (dealer)" if seat == dealer else ""))


def _value(v: Any) -> str:
    return html.escape(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))


POSITIONS = {4: ["south", "west", "north", "east"], 3: ["south", "west", "east"]}
CSS = f"""
body {{ font-family: sans-serif; background: {FELT}; color: #f4f4f4; margin: 16px; }}
h1 {{ font-size: 22px; margin: 0 0 4px; }} h2 {{ font-size: 17px; margin: 18px 0 6px; }}
.table {{ display: grid; grid-template-areas: ". north ." "west centre east" ". south .";
  grid-template-columns: 1fr 1fr 1fr; gap: 10px; }}
.seat {{ background: rgba(0,0,0,.18); border-radius: 8px; padding: 6px; }}
.seat h3 {{ margin: 0 0 4px; font-size: 14px; }}
.north {{ grid-area: north; }} .south {{ grid-area: south; }} .west {{ grid-area: west; }}
.east {{ grid-area: east; }} .centre {{ grid-area: centre; text-align: center; }}
.cards {{ display: flex; flex-wrap: wrap; gap: 2px; }}
.trick {{ display: inline-block; vertical-align: top; background: rgba(0,0,0,.18);
  border-radius: 8px; padding: 6px; margin: 0 6px 6px 0; }}
.play {{ display: inline-block; text-align: center; font-size: 11px; margin-right: 2px; }}
.play.winner svg rect {{ stroke: #ffd700; stroke-width: 6; }}
table.list {{ border-collapse: collapse; }}
table.list td, table.list th {{ padding: 2px 10px 2px 0; text-align: left; }}
table.list svg {{ vertical-align: middle; }} .note {{ color: #ffe08a; }}
"""


def render_hand(rep: HandReplay, *, players: Sequence[str] = (), title: str = "") -> str:
    """The page for one replayed hand."""
    n = len(rep.hands)
    positions = POSITIONS.get(n, [f"seat{i}" for i in range(n)])
    out = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title or f'{rep.game} hand')}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{html.escape(title or rep.game.capitalize() + ' hand')}</h1>",
        f"<p>Game <b>{html.escape(rep.game)}</b>, dealer seat {rep.dealer}, "
        f"{len(rep.steps)} actions, {len(rep.tricks)} tricks.</p>",
        '<h2>The deal</h2><div class="table" id="deal">',
    ]
    for seat, cards in enumerate(rep.hands):
        out.append(f'<div class="seat {positions[seat]}" data-seat="{seat}">'
                   f"<h3>{_seat_label(seat, players, rep.dealer)}</h3><div class=\"cards\">"
                   + "".join(card_svg(c) for c in sort_cards(cards)) + "</div></div>")
    out.append('<div class="centre">')
    if rep.stock:
        out.append('<h3>Stock</h3><div class="cards" style="justify-content:center">'
                   + "".join(card_svg(c, width=44) for c in rep.stock) + "</div>")
    out.append("</div></div>")

    out.append('<h2>The auction</h2><table class="list" id="auction">')
    out.append("<tr><th>#</th><th>seat</th><th>action</th></tr>")
    for s in rep.auction:
        out.append(f"<tr><td>{s.index + 1}</td><td>{_seat_label(s.seat, players, -1)}</td>"
                   f"<td>{_action_html(s.action)}</td></tr>")
        for a in s.announced:
            out.append(f'<tr class="note"><td></td><td>announced</td><td>{html.escape(a["what"])}'
                       f": {_value(a['data'])}</td></tr>")
    if not rep.auction:
        out.append("<tr><td colspan=3>no decisions before play</td></tr>")
    out.append("</table>")

    out.append('<h2>The tricks</h2><div id="tricks">')
    for t in rep.tricks:
        out.append(f'<div class="trick" data-trick="{t["number"]}"><div>Trick {t["number"]}: '
                   f'seat {t["winner"]} wins' + (f', {t["points"]} points' if t["points"] else "")
                   + "</div>")
        for p in t["plays"]:
            cls = "play winner" if p["seat"] == t["winner"] else "play"
            out.append(f'<div class="{cls}">{card_svg(p["card"], width=48)}'
                       f"<br>seat {p['seat']}</div>")
        out.append("</div>")
    out.append("</div>")

    out.append('<h2>The score</h2><table class="list" id="score">')
    if rep.result is None:
        out.append("<tr><td>the hand is not finished"
                   + (f": {html.escape(rep.error['message'])}" if rep.error else "")
                   + "</td></tr>")
    else:
        for key, value in rep.result.items():
            out.append(f"<tr><th>{html.escape(key)}</th><td>{_value(value)}</td></tr>")
    out.append("</table></body></html>")
    return "\n".join(out)


def _action_html(action: str) -> str:
    verb, _, arg = action.partition(":")
    cards = arg.split(",") if arg else []
    if cards and all(len(c) == 2 and c[0] in RANKS and c[1] in SUITS for c in cards):
        return html.escape(verb) + " " + "".join(card_svg(c, width=32) for c in cards)
    return html.escape(action_text(action))
