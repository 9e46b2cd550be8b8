"""``referee verify FILE [--legal]``: replay a hand or match record through the rules (or an
NDJSON file of records, one per line, as the bulk exports write).

Prints one JSON object; exit status 0 when every action is legal (and a given result matches),
1 for an illegal action or a result mismatch, 2 when the file is not a valid record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.domain.deal import commitment
from referee.domain.result import ABANDONMENT_POLICIES, abandoned_winner, match_result
from referee.rules.cards import parse_card
from referee.rules.errors import RecordError
from referee.rules.game import MatchState, forfeit_winner
from referee.rules.handrecord import (
    HandRecord,
    MatchRecord,
    Replay,
    match_state_json,
    read_record,
    replay_hand,
    result_mismatch,
)
from referee.rules.registry import find_game

OK, ILLEGAL, INVALID = 0, 1, 2


def verify_path(path: str, *, legal: bool = False) -> tuple[int, dict[str, Any]]:
    """Read and verify the record at ``path``; return the exit status and the JSON report."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return INVALID, _invalid(f"cannot read {path}: {exc}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            return verify_ndjson(text, legal=legal)
        return INVALID, _invalid(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    return verify_data(data, legal=legal)


def verify_ndjson(text: str, *, legal: bool = False) -> tuple[int, dict[str, Any]]:
    """Verify one record per line (a bulk export); the worst exit status wins."""
    code, records = OK, []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            c, out = INVALID, _invalid(f"line {n} is not JSON: {exc.msg}")
        else:
            c, out = verify_data(data, legal=legal)
        out["line"] = n
        records.append(out)
        code = max(code, c)
    return code, {"ok": code == OK, "records": records}


def verify_data(data: object, *, legal: bool = False) -> tuple[int, dict[str, Any]]:
    """Verify an already parsed record."""
    try:
        record = read_record(data)
    except RecordError as exc:
        return INVALID, _invalid(str(exc), exc.where)
    if isinstance(record, HandRecord):
        code, out, _ = _verify_hand(record, legal)
        return code, out
    return _verify_match(record, legal)


def _invalid(message: str, where: str = "") -> dict[str, Any]:
    error: dict[str, Any] = {"reason": "INVALID_RECORD", "message": message}
    if where:
        error["where"] = where
    return {"ok": False, "error": error}


def _verify_hand(record: HandRecord, legal: bool) -> tuple[int, dict[str, Any], Replay]:
    game = find_game(record.game)
    replay = replay_hand(game, record, legal=legal)
    out: dict[str, Any] = {"ok": replay.error is None}
    out["complete"] = replay.result is not None
    out["result"] = replay.result.to_json() if replay.result else None
    if legal:
        out["steps"] = replay.steps
    if replay.error:
        out["error"] = replay.error
        return ILLEGAL, out, replay
    if record.result is not None:
        problem = (
            result_mismatch(record.result, out["result"])
            if out["result"]
            else "the record has a result but its hand is not finished"
        )
        if problem:
            out["ok"] = False
            out["error"] = {"reason": "RESULT_MISMATCH", "message": problem}
            return ILLEGAL, out, replay
    return OK, out, replay


def _verify_match(record: MatchRecord, legal: bool) -> tuple[int, dict[str, Any]]:
    game = find_game(record.game)
    hands_out: list[dict[str, Any]] = []
    out: dict[str, Any] = {"ok": True, "hands": hands_out}
    match = None
    befores: list[MatchState] = []  # the match before each position of ``hands``
    for h, hand in enumerate(record.hands):
        if match is None:
            match = game.new_match(record.rules, hand.dealer)
        elif match.over:
            return ILLEGAL, _fail(out, h, "MATCH_OVER", f"hand {h} is played after the match ended")
        if hand.dealer != match.dealer:
            return ILLEGAL, _fail(
                out,
                h,
                "WRONG_DEALER",
                f"hand {h} is dealt by seat {hand.dealer}, but the deal passes to seat "
                f"{match.dealer}",
            )
        befores.append(match)
        code, report, replay = _verify_hand(hand, legal)
        report["hand"] = h
        hands_out.append(report)
        if code != OK:
            out["ok"] = False
            out["error"] = dict(report["error"], hand=h)
            return code, out
        if replay.result is None:
            if h != len(record.hands) - 1:
                return ILLEGAL, _fail(out, h, "HAND_UNFINISHED", f"hand {h} is not finished")
            break
        match = game.after_hand(match, replay.result, record.rules)
    if match is not None and not match.over:
        befores.append(match)  # before the next hand (dealt anew, not finished)
    elif match is None and record.cancelled:  # hand 1 dealt anew, not finished
        befores.append(game.new_match(record.rules, record.cancelled[0].record.dealer))
    code = _verify_cancelled(record, befores, out, legal)
    if code != OK:
        return code, out
    played = match_state_json(match) if match else None
    forfeit = record.result.get("forfeit") if record.result is not None else None
    if forfeit is not None and match is not None:
        seat = forfeit.get("seat") if isinstance(forfeit, dict) else None
        problem = _forfeited(game, match, seat)
        if problem:
            out["result"] = played
            return ILLEGAL, _fail(out, len(record.hands), "RESULT_MISMATCH", problem)
        assert isinstance(seat, int)
        played = {"scores": list(match.scores), "over": True,
                  "winner": forfeit_winner(game, match.scores, seat)}
    abandoned = record.result.get("abandoned") if record.result is not None else None
    if abandoned is not None and match is not None:
        problem = _abandoned(match, abandoned)
        if problem:
            out["result"] = played
            return ILLEGAL, _fail(out, len(record.hands), "RESULT_MISMATCH", problem)
        assert isinstance(abandoned, dict)
        played = {"scores": list(match.scores), "over": True,
                  "winner": abandoned_winner(match.scores, abandoned)}
    # The official result: the rulings of the record applied (referee.domain.result).
    out["result"] = None if played is None else match_result(
        played["scores"], played["winner"], played["over"], record.rulings,
        forfeit if isinstance(forfeit, dict) else None,
        abandoned if isinstance(abandoned, dict) else None)
    if record.result is not None:
        problem = result_mismatch(record.result, out["result"]) if out["result"] else "no hands"
        if problem:
            return ILLEGAL, _fail(out, len(record.hands), "RESULT_MISMATCH", problem)
    return OK, out


def _verify_cancelled(record: MatchRecord, befores: list[MatchState], out: dict[str, Any],
                      legal: bool) -> int:
    """Check the record's cancelled deals (``docs/hand-record.md``): each was dealt by the
    dealer due at its position (after a scored deal cancelled with it: the dealer that deal's
    result passed the deal to), its actions are legal, and its pack matches its deal and its
    commitment. They count for nothing in the result."""
    game = find_game(record.game)
    reports: list[dict[str, Any]] = []
    prev: tuple[int, MatchState, Any] | None = None  # the last one: position, before, result
    for i, c in enumerate(record.cancelled):
        if prev is not None and prev[0] == c.hand - 1 and prev[2] is not None:
            before = game.after_hand(prev[1], prev[2], record.rules)  # dealt after it
        elif c.hand <= len(befores):
            before = befores[c.hand - 1]
        else:
            return _cancelled_fail(out, i, "HAND_NOT_FOUND",
                                   f"cancelled[{i}] names hand {c.hand}, after the match ended")
        if c.record.dealer != before.dealer:
            return _cancelled_fail(
                out, i, "WRONG_DEALER", f"cancelled[{i}] is dealt by seat {c.record.dealer}, "
                f"but hand {c.hand} is dealt by seat {before.dealer}")
        code, report, replay = _verify_hand(c.record, legal)
        report["hand"] = c.hand
        reports.append(report)
        out["cancelled"] = reports
        if code != OK:
            return _cancelled_fail(out, i, report["error"]["reason"], report["error"]["message"])
        problem = _pack_problem(game, c)
        if problem:
            return _cancelled_fail(out, i, "COMMITMENT_MISMATCH", problem)
        prev = (c.hand, before, replay.result)
    return OK


def _pack_problem(game: Any, c: Any) -> str | None:
    """What is wrong with a cancelled deal's pack and commitment (None: they hold, or the
    record gives no pack)."""
    pack = c.about.get("pack")
    if pack is None:
        return None
    deal = game.deal([parse_card(x) for x in pack], c.record.dealer)
    held = [sorted(h) for h in deal.hands] != [sorted(h) for h in c.record.deal.hands]
    if held or deal.stock != c.record.deal.stock:
        return "its pack, dealt, does not give its deal"
    given = c.about.get("commitment")
    if given is not None and commitment(str(c.about.get("nonce", "")), pack) != given:
        return "its pack and nonce do not hash to its commitment"
    return None


def _cancelled_fail(out: dict[str, Any], index: int, reason: str, message: str) -> int:
    out["ok"] = False
    out["error"] = {"cancelled": index, "reason": reason, "message": message}
    return ILLEGAL


def _forfeited(game: Any, match: Any, seat: object) -> str | None:
    """What is wrong with a record's claim that ``seat`` forfeited the match on time (the
    forfeit ends it; the winner follows from the scores so far), if anything."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_seats:
        return f"result.forfeit.seat must be a seat 0..{game.num_seats - 1}"
    if match.over:
        return "result.forfeit: the match was already over when it was forfeited"
    return None


def _abandoned(match: Any, abandoned: object) -> str | None:
    """What is wrong with a record's claim that the arbiter ended the match as abandoned
    (``faults`` one per side, a known ``policy``, on a match not yet over), if anything."""
    if not isinstance(abandoned, dict):
        return "result.abandoned must be an object"
    faults, policy = abandoned.get("faults"), abandoned.get("policy")
    sides = len(match.scores)
    if not isinstance(faults, list) or len(faults) != sides or not all(
            isinstance(f, bool) for f in faults):
        return f"result.abandoned.faults must list {sides} true/false values, one per side"
    if policy not in ABANDONMENT_POLICIES:
        return (f"result.abandoned.policy must be one of {', '.join(ABANDONMENT_POLICIES)}, "
                f"not {policy!r}")
    if match.over:
        return "result.abandoned: the match was already over when it was abandoned"
    return None


def _fail(out: dict[str, Any], hand: int, reason: str, message: str) -> dict[str, Any]:
    out["ok"] = False
    out["error"] = {"hand": hand, "reason": reason, "message": message}
    return out
