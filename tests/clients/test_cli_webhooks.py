"""``referee-client webhooks`` and the SDK's webhook methods against a real referee with its
webhook worker and a real local receiver: add (the referee's secret shown once), list (a
fingerprint, never the secret), the delivery log, remove; and their refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.service.server import build_server
from referee_projections.webhook_delivery import RetryPolicy, WebhookWorker
from tests.clients.test_cli import Cli
from tests.webhook_receiver import Receiver
from trick_referee_client.errors import RefereeError
from trick_referee_client.sdk import RefereeClient

AUDITOR = "webhooks-cli-auditor"


@pytest.fixture
def address(tmp_path: Path) -> Iterator[str]:
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path / "data"),
                                     "REFEREE_AUDITOR_TOKEN": AUDITOR}))
    worker = WebhookWorker(app.event_log, RetryPolicy(first_delay=0.1), poll=0.05).start()
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(1.0)
    worker.stop()
    app.close()


@pytest.fixture
def cli(address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(address, tmp_path / "state.json", capsys)


def test_add_list_deliveries_remove(cli: Cli, address: str) -> None:
    created = cli.json("create", "--game", "euchre", "--rule", "target_score=1")
    mid, tokens = created["match_id"], [s["token"] for s in created["seats"]]
    assert "auditor token" in cli("webhooks", "list", "--match", mid, "--token", "", code=2)
    assert "either --match" in cli("webhooks", "list", "--token", AUDITOR, code=2)
    refused = cli.json("webhooks", "add", "ftp://x.org/", "--match", mid, "--token", AUDITOR,
                       code=1)
    assert refused["error"]["reason"] == "INVALID_WEBHOOK"

    added = cli.json("webhooks", "add", "http://127.0.0.1:1/unused", "--match", mid,
                     "--events", "match.finished", "--token", AUDITOR)
    secret = added["secret"]
    assert secret.startswith("whsec_") and added["event_types"] == ["match.finished"]
    listed = cli("webhooks", "list", "--match", mid, "--token", AUDITOR)
    assert added["endpoint_id"] in listed and secret[6:] not in listed
    assert added["secret_fingerprint"] in listed
    assert "removed webhook" in cli("webhooks", "remove", added["endpoint_id"], "--token",
                                    AUDITOR)
    assert "WEBHOOK_NOT_FOUND" in str(cli.json("webhooks", "remove", added["endpoint_id"],
                                               "--token", AUDITOR, code=1))

    receiver = Receiver(secret).start()
    try:
        with RefereeClient(address) as client:
            endpoint, made = client.add_webhook(AUDITOR, receiver.url, match_id=mid,
                                                secret=secret)
            assert made == "" and endpoint.match_id == mid
            assert "match over" in cli("bot", "--match", mid, "--tokens", ",".join(tokens),
                                       "--seed", "1", "--quiet")
            got = receiver.wait_for(2)  # at least one hand.scored and match.finished
            rows = list(client.webhook_deliveries(AUDITOR, endpoint.endpoint_id,
                                                           page_size=1))
            assert len(rows) >= 2 and len({d.message_id for d in rows}) == len(rows)  # paged by one
            with pytest.raises(RefereeError) as caught:
                client.list_webhooks(tokens[0], match_id=mid)
            assert caught.value.reason == "PERMISSION_DENIED"
    finally:
        receiver.stop()
    assert all(r.verified for r in receiver.received)
    log = cli.json("webhooks", "deliveries", endpoint.endpoint_id, "--token", AUDITOR)
    assert {d["message_id"] for d in log} >= set(got)
    text = cli("webhooks", "deliveries", endpoint.endpoint_id, "--only", "delivered",
               "--token", AUDITOR)
    assert "match.finished" in text and "delivered" in text
