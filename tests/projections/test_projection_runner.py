"""eventsourcing's ProjectionRunner drives the same projections and views on PostgreSQL
(subscription from the view's position, one transaction per event): its rows equal a
batched rebuild, and a restarted runner resumes exactly where it stopped."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from eventsourcing.projection import ProjectionRunner

from referee.application import Referee
from referee.config import settings_from_env
from referee_projections.runner import BatchRunner
from referee_projections.store import open_view, view_class, view_env
from referee_projections.views import PROJECTIONS
from tests.projections.conftest import play


class RefereeLog(Referee):
    """The referee application built from an environment mapping, as eventsourcing's
    ``ProjectionRunner`` constructs the application it follows."""

    name = "Referee"

    def __init__(self, env: Any = None) -> None:
        super().__init__(settings_from_env({**os.environ, **dict(env or {})}))


@pytest.mark.postgres
@pytest.mark.parametrize("env", ["postgres"], indirect=True)
@pytest.mark.parametrize("name", list(PROJECTIONS))
def test_projection_runner_equals_a_batched_rebuild(app: Referee, env: dict[str, str],
                                                    name: str) -> None:
    rng = random.Random(1)
    c = app.create_match("euchre", rules={"target_score": 3})
    play(app, c.match_id, c.seat_tokens, rng, stop_after_hand=1)
    run_env = {**env, **view_env(name, app.settings)}
    kwargs = {"application_class": RefereeLog, "projection_class": PROJECTIONS[name],
              "view_class": view_class(name, "postgres"), "env": run_env}
    with ProjectionRunner(**kwargs) as runner:  # type: ignore[arg-type]
        runner.wait(app.recorder.max_notification_id(), timeout=20)  # type: ignore[attr-defined]
    play(app, c.match_id, c.seat_tokens, rng)
    with ProjectionRunner(**kwargs) as runner:  # type: ignore[arg-type]  # restarted
        runner.wait(app.recorder.max_notification_id(), timeout=20)  # type: ignore[attr-defined]
        live = runner.view.all_rows()
    view = open_view(name, app.settings)
    assert view.all_rows() == live
    BatchRunner(app.event_log, PROJECTIONS[name], view).rebuild()
    assert view.all_rows() == live


def test_the_embedded_worker_is_woken_by_commits(app: Referee) -> None:
    """Issue 16/17: the worker looked up ``Referee._changed``, gone since the group commit,
    so it only ever polled. With a 30 s poll, a commit must still reach the views at once."""
    import time

    from referee_projections.runner import ProjectionWorker

    worker = ProjectionWorker(app.event_log, poll=30.0).start()
    try:
        time.sleep(0.2)  # the worker's first pass is done; it now sleeps on its 30 s poll
        app.create_match("euchre")
        head = app.recorder.max_notification_id() or 0
        deadline = time.monotonic() + 3.0
        while min(worker.positions().values()) < head:
            assert time.monotonic() < deadline, "the commit did not wake the worker"
            time.sleep(0.02)
    finally:
        worker.stop()
