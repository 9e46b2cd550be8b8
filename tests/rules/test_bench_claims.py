"""``referee bench claims``: a small run reports every tricks-left row of a game."""

from __future__ import annotations

import json

import pytest

from referee.cli import main


def test_bench_claims_reports_percentiles_per_tricks_left(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    assert main(["bench", "claims", "--positions", "2", "--game", "euchre"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = report["games"]["euchre"]["by_tricks_left"]
    assert sorted(rows, key=int) == ["1", "2", "3", "4", "5"]  # five tricks a hand
    assert all(r["p50_ms"] <= r["p99_ms"] <= r["max_ms"] for r in rows.values())
    assert main(["bench", "claims", "--positions", "0"]) == 2
