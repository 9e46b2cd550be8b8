"""Readable terminal text for cards, views and scoreboards (suit symbols ♣♦♥♠)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.rules.render import SYMBOLS, sort_cards

RED = "\x1b[31m"
RESET = "\x1b[0m"


def card_text(card: str, *, color: bool = False) -> str:
    """``"TH"`` -> ``"10♥"``; other text (``"hidden"``) is returned unchanged."""
    if len(card) != 2 or card[1] not in SYMBOLS:
        return card
    rank = "10" if card[0] == "T" else card[0]
    text = rank + SYMBOLS[card[1]]
    return f"{RED}{text}{RESET}" if color and card[1] in "DH" else text


def cards_text(cards: Iterable[str], *, color: bool = False, sort: bool = True) -> str:
    seq = sort_cards(cards) if sort else list(cards)
    return " ".join(card_text(c, color=color) for c in seq) or "-"


def action_text(action: str, *, color: bool = False) -> str:
    """Record notation with the cards drawn: ``play:TH`` -> ``play 10♥``."""
    verb, _, arg = action.partition(":")
    if not arg:
        return verb
    parts = arg.split(",")
    if all(len(p) == 2 and p[1] in SYMBOLS for p in parts):
        return f"{verb} " + " ".join(card_text(p, color=color) for p in parts)
    if verb == "name" and arg in SYMBOLS:
        return f"name {SYMBOLS[arg]}"
    return f"{verb} {arg}"


def seat_name(seat: int | None, players: Sequence[str]) -> str:
    if seat is None:
        return "-"
    if 0 <= seat < len(players) and players[seat] and players[seat] != f"seat {seat}":
        return f"seat {seat} ({players[seat]})"
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


def render_view(view: Any, *, color: bool = False) -> str:
    """A :class:`clients.sdk.View` as a few lines: scores, whose turn, the trick, the hand."""
    s = view.state
    players = view.players
    lines = [
        f"{view.game} match {view.match_id}  hand {view.hand}  version {view.version}",
        f"score: {scores_text(view.scores, view.game)}",
    ]
    if view.match_over:
        lines.append("match over: " + ("a tie" if view.winner is None else
                                        f"{side_name(view.winner, view.game)} wins"))
    lines.append(f"dealer: {seat_name(view.dealer, players)}   phase: {s.get('phase', '-')}")
    summary = contract_text(s)
    if summary:
        lines.append(summary)
    if s.get("upcard") and s.get("phase") != "play":
        lines.append(f"upcard: {card_text(s['upcard'], color=color)}")
    tricks = s.get("tricks") or []
    if tricks:
        last = tricks[-1]
        plays = " ".join(f"{p['seat']}:{card_text(p['card'], color=color)}"
                         for p in last.get("plays", []))
        lines.append(f"last trick #{last.get('number', len(tricks))}: {plays} "
                     f"-> seat {last.get('winner')}")
    trick = s.get("trick") or []
    if trick:
        lines.append("on the table: " + "  ".join(
            f"{seat_name(p['seat'], players)} {card_text(p['card'], color=color)}" for p in trick))
    sizes = s.get("hand_sizes")
    if sizes:
        lines.append("cards held: " + "  ".join(f"{i}:{n}" for i, n in enumerate(sizes)))
    if view.to_act is not None and not view.match_over:
        you = " (you)" if view.seat is not None and view.seat == view.to_act else ""
        lines.append(f"to act: {seat_name(view.to_act, players)}{you}")
    if "hand" in s:
        lines.append(f"your hand ({seat_name(view.seat, players)}): "
                     f"{cards_text(s['hand'], color=color)}")
    if view.legal_actions:
        lines.append("legal: " + ", ".join(view.legal_actions))
    return "\n".join(lines)


def side_name(index: int, game: str) -> str:
    """Scores are per team (seats i and i+2) except in Ulti (per seat)."""
    return f"seat {index}" if game == "ulti" else f"team {index} (seats {index} & {index + 2})"


def scores_text(scores: Sequence[int], game: str) -> str:
    return ", ".join(f"{side_name(i, game)} {v}" for i, v in enumerate(scores)) or "-"


def scoreboard(record: dict[str, Any], scores: Sequence[int], game: str) -> list[dict[str, Any]]:
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


def scoreboard_text(rows: list[dict[str, Any]], scores: Sequence[int], game: str,
                    players: Sequence[str] = ()) -> str:
    sides = len(scores)
    head = ["hand", "dealer"] + [("seat " if game == "ulti" else "team ") + str(i)
                                for i in range(sides)]
    lines = ["  ".join(f"{h:>8}" for h in head)]
    for r in rows:
        pts = r["points"] + [0] * (sides - len(r["points"]))
        cells = [str(r["hand"]), str(r["dealer"])] + [
            f"{p:+d}" + (" (void)" if r["void"] and k == 0 else "") for k, p in enumerate(pts)]
        lines.append("  ".join(f"{c:>8}" for c in cells))
    lines.append("  ".join(f"{c:>8}" for c in ["match", ""] + [str(s) for s in scores]))
    return "\n".join(lines)
