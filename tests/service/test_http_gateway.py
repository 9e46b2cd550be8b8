"""Issue 22 item 4: the API as JSON over HTTP beside gRPC (``referee serve --http``), spoken
to with a plain HTTP client (``urllib``): the Connect protocol's unary form for every RPC,
Server-Sent Events for the streams, Connect errors with the gRPC details, the same limits, and
an OpenAPI document generated from the proto."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.service.gateway.app import Gateway, private_socket_path
from referee.service.gateway.methods import public_methods
from referee.service.gateway.openapi import openapi_document
from referee.service.server import build_server
from tests.browser import LivePage

RS = "/referee.api.v1.RefereeService"
ROOT = Path(__file__).parent.parent.parent


class Http:
    """A plain HTTP client of one gateway."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def call(self, path: str, body: Any = None, *, token: str = "", raw: bytes | None = None,
             method: str = "POST", content_type: str = "application/json",
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, dict(response.headers), _parse(response, text)
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), json.loads(err.read() or b"null")

    def ok(self, path: str, body: Any, token: str = "") -> Any:
        status, _, answer = self.call(path, body, token=token)
        assert status == 200, answer
        return answer


def _parse(response: Any, text: bytes) -> Any:
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return json.loads(text)
    return text.decode()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Http, int]]:
    env = {"REFEREE_DATA_DIR": str(tmp_path_factory.mktemp("data")),
           "REFEREE_AUDITOR_TOKEN": "auditor-secret",
           # a small anonymous budget: the per-client limit is seen through the gateway
           "REFEREE_ANONYMOUS_RATE": "0.5", "REFEREE_ANONYMOUS_BURST": "400"}
    app = Referee(settings_from_env(env))
    socket = private_socket_path()
    server, port = build_server(app, "127.0.0.1:0", private_socket=socket)
    server.start()
    gateway = Gateway(f"unix:{socket}", "127.0.0.1", 0)
    yield Http(gateway.port), port
    server.stop(1.0)
    gateway.stop()
    app.close()


@pytest.fixture(scope="module")
def http(served: tuple[Http, int]) -> Http:
    return served[0]


def _new_match(http: Http, *, public: bool = False) -> dict[str, Any]:
    return http.ok(f"{RS}/CreateMatch", {"game": "euchre", "players": ["A", "B", "C", "D"],
                                         "publicSpectators": public})


def _play(http: Http, match: dict[str, Any], steps: int, rng: random.Random) -> dict[str, Any]:
    """``steps`` legal actions (or to the match's end), each chosen from the view's legal set
    by the seat to act: nothing but JSON fields read."""
    tokens = {t["seat"]: t["token"] for t in match["seatTokens"]}
    public = {"matchId": match["matchId"]}
    for _ in range(steps):
        table = http.ok(f"{RS}/GetView", public, match["spectatorToken"])
        if table["matchOver"]:
            return table
        seat = table["toAct"]
        view = http.ok(f"{RS}/GetView", public, tokens[seat])
        http.ok(f"{RS}/SubmitAction", {**public, "action": rng.choice(view["legalActions"])},
                tokens[seat])
    return http.ok(f"{RS}/GetView", public, match["spectatorToken"])


def test_a_whole_match_is_played_over_http_with_json_only(http: Http) -> None:
    games = http.ok(f"{RS}/ListGames", {})["games"]
    assert {"belot", "coinche", "euchre", "pedro", "ulti"} <= {g["name"] for g in games}
    match = _new_match(http)
    view = _play(http, match, 5000, random.Random(22))
    assert view["matchOver"] is True
    assert int(view["version"]) > 20  # 64-bit integers are strings in protobuf's JSON
    record = http.ok(f"{RS}/GetMatchRecord", {"matchId": match["matchId"]},
                     match["seatTokens"][0]["token"])
    assert record  # the finished match's record, over HTTP too


def test_a_seat_sees_its_own_cards_only(http: Http) -> None:
    """Hidden information holds over HTTP as over gRPC: a seat's view carries its hand, a
    spectator's none."""
    match = _new_match(http)
    seat = http.ok(f"{RS}/GetView", {"matchId": match["matchId"]},
                   match["seatTokens"][1]["token"])
    watcher = http.ok(f"{RS}/GetView", {"matchId": match["matchId"]},
                      match["spectatorToken"])
    assert seat["role"] == "ROLE_SEAT" and seat["seat"] == 1
    assert watcher["role"] == "ROLE_SPECTATOR"
    hand = seat["table"]["hand"]
    shown = json.dumps(watcher)
    assert hand and not any(f'"{c}"' in shown for c in hand)


@pytest.mark.parametrize(("body", "why"), [
    (b"{not json", "not a JSON GetViewRequest"),
    (b'{"matchId": 5}', "matchId"),
    (b'{"noSuchField": 1}', "noSuchField"),
    (b"\xff\xfe", "UTF-8"),
])
def test_a_malformed_body_is_refused_with_what_is_wrong(http: Http, body: bytes,
                                                        why: str) -> None:
    status, _, error = http.call(f"{RS}/GetView", raw=body)
    assert status == 400 and error["code"] == "invalid_argument", error
    assert why in error["message"]


def test_errors_are_connect_errors_with_the_referees_reason(http: Http) -> None:
    match = _new_match(http)
    status, _, error = http.call(f"{RS}/SubmitAction", {
        "matchId": match["matchId"], "action": "play:ZZ"}, token=match["seatTokens"][0]["token"])
    assert status == 400 and error["code"] == "invalid_argument"
    (info,) = [d for d in error["details"] if d["type"] == "google.rpc.ErrorInfo"]
    assert info["debug"]["reason"] == "INVALID_ACTION" and info["value"]
    status, _, error = http.call(f"{RS}/GetView", {"matchId": match["matchId"]},
                                 token="not-a-token")
    assert status in (401, 403) and error["code"] in ("unauthenticated", "permission_denied")
    status, _, error = http.call(f"{RS}/GetView", {"matchId": "no-such-match"})
    assert status == 400 or status == 404, error


def test_the_wrong_route_method_type_or_size_is_refused(http: Http) -> None:
    status, _, error = http.call("/referee.api.v1.RefereeService/NoSuchMethod", {})
    assert status == 404 and "openapi.json" in error["message"]
    status, headers, error = http.call(f"{RS}/GetView", method="GET")
    assert status == 405 and headers["Allow"] == "POST"
    status, _, error = http.call(f"{RS}/GetView", {}, content_type="text/plain")
    assert status == 415 and "application/json" in error["message"]
    status, _, error = http.call(f"{RS}/ListGames", raw=b" " * (2 << 20))
    assert status == 413 and error["code"] == "resource_exhausted"


def _follow(http: Http, path: str, until: int, headers: dict[str, str] | None = None
            ) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The SSE events of ``path`` read as they come, up to the one with id ``until`` (the
    stream itself stays open: a watch ends only when the caller goes)."""
    request = urllib.request.Request(http.base + path, headers=headers or {})
    events: list[dict[str, str]] = []
    with urllib.request.urlopen(request, timeout=30) as response:
        fields: dict[str, str] = {}
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line:
                key, _, value = line.partition(": ")
                fields[key] = value
                continue
            if "data" in fields:
                events.append(fields)
                if fields.get("id") == str(until):
                    return dict(response.headers), events
            fields = {}
    raise AssertionError(f"the stream ended before version {until}: {events[-1:]}")


def test_a_stream_is_server_sent_events_and_resumes_from_last_event_id(http: Http) -> None:
    """WatchMatch as SSE: each message a ``data:`` line of JSON with its version as ``id:``;
    a reconnect with ``Last-Event-ID`` (what a browser's EventSource sends) gets only what
    came after."""
    match = _new_match(http, public=True)
    view = _play(http, match, 5000, random.Random(7))
    assert view["matchOver"]
    final = int(view["version"])
    query = urllib.request.quote(json.dumps({"matchId": match["matchId"]}))
    path = f"{RS}/WatchMatch?message={query}"
    headers, events = _follow(http, path, final)
    assert headers["Content-Type"].startswith("text/event-stream")
    seen = [int(e["version"]) for m in events for e in json.loads(m["data"])["events"]]
    assert seen == list(range(seen[0], final + 1))  # every change, in order, once
    assert json.loads(events[-1]["data"])["view"]["matchOver"] is True
    middle = seen[len(seen) // 2]
    _, again = _follow(http, path, final, {"Last-Event-ID": str(middle)})
    resumed = [int(e["version"]) for m in again for e in json.loads(m["data"])["events"]]
    assert resumed == list(range(middle + 1, final + 1))  # nothing seen twice


def test_a_refused_stream_is_a_plain_connect_error(http: Http) -> None:
    match = _new_match(http)  # not public: a watcher needs a token
    query = urllib.request.quote(json.dumps({"matchId": match["matchId"]}))
    status, _, error = http.call(f"{RS}/WatchMatch?message={query}", method="GET")
    assert status in (401, 403) and error["code"] in ("unauthenticated", "permission_denied")


def test_the_openapi_document_covers_every_rpc_and_is_committed_fresh(http: Http) -> None:
    status, _, served_doc = http.call("/openapi.json", method="GET")
    assert status == 200
    assert served_doc == openapi_document()
    paths = served_doc["paths"]
    for method in public_methods().values():
        (verb,) = paths[method.path]
        assert verb == ("get" if method.streaming else "post")
    schemas = served_doc["components"]["schemas"]
    for path in paths.values():  # every reference resolves
        for ref in _refs(path):
            assert ref.removeprefix("#/components/schemas/") in schemas, ref
    committed = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    assert committed == served_doc, (
        "docs/openapi.json is stale: python -m referee.service.gateway.openapi > "
        "docs/openapi.json")


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def test_a_page_in_a_real_browser_follows_a_live_match_over_sse(
        served: tuple[Http, int], tmp_path: Path) -> None:
    """``/live?match=ID`` in headless Chromium: its EventSource gets the match as it is
    played (several messages, not one read after the fact), to the last version."""
    http, _ = served
    match = _new_match(http, public=True)
    page = LivePage(tmp_path, f"{http.base}/live?match={match['matchId']}")
    try:
        page.wait_for("document.getElementById('messages').textContent === '1'")
        view = _play(http, match, 5000, random.Random(3))
        assert view["matchOver"]
        page.wait_for("document.getElementById('status').dataset.over === 'true'")
        shown = page.evaluate("[document.getElementById('version').textContent, "
                              "Number(document.getElementById('messages').textContent), "
                              "[...document.querySelectorAll('#log .event')]"
                              ".map((e) => Number(e.dataset.version)).reverse()]")
    finally:
        page.close()
    version, messages, lines = shown
    assert version == view["version"]
    assert messages > 1  # live: the page got updates while the match went on
    assert lines == list(range(lines[0], int(version) + 1))  # every event, in order, once


def test_a_call_through_the_gateway_counts_against_its_http_client(
        served: tuple[Http, int]) -> None:
    """The per-peer anonymous budget is the HTTP client's (here 127.0.0.1), not one shared by
    everything the gateway forwards; the header that names the client is believed only on the
    private socket: over TCP a forged one changes nothing. (Last in this module: it spends the
    module server's anonymous budget.)"""
    http, port = served
    match = _new_match(http, public=True)
    seen: list[int] = []
    for _ in range(500):  # past the burst of 400 anonymous calls (no token: anonymous)
        status, headers, error = http.call(f"{RS}/GetView", {"matchId": match["matchId"]})
        seen.append(status)
        if status == 429:
            assert error["code"] == "resource_exhausted"
            assert int(headers["Retry-After"]) >= 1  # from the google.rpc.RetryInfo detail
            break
    assert seen[-1] == 429
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pbg.RefereeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as err:  # the same client, whatever it claims
            stub.GetView(pb.GetViewRequest(match_id=match["matchId"]),
                         metadata=[("x-referee-client", "ipv4:203.0.113.9:0")])
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.parametrize("token", ["é", "\x80", "auditor-secrét"])
def test_a_token_that_is_not_ascii_is_refused_as_unauthenticated(http: Http, token: str
                                                                  ) -> None:
    """Tokens travel only as metadata, which carries printable ASCII (gRPC clients refuse
    anything else before sending; the SDK says BAD_TOKEN): over HTTP such a header arrives,
    and is a clear 401 before any call, never a 500 (it was INTERNAL when tokens were request
    fields)."""
    conn = HTTPConnection(http.base.removeprefix("http://"), timeout=30)
    body = json.dumps({"matchId": "00000000-0000-0000-0000-000000000000"}).encode()
    conn.putrequest("POST", f"{RS}/GetView")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Authorization", b"Bearer " + token.encode("latin-1"))
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    error = json.loads(response.read())
    conn.close()
    assert response.status == 401 and error["code"] == "unauthenticated", error
