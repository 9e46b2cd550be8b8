"""Issue 24: ``WatchScoreboard`` streams share one fan-out per match (as ``WatchMatch``'s,
``referee.application.fanout``): woken by the projection worker when it commits a change of
the match's scoreboard, not by polling; the view read once per change for all the streams,
not once per stream; every stream reaches the latest scoreboard, a slow one stalling no one."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from referee.application import Referee
from referee_projections.queries import Queries
from referee_projections.runner import ProjectionWorker
from tests.projections.conftest import AUDITOR

STREAMS = 30


def _act(app: Referee, created: Any, rng: random.Random) -> int:
    view = app.get_view(created.match_id, AUDITOR)
    assert view.to_act is not None
    token = created.seat_tokens[view.to_act]
    legal = app.get_view(created.match_id, token).legal_actions
    return app.submit_action(created.match_id, token, rng.choice(legal)).outcome.version


def test_scoreboard_streams_are_woken_by_the_worker_and_share_one_read(app: Referee) -> None:
    worker = ProjectionWorker(app.event_log, poll=60.0).start()  # it polls nothing meanwhile
    app.listen()  # PostgreSQL: other processes' commits by notification (none here)
    q = Queries(app)
    looks = [0]
    position = q._scoreboard_position

    def counted_position() -> int:
        looks[0] += 1
        return position()

    q._scoreboard_position = counted_position  # type: ignore[method-assign]
    created = app.create_match("euchre", public_spectators=True)
    rng = random.Random(24)
    worker.wait()
    reads = [0]
    real = q._boards

    def counted(*args: Any) -> Any:
        reads[0] += 1
        return real(*args)

    q._boards = counted  # type: ignore[method-assign]

    async def scenario() -> tuple[list[list[int]], list[float], int]:
        loop = asyncio.get_running_loop()
        streams = [q.watch_scoreboard(created.match_id, created.spectator_token, 0,
                                      lambda: True) for _ in range(STREAMS)]
        slow = q.watch_scoreboard(created.match_id, AUDITOR, 0, lambda: True)
        got: list[list[int]] = [[(await s.__anext__())["version"]] for s in streams]
        await slow.__anext__()  # then not read again until the end
        delays = []
        for _ in range(12):
            t0 = time.perf_counter()
            version = await loop.run_in_executor(None, _act, app, created, rng)
            for i, s in enumerate(streams):
                while got[i][-1] < version:
                    got[i].append((await asyncio.wait_for(s.__anext__(), 10))["version"])
            delays.append(time.perf_counter() - t0)
        last = await asyncio.wait_for(slow.__anext__(), 10)
        for s in [*streams, slow]:
            await s.aclose()
        return got, delays, last["version"]

    try:
        got, delays, slow_last = asyncio.run(scenario())
        latest = app.get_match(created.match_id).version
    finally:
        worker.stop()
        q.close()
    assert looks[0] == 0  # nothing polled the view's position (PostgreSQL: notifications)
    for versions in got:  # every stream: every scoreboard change, in order, once
        assert versions == sorted(set(versions)) and versions[-1] == latest
    assert slow_last == latest  # the slow one: one update to the latest
    assert max(delays) < 5.0  # woken by the worker's commit, not by a 60 s look
    # One read per change of the scoreboard for the 31 streams of two audiences (a few more
    # for an audience's first read), not one per stream.
    assert reads[0] <= 12 + 4, reads[0]
