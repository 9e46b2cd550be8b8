"""Records on the client side: load, export, verify, and replay a hand step by step.

Replays go through the public record format (:mod:`referee.rules.handrecord`), the same code
``referee verify`` runs, so an arbiter sees exactly what the rules decide at each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import referee.rules.handrecord as hr
from referee.rules.render import Replayed, replay_for_view


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


def hand_of(data: dict[str, Any], hand: int | None = None, *, cancelled: bool = False
            ) -> dict[str, Any]:
    """A stand-alone ``referee.hand/v1`` record: ``data`` itself, or hand ``hand`` (from 1;
    default the last) of a match record (``cancelled``: of its cancelled deals, in order)."""
    if data.get("format") == hr.HAND_FORMAT:
        return data
    if data.get("format") != hr.MATCH_FORMAT:
        raise RecordProblem(f"format must be {hr.HAND_FORMAT!r} or {hr.MATCH_FORMAT!r}")
    hands = data.get("cancelled" if cancelled else "hands") or []
    if not hands:
        raise RecordProblem("the match record has no cancelled deal" if cancelled
                            else "the match record has no finished hand")
    index = len(hands) if hand is None else hand
    if not 1 <= index <= len(hands):
        what = "cancelled deal" if cancelled else "hand"
        raise RecordProblem(f"no {what} {index}: the record has {what}s 1..{len(hands)}")
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


def replay(record: dict[str, Any]) -> Replayed:
    """Replay a hand record through the rules: each step's legal set, tricks and table.

    :raises RecordProblem: when ``record`` is not a valid hand record.
    """
    try:
        return replay_for_view(record)
    except ValueError as exc:
        raise RecordProblem(str(exc)) from None
