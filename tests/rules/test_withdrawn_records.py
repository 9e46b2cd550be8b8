"""Records with actions withdrawn by consent (issue 20, item 3; docs/hand-record.md,
"Extensions"): ``withdrawn`` lists each with the index it was made at; readers that do not
know it replay ``actions`` alone; ``referee verify`` also checks each was legal there."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from referee.rules.handrecord import HandRecord, read_record
from referee.verify import verify_data

GOLDEN = Path(__file__).parent.parent / "golden" / "euchre" / "e-t11.json"


def record() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def test_a_legal_withdrawal_verifies_and_round_trips() -> None:
    data = record()
    first = data["actions"][0]
    # Seat 2 had passed first, withdrew it, and passed again: legal where it was made.
    data["withdrawn"] = [{"index": 0, "seat": first["seat"], "action": first["action"]}]
    code, report = verify_data(copy.deepcopy(data))
    assert code == 0, report
    parsed = read_record(data)
    assert isinstance(parsed, HandRecord)
    assert parsed.to_json()["withdrawn"] == data["withdrawn"]


def test_a_withdrawn_action_that_was_not_legal_there_fails_verify() -> None:
    data = record()
    seat = data["actions"][0]["seat"]
    data["withdrawn"] = [{"index": 0, "seat": (seat + 1) % 4, "action": "pass"}]  # not its turn
    code, report = verify_data(data)
    assert code == 1
    assert report["error"]["withdrawn"] == 0 and "withdrawn action 0" in report["error"][
        "message"]


def test_malformed_withdrawals_are_invalid_records() -> None:
    for bad in ({"index": 999, "seat": 0, "action": "pass"},
                {"index": 0, "seat": 7, "action": "pass"},
                {"index": 0, "seat": 0, "action": "fly:away"},
                "pass"):
        data = record()
        data["withdrawn"] = [bad]
        code, report = verify_data(data)
        assert code == 2, (bad, report)
        assert report["error"]["where"].startswith("withdrawn"), report
