"""Retries and resuming against real referees (in-process servers on real ports; the process
restarts are tests/clients/test_restarts.py):

- unary calls are retried by gRPC's own retry policy (the service config of the SDK's
  channels), and only the idempotent ones: a ``SubmitAction`` whose answer was lost is sent
  again with the same ``command_id`` and answered from the record; ``CreateMatch`` is never
  sent twice;
- a stopping server ends every stream UNAVAILABLE / ``SERVER_STOPPING`` (never OK), saying
  where to resume; the SDK's one stream helper resumes from there, with jittered backoff, and
  gives up with ``RESUME_EXHAUSTED`` after its budget.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.api.v1 import webhooks_pb2 as wpb
from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import ViewNotReadyError
from referee.service.errors import to_status
from referee.service.server import build_server
from referee_projections.runner import ProjectionWorker
from tests.clients.conftest import AUDITOR, FAST
from tests.deploy.helpers import free_port
from trick_referee_client import errors as e
from trick_referee_client.sdk import (
    NOT_RETRIED,
    RESUMED,
    RETRIED,
    Backoff,
    RefereeClient,
    bearer,
    service_config,
    target,
)


class Flaky(grpc.aio.ServerInterceptor):
    """Fails the first ``times`` calls of ``method`` with ``status``: before the handler runs,
    or (``after``) once it has run, as when an answer is lost on its way back."""

    def __init__(self, method: str, times: int, status: Callable[[], grpc.Status], *,
                 after: bool = False) -> None:
        self.method, self.times, self.status, self.after = method, times, status, after
        self.requests: list[Any] = []

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or not details.method.endswith("/" + self.method):
            return handler
        inner = handler.unary_unary

        async def flaky(request: Any, context: grpc.aio.ServicerContext) -> Any:
            self.requests.append(request)
            if len(self.requests) <= self.times:
                if self.after:
                    await inner(request, context)
                await context.abort_with_status(self.status())
            return await inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            flaky, request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)


class _Unavailable(grpc.Status):
    code = grpc.StatusCode.UNAVAILABLE
    details = "the answer was lost"
    trailing_metadata = ()


def _view_not_ready() -> grpc.Status:
    return to_status(ViewNotReadyError("the scoreboard view has not caught up yet"))


class Served:
    """A referee (SQLite under ``tmp``, views projected in-process) on a real port."""

    def __init__(self, data: Path, *interceptors: grpc.aio.ServerInterceptor,
                 address: str = "127.0.0.1:0") -> None:
        self.app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(data),
                                              "REFEREE_AUDITOR_TOKEN": AUDITOR,
                                              "REFEREE_ANONYMOUS_RATE": "0"}))
        self.worker = ProjectionWorker(self.app.event_log, poll=0.05).start()
        self.server, port = build_server(self.app, address, interceptors=interceptors)
        self.server.start()
        self.address = f"127.0.0.1:{port}"
        self.stopped = False

    def stop(self, grace: float = 1.0) -> None:
        self.stopped = True
        self.server.stop(grace)
        self.worker.stop()
        self.app.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """``served(*interceptors, address=..., store="a")``: a referee; the same ``store`` name
    is the same store (a restart)."""
    started: list[Served] = []

    def start(*interceptors: grpc.aio.ServerInterceptor, store: str = "", **kw: Any
              ) -> Served:
        started.append(Served(tmp_path / (store or f"data{len(started)}"), *interceptors, **kw))
        return started[-1]

    yield start
    for s in started:
        if not s.stopped:
            s.stop(0.2)


# -- the service config ------------------------------------------------------------------------

def test_every_method_is_retried_not_retried_or_resumed_exactly_once() -> None:
    every = [(s.full_name, m.name)
             for d in (pb.DESCRIPTOR, ppb.DESCRIPTOR, wpb.DESCRIPTOR)
             for s in d.services_by_name.values()
             for m in s.methods]
    classified = [*RETRIED, *NOT_RETRIED, *RESUMED]
    assert sorted(classified) == sorted(every)
    streams = {(s.full_name, m.name)
               for d in (pb.DESCRIPTOR, ppb.DESCRIPTOR, wpb.DESCRIPTOR)
             for s in d.services_by_name.values()
               for m in s.methods if m.server_streaming}
    assert streams == set(RESUMED)
    assert service_config(0) == '{"methodConfig": []}'  # no retries: no policy


def test_a_lost_submit_answer_is_retried_by_grpc_with_the_same_command_id(
        served: Callable[..., Served]) -> None:
    lossy = Flaky("SubmitAction", 1, lambda: _Unavailable(), after=True)
    s = served(lossy)
    with RefereeClient(s.address, backoff=0.01) as client:
        m = client.create_match("euchre")
        result = client.submit_action(m.match_id, m.tokens[1], "pass")
        first, second = lossy.requests
        assert first.command_id == second.command_id == result.command_id
        assert result.replayed  # answered from the record: recorded once
        assert client.get_view(m.match_id, m.tokens[2]).to_act == 2
        record = client.get_hand_record(m.match_id, 1, AUDITOR).data
        assert [a["action"] for a in record["actions"]] == ["pass"]


def test_create_match_is_never_sent_twice(served: Callable[..., Served]) -> None:
    lossy = Flaky("CreateMatch", 1, lambda: _Unavailable(), after=True)
    s = served(lossy)
    with RefereeClient(s.address, backoff=0.01) as client, pytest.raises(e.Unavailable):
        client.create_match("euchre")
    assert len(lossy.requests) == 1


def test_view_not_ready_is_retried_then_raised(served: Callable[..., Served]) -> None:
    lagging = Flaky("GetScoreboard", 2, _view_not_ready)
    s = served(lagging)
    with RefereeClient(s.address, backoff=0.01) as client:
        m = client.create_match("euchre")
        s.worker.wait()
        assert client.get_scoreboard(m.match_id, m.tokens[0]).match_id == m.match_id
        assert len(lagging.requests) == 3
    lagging.requests.clear()
    with RefereeClient(s.address, backoff=0.01, retries=1) as client, \
            pytest.raises(e.ViewNotReady) as caught:
        client.get_scoreboard(m.match_id, m.tokens[0])
    assert len(lagging.requests) == 2 and caught.value.reason == "VIEW_NOT_READY"


def test_an_unreachable_referee_is_unavailable_with_a_hint() -> None:
    address = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    with RefereeClient(address, timeout=5, retries=2, backoff=0.01) as c, \
            pytest.raises(e.Unavailable) as caught:
        c.list_games()
    assert time.monotonic() - started < 5  # not waiting for the deadline
    assert f"is `referee serve` running at {address}?" in caught.value.message


# -- address lists and backoff -----------------------------------------------------------------

def test_an_address_list_is_a_grpc_target_and_a_bad_one_is_refused() -> None:
    assert target("127.0.0.1:5001") == "127.0.0.1:5001"
    assert target("dns:///referee:50051") == "dns:///referee:50051"
    assert target("127.0.0.1:5001, 127.0.0.2:5002") == "ipv4:127.0.0.1:5001,127.0.0.2:5002"
    assert target("[::1]:5001,[::1]:5002") == "ipv6:[::1]:5001,[::1]:5002"
    for bad, words in [("a.example:1,b.example:2", "is not an IP address:port"),
                       ("127.0.0.1,127.0.0.2:1", "is not an IP address:port"),
                       ("127.0.0.1:1,[::1]:2", "mixes IPv4 and IPv6")]:
        with pytest.raises(ValueError, match=words):
            target(bad)


def test_backoff_is_jittered_exponential_within_its_budget(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    b = Backoff(0.1, budget=1e9, cap=2.0, rng=random.Random(1))
    for _ in range(8):
        assert b.wait()
    for n, delay in enumerate(slept):
        full = min(2.0, 0.1 * 2 ** n)
        assert full / 2 <= delay <= full
    assert len(set(slept)) == len(slept)  # jittered
    b.reset()
    spent = Backoff(0.1, budget=0.0)
    assert not spent.wait()


# -- streams: a stopping server, and the SDK's resume --------------------------------------------

def _first_then_stop(s: Served, call: Any) -> grpc.RpcError:
    """Read the stream's first message, stop the server, return how the stream ended."""
    first = next(call)
    assert first is not None
    stopper = threading.Thread(target=s.stop, args=(2.0,))
    stopper.start()
    try:
        with pytest.raises(grpc.RpcError) as caught:
            for _ in call:
                pass
    finally:
        stopper.join(10)
    return caught.value


def test_a_stopping_server_ends_watch_streams_unavailable_saying_where_to_resume(
        served: Callable[..., Served]) -> None:
    s = served()
    with RefereeClient(s.address) as client:
        m = client.create_match("euchre", rules=FAST["euchre"])
        client.submit_action(m.match_id, m.tokens[1], "pass")
        s.worker.wait()
        with grpc.insecure_channel(s.address) as ch:
            stub = pbg.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            watch = stub.WatchMatch(pb.WatchMatchRequest(
                match_id=m.match_id, heartbeat_seconds=1), metadata=bearer(m.spectator_token))
            err = _first_then_stop(s, watch)
    assert err.code() == grpc.StatusCode.UNAVAILABLE
    assert err.details() == f"server shutting down; resume from version {m.version + 1}"
    assert e.from_rpc_error(err).reason == "SERVER_STOPPING"
    stopping = e.from_rpc_error(err)
    assert isinstance(stopping, e.ServerStopping) and stopping.resume_from == m.version + 1


def test_a_stopping_server_ends_scoreboard_streams_unavailable(
        served: Callable[..., Served]) -> None:
    from referee.api.v1 import projections_pb2_grpc as ppbg

    s = served()
    with RefereeClient(s.address) as client:
        m = client.create_match("euchre", rules=FAST["euchre"])
        s.worker.wait()
        with grpc.insecure_channel(s.address) as ch:
            stub = ppbg.ProjectionsServiceStub(ch)  # type: ignore[no-untyped-call]
            boards = stub.WatchScoreboard(ppb.WatchScoreboardRequest(
                match_id=m.match_id), metadata=bearer(m.tokens[0]))
            err = _first_then_stop(s, boards)
    assert err.code() == grpc.StatusCode.UNAVAILABLE
    assert e.from_rpc_error(err).reason == "SERVER_STOPPING"
    assert "resume from version" in err.details()


def _until(condition: Callable[[], object], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_watches_resume_after_a_restart_and_give_up_after_their_budget(
        served: Callable[..., Served]) -> None:
    """Both watch streams across a graceful restart on the same port and store (the match
    moves on through another connection meanwhile); then, the referee gone for good, each
    gives up with RESUME_EXHAUSTED after its budget, saying where it was."""
    address = f"127.0.0.1:{free_port()}"
    s = served(address=address, store="one")
    updates: list[int] = []
    boards: list[int] = []
    ended: dict[str, BaseException] = {}
    client = RefereeClient(s.address, backoff=0.05)
    m = client.create_match("euchre", rules=FAST["euchre"])

    def follow(kind: str) -> None:
        try:
            if kind == "watch":
                for u in client.watch(m.match_id, m.spectator_token, heartbeat_seconds=1,
                                      resume_for=3):
                    if u.view is not None:
                        updates.append(u.version)
            else:
                for b in client.watch_scoreboard(m.match_id, m.tokens[0], resume_for=3):
                    boards.append(b.version)
        except BaseException as exc:
            ended[kind] = exc

    threads = [threading.Thread(target=follow, args=(k,), daemon=True)
               for k in ("watch", "scoreboard")]
    for t in threads:
        t.start()
    try:
        _until(lambda: updates and boards)
        s.stop(1.0)
        time.sleep(0.3)  # both are resuming now
        s = served(address=address, store="one")
        with RefereeClient(s.address) as player:
            player.submit_action(m.match_id, m.tokens[1], "pass")
        _until(lambda: updates[-1] == m.version + 1 and boards[-1] == m.version + 1)
        assert not ended
        # A reopened watch begins with the current view, as any watch does: its version may
        # be one already seen. Never an older one, nothing skipped.
        assert updates == sorted(updates) and set(updates) == {m.version, m.version + 1}
        assert boards == [m.version, m.version + 1]
        s.stop(0.5)  # for good
        for t in threads:
            t.join(15)
        for kind in ("watch", "scoreboard"):
            assert isinstance(ended[kind], e.ResumeExhausted), ended
            assert f"last version {m.version + 1}" in str(ended[kind])
            assert "gave up after 3s without an answer from the referee" in str(ended[kind])
    finally:
        client.close()


# -- referee-client bot: it gives up only after its budget, and says so ------------------------

def test_the_bot_exits_1_only_when_the_referee_stays_away_past_its_budget(
        served: Callable[..., Served], capsys: pytest.CaptureFixture[str]) -> None:
    from referee_clients.cli import main

    s = served()
    with RefereeClient(s.address) as client:
        m = client.create_match("euchre")
    codes: list[int] = []
    bot = threading.Thread(target=lambda: codes.append(main([
        "bot", "--match", m.match_id, "--seat", "1", f"--token={m.tokens[1]}",
        "--address", s.address, "--resume-for", "1.5", "--quiet"])), daemon=True)
    bot.start()
    with RefereeClient(s.address) as client:
        _until(lambda: client.get_view(m.match_id, AUDITOR).version > m.version)  # it played
    started = time.monotonic()
    s.stop(0.5)  # for good
    bot.join(20)
    assert codes == [1]
    assert 1.5 <= time.monotonic() - started < 10
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("referee-client: RESUME_EXHAUSTED: gave up after 1.5s without an "
                          f"answer from the referee at {s.address}: the watch of match "
                          f"{m.match_id} (last version "), err


def test_a_bad_address_list_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from referee_clients.cli import main

    assert main(["games", "--address", "referee-a:50051,referee-b:50051"]) == 2
    err = capsys.readouterr().err
    assert "'referee-a:50051' is not an IP address:port" in err
    with pytest.raises(SystemExit) as caught:  # argparse's own exit
        main(["bot", "--match", "m", "--seat", "0", "--token=t", "--resume-for", "0"])
    assert caught.value.code == 2
    assert "--resume-for: '0': give a positive number of seconds" in capsys.readouterr().err
