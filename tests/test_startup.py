"""Start-up mistakes end in one line on stderr and a non-zero exit, never a traceback; the
server says where its store is; ``--version``."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import referee

TIMEOUT = 60


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "REFEREE_", "PERSISTENCE_MODULE", "XDG_"))}
    return {**env, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1", **extra}


def serve(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--metrics-port", "0", *args],
        cwd=tmp_path, env=clean_env(tmp_path, **env), capture_output=True, text=True,
        timeout=TIMEOUT, check=False)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    return lines[0]


@pytest.mark.parametrize(("name", "value", "says"), [
    ("REFEREE_COMMIT_BATCH", "abc", "must be a whole number >= 1 (default 512)"),
    ("REFEREE_FRESH_READS", "maybe", "must be y or n"),
    ("PERSISTENCE_MODULE", "eventsourcing.mongo", "must be one of eventsourcing.sqlite"),
    ("REFEREE_PROJECTIONS", "later", "must be one of inprocess, separate"),
    ("REFEREE_METRICS_PORT", "http", "must be a whole number >= 0 and <= 65535"),
])
def test_a_bad_setting_is_one_line_naming_it(tmp_path: Path, name: str, value: str,
                                             says: str) -> None:
    done = serve(tmp_path, **{name: value})
    assert done.returncode == 2
    assert one_line(done) == f"referee serve: {name}={value}: {says}" or \
        one_line(done).startswith(f"referee serve: {name}={value}: {says}")


@pytest.mark.parametrize("address", ["nonsense", "127.0.0.1:99999", "127.0.0.1:", "::1:50051"])
def test_a_bad_address_is_one_line(tmp_path: Path, address: str) -> None:
    done = serve(tmp_path, "--address", address)
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith("referee serve: argument --address: ") and "HOST:PORT" in line


def test_an_address_of_another_machine_is_one_line(tmp_path: Path) -> None:
    done = serve(tmp_path, "--address", "192.0.2.1:50051")  # TEST-NET-1: never local
    assert done.returncode == 1
    assert one_line(done).startswith("referee serve: cannot listen on 192.0.2.1:50051: ")


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(tmp_path, "--address", f"127.0.0.1:{port}")
    assert done.returncode == 1
    assert one_line(done) == (f"referee serve: cannot listen on 127.0.0.1:{port}: the port is "
                              "in use (another `referee serve`?)")


def test_an_http_port_in_use_is_one_line(tmp_path: Path) -> None:
    """``--http``: the gateway's port is bound before anything serves (issue 22)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve(tmp_path, "--address", "127.0.0.1:0", "--http", str(port))
    assert done.returncode == 1
    line = one_line(done)
    assert line.startswith(f"referee serve: cannot serve HTTP on 127.0.0.1:{port}: ")
    assert "in use" in line


def test_bad_flags_are_one_line(tmp_path: Path) -> None:
    for args, says in [(["--grace", "-1"], "argument --grace: '-1' is not a number of seconds"),
                       (["--log-level", "LOUD"], "argument --log-level: invalid choice"),
                       (["--workers", "many"], "argument --workers: 'many' is not a number"),
                       (["--projections", "later"], "argument --projections: invalid choice"),
                       (["--http", "web"], "argument --http: 'web' is not a port")]:
        done = serve(tmp_path, *args)
        assert done.returncode == 2
        assert one_line(done).startswith(f"referee serve: {says}"), done.stderr


def test_the_store_is_in_the_users_data_dir_and_said_at_start_up(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--address", "127.0.0.1:0",
         "--metrics-port", "0", "--grace", "0"],
        cwd=elsewhere, env=clean_env(tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(TIMEOUT)
    store = tmp_path / "xdg" / "trick-referee" / "referee.sqlite"
    assert re.fullmatch(rf"listening on 127\.0\.0\.1:\d+ \(SQLite {re.escape(str(store))}\)\n",
                        line), line
    assert store.is_file() and not (elsewhere / "data").exists()


@pytest.mark.parametrize("command", ["referee", "clients"])
def test_version(command: str) -> None:
    module = "referee" if command == "referee" else "referee_clients.cli"
    done = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0
    name = "referee" if command == "referee" else "referee-client"
    assert done.stdout == f"{name} {referee.__version__}\n"


def test_other_commands_reading_the_settings_say_the_same_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee", "verify", "--chain",
         "00000000-0000-0000-0000-000000000000"],
        cwd=tmp_path, env=clean_env(tmp_path, REFEREE_FOLLOW_MS="soon"), capture_output=True,
        text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 2
    assert one_line(done).startswith("referee: REFEREE_FOLLOW_MS=soon: must be a number")


def test_a_store_left_in_dot_data_by_an_older_version_is_pointed_at(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from referee.cli import _note_old_data_dir
    from referee.config import settings_from_env

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_DATA_DIR", raising=False)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "referee.sqlite").write_bytes(b"")
    settings = settings_from_env({"XDG_DATA_HOME": str(tmp_path / "xdg")})
    _note_old_data_dir(settings)
    assert "set REFEREE_DATA_DIR=./data to use that one" in caplog.text
