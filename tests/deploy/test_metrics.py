"""``referee serve --metrics-port``: a real process, scraped over HTTP after real gRPC calls."""

from __future__ import annotations

import signal
import time
import urllib.request
from pathlib import Path

import grpc
from prometheus_client.parser import text_string_to_metric_families

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.service.healthcheck import check
from referee.service.server import SERVICE_NAME
from tests.deploy.helpers import free_port, start_server
from trick_referee_client.sdk import bearer


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def scrape_when(port: int, name: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """A scrape that has ``name``: the client may see a refusal a moment before the server
    has counted it."""
    for _ in range(100):
        samples = scrape(port)
        if any(sample == name for sample, _ in samples):
            break
        time.sleep(0.05)
    return samples


def test_grpc_calls_show_up_in_the_metrics(tmp_path: Path) -> None:
    metrics_port = free_port()
    proc, address = start_server(
        {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": "metrics-auditor-token"},
        "--metrics-port", str(metrics_port),
    )
    try:
        assert check(address) == 0, "referee health answers SERVING"
        with grpc.insecure_channel(address) as ch:
            stub = pbg.RefereeServiceStub(ch)
            created = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))
            token = created.seat_tokens[0].token
            try:
                stub.SubmitAction(pb.SubmitActionRequest(
                    match_id=created.match_id, action="play:ZZ", command_id="c1"),
        metadata=bearer(token))
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
            else:
                raise AssertionError("a malformed action is refused")
        samples = scrape_when(metrics_port, "referee_grpc_rejections_total")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    create = (("grpc_method", "CreateMatch"), ("grpc_service", SERVICE_NAME),
              ("grpc_type", "unary"))
    submit = (("grpc_method", "SubmitAction"), ("grpc_service", SERVICE_NAME),
              ("grpc_type", "unary"))
    assert samples[("grpc_server_started_total", create)] == 1.0
    assert samples[("grpc_server_handled_total", (("grpc_code", "OK"), *create))] == 1.0
    assert samples[("grpc_server_handled_total",
                    (("grpc_code", "INVALID_ARGUMENT"), *submit))] == 1.0
    assert samples[("grpc_server_msg_received_total", create)] == 1.0
    assert samples[("grpc_server_msg_sent_total", create)] == 1.0
    assert samples[("grpc_server_msg_sent_total", submit)] == 0.0  # refused: no answer
    assert samples[("grpc_server_handling_seconds_count", create)] == 1.0
    rejected = ("referee_grpc_rejections_total", (
        ("grpc_code", "INVALID_ARGUMENT"), ("grpc_method", "SubmitAction"),
        ("grpc_service", SERVICE_NAME), ("reason", "INVALID_ACTION")))
    assert samples[rejected] == 1.0
    assert not any(name.startswith("grpc_server_") and dict(labels)["grpc_method"] == "Check"
                   for name, labels in samples), "health checks are not counted"
    assert not any(name.startswith("referee_grpc_")
                   and not name.startswith("referee_grpc_rejections_")
                   for name, _ in samples), "no custom names for what gRPC names already"


def test_metrics_port_zero_disables_the_endpoint(tmp_path: Path) -> None:
    proc, address = start_server({"REFEREE_DATA_DIR": str(tmp_path)}, "--metrics-port", "0")
    try:
        assert check(address, SERVICE_NAME) == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0


def test_commit_batches_and_projection_lag_show_up_in_the_metrics(tmp_path: Path) -> None:
    metrics_port = free_port()
    proc, address = start_server(  # SQLite: the views run in process
        {"REFEREE_DATA_DIR": str(tmp_path)}, "--metrics-port", str(metrics_port))
    try:
        assert check(address) == 0
        with grpc.insecure_channel(address) as ch:
            stub = pbg.RefereeServiceStub(ch)
            created = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))
            stub.CreateMatch(pb.CreateMatchRequest(game="belot"))
        # The views catch up with the two matches' events (waits, no timing assertion).
        for _ in range(200):
            samples = scrape(metrics_port)
            lags = {dict(labels)["view"]: value for (name, labels), value in samples.items()
                    if name == "referee_projection_lag_events"}
            if lags and not any(lags.values()):
                break
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    assert created.match_id
    assert {"scoreboard", "hands", "standings"} <= set(lags), lags
    assert all(v == 0 for v in lags.values()), lags
    assert samples[("referee_commit_batch_size_count", ())] >= 1  # one batch or two
    assert samples[("referee_commit_batch_size_sum", ())] == 2.0  # two matches committed


def test_a_broken_chain_shows_up_in_the_metrics(tmp_path: Path) -> None:
    """``referee serve`` wires ``Referee.on_chain_broken`` to ``referee_chain_breaks_total``:
    a match whose stored creation event was edited is refused on every call and counted
    once."""
    import hashlib
    import json
    import sqlite3

    from referee.application import Referee
    from referee.config import settings_from_env

    env = {"REFEREE_DATA_DIR": str(tmp_path), "REFEREE_AUDITOR_TOKEN": "metrics-auditor-token"}
    earlier = Referee(settings_from_env(env))  # an earlier process wrote the match
    created = earlier.create_match("euchre")
    table = earlier.recorder.events_table_name  # type: ignore[attr-defined]
    earlier.close()
    with sqlite3.connect(tmp_path / "referee.sqlite") as db:  # a seat-token hash forged
        where = f"FROM {table} WHERE originator_id = ? AND originator_version = 1"
        (state,) = db.execute(f"SELECT state {where}", (created.match_id.hex,)).fetchone()
        data = json.loads(state)
        data["seat_token_hashes"][0] = hashlib.sha256(b"forged").hexdigest()
        db.execute(f"UPDATE {table} SET state = ? WHERE originator_id = ? "
                   "AND originator_version = 1", (json.dumps(data).encode(),
                                                  created.match_id.hex))
    metrics_port = free_port()
    proc, address = start_server(env, "--metrics-port", str(metrics_port))
    try:
        with grpc.insecure_channel(address) as ch:
            stub = pbg.RefereeServiceStub(ch)
            for token in ("forged", created.seat_tokens[1]):
                try:
                    stub.GetView(pb.GetViewRequest(match_id=str(created.match_id)),
                                 metadata=bearer(token))
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.DATA_LOSS
                else:
                    raise AssertionError("a match whose chain is broken is not served")
        samples = scrape(metrics_port)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    assert samples[("referee_chain_breaks_total", ())] == 1.0
    refused = ("referee_grpc_rejections_total", (
        ("grpc_code", "DATA_LOSS"), ("grpc_method", "GetView"), ("grpc_service", SERVICE_NAME),
        ("reason", "CHAIN_BROKEN")))
    assert samples[refused] == 2.0


def test_referee_projections_serves_lag_and_events_per_view(tmp_path: Path) -> None:
    """A separate ``referee projections`` process has metrics of its own: each view's lag
    behind the log and the events it applied."""
    import os
    import subprocess
    import sys

    from referee.application import Referee
    from referee.config import settings_from_env

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE"))}
    env.update(REFEREE_DATA_DIR=str(tmp_path), PYTHONUNBUFFERED="1")
    app = Referee(settings_from_env(env))
    app.create_match("euchre")
    app.create_match("belot")
    app.close()
    metrics_port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "projections", "--metrics-port", str(metrics_port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                samples = scrape(metrics_port)
            except OSError:  # not listening yet
                samples = {}
            lags = {dict(labels)["view"]: value for (name, labels), value in samples.items()
                    if name == "referee_projection_lag_events"}
            if len(lags) == 3 and not any(lags.values()):
                break
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    assert lags == {"scoreboard": 0.0, "hands": 0.0, "standings": 0.0}, lags
    applied = {dict(labels)["view"]: value for (name, labels), value in samples.items()
               if name == "referee_projection_events_total"}
    assert set(applied) == set(lags) and all(n >= 2 for n in applied.values()), applied
