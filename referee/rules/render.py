"""A self-contained HTML page of one hand: the deal, the auction, the hands as they were
played, every trick, the score.

Cards are inline SVG pictures (suit pips drawn as paths, no fonts or images), and the page loads
nothing from outside, so it can be mailed to an arbiter or archived with the record. Everything
else is in words (:mod:`referee.rules.words`): every bid, announcement and result line, never
raw JSON, and cards in text in one notation, ``10♦``.

Stdlib only, beside :mod:`referee.rules.handrecord` (as python-chess keeps ``chess.svg`` beside
its core): the referee serves it to auditors (``ProjectionsService.GetHandView``) and the
command-line client writes it (``trick replay --html``). :func:`render_record` replays a
``referee.hand/v1`` record itself; :func:`render_hand` draws any replay with the attributes of
:class:`HandReplay`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.rules import words
from referee.rules.cards import RANK_LETTERS, SUIT_LETTERS, card_name
from referee.rules.game import Announced, TrickTaken
from referee.rules.handrecord import HandRecord, read_record, replay
from referee.rules.registry import find_game

SUITS = SUIT_LETTERS
RANKS = RANK_LETTERS
SYMBOLS = words.SYMBOLS
CARD_VERBS = ("play", "belot", "belote", "rebelote")


class StepLike(Protocol):
    index: int
    seat: int
    action: str
    announced: list[dict[str, Any]]
    tricks: list[dict[str, Any]]
    table: dict[str, Any]


class HandReplay(Protocol):
    """What :func:`render_hand` reads (``referee_clients.records.HandReplay`` has it too).

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
    timeout: bool = False
    """The referee took this action for a seat whose time ran out."""
    claim: bool = False
    """An action of the line an accepted claim or a concession played out."""


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
    withdrawn: list[dict[str, Any]] = field(default_factory=list)
    """Actions withdrawn by consent (undo policy): ``index``, ``seat``, ``action``."""

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
    for played in replay(game, parsed.deal, parsed.dealer, parsed.rules, parsed.actions):
        legal = sorted(game.format_action(a) for a in game.legal_actions(played.before))
        step = Step(played.index, played.seat, played.text, legal,
                    timeout=played.index in parsed.timeouts,
                    claim=played.index in parsed.claimed)
        steps.append(step)
        if played.error is not None:
            exc = played.error
            error = {"index": played.index, "seat": played.seat, "action": played.text,
                     "message": str(exc), "rule": exc.rule or ""}
            step.error = error
            break
        state = played.after
        for fact in played.facts:
            if isinstance(fact, TrickTaken):
                trick = {"number": fact.number, "winner": fact.winner, "points": fact.points,
                         "plays": [{"seat": s, "card": card_name(c)} for s, c in fact.plays]}
                step.tricks.append(trick)
                tricks.append(trick)
            elif isinstance(fact, Announced):
                step.announced.append({"what": fact.what, "data": dict(fact.data)})
        step.table = game.audit_view(state)
    done = error is None and game.is_terminal(state)
    return Replayed(
        game=parsed.game, dealer=parsed.dealer,
        hands=[[card_name(c) for c in h] for h in parsed.deal.hands],
        stock=[card_name(c) for c in parsed.deal.stock], steps=steps, tricks=tricks,
        result=game.result(state).to_json() if done else None, error=error,
        withdrawn=[dict(w) for w in parsed.withdrawn],
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
    if all(words.is_card(p) for p in parts):
        return f"{verb} {words.cards(parts)}"
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
        f'aria-label="{label} of {words.NAMES[suit]}" xmlns="http://www.w3.org/2000/svg">'
        f'<rect x="2" y="2" width="96" height="136" rx="9" fill="{FACE}" stroke="#555" '
        f'stroke-width="2"/>'
        f'<text x="9" y="30" font-family="sans-serif" font-weight="bold" font-size="26" '
        f'fill="{colour}">{label}</text>'
        f'<g fill="{colour}" transform="translate(10 37) scale(0.18)">{pip}</g>'
        f'<g fill="{colour}" transform="translate(25 55) scale(0.55)">{pip}</g>'
        f"</svg>"
    )


POSITIONS = {4: ["south", "west", "north", "east"], 3: ["south", "west", "east"]}
CSS = f"""
body {{ font-family: sans-serif; background: {FELT}; color: #f4f4f4; margin: 16px;
  max-width: 1180px; }}
h1 {{ font-size: 22px; margin: 0 0 4px; }} h2 {{ font-size: 17px; margin: 20px 0 6px; }}
.table {{ display: grid; grid-template-areas: ". north ." "west centre east" ". south .";
  grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 10px; }}
.seat {{ background: rgba(0,0,0,.18); border-radius: 8px; padding: 6px; }}
.seat h3, .centre h3 {{ margin: 0 0 4px; font-size: 14px; }}
.north {{ grid-area: north; }} .south {{ grid-area: south; }} .west {{ grid-area: west; }}
.east {{ grid-area: east; }} .centre {{ grid-area: centre; text-align: center; }}
.cards {{ display: flex; flex-wrap: wrap; gap: 2px; }}
.centre .cards {{ justify-content: center; }} .group {{ margin-bottom: 8px; }}
.one-row .seat .cards {{ flex-wrap: nowrap; }}
.one-row .seat .cards svg {{ flex: 0 1 auto; min-width: 0; height: auto; }}
.trick {{ display: inline-block; vertical-align: top; background: rgba(0,0,0,.18);
  border-radius: 8px; padding: 6px; margin: 0 6px 6px 0; max-width: 272px; }}
.play {{ display: inline-block; text-align: center; font-size: 11px; margin-right: 2px; }}
.play.winner svg rect {{ stroke: #ffd700; stroke-width: 6; }}
table.list {{ border-collapse: collapse; }}
table.list td, table.list th {{ padding: 3px 12px 3px 0; text-align: left; vertical-align: top; }}
table.list svg {{ vertical-align: middle; }} .note, .note td {{ color: #ffe08a; }}
#score th {{ padding-right: 18px; }} #score td.num {{ text-align: right; padding-right: 28px; }}
.trick .note {{ font-size: 12px; margin-top: 4px; }} .headline {{ font-size: 16px; }}
.muted {{ color: #c9d8cc; font-size: 12px; }}
.timeout {{ color: #ffb4a8; font-size: 12px; }}
"""


def render_hand(rep: HandReplay, *, players: Sequence[str] = (), title: str = "") -> str:
    """The page for one replayed hand."""
    n = len(rep.hands)
    table = words.Table(rep.game, n, list(players), rep.dealer)
    try:
        game_title = find_game(rep.game).title
    except Exception:  # a game this build does not know: its name will do
        game_title = rep.game
    heading = html.escape(title or f"{game_title} hand")
    out = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{heading}</title>", f"<style>{CSS}</style></head><body>",
        f"<h1>{heading}</h1>",
        f"<p>{html.escape(game_title)} · dealer {html.escape(table.seat(rep.dealer))} · "
        f"{words.plural(len(rep.steps), 'action')} · {words.plural(len(rep.tricks), 'trick')}"
        "</p>",
        '<h2>The deal</h2><div class="table" id="deal">',
        *_seats(rep.hands, table, sort=True),
        '<div class="centre">',
        *(_group(label, group, width=44) for label, group in _stock_groups(rep, table)),
        "</div></div>",
    ]
    out += _auction(rep, table)
    out += _hands_in_play(rep, table)
    out += _tricks(rep, table)
    out += _withdrawn(rep, table)
    out += _score(rep, table)
    out.append("</body></html>")
    return "\n".join(out)


def _seat_label(seat: int, table: words.Table, *, note: str = "") -> str:
    dealer = " (dealer)" if seat == table.dealer else ""
    text = table.seat(seat)
    return html.escape(text[:1].upper() + text[1:] + dealer + note)


def _seats(hands: Sequence[Sequence[str]], table: words.Table, *, sort: bool,
           notes: Sequence[str] = (), width: int = 64) -> list[str]:
    positions = POSITIONS.get(len(hands), [f"seat{i}" for i in range(len(hands))])
    out = []
    for seat, held in enumerate(hands):
        note = notes[seat] if seat < len(notes) else ""
        shown = sort_cards(held) if sort else list(held)
        out.append(f'<div class="seat {positions[seat]}" data-seat="{seat}">'
                   f"<h3>{_seat_label(seat, table, note=note)}</h3><div class=\"cards\">"
                   + ("".join(card_svg(c, width=width) for c in shown)
                      or '<span class="muted">no cards'
                      "</span>") + "</div></div>")
    return out


def _group(label: str, cards: Sequence[str], *, width: int) -> str:
    return (f'<div class="group" data-group="{html.escape(label)}"><h3>{html.escape(label)}'
            f'</h3><div class="cards">' + "".join(card_svg(c, width=width) for c in cards)
            + "</div></div>")


def _stock_groups(rep: HandReplay, table: words.Table) -> list[tuple[str, list[str]]]:
    """The cards dealt beside the hands, labelled as the game uses them."""
    stock = list(rep.stock)
    if not stock:
        return []
    if rep.game == "euchre":
        return [("Upcard (face up)", stock[:1]), ("Kitty (face down)", stock[1:])]
    if rep.game == "pedro":
        return [(f"Widow ({len(stock)} cards, served in this order after the discards)",
                 stock)]
    if rep.game in ("belot", "coinche"):
        each = len(stock) // table.seats if table.seats else 0
        return [(f"Dealt after the auction ({each} to each seat, from "
                 f"{table.seat((rep.dealer + 1) % table.seats)})", stock)]
    return [("Stock", stock)]


def _first_play(rep: HandReplay) -> int | None:
    """The index of the first card played, if any."""
    for step in rep.steps:
        if step.action.partition(":")[0] in CARD_VERBS:
            return step.index
    return None


def _auction(rep: HandReplay, table: words.Table) -> list[str]:
    out = ['<h2>The auction</h2><table class="list" id="auction">',
           "<tr><th>#</th><th>seat</th><th>action</th></tr>"]
    when = _during_play(rep)
    for s in rep.auction:
        out.append(f'<tr data-step="{s.index}"><td>{s.index + 1}</td>'
                   f"<td>{_seat_label(s.seat, table)}</td>"
                   f"<td>{_action_html(rep.game, s.action, s.seat, rep.dealer)}"
                   f"{when.get(s.index, '')}{_timeout_note(s)}</td></tr>")
        out += [f'<tr class="note"><td></td><td></td><td>{html.escape(text)}</td></tr>'
                for text in _notes(rep.game, s, table)]
    if not rep.auction:
        out.append("<tr><td colspan=3>no decisions before play</td></tr>")
    out.append("</table>")
    return out


def _timeout_note(step: StepLike) -> str:
    """A mark on an action the referee took for a seat whose time ran out."""
    if not getattr(step, "timeout", False):
        return ""
    return ' <span class="timeout">(time ran out: the referee\'s action)</span>'


def _during_play(rep: HandReplay) -> dict[int, str]:
    """For decisions taken once the cards are being played (an announcement in trick 1, a
    kontra after it): when, as a note."""
    out: dict[int, str] = {}
    done = in_trick = 0
    started = False
    for s in rep.steps:
        if s.action.partition(":")[0] in CARD_VERBS:
            started = True
            in_trick += 1
        elif started:
            at = f"during trick {done + 1}" if in_trick else f"after trick {done}"
            out[s.index] = f' <span class="muted">({at})</span>'
        if s.tricks:
            done += len(s.tricks)
            in_trick = 0
    return out


def _notes(game: str, step: StepLike, table: words.Table) -> list[str]:
    """The step's announcements in words, but for those that only repeat its action."""
    verb = step.action.partition(":")[0]
    return [words.announcement(game, a["what"], a["data"], table) for a in step.announced
            if a["what"] != verb and not (a["what"] == "alone" and verb == "partner")]


def _hands_in_play(rep: HandReplay, table: words.Table) -> list[str]:
    """Every seat's cards when the first card was played (after the auction, the rest of
    the deal, exchanges and discards), and what was laid aside."""
    first = _first_play(rep)
    out = ['<h2>The hands in play</h2>']
    if first is None:
        return [*out, '<p id="in-play">No card was played in this hand.</p>']
    before = rep.steps[first - 1].table if first > 0 else {}
    hands = before.get("hands") if before else [list(h) for h in rep.hands]
    if not isinstance(hands, list):
        return []
    out.append('<p class="muted">Each seat\'s cards as the first card was led.</p>')
    sitting_out = before.get("sitting_out") or [] if before else []
    width = 42 if max(map(len, hands), default=0) > 6 else 50  # a seat's hand on one row
    notes = [" — sits out" if seat in sitting_out else "" for seat in range(len(hands))]
    one_row = " one-row" if max(map(len, hands), default=0) <= 8 else ""
    out += [f'<div class="table{one_row}" id="in-play">',
            *_seats(hands, table, sort=True, notes=notes, width=width), '<div class="centre">']
    out += [_group(label, group, width=44) for label, group in _aside(rep, before)]
    out.append("</div></div>")
    return out


def _aside(rep: HandReplay, table: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Cards out of play at the first lead: discards, the rest of a stock, a talon."""
    groups: list[tuple[str, list[str]]] = []
    discard = table.get("discard")
    if rep.game == "euchre":
        if isinstance(discard, str):
            groups.append(("Discarded by the dealer", [discard]))
            groups.append(("Kitty (not played)", list(rep.stock[1:])))
        elif rep.stock:
            groups.append(("Kitty (the upcard was turned down)", list(rep.stock)))
    talon = table.get("talon")
    if isinstance(talon, list) and talon:
        groups.append(("Talon (laid aside by the declarer)", [str(c) for c in talon]))
    widow = table.get("widow_up")
    if isinstance(widow, list) and widow:
        groups.append(("Rest of the widow (face up, not played)", [str(c) for c in widow]))
    return groups


def _tricks(rep: HandReplay, table: words.Table) -> list[str]:
    notes: dict[int, list[str]] = {}
    done = 0
    claimed = False
    for s in rep.steps:  # what was said with a card goes with its trick (decisions taken
        if getattr(s, "claim", False) and not claimed:
            claimed = True
            notes.setdefault(done + 1, []).append(
                "from here the hand was played out along the line of an accepted claim or "
                "concession (docs/claims.md)")
        if s.action.partition(":")[0] in CARD_VERBS:  # during play are in the auction)
            notes.setdefault(done + 1, []).extend(
                words.announcement(rep.game, a["what"], a["data"], table) for a in s.announced)
            if getattr(s, "timeout", False):
                notes.setdefault(done + 1, []).append(
                    f"{table.seat(s.seat)}'s time ran out: the referee played "
                    f"{s.action.partition(':')[2]} for it")
        done += len(s.tricks)
    out = ['<h2>The tricks</h2><div id="tricks">']
    for t in rep.tricks:
        points = f", {words.plural(t['points'], 'point')}" if t["points"] else ""
        out.append(f'<div class="trick" data-trick="{t["number"]}"><div>Trick {t["number"]}: '
                   f'{html.escape(table.seat(t["winner"]))} wins{points}</div>')
        for p in t["plays"]:
            cls = "play winner" if p["seat"] == t["winner"] else "play"
            out.append(f'<div class="{cls}">{card_svg(p["card"], width=48)}'
                       f"<br>seat {p['seat']}</div>")
        out += [f'<div class="note">{html.escape(text)}</div>'
                for text in notes.get(t["number"], [])]
        out.append("</div>")
    if not rep.tricks:
        out.append("<p>No trick was played.</p>")
    out.append("</div>")
    return out


def _withdrawn(rep: HandReplay, table: words.Table) -> list[str]:
    """The actions withdrawn by consent (a match's undo policy), each where it was made."""
    withdrawn = getattr(rep, "withdrawn", ())
    if not withdrawn:
        return []
    out = ['<h2>Withdrawn by consent</h2><ul id="withdrawn">']
    for w in withdrawn:
        text = _action_html(rep.game, str(w["action"]), int(w["seat"]), rep.dealer)
        out.append(f"<li>after action {int(w['index'])}: {html.escape(table.seat(int(w['seat'])))} "
                   f"withdrew {text}, the other sides agreeing (undo policy)</li>")
    out.append("</ul>")
    return out


def _score(rep: HandReplay, table: words.Table) -> list[str]:
    out = ['<h2>The score</h2>']
    if rep.result is None:
        why = f": {rep.error['message']}" if rep.error else ""
        return [*out, f'<table class="list" id="score"><tr><td>the hand is not finished'
                      f"{html.escape(why)}</td></tr></table>"]
    out.append(f'<p class="headline" id="headline">'
               f"{html.escape(words.headline(rep.result, table))}</p>")
    sides = table.sides()
    out.append('<table class="list" id="score"><tr><th></th>'
               + "".join(f"<th>{html.escape(side)}</th>" for side in sides) + "</tr>")
    for label, text in words.result_rows(rep.game, rep.result, table):
        cells = ("".join(f'<td class="num">{html.escape(x)}</td>' for x in text)
                 if isinstance(text, list) else
                 f'<td colspan="{len(sides)}">{html.escape(text)}</td>')
        out.append(f"<tr><th>{html.escape(label)}</th>{cells}</tr>")
    out.append("</table>")
    return out


def _action_html(game: str, action: str, seat: int, dealer: int) -> str:
    text, named = words.action(game, action, seat=seat, dealer=dealer)
    return html.escape(text) + "".join(" " + card_svg(c, width=36) for c in named)
