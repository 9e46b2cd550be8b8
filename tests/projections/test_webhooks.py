"""Signed webhooks (docs/webhooks.md) against a real local HTTP receiver that checks every
signature as the Standard Webhooks spec says, on SQLite and PostgreSQL: every event delivered
at least once, the same webhook-id on every attempt, through failures (500), timeouts and an
endpoint that is down and comes back; registration limits and auditor-only access."""

from __future__ import annotations

import base64
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import grpc
import pytest

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import webhooks_pb2 as wpb
from referee.api.v1 import webhooks_pb2_grpc as wpbg
from referee.application import Referee
from referee_projections.webhook_delivery import PolicyError, RetryPolicy, WebhookWorker, post
from tests import procs
from tests.projections.conftest import AUDITOR, play
from tests.service.helpers import expect_error, serving
from tests.webhook_receiver import Receiver, free_port
from trick_referee_client.sdk import bearer

SECRET = "whsec_" + base64.b64encode(os.urandom(32)).decode()
AS_AUDITOR = (("authorization", f"Bearer {AUDITOR}"),)
#: Fast retries for the tests: 0.2 s, 0.4 s, 0.8 s ... between attempts, 1 s per attempt.
FAST = RetryPolicy(attempts=6, first_delay=0.2, factor=2.0, max_delay=2.0, timeout=1.0)


@pytest.fixture
def served(app: Referee) -> Iterator[tuple[grpc.Channel, WebhookWorker]]:
    """A real server for ``app`` and the webhook worker of ``referee serve``."""
    worker = WebhookWorker(app.event_log, FAST, poll=0.05).start()
    try:
        with serving(app) as channel:
            yield channel, worker
    finally:
        worker.stop()


def new_match(app: Referee) -> tuple[UUID, list[str]]:
    created = app.create_match("euchre", {"target_score": 3})
    return created.match_id, created.seat_tokens


def deliveries(hooks: wpbg.WebhookServiceStub, endpoint_id: str) -> list[wpb.WebhookDelivery]:
    return list(hooks.ListWebhookDeliveries(wpb.ListWebhookDeliveriesRequest(
        endpoint_id=endpoint_id), metadata=AS_AUDITOR).deliveries)


def settled(hooks: wpbg.WebhookServiceStub, endpoint_id: str, count: int,
            timeout: float = 30.0) -> list[wpb.WebhookDelivery]:
    """The endpoint's ``count`` deliveries once none is pending."""
    deadline = time.monotonic() + timeout
    while True:
        rows = deliveries(hooks, endpoint_id)
        if len(rows) >= count and all(
                r.state != wpb.DELIVERY_STATE_PENDING for r in rows):
            return rows
        assert time.monotonic() < deadline, [(r.event_type, r.state) for r in rows]
        time.sleep(0.05)


def test_every_event_reaches_a_failing_receiver_signed_with_one_id_per_event(
        app: Referee, served: tuple[grpc.Channel, WebhookWorker]) -> None:
    channel, _ = served
    hooks = wpbg.WebhookServiceStub(channel)
    tours = ppbg.TournamentServiceStub(channel)
    rulings = ppbg.ProjectionsServiceStub(channel)
    receiver = Receiver(SECRET, fail_first=2).start()  # two 500s for each webhook first
    try:
        tid = tours.CreateTournament(ppb.CreateTournamentRequest(
            name="Cup", game="euchre"), metadata=bearer(AUDITOR)).tournament_id
        for team in ("N", "E"):
            tours.RegisterEntrant(ppb.RegisterEntrantRequest(tournament_id=tid,
                                                             entrant=team),
        metadata=bearer(AUDITOR))
        match_id, tokens = new_match(app)
        tours.AttachMatch(ppb.AttachMatchRequest(tournament_id=tid,
                                                 match_id=str(match_id), sides=["N", "E"]),
        metadata=bearer(AUDITOR))
        added = hooks.AddWebhook(wpb.AddWebhookRequest(tournament_id=tid, url=receiver.url,
                                                       secret=SECRET), metadata=AS_AUDITOR)
        assert added.secret == ""  # given, so never answered back
        assert added.endpoint.secret_fingerprint.startswith("sha256:")
        listed = hooks.ListWebhooks(wpb.ListWebhooksRequest(tournament_id=tid),
                                    metadata=AS_AUDITOR)
        assert [e.url for e in listed.endpoints] == [receiver.url]
        assert SECRET[6:] not in str(listed) and SECRET[6:] not in str(added)

        play(app, match_id, tokens, random.Random(7))
        rulings.RecordRuling(ppb.RecordRulingRequest(
            match_id=str(match_id), hand=1, kind="penalty", points=[1, 0],
            reason="revoke"), metadata=bearer(AUDITOR))
        tours.FinalizeResults(ppb.FinalizeResultsRequest(tournament_id=tid),
                              metadata=bearer(AUDITOR))

        hands = len([e for e in app.repository.event_store.get(match_id)
                     if type(e).__name__ == "HandScored"])
        expected = hands + 3  # every hand.scored, match.finished, the ruling, results.final
        got = receiver.wait_for(expected)
        rows = settled(hooks, added.endpoint.endpoint_id, expected)
    finally:
        receiver.stop()

    assert all(r.verified for r in receiver.received), "every attempt signed per the spec"
    types = sorted(r.payload["type"] for r in got.values())
    assert types == sorted(["hand.scored"] * hands + ["match.finished", "ruling.recorded",
                                                      "results.final"])
    # Each webhook was retried after its two 500s under the same webhook-id.
    for message_id in got:
        assert [r.answered for r in receiver.received
                if r.message_id == message_id] == [500, 500, 200]
    assert len({r.message_id for r in receiver.received}) == expected
    assert all(r.state == wpb.DELIVERY_STATE_DELIVERED for r in rows)
    for row in rows:  # the delivery log says the same
        assert [a.status for a in row.attempts] == [500, 500, 200]
        assert row.attempts[0].error == "HTTP 500" and row.HasField("done")
    # Thin payloads: the match, the tournament, public results; never a card.
    scored = next(r.payload for r in got.values() if r.payload["type"] == "hand.scored")
    assert set(scored["data"]) == {"match_id", "tournament_id", "version", "hand", "points",
                                   "scores"}
    assert scored["data"]["tournament_id"] == tid


def test_timeouts_and_an_endpoint_that_is_down_then_back(
        app: Referee, served: tuple[grpc.Channel, WebhookWorker]) -> None:
    channel, _ = served
    hooks = wpbg.WebhookServiceStub(channel)
    match_id, tokens = new_match(app)
    slow = Receiver(SECRET, script=[1.6]).start()  # the first attempt outlasts the 1 s timeout
    down = Receiver(SECRET, port=free_port())  # not listening yet
    try:
        slow_id = hooks.AddWebhook(wpb.AddWebhookRequest(
            match_id=str(match_id), url=slow.url, secret=SECRET, event_types=["hand.scored"]),
            metadata=AS_AUDITOR).endpoint.endpoint_id
        down_id = hooks.AddWebhook(wpb.AddWebhookRequest(
            match_id=str(match_id), url=down.url, secret=SECRET,
            event_types=["match.finished"]), metadata=AS_AUDITOR).endpoint.endpoint_id
        play(app, match_id, tokens, random.Random(3), stop_after_hand=1)  # one hand.scored
        slow.wait_for(1)
        play(app, match_id, tokens, random.Random(3))  # to the end: match.finished
        deadline = time.monotonic() + 20
        while len(deliveries(hooks, down_id)[0].attempts if deliveries(hooks, down_id)
                  else []) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        down.start()  # it comes back
        got = down.wait_for(1)
        rows = settled(hooks, down_id, 1)
        slow_rows = settled(hooks, slow_id, 1)
    finally:
        slow.stop()
        down.stop()
    assert [(a.status, a.error) for a in slow_rows[0].attempts] == [
        (0, "no answer within 1 s"), (200, "")]
    assert slow_rows[0].state == wpb.DELIVERY_STATE_DELIVERED
    first = slow_rows[0].message_id  # retried under the same id
    assert sorted(r.answered for r in slow.received if r.message_id == first) == [0, 200]
    assert [r.payload["type"] for r in got.values()] == ["match.finished"]
    refused = rows[0].attempts[:-1]
    assert len(refused) >= 2 and all(a.status == 0 and a.error for a in refused)
    assert rows[0].attempts[-1].status == 200 and rows[0].state == wpb.DELIVERY_STATE_DELIVERED
    assert all(r.verified for r in down.received + slow.received)


def test_registration_is_the_auditors_bounded_and_checked(
        app: Referee, served: tuple[grpc.Channel, WebhookWorker]) -> None:
    channel, _ = served
    hooks = wpbg.WebhookServiceStub(channel)
    match_id, tokens = new_match(app)
    mid = str(match_id)

    def add(metadata: tuple[tuple[str, str], ...] = AS_AUDITOR, **fields: object) -> object:
        request = wpb.AddWebhookRequest(**{"match_id": mid, "url": "https://example.org/h",
                                           **fields})  # type: ignore[arg-type]
        return lambda: hooks.AddWebhook(request, metadata=metadata)

    expect_error(add(()), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
    expect_error(add((("authorization", f"Bearer {tokens[0]}"),)),
                 grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
    for url in ("ftp://example.org/h", "file:///etc/passwd", "example.org/h", "http://",
                "http://user:pw@example.org/", "http://exa mple.org/"):
        info = expect_error(add(url=url), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_WEBHOOK")
        assert info.metadata["field"] == "url"
    assert "scheme must be http or https, not 'ftp'" in _details(add(url="ftp://x/"))
    expect_error(add(url="https://example.org/" + "a" * 2100), grpc.StatusCode.INVALID_ARGUMENT,
                 "LIMIT_EXCEEDED")
    for secret in ("not-whsec", "whsec_!!!", "whsec_" + base64.b64encode(b"short").decode()):
        expect_error(add(secret=secret), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_WEBHOOK")
    expect_error(add(event_types=["hand.dealt"]), grpc.StatusCode.INVALID_ARGUMENT,
                 "INVALID_WEBHOOK")
    expect_error(add(match_id=str(uuid.uuid4())), grpc.StatusCode.NOT_FOUND,
                 "MATCH_NOT_FOUND")
    expect_error(lambda: hooks.AddWebhook(wpb.AddWebhookRequest(url="https://x.org/"),
                                          metadata=AS_AUDITOR),
                 grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")

    made = hooks.AddWebhook(wpb.AddWebhookRequest(match_id=mid, url="https://x.org/a"),
                            metadata=AS_AUDITOR)
    assert made.secret.startswith("whsec_") and len(base64.b64decode(made.secret[6:])) == 32
    listed = hooks.ListWebhooks(wpb.ListWebhooksRequest(match_id=mid), metadata=AS_AUDITOR)
    assert made.secret[6:] not in str(listed)  # shown once, then only its fingerprint
    for n in range(4):
        add(url=f"https://x.org/{n}")()  # type: ignore[operator]
    expect_error(add(), grpc.StatusCode.FAILED_PRECONDITION, "TOO_MANY_WEBHOOKS")

    removed = hooks.RemoveWebhook(wpb.RemoveWebhookRequest(
        endpoint_id=made.endpoint.endpoint_id), metadata=AS_AUDITOR)
    assert removed.endpoint.url == "https://x.org/a"
    expect_error(lambda: hooks.RemoveWebhook(wpb.RemoveWebhookRequest(
        endpoint_id=made.endpoint.endpoint_id), metadata=AS_AUDITOR),
        grpc.StatusCode.NOT_FOUND, "WEBHOOK_NOT_FOUND")
    expect_error(lambda: hooks.ListWebhookDeliveries(wpb.ListWebhookDeliveriesRequest(
        endpoint_id="nope"), metadata=AS_AUDITOR), grpc.StatusCode.NOT_FOUND,
        "WEBHOOK_NOT_FOUND")
    left = hooks.ListWebhooks(wpb.ListWebhooksRequest(match_id=mid), metadata=AS_AUDITOR)
    assert len(left.endpoints) == 4
    expect_error(lambda: hooks.ListWebhookDeliveries(wpb.ListWebhookDeliveriesRequest(
        endpoint_id=left.endpoints[0].endpoint_id, state=9),  # type: ignore[arg-type]
        metadata=AS_AUDITOR), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_WEBHOOK")


def _details(call: object) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    return str(caught.value.details())  # type: ignore[attr-defined]


def test_removed_endpoints_get_nothing_more(
        app: Referee, served: tuple[grpc.Channel, WebhookWorker]) -> None:
    channel, _ = served
    hooks = wpbg.WebhookServiceStub(channel)
    match_id, tokens = new_match(app)
    receiver = Receiver(SECRET).start()
    try:
        endpoint = hooks.AddWebhook(wpb.AddWebhookRequest(
            match_id=str(match_id), url=receiver.url, secret=SECRET),
            metadata=AS_AUDITOR).endpoint
        play(app, match_id, tokens, random.Random(1), stop_after_hand=1)
        receiver.wait_for(1)
        hooks.RemoveWebhook(wpb.RemoveWebhookRequest(endpoint_id=endpoint.endpoint_id),
                            metadata=AS_AUDITOR)
        before = len(receiver.received)
        play(app, match_id, tokens, random.Random(1))
        time.sleep(0.5)
    finally:
        receiver.stop()
    assert len(receiver.received) == before


def test_the_retry_policy_is_bounded_and_read_from_the_environment() -> None:
    policy = RetryPolicy.from_env({})
    assert policy.attempts == 8 and policy.timeout == 5.0
    assert [round(d) for d in policy.schedule()] == [5, 20, 80, 320, 1280, 5120, 20480]
    rng = random.Random(1)
    for failed in range(1, 8):  # jitter: within ±20 % of the schedule
        base = policy.schedule()[failed - 1]
        assert 0.8 * base <= policy.delay(failed, rng) <= 1.2 * base
    assert RetryPolicy.from_env({"REFEREE_WEBHOOK_ATTEMPTS": "3"}).schedule() == [5.0, 20.0]
    for name, value in (("TIMEOUT", "99"), ("ATTEMPTS", "0"), ("BACKOFF", "x")):
        with pytest.raises(PolicyError, match=f"REFEREE_WEBHOOK_{name}"):
            RetryPolicy.from_env({f"REFEREE_WEBHOOK_{name}": value})


def test_referee_projections_sends_them_where_the_server_leaves_the_views_to_it(
        app: Referee, env: dict[str, str], tmp_path: Path) -> None:
    """``REFEREE_PROJECTIONS=separate``: the ``referee projections`` process feeds the outbox
    and sends."""
    from referee_projections.outbox import open_webhooks

    receiver = Receiver(SECRET).start()
    match_id, tokens = new_match(app)
    hooks = open_webhooks(app.settings)
    hooks.add("match", str(match_id), receiver.url, SECRET, ["match.finished"],
              app.event_log.head())
    play(app, match_id, tokens, random.Random(5))
    out = (tmp_path / "projections.log").open("wb")
    proc = procs.popen([sys.executable, "-m", "referee", "projections"],
                       env={**os.environ, **env, "REFEREE_WEBHOOK_FIRST_DELAY": "0.2"},
                       stdout=out, stderr=subprocess.STDOUT)
    try:
        got = receiver.wait_for(1)
    finally:
        proc.terminate()
        assert proc.wait(30) == 0, (tmp_path / "projections.log").read_text()
        receiver.stop()
        hooks.view.close()
    assert [r.payload["type"] for r in got.values()] == ["match.finished"]
    assert all(r.verified for r in receiver.received)


def test_an_attempt_to_a_host_that_cannot_be_reached_fails_and_never_raises() -> None:
    """The sender records a failed attempt whatever the URL's host does (here: a label too
    long for IDNA, refused before any lookup; a closed port)."""
    for url in ("http://a" + "b" * 300 + ".invalid/", f"http://127.0.0.1:{free_port()}/"):
        answer = post(url, {}, b"{}", 1.0)
        assert answer.status == 0 and answer.error and not answer.ok


@pytest.mark.postgres
@pytest.mark.parametrize("env", ["postgres"], indirect=True)
def test_two_senders_on_one_database_send_each_webhook_once(app: Referee) -> None:
    """Replicas on one PostgreSQL: the holder of the view's advisory lock sends; the other
    stands by (each delivery attempted once, though both followed the log)."""
    from referee_projections.outbox import open_webhooks

    receiver = Receiver(SECRET).start()
    senders = [WebhookWorker(app.event_log, FAST, poll=0.05).start() for _ in range(2)]
    hooks = open_webhooks(app.settings)
    try:
        match_id, tokens = new_match(app)
        hooks.add("match", str(match_id), receiver.url, SECRET, [], app.event_log.head())
        play(app, match_id, tokens, random.Random(9))
        hands = len([e for e in app.repository.event_store.get(match_id)
                     if type(e).__name__ == "HandScored"])
        receiver.wait_for(hands + 1)
        time.sleep(0.5)  # time for a second sender to send again, if it were going to
    finally:
        for sender in senders:
            sender.stop()
        receiver.stop()
        hooks.view.close()
    ids = [r.message_id for r in receiver.received]
    assert len(ids) == len(set(ids)) == hands + 1
