"""Records on the client side: load, export, verify, and replay a hand step by step.

Replays go through the public record format (:mod:`referee.rules.handrecord`), the same code
``referee verify`` runs, so an arbiter sees exactly what the rules decide at each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import referee.rules.handrecord as hr
from referee.rules.cards import card_name


class RecordProblem(Exception):
    """The input is not a usable record (bad file, bad JSON, no such hand)."""


def load_file(path: str | Path) -> dict[str, Any]:
    """Parse a record file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecordProblem(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordProblem(f"{path} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RecordProblem(f"{path} is not a record (a JSON object)")
    return data


def hand_of(data: dict[str, Any], hand: int | None = None) -> dict[str, Any]:
    """A stand-alone ``referee.hand/v1`` record: ``data`` itself, or hand ``hand`` (from 1;
    default the last) of a match record."""
    if data.get("format") == hr.HAND_FORMAT:
        return data
    if data.get("format") != hr.MATCH_FORMAT:
        raise RecordProblem(f"format must be {hr.HAND_FORMAT!r} or {hr.MATCH_FORMAT!r}")
    hands = data.get("hands") or []
    if not hands:
        raise RecordProblem("the match record has no finished hand")
    index = len(hands) if hand is None else hand
    if not 1 <= index <= len(hands):
        raise RecordProblem(f"no hand {index}: the record has hands 1..{len(hands)}")
    out = {"format": hr.HAND_FORMAT, "game": data.get("game"), "rules": data.get("rules", {})}
    out.update(hands[index - 1])
    return out


def verify_file(path: str | Path, *, legal: bool = False) -> tuple[int, dict[str, Any]]:
    """Run ``referee verify`` on a file: exit status (0 ok, 1 illegal, 2 invalid) and report."""
    cmd = [sys.executable, "-m", "referee", "verify", str(path)] + (["--legal"] if legal else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        report = {"ok": False, "error": {"message": (proc.stderr or proc.stdout).strip()}}
    return proc.returncode, report


@dataclass
class Step:
    """One action of a replayed hand and what it caused."""

    index: int
    seat: int
    action: str
    legal: list[str]
    tricks: list[dict[str, Any]] = field(default_factory=list)
    announced: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    error: dict[str, Any] | None = None


@dataclass
class HandReplay:
    """A replayed hand: the deal, every step, every trick, the result the rules compute."""

    record: dict[str, Any]
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
        """Every decision that is not a card play (bids, passes, declarations, discards)."""
        return [s for s in self.steps if s.action.partition(":")[0] not in
                ("play", "belot", "belote", "rebelote")]


def replay(record: dict[str, Any]) -> HandReplay:
    """Replay a hand record through the rules, collecting tricks and each seat's view.

    :raises RecordProblem: when ``record`` is not a valid hand record.
    """
    try:
        parsed = hr.read_record(record)
    except ValueError as exc:
        raise RecordProblem(str(exc)) from None
    if not isinstance(parsed, hr.HandRecord):
        raise RecordProblem("expected a hand record; pick a hand of the match")
    game: Any = hr.find_game(parsed.game)  # type: ignore[attr-defined]
    state = game.new_hand(parsed.deal, parsed.dealer, parsed.rules)
    steps: list[Step] = []
    tricks: list[dict[str, Any]] = []
    error = None
    for i, (seat, text) in enumerate(parsed.actions):
        legal = sorted(game.format_action(a) for a in game.legal_actions(state))
        step = Step(i, seat, text, legal)
        steps.append(step)
        try:
            result = game.apply(state, seat, game.parse_action(text))
        except ValueError as exc:
            error = {"index": i, "seat": seat, "action": text, "message": str(exc),
                     "rule": getattr(exc, "rule", "") or ""}
            step.error = error
            break
        state = result.state
        fact: Any
        for fact in result.facts:
            if hasattr(fact, "plays"):
                trick = {"number": fact.number, "winner": fact.winner, "points": fact.points,
                         "plays": [{"seat": s, "card": card_name(c)} for s, c in fact.plays]}
                step.tricks.append(trick)
                tricks.append(trick)
            elif hasattr(fact, "what"):
                step.announced.append({"what": fact.what, "data": dict(fact.data)})
        step.table = game.audit_view(state)
    done = error is None and game.is_terminal(state)
    return HandReplay(
        record=record, game=parsed.game, dealer=parsed.dealer,
        hands=[[card_name(c) for c in h] for h in parsed.deal.hands],
        stock=[card_name(c) for c in parsed.deal.stock], steps=steps, tricks=tricks,
        result=game.result(state).to_json() if done else None, error=error,
    )
