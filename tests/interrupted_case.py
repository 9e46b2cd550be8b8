"""Not collected by the suite: ``tests/test_harness.py`` runs this file in a pytest of its own
and stops that run with a signal. The test starts ``referee serve`` on the session's PostgreSQL,
notes the server's pid and PostgreSQL's port in the file named by ``REFEREE_TEST_NOTE``, and
waits to be interrupted."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.deploy.helpers import start_server


@pytest.mark.postgres
def test_waits_to_be_interrupted(postgres_env: dict[str, str]) -> None:
    proc, _ = start_server(postgres_env)
    note = {"server": proc.pid, "postgres_port": int(postgres_env["POSTGRES_PORT"])}
    Path(os.environ["REFEREE_TEST_NOTE"]).write_text(json.dumps(note))
    time.sleep(120)
