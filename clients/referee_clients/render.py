"""Readable terminal text for cards, views and scoreboards (suit symbols ♣♦♥♠).

Everything a player or the server chose (names, actions, messages, reasons) reaches a terminal
only through :func:`safe` (one field) or :func:`terminal_text` (a whole block): control and
format characters are shown as visible escapes (``\\x1b``), never sent raw, so a name cannot
clear, recolour or spoof an arbiter's screen. :func:`json_text` does the same for JSON output,
which stays valid JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import referee.rules.words as words
from referee.rules.render import SYMBOLS, sort_cards

RED = "\x1b[31m"
RESET = "\x1b[0m"
_RED_CARD = re.compile(r"(?<![\w\\])(10|[2-9JQKA])([♦♥])")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def safe(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable (C0/C1 controls such as ESC, DEL,
    bidirectional and zero-width format characters, line separators) written as a visible
    escape (``"\\x1b[2J"``), except those in ``keep``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else _escape(ch) for ch in text)


def terminal_text(text: str, *, color: bool = False) -> str:
    """A block of output lines made safe for a terminal: line breaks and tabs stay, every other
    control or format character is escaped (:func:`safe`). ``color``: then hearts and diamonds
    (``10♥``) are drawn red, the only escape sequences this client ever sends."""
    text = safe(text, "\n\t")
    return _RED_CARD.sub(f"{RED}\\1\\2{RESET}", text) if color else text


def json_text(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON (UTF-8 text kept readable) in which no character a terminal would act
    on appears raw: those JSON leaves unescaped (C1 controls, DEL, format characters) are
    written ``\\uXXXX``, so the text is the same JSON value and still valid."""
    return json_safe(json.dumps(data, ensure_ascii=False, indent=indent))


def json_safe(text: str) -> str:
    """JSON text with every non-printable character but its line breaks written ``\\uXXXX``
    (the same JSON value: such characters can only stand inside strings)."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or ch in "\n\t" else
        "".join(f"\\u{u:04x}" for u in _utf16(ch)) for ch in text)


def _utf16(ch: str) -> list[int]:
    code = ord(ch)
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


def card_text(card: str) -> str:
    """``"TH"`` -> ``"10♥"``; other text (``"hidden"``) is returned terminal-safe."""
    if len(card) != 2 or card[1] not in SYMBOLS:
        return safe(card)
    return ("10" if card[0] == "T" else card[0]) + SYMBOLS[card[1]]


def cards_text(cards: Iterable[str], *, sort: bool = True) -> str:
    seq = sort_cards(cards) if sort else list(cards)
    return " ".join(card_text(c) for c in seq) or "-"


def action_text(action: str) -> str:
    """Record notation with the cards drawn: ``play:TH`` -> ``play 10♥`` (terminal-safe)."""
    verb, _, arg = action.partition(":")
    if not arg:
        return safe(verb)
    parts = arg.split(",")
    if all(len(p) == 2 and p[1] in SYMBOLS for p in parts):
        return f"{verb} " + " ".join(card_text(p) for p in parts)
    if verb == "name" and arg in SYMBOLS:
        return f"name {SYMBOLS[arg]}"
    return safe(f"{verb} {arg}")


def seat_name(seat: int | None, players: Sequence[str]) -> str:
    if seat is None:
        return "-"
    if 0 <= seat < len(players) and players[seat] and players[seat] != f"seat {seat}":
        return f"seat {seat} ({safe(players[seat])})"
    return f"seat {seat}"


def trump_of(state: dict[str, Any]) -> str | None:
    """The trump suit letter from a game's view, when there is one."""
    trump = state.get("trump")
    if isinstance(trump, str) and trump in SYMBOLS:
        return trump
    contract = state.get("contract")
    if isinstance(contract, dict):
        contract = contract.get("denomination")
    if isinstance(contract, str) and contract in SYMBOLS:
        return contract
    return None


def contract_text(state: dict[str, Any]) -> str:
    """A one-line summary of the auction's outcome, from whatever keys the game's view has."""
    parts = []
    contract = state.get("contract")
    if isinstance(contract, dict):
        contract = contract.get("bid")
    if contract:
        parts.append(f"contract {contract}")
    for key in ("declarer", "maker", "bidder"):
        if state.get(key) is not None:
            parts.append(f"{key} seat {state[key]}")
            break
    trump = trump_of(state)
    if trump:
        parts.append(f"trump {SYMBOLS[trump]}")
    for key in ("doubled", "coinche"):
        if state.get(key):
            parts.append(str(state[key]))
    if state.get("alone"):
        parts.append("alone")
    return ", ".join(parts)


def clock_text(clock: Any, players: list[str]) -> str:
    """A timed table's clock in one line (docs/clocks.md)."""
    if clock.paused:
        return "clock: paused (the table waits for the arbiter)"
    if clock.to_act is None or clock.left_ms is None:
        return "clock: stopped"
    banks = (" banks: " + " ".join(f"{i}:{b / 1000:.0f}s" for i, b in enumerate(clock.banks_ms))
             if clock.banks_ms else "")
    return (f"clock: {seat_name(clock.to_act, players)} has {clock.left_ms / 1000:.1f}s "
            f"(on timeout: {clock.policy}){banks}")


def render_view(view: Any) -> str:
    """A :class:`~trick_referee_client.sdk.View` as a few lines: scores, whose turn, the
    trick, the hand."""
    s = view.state
    players = view.players
    lines = [
        f"{view.game} match {view.match_id}  hand {view.hand}  version {view.version}",
        f"score: {scores_text(view.scores, len(view.players))}",
    ]
    if view.match_over:
        won = ("a tie" if view.winner is None
               else f"{side_name(view.winner, len(view.players), len(view.scores))} wins")
        lines.append(f"match over: {won}")
    lines.append(f"dealer: {seat_name(view.dealer, players)}   phase: {s.get('phase', '-')}")
    clock = getattr(view, "clock", None)
    undo = getattr(view, "undo", None)
    claim = getattr(view, "claim", None)
    if clock is not None:
        lines.append("clock: stopped until the undo request is answered" if undo else
                     "clock: stopped until the claim is answered" if claim else
                     clock_text(clock, players))
    if claim:
        lines.append(f"claim: {seat_name(claim['seat'], players)} claims all the remaining "
                     f"tricks, unchecked; the other sides accept or reject "
                     f"(referee-client claim --accept | --reject)")
    if undo:
        lines.append(f"undo: {seat_name(undo['seat'], players)} asks to withdraw "
                     f"{action_text(undo['action'])}; the other sides agree or refuse "
                     f"(referee-client undo --agree | --refuse)")
    summary = contract_text(s)
    if summary:
        lines.append(summary)
    if s.get("upcard") and s.get("phase") != "play":
        lines.append(f"upcard: {card_text(s['upcard'])}")
    tricks = s.get("tricks") or []
    if tricks:
        last = tricks[-1]
        plays = " ".join(f"{p['seat']}:{card_text(p['card'])}"
                         for p in last.get("plays", []))
        lines.append(f"last trick #{last.get('number', len(tricks))}: {plays} "
                     f"-> seat {last.get('winner')}")
    trick = s.get("trick") or []
    if trick:
        lines.append("on the table: " + "  ".join(
            f"{seat_name(p['seat'], players)} {card_text(p['card'])}" for p in trick))
    sizes = s.get("hand_sizes")
    if sizes:
        lines.append("cards held: " + "  ".join(f"{i}:{n}" for i, n in enumerate(sizes)))
    if view.to_act is not None and not view.match_over:
        you = " (you)" if view.seat is not None and view.seat == view.to_act else ""
        lines.append(f"to act: {seat_name(view.to_act, players)}{you}")
    if "hand" in s:
        lines.append(f"your hand ({seat_name(view.seat, players)}): "
                     f"{cards_text(s['hand'])}")
    if view.legal_actions:
        lines.append("legal: " + ", ".join(safe(a) for a in view.legal_actions))
    return "\n".join(lines)


def side_name(index: int, seats: int, sides: int) -> str:
    """Who one score is for, from the shape of the table alone: with fewer sides than seats
    the seats play in partnerships (seat ``s`` with ``s + sides``, as the Game contract
    says), so a side is a team; otherwise a seat."""
    if 0 < sides < seats:
        return f"team {index} (seats {' & '.join(str(s) for s in range(index, seats, sides))})"
    return f"seat {index}"


def scores_text(scores: Sequence[int], seats: int) -> str:
    return ", ".join(f"{side_name(i, seats, len(scores))} {v}"
                     for i, v in enumerate(scores)) or "-"


def scoreboard(record: dict[str, Any], scores: Sequence[int]) -> list[dict[str, Any]]:
    """One row per finished hand of a match record: the hand's points and the running total."""
    rows = []
    total = [0] * len(scores)
    for i, hand in enumerate(record.get("hands", []), 1):
        points = list((hand.get("result") or {}).get("points", []))
        for k, p in enumerate(points[: len(total)]):
            total[k] += p
        rows.append({"hand": i, "dealer": hand.get("dealer"), "points": points,
                     "void": bool((hand.get("result") or {}).get("void")),
                     "running": list(total)})
    return rows


def scoreboard_text(rows: list[dict[str, Any]], scores: Sequence[int], seats: int) -> str:
    sides = len(scores)
    head = ["hand", "dealer"] + [side_name(i, seats, sides).split(" (")[0] for i in range(sides)]
    lines = ["  ".join(f"{h:>8}" for h in head)]
    for r in rows:
        pts = r["points"] + [0] * (sides - len(r["points"]))
        cells = [str(r["hand"]), str(r["dealer"])] + [
            f"{p:+d}" + (" (void)" if r["void"] and k == 0 else "") for k, p in enumerate(pts)]
        lines.append("  ".join(f"{c:>8}" for c in cells))
    lines.append("  ".join(f"{c:>8}" for c in ["match", ""] + [str(s) for s in scores]))
    return "\n".join(lines)


def words_table(game: str, players: Sequence[str], seats: int = 0, dealer: int = -1
                ) -> words.Table:
    """Who sits where, for hands in words (``seats``: default one per player)."""
    return words.Table(game, seats or len(players), list(players), dealer)


def announcement_text(game: str, what: str, data: dict[str, Any], table: words.Table) -> str:
    """An announcement (``Announced`` fact) as the viewer says it, never as JSON."""
    return safe(words.announcement(game, str(what), data if isinstance(data, dict) else {},
                                   table))


def result_lines(game: str, result: Any, table: words.Table) -> list[str]:
    """A hand's result in the viewer's words: the headline, then one ``label: words`` line per
    item (per-side numbers as ``team 0 (...): 37 · team 1 (...): 0``)."""
    if not isinstance(result, dict):
        return [safe(words.value(result, table))]
    lines = [words.headline(result, table)]
    for label, text in words.result_rows(game, result, table):
        if isinstance(text, list):
            text = " · ".join(f"{side}: {x}" for side, x in zip(table.sides(), text,
                                                                  strict=False))
        lines.append(f"{label}: {text}")
    return [safe(line) for line in lines if line]
