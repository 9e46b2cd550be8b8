"""Settings are checked when read: one line naming the variable and what it may be; the
default data directory does not depend on the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.config import (
    SettingsError,
    default_data_dir,
    read_bool,
    read_choice,
    read_float,
    read_int,
    settings_from_env,
)

NUMBERS = ["REFEREE_ANONYMOUS_RATE", "REFEREE_ANONYMOUS_BURST", "REFEREE_STREAMS_PER_PEER",
           "REFEREE_REJECTIONS_PER_MATCH", "REFEREE_REJECTIONS_ANONYMOUS",
           "REFEREE_REJECTIONS_TOTAL", "AGGREGATE_CACHE_MAXSIZE", "REFEREE_COMMIT_BATCH",
           "REFEREE_COMMIT_DELAY_MS", "REFEREE_FOLLOW_MS", "REFEREE_GRPC_WORKERS",
           "REFEREE_STORE_PING_SECONDS", "REFEREE_METRICS_PORT", "SQLITE_LOCK_TIMEOUT"]


@pytest.fixture
def base(tmp_path: Path) -> dict[str, str]:
    return {"REFEREE_DATA_DIR": str(tmp_path)}


@pytest.mark.parametrize("name", NUMBERS)
@pytest.mark.parametrize("value", ["abc", "-5", "nan", "1e400", " "])
def test_every_number_is_checked(base: dict[str, str], name: str, value: str) -> None:
    env = {**base, name: value}
    if not value.strip():  # empty: the default, as if unset
        settings_from_env(env)
        return
    with pytest.raises(SettingsError) as caught:
        settings_from_env(env)
    message = str(caught.value)
    assert message.startswith(f"{name}={value}: must be ") and "\n" not in message
    assert "default" in message


def test_the_message_says_what_is_allowed(base: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match=r"^REFEREE_COMMIT_BATCH=abc: must be a whole "
                                            r"number >= 1 \(default 512\)$"):
        settings_from_env({**base, "REFEREE_COMMIT_BATCH": "abc"})
    with pytest.raises(SettingsError, match=r"REFEREE_METRICS_PORT=70000: .*<= 65535"):
        settings_from_env({**base, "REFEREE_METRICS_PORT": "70000"})
    with pytest.raises(SettingsError, match=r"REFEREE_FRESH_READS=maybe: must be y or n"):
        settings_from_env({**base, "REFEREE_FRESH_READS": "maybe"})
    with pytest.raises(SettingsError, match=r"CREATE_TABLE=sometimes: must be y or n"):
        settings_from_env({**base, "CREATE_TABLE": "sometimes"})
    with pytest.raises(SettingsError, match=r"PERSISTENCE_MODULE=mongo: must be one of "
                                            "eventsourcing.sqlite"):
        settings_from_env({**base, "PERSISTENCE_MODULE": "mongo"})
    with pytest.raises(SettingsError, match=r"REFEREE_PROJECTIONS=later: must be one of "
                                            "inprocess, separate, off"):
        settings_from_env({**base, "REFEREE_PROJECTIONS": "later"})
    pg = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_HOST": "db"}
    with pytest.raises(SettingsError, match=r"POSTGRES_PORT=five: must be a whole number"):
        settings_from_env({**pg, "POSTGRES_PORT": "five"})
    with pytest.raises(SettingsError, match=r"POSTGRES_CONNECT_TIMEOUT=0: .*>= 1"):
        settings_from_env({**pg, "POSTGRES_CONNECT_TIMEOUT": "0"})
    with pytest.raises(SettingsError, match=r"^REFEREE_FOLLOW_MS='"):
        settings_from_env({**base, "REFEREE_FOLLOW_MS": "\x1b[2J"})  # quoted, not printed raw


def test_good_values_and_defaults(base: dict[str, str]) -> None:
    s = settings_from_env({**base, "REFEREE_COMMIT_DELAY_MS": "0", "REFEREE_FRESH_READS": "NO",
                           "REFEREE_ANONYMOUS_RATE": "2.5", "REFEREE_PROJECTIONS": "off",
                           "REFEREE_METRICS_PORT": "0", "REFEREE_GRPC_WORKERS": " 8 "})
    assert (s.commit_delay, s.fresh_reads, s.anonymous_rate) == (0.0, False, 2.5)
    assert (s.projections, s.metrics_port, s.grpc_workers) == ("separate", 0, 8)
    d = settings_from_env(base)
    assert (d.projections, d.metrics_port, d.commit_batch) == ("inprocess", 9464, 512)
    assert settings_from_env({**base, "REFEREE_PROJECTIONS": "Separate"}).projections == \
        "separate"


def test_the_readers_for_other_settings() -> None:
    env = {"A": "3", "B": "x", "C": "on", "D": "Json"}
    assert read_int(env, "A", 1) == 3 and read_int(env, "Z", 7) == 7
    assert read_float(env, "A", 1.0, maximum=3.0) == 3.0
    assert read_bool(env, "C", False) is True
    assert read_choice(env, "D", ("text", "json"), "text") == "json"
    with pytest.raises(SettingsError, match=r"^B=x: must be a whole number >= 0"):
        read_int(env, "B", 1)
    with pytest.raises(SettingsError, match=r"^A=3: must be a number >= 0 and <= 2 \(default 1\)$"):
        read_float(env, "A", 1.0, maximum=2.0)


def test_the_default_data_dir_is_the_users_not_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    xdg = tmp_path / "xdg"
    settings = settings_from_env({"XDG_DATA_HOME": str(xdg)})
    assert settings.store_env["SQLITE_DBNAME"] == str(xdg / "trick-referee" / "referee.sqlite")
    assert (xdg / "trick-referee").is_dir() and not (tmp_path / "data").exists()
    assert settings.store_location == f"SQLite {xdg / 'trick-referee' / 'referee.sqlite'}"
    assert default_data_dir({"XDG_DATA_HOME": "relative"}).is_absolute()  # ignored: not absolute
    own = settings_from_env({"XDG_DATA_HOME": str(xdg), "REFEREE_DATA_DIR": str(tmp_path / "d")})
    assert own.store_env["SQLITE_DBNAME"] == str(tmp_path / "d" / "referee.sqlite")


def test_a_data_dir_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SettingsError, match=f"^REFEREE_DATA_DIR={blocker}/sub: cannot create "
                                            "it"):
        settings_from_env({"REFEREE_DATA_DIR": str(blocker / "sub")})


def test_postgres_location_is_described() -> None:
    s = settings_from_env({"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_HOST": "db",
                           "POSTGRES_DBNAME": "referee", "POSTGRES_SCHEMA": "s1"})
    assert s.store_location == "PostgreSQL db:5432/referee, schema s1"
