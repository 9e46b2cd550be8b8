"""``referee bench service`` end to end, briefly: a real server on PostgreSQL, real client
processes, the echo ceiling in the same run, and the figures the report promises."""

from __future__ import annotations

import pytest

from referee.benchmarks import service as bench_service

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # a benchmark run, if a short one


def test_a_short_run_reports_throughput_latency_cpu_and_the_ratio(
    postgres_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in postgres_env.items():
        monkeypatch.setenv(key, value)
    report = bench_service.run(tables=6, seconds=1.5, warmup=0.5)
    ours, echo = report["service"], report["echo"]
    assert ours["errors"] == {} and ours["count"] > 0 and ours["per_second"] > 0
    assert 0 < ours["p50_ms"] <= ours["p99_ms"] <= ours["max_ms"]
    assert ours["server_cpu_ms_per_call"] > 0 and ours["client_cpu_ms_per_call"] > 0
    assert ours["client_loop_lag_p50_ms"] is not None
    assert ours["client_loop_lag_p50_ms"] <= ours["client_loop_lag_p99_ms"]
    assert echo["per_second"] > 0
    assert report["ratio_actions_to_echo"] == round(ours["per_second"] / echo["per_second"], 3)
    assert report["config"]["tables"] == 6
