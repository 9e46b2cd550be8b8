"""``referee bench http`` runs and reports both transports side by side (its figures are in
BENCHMARKS.md; here only that it measures what it says)."""

from __future__ import annotations

from referee.benchmarks.http import run


def test_the_http_bench_plays_through_both_transports() -> None:
    report = run(tables=2, seconds=1.0, rounds=1)
    for kind in ("grpc", "http"):
        assert report[kind]["actions"] > 0
        assert 0 < report[kind]["submit_p50_ms"] <= report[kind]["submit_p99_ms"]
    assert report["http_over_grpc"]["actions_per_s"] > 0
