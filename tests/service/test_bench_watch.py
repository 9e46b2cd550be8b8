"""``referee bench watch`` runs end to end on a few watchers and reports what it promises."""

from __future__ import annotations

from referee.benchmarks import watch


def test_the_watch_benchmark_reports_players_delivery_and_cpu() -> None:
    report = watch.run(watchers=6, matches=2, rate=10.0, seconds=1.5, idle_seconds=0.3,
                       watcher_procs=1, settle=0.2)
    assert report["server"] == "this checkout" and report["errors"] == {}
    assert report["watchers"] == 6 and report["matches"] == 2
    assert report["actions_per_s"] > 0 and report["submit_ms"]["p50"] is not None
    assert report["delivery_samples"] > 0 and report["delivery_ms"]["p99"] is not None
    assert report["messages_per_s"] > 0 and report["server_rss_mib"] > 0
    assert report["server_cpu"] > 0 <= report["idle_server_cpu"]


def test_the_watch_benchmark_on_scoreboard_streams() -> None:
    report = watch.run(watchers=6, matches=2, rate=10.0, seconds=1.5, idle_seconds=0.3,
                       watcher_procs=1, settle=0.5, scoreboard=True)
    assert report["stream"] == "WatchScoreboard" and report["errors"] == {}
    assert report["delivery_samples"] > 0 and report["delivery_ms"]["p99"] is not None
    assert report["messages_per_s"] > 0


def test_the_burst_benchmark_counts_how_each_stream_began() -> None:
    report = watch.run_burst(streams=20)
    assert report["outcomes"] == {"OK": 20}
