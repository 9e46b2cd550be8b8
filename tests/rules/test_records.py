"""Hand and match records and `referee verify` (docs/hand-record.md)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.rules.handrecord import read_record
from referee.verify import verify_data

GOLDEN = Path(__file__).parent.parent / "golden" / "euchre"


def load(name: str = "e-t12") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], capture_output=True, text=True, check=False
    )


# -- the command line: output and exit codes --------------------------------------------------


def test_verify_legal_record_exits_0_and_prints_the_result() -> None:
    run = referee("verify", str(GOLDEN / "e-t12.json"))
    assert run.returncode == 0, run.stdout
    report = json.loads(run.stdout)
    assert report["ok"] is True and report["result"]["points"] == [0, 1]


def test_verify_legal_lists_each_steps_sorted_legal_set() -> None:
    run = referee("verify", "--legal", str(GOLDEN / "e-t12.json"))
    report = json.loads(run.stdout)
    steps = report["steps"]
    assert len(steps) == len(load()["actions"])
    assert steps[0] == {"index": 0, "seat": 1, "action": "order_up", "legal": ["order_up", "pass"]}
    discard = steps[1]
    assert discard["action"] == "discard:AD" and len(discard["legal"]) == 6
    for step in steps:
        assert step["legal"] == sorted(step["legal"]) and step["action"] in step["legal"]


def test_verify_illegal_action_exits_1_naming_the_rule(tmp_path: Path) -> None:
    data = load()
    # Trick 1: E leads SK; N (holding SA) must follow spades, so N playing HJ is illegal.
    index = next(i for i, a in enumerate(data["actions"]) if a["action"] == "play:AS")
    data["actions"][index]["action"] = "play:JH"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    run = referee("verify", str(path))
    assert run.returncode == 1
    error = json.loads(run.stdout)["error"]
    assert error["index"] == index and error["seat"] == 0 and error["action"] == "play:JH"
    assert error["reason"] == "ILLEGAL_ACTION" and error["rule"] == "EU-18"
    assert "must follow suit" in error["message"] and "AS" in error["message"]


def test_verify_result_mismatch_exits_1(tmp_path: Path) -> None:
    data = load()
    data["result"] = {"points": [1, 0]}
    path = tmp_path / "mismatch.json"
    path.write_text(json.dumps(data))
    run = referee("verify", str(path))
    assert run.returncode == 1
    assert json.loads(run.stdout)["error"]["reason"] == "RESULT_MISMATCH"


def test_verify_bad_json_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "referee.hand/v1", ')
    run = referee("verify", str(path))
    assert run.returncode == 2
    assert "not JSON" in json.loads(run.stdout)["error"]["message"]


def test_verify_missing_file_exits_2(tmp_path: Path) -> None:
    run = referee("verify", str(tmp_path / "nope.json"))
    assert run.returncode == 2 and "cannot read" in run.stdout


# -- malformed records: exit 2 with where and why -----------------------------------------------


def _invalid(data: object) -> dict[str, Any]:
    code, report = verify_data(data)
    assert code == 2 and report["ok"] is False
    assert report["error"]["reason"] == "INVALID_RECORD"
    error: dict[str, Any] = report["error"]
    return error


def test_unknown_game() -> None:
    data = load()
    data["game"] = "bridge"
    error = _invalid(data)
    assert error["where"] == "game" and "unknown game 'bridge'" in error["message"]


def test_wrong_format() -> None:
    data = load()
    data["format"] = "referee.hand/v2"
    assert _invalid(data)["where"] == "format"


def test_a_card_twice() -> None:
    data = load()
    data["deal"]["hands"][1][0] = data["deal"]["hands"][0][0]
    error = _invalid(data)
    assert "dealt twice" in error["message"] and error["where"].startswith("deal")


def test_a_missing_card() -> None:
    data = load()
    data["deal"]["stock"] = data["deal"]["stock"][:3]
    assert "stock" in _invalid(data)["message"]
    data = load()
    data["deal"]["stock"][3] = "2C"
    assert "not in the euchre pack" in _invalid(data)["message"]


def test_an_unknown_rule_parameter() -> None:
    data = load()
    data["rules"] = {"stick_dealer": True}
    error = _invalid(data)
    assert error["where"] == "rules" and "unknown rule parameter 'stick_dealer'" in error["message"]


def test_a_rule_parameter_of_the_wrong_type() -> None:
    data = load()
    data["rules"] = {"stick_the_dealer": "no"}
    assert "true or false" in _invalid(data)["message"]


def test_an_action_in_bad_syntax() -> None:
    data = load()
    data["actions"][5]["action"] = "play:1H"
    error = _invalid(data)
    assert error["where"] == "actions[5]" and "'1H'" in error["message"]


def test_a_bad_card_in_the_deal_quotes_it() -> None:
    data = load()
    data["deal"]["hands"][0][0] = "JX"
    error = _invalid(data)
    assert error["where"] == "deal.hands[0][0]" and "'JX'" in error["message"]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("deal"),
        lambda d: d.__setitem__("dealer", 4),
        lambda d: d.__setitem__("actions", "pass"),
        lambda d: d["actions"].__setitem__(0, {"seat": 9, "action": "pass"}),
    ],
)
def test_structural_errors(mutate: Any) -> None:
    data = load()
    mutate(data)
    _invalid(data)


def test_not_an_object() -> None:
    _invalid([1, 2, 3])


# -- notation ---------------------------------------------------------------------------------


def test_readers_accept_aliases_and_writers_emit_canonical_cards() -> None:
    data = load()
    data["deal"]["hands"][0] = [c.lower().replace("t", "10") for c in data["deal"]["hands"][0]]
    data["actions"] = [
        dict(a, action=a["action"].replace("play:T", "play:10")) for a in data["actions"]
    ]
    record = read_record(data)
    assert record.to_json()["deal"] == load()["deal"]
    assert verify_data(data)[0] == 0


def test_hand_record_round_trips() -> None:
    data = load()
    assert read_record(copy.deepcopy(data)).to_json() == data


# -- match records -------------------------------------------------------------------------------


def _match(*names: str) -> dict[str, Any]:
    hands = []
    for name in names:
        h = load(name)
        hands.append({k: h[k] for k in ("dealer", "deal", "actions", "result")})
    return {
        "format": "referee.match/v1",
        "game": "euchre",
        "rules": {},
        "players": ["ann", "bob", "cid", "dee"],
        "hands": hands,
    }


def test_match_record_applies_dealer_rotation_and_adds_scores() -> None:
    # E-T12 is dealt by N (0), E-T16 by E (1), E-T17 by S (2): the deal passes to the left.
    data = _match("e-t12", "e-t16", "e-t17")
    code, report = verify_data(data)
    assert code == 0, report
    assert report["result"]["scores"] == [0 + 0 + 2, 1 + 2 + 0]
    assert report["result"]["over"] is False


def test_match_record_with_the_wrong_dealer_is_refused() -> None:
    data = _match("e-t12", "e-t17")  # S deals the second hand, but it is E's deal
    code, report = verify_data(data)
    assert code == 1 and report["error"]["reason"] == "WRONG_DEALER"


def test_match_record_result_is_checked() -> None:
    data = _match("e-t12", "e-t16")
    data["result"] = {"scores": [0, 3], "winner": None}
    assert verify_data(data)[0] == 0
    data["result"] = {"scores": [3, 0]}
    code, report = verify_data(data)
    assert code == 1 and report["error"]["reason"] == "RESULT_MISMATCH"


def test_match_record_round_trips() -> None:
    data = _match("e-t12", "e-t16")
    assert read_record(copy.deepcopy(data)).to_json() == data
