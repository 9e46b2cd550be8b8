"""Logs of ``referee serve`` (issue 23, item 8): one access-log line per call, JSON lines on
request, grpc's own loggers quiet unless asked."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.service.logs import AccessLogInterceptor, JsonFormatter, TextFormatter
from tests.service.helpers import serving
from trick_referee_client.sdk import bearer

REFEREE = "referee.api.v1.RefereeService"


@pytest.fixture
def channel(tmp_path: Path) -> Iterator[grpc.Channel]:
    app = Referee(settings_from_env({"PERSISTENCE_MODULE": "eventsourcing.popo"}))
    try:
        with serving(app, [AccessLogInterceptor()]) as ch:
            yield ch
    finally:
        app.close()


@pytest.fixture
def stub(channel: grpc.Channel) -> pbg.RefereeServiceStub:
    return pbg.RefereeServiceStub(channel)


def access(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "referee.access"]


def test_one_access_line_per_call_with_method_code_match_peer_duration(
        stub: pbg.RefereeServiceStub, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="referee.access")
    created = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))
    stub.GetView(pb.GetViewRequest(match_id=created.match_id),
                 metadata=bearer(created.spectator_token))
    with pytest.raises(grpc.RpcError):
        stub.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=bearer("wrong"))
    stream = stub.WatchMatch(pb.WatchMatchRequest(match_id=created.match_id),
                             metadata=bearer(created.spectator_token))
    next(stream)
    stream.cancel()
    for _ in range(100):  # the stream's line is written when the server sees it end
        if len(access(caplog)) == 4:
            break
        time.sleep(0.05)
    made, seen, refused, watched = access(caplog)
    assert (made.levelno, made.method, made.code) == (  # type: ignore[attr-defined]
        logging.INFO, f"{REFEREE}/CreateMatch", "OK")
    assert not hasattr(made, "match_id")  # the request names no match
    assert seen.match_id == created.match_id  # type: ignore[attr-defined]
    assert refused.code == "UNAUTHENTICATED"  # type: ignore[attr-defined]
    assert refused.reason == "BAD_TOKEN"  # type: ignore[attr-defined]
    assert watched.method == f"{REFEREE}/WatchMatch"  # type: ignore[attr-defined]
    assert watched.code == "CANCELLED"  # type: ignore[attr-defined]
    for line in (made, seen, refused, watched):
        assert line.peer.startswith("ipv4:127.0.0.1:")  # type: ignore[attr-defined]
        assert line.duration_ms >= 0  # type: ignore[attr-defined]
    assert re.fullmatch(
        rf"{REFEREE}/GetView UNAUTHENTICATED reason=BAD_TOKEN match_id={created.match_id} "
        r"peer=ipv4:127\.0\.0\.1:\d+ duration_ms=[\d.]+", refused.getMessage())


def test_health_checks_are_not_logged(channel: grpc.Channel, stub: pbg.RefereeServiceStub,
                                      caplog: pytest.LogCaptureFixture) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    caplog.set_level(logging.INFO, logger="referee.access")
    health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    stub.ListGames(pb.ListGamesRequest())
    assert [r.method for r in access(caplog)] == [  # type: ignore[attr-defined]
        f"{REFEREE}/ListGames"]


def test_json_and_text_formatters() -> None:
    record = logging.LogRecord("referee.access", logging.INFO, __file__, 1, "%s done",
                               ("Eve\x1b[2J",), None)
    record.method, record.duration_ms = "x/Y", 1.5
    data = json.loads(JsonFormatter().format(record))
    assert data["level"] == "INFO" and data["logger"] == "referee.access"
    assert data["message"] == "Eve\x1b[2J done" and data["method"] == "x/Y"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", data["time"])
    text = TextFormatter().format(record)
    assert "INFO referee.access Eve\\x1b[2J done" in text and "\x1b" not in text
    try:
        raise ValueError("boom")
    except ValueError:
        failed = logging.LogRecord("referee", logging.ERROR, __file__, 1, "failed", (),
                                   sys.exc_info())
    assert "ValueError: boom" in json.loads(JsonFormatter().format(failed))["exception"]


def _serve(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.Popen[str], str, Path]:
    """``referee serve`` with its stderr in a file; the process, its address, the file."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE"))}
    full.update(env, REFEREE_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    err = tmp_path / "stderr.log"
    with err.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
             "--metrics-port", "0", "--grace", "1", *args],
            env=full, stdout=subprocess.PIPE, stderr=sink, text=True)
    assert proc.stdout is not None
    found = re.search(r"listening on (\S+)", proc.stdout.readline())
    assert found, err.read_text()
    return proc, found.group(1), err


def _play(address: str) -> str:
    with grpc.insecure_channel(address) as channel:
        stub = pbg.RefereeServiceStub(channel)
        created = stub.CreateMatch(pb.CreateMatchRequest(game="euchre"))
        for _ in range(3):
            stub.GetView(pb.GetViewRequest(match_id=created.match_id),
                         metadata=bearer(created.spectator_token))
    return str(created.match_id)


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 0


def test_debug_logs_are_not_flooded_by_grpc(tmp_path: Path) -> None:
    proc, address, err = _serve(tmp_path, "--log-level", "DEBUG")
    try:
        match_id = _play(address)
    finally:
        _stop(proc)
    lines = err.read_text().splitlines()
    loggers = {line.split()[3] for line in lines if len(line.split()) > 3}
    assert not {name for name in loggers if name.startswith("grpc")}, lines
    calls = [line for line in lines if " referee.access " in line]
    assert len(calls) == 4, lines  # DEBUG turns the access log on: one line per call
    assert all(f"match_id={match_id}" in line for line in calls[1:])


def test_grpc_loggers_when_asked(tmp_path: Path) -> None:
    proc, address, err = _serve(tmp_path, "--log-level", "DEBUG", REFEREE_LOG_GRPC="y")
    try:
        _play(address)
    finally:
        _stop(proc)
    assert " grpc." in err.read_text()


def test_json_logs_are_one_object_per_line(tmp_path: Path) -> None:
    proc, address, err = _serve(tmp_path, "--access-log", REFEREE_LOG_FORMAT="json")
    try:
        match_id = _play(address)
    finally:
        _stop(proc)
    records = [json.loads(line) for line in err.read_text().splitlines()]
    assert records and all({"time", "level", "logger", "message"} <= r.keys() for r in records)
    calls = [r for r in records if r["logger"] == "referee.access"]
    assert len(calls) == 4 and {r["level"] for r in calls} == {"INFO"}
    view = calls[-1]
    assert view["method"] == f"{REFEREE}/GetView" and view["code"] == "OK"
    assert view["match_id"] == match_id and view["peer"].startswith("ipv4:127.0.0.1:")
    assert isinstance(view["duration_ms"], float)


def test_no_access_log_by_default(tmp_path: Path) -> None:
    proc, address, err = _serve(tmp_path)
    try:
        _play(address)
    finally:
        _stop(proc)
    assert "referee.access" not in err.read_text()


def test_a_bad_log_format_is_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    done = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--metrics-port", "0"],
        env={**env, "REFEREE_DATA_DIR": str(tmp_path), "REFEREE_LOG_FORMAT": "xml"},
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == ("referee serve: REFEREE_LOG_FORMAT=xml: must be one of "
                                   "text, json (default text)")
