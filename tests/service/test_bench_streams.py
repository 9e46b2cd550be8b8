"""``referee bench streams`` runs end to end on a few streams and reports the server's CPU."""

from __future__ import annotations

from referee.benchmarks import streams


def test_the_idle_streams_benchmark_reports_the_servers_cpu() -> None:
    report = streams.run(streams=3, seconds=0.5, settle=0.1)
    assert report["watch_match_streams"] == report["watch_scoreboard_streams"] == 3
    assert report["server"] == "this checkout" and report["seconds"] >= 0.5
    assert report["server_cpu_share_of_a_core"] >= 0
