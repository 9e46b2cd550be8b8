"""The stored log behind the referee's back (rows edited with SQL, on SQLite and PostgreSQL):

- ``CheckChain`` over the real gRPC API answers ``ok: false`` with the position of the first
  break for every kind of tampering (never an error: the rows are read one by one, not
  replayed through the rules), and authorises from the creation event found in the log;
- a match whose chain does not verify is never served: loading it, or catching up with an
  event that does not link to the live head, is DATA_LOSS / CHAIN_BROKEN (so an edited
  seat-token hash does not work as that seat's token), logged once;
- ids are typed: a tournament's id is no match (MATCH_NOT_FOUND), a match's id no tournament
  (TOURNAMENT_NOT_FOUND).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import grpc
import pytest
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.chain import check_chain, event_hash
from referee.domain.errors import RefereeError
from referee.domain.match import Match
from referee.service.server import build_server
from referee_projections.queries import event_log
from tests.service.conftest import AUDITOR
from tests.service.helpers import Table, create, expect_error, step
from trick_referee_client.sdk import bearer


def _fresh_schema(env: dict[str, str]) -> str:
    import psycopg

    schema = "t" + uuid.uuid4().hex[:12]
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                         user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                         dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema


@dataclass
class Served:
    env: dict[str, str]
    app: Referee  # behind the server
    ref: pbg.RefereeServiceStub
    proj: ppbg.ProjectionsServiceStub
    tour: ppbg.TournamentServiceStub


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Served]:
    env = {"REFEREE_DATA_DIR": str(tmp_path_factory.mktemp("data")),
           "REFEREE_AUDITOR_TOKEN": AUDITOR}
    if request.param == "postgres":
        env.update(request.getfixturevalue("postgres_env"))
        env["POSTGRES_SCHEMA"] = _fresh_schema(env)
    app = Referee(settings_from_env(env))
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        yield Served(env, app, pbg.RefereeServiceStub(ch), ppbg.ProjectionsServiceStub(ch),
                     ppbg.TournamentServiceStub(ch))
    server.stop(1.0)
    app.close()


@pytest.fixture
def cold(served: Served) -> Iterator[Referee]:
    """Another process on the same store, as after a restart: nothing cached."""
    app = Referee(settings_from_env(served.env))
    yield app
    app.close()


class Rows:
    """The events table, edited with SQL behind the referee's back."""

    def __init__(self, app: Referee) -> None:
        self.ds: Any = app.recorder.datastore  # type: ignore[attr-defined]
        self.pg = type(self.ds).__module__.startswith("eventsourcing.postgres")
        name = app.recorder.events_table_name  # type: ignore[attr-defined]
        self.table = f'"{self.ds.schema}"."{name}"' if self.pg else name
        self.mapper = app.mapper

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s") if self.pg else text

    def _oid(self, match_id: UUID) -> Any:
        return match_id if self.pg else match_id.hex

    def execute(self, text: str, *params: Any) -> None:
        with self.ds.transaction(commit=True) as cur:
            cur.execute(self._sql(text), params)

    def row(self, match_id: UUID, version: int) -> tuple[str, bytes]:
        with self.ds.transaction(commit=False) as cur:
            cur.execute(self._sql(f"SELECT topic, state FROM {self.table} WHERE "
                                  "originator_id = ? AND originator_version = ?"),
                        (self._oid(match_id), version))
            row = cur.fetchone()
        return str(row["topic"]), bytes(row["state"])

    def state(self, match_id: UUID, version: int) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.row(match_id, version)[1])
        return data

    def set_state(self, match_id: UUID, version: int, state: dict[str, Any] | bytes) -> None:
        raw = state if isinstance(state, bytes) else json.dumps(state).encode()
        self.execute(f"UPDATE {self.table} SET state = ? WHERE originator_id = ? "
                     "AND originator_version = ?", raw, self._oid(match_id), version)

    def edit(self, match_id: UUID, version: int, **changes: Any) -> None:
        self.set_state(match_id, version, {**self.state(match_id, version), **changes})

    def set_topic(self, match_id: UUID, version: int, topic: str) -> None:
        self.execute(f"UPDATE {self.table} SET topic = ? WHERE originator_id = ? "
                     "AND originator_version = ?", topic, self._oid(match_id), version)

    def delete(self, match_id: UUID, version: int) -> None:
        self.execute(f"DELETE FROM {self.table} WHERE originator_id = ? "
                     "AND originator_version = ?", self._oid(match_id), version)

    def move(self, match_id: UUID, version: int, to: int) -> None:
        self.execute(f"UPDATE {self.table} SET originator_version = ? WHERE originator_id = ? "
                     "AND originator_version = ?", to, self._oid(match_id), version)

    def insert(self, match_id: UUID, version: int, topic: str, state: bytes) -> None:
        self.execute(f"INSERT INTO {self.table} (originator_id, originator_version, topic, "
                     "state) VALUES (?, ?, ?, ?)", self._oid(match_id), version, topic, state)

    def hash_of(self, match_id: UUID, version: int) -> str:
        """The chain hash of the stored event at ``version``, as it is now."""
        topic, state = self.row(match_id, version)
        event = self.mapper.to_domain_event(StoredEvent(match_id, version, topic, state))
        return event_hash(event)


N = 8  # events of the played match: creation, deal, six actions (one hand, not finished)


def _played(served: Served, seed: int) -> Table:
    table = create(served.ref, "euchre")
    rng = random.Random(seed)
    for _ in range(N - 2):
        step(served.ref, table, rng)
    return table


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# Each kind edits the rows of a match of N events and returns the version of the first break.
def _changed_command_id(rows: Rows, m: UUID) -> int:
    rows.edit(m, 5, command_id="forged")
    return 6


def _changed_action(rows: Rows, m: UUID) -> int:
    rows.edit(m, 5, action="play:ZZ")  # not even an action: replaying it is a rules error
    return 6


def _changed_link(rows: Rows, m: UUID) -> int:
    rows.edit(m, 5, prev_hash="00" * 32)
    return 5


def _forged_token_hash(rows: Rows, m: UUID) -> int:
    hashes = rows.state(m, 1)["seat_token_hashes"]
    rows.edit(m, 1, seat_token_hashes=[_sha("forged"), *hashes[1:]])
    return 2


def _deleted(rows: Rows, m: UUID) -> int:
    rows.delete(m, 5)
    return 6


def _reordered(rows: Rows, m: UUID) -> int:
    rows.move(m, 5, -1)
    rows.move(m, 6, 5)
    rows.move(m, -1, 6)
    return 5


def _inserted(rows: Rows, m: UUID) -> int:
    for v in range(N, 5, -1):  # make room at 6
        rows.move(m, v, v + 1)
    rows.insert(m, 6, *rows.row(m, 5))  # a copy of event 5
    return 6


def _undecodable(rows: Rows, m: UUID) -> int:
    rows.set_state(m, 5, b"\x00 not json")
    return 5


def _changed_topic(rows: Rows, m: UUID) -> int:
    rows.set_topic(m, 5, get_topic(Match.RulingRecorded))  # type: ignore[attr-defined]
    return 6


def _unknown_topic(rows: Rows, m: UUID) -> int:
    rows.set_topic(m, 5, "os:system")  # a class to import: never resolved
    return 5


def _first_deleted(rows: Rows, m: UUID) -> int:
    rows.delete(m, 1)
    return 2


def _rewritten_consistently(rows: Rows, m: UUID) -> int:
    """Event 5 changed and event 6 re-linked to it: the link of 7 still breaks."""
    rows.edit(m, 5, command_id="forged")
    rows.edit(m, 6, prev_hash=rows.hash_of(m, 5))
    return 7


KINDS: dict[str, Callable[[Rows, UUID], int]] = {
    "changed command id": _changed_command_id,
    "changed action": _changed_action,
    "changed link": _changed_link,
    "forged seat-token hash": _forged_token_hash,
    "deleted": _deleted,
    "reordered": _reordered,
    "inserted": _inserted,
    "undecodable state": _undecodable,
    "changed topic": _changed_topic,
    "unknown topic": _unknown_topic,
    "first event deleted": _first_deleted,
    "rewritten and re-linked": _rewritten_consistently,
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_check_chain_reports_every_kind_of_tampering(served: Served, cold: Referee,
                                                     kind: str) -> None:
    table = _played(served, seed=len(kind))
    mid = UUID(table.match_id)

    def check(token: str, **anchor: Any) -> ppb.CheckChainResponse:
        return served.proj.CheckChain(ppb.CheckChainRequest(match_id=table.match_id, **anchor),
                                      metadata=bearer(token))

    before = check(table.tokens[1])
    assert before.ok and before.events == N and not before.HasField("first_break")
    first_break = KINDS[kind](Rows(served.app), mid)

    report = check(AUDITOR)
    assert not report.ok and report.first_break == first_break, (report.message, kind)
    assert report.message and f"event {first_break}" in report.message
    assert report.version == 0  # no verified version to give
    if kind == "first event deleted":  # no creation event, no seat tokens: the auditor only
        expect_error(lambda: check(table.tokens[1]), grpc.StatusCode.PERMISSION_DENIED,
                     "PERMISSION_DENIED")
        expect_error(lambda: check(""), grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
    else:  # any seat of the creation event in the log
        assert check(table.tokens[1]).first_break == first_break
    if kind == "forged seat-token hash":  # the log's creation event is the one that counts
        assert check("forged").first_break == first_break
        expect_error(lambda: check(table.tokens[0]), grpc.StatusCode.UNAUTHENTICATED,
                     "BAD_TOKEN")
    # The exported log, checked offline (``referee verify --chain``), breaks there too.
    assert check_chain(event_log(served.app, mid)).first_break == first_break
    # The chain check and the server agree: the match is not served from this store.
    with pytest.raises(RefereeError) as caught:
        cold.get_view(mid, AUDITOR)
    assert (caught.value.reason, caught.value.metadata["version"]) == (
        "CHAIN_BROKEN", str(first_break))


def test_the_last_event_changed_is_caught_by_the_anchor(served: Served, cold: Referee
                                                        ) -> None:
    table = _played(served, seed=3)
    saved = served.proj.CheckChain(ppb.CheckChainRequest(match_id=table.match_id),
                                   metadata=bearer(table.tokens[2]))
    assert saved.ok and saved.version == N
    Rows(served.app).edit(UUID(table.match_id), N, command_id="forged")
    # Nothing links to the last event: the chain alone holds...
    alone = served.proj.CheckChain(ppb.CheckChainRequest(match_id=table.match_id),
                                   metadata=bearer(AUDITOR))
    assert alone.ok and alone.head != saved.head
    # ...and the saved head does not: the break is the anchored event.
    anchored = served.proj.CheckChain(ppb.CheckChainRequest(
        match_id=table.match_id, anchor_version=N, anchor_head=saved.head),
        metadata=bearer(AUDITOR))
    assert not anchored.ok and not anchored.anchor_ok and anchored.first_break == N
    assert f"event {N}" in anchored.message
    # The last event deleted: the anchor's version is missing, the break is there too.
    Rows(served.app).delete(UUID(table.match_id), N)
    deleted = served.proj.CheckChain(ppb.CheckChainRequest(
        match_id=table.match_id, anchor_version=N, anchor_head=saved.head),
        metadata=bearer(AUDITOR))
    assert not deleted.ok and not deleted.anchor_ok and deleted.first_break == N


def test_a_duplicated_version_cannot_be_stored(served: Served) -> None:
    table = _played(served, seed=4)
    rows = Rows(served.app)
    mid = UUID(table.match_id)
    with pytest.raises(Exception) as caught:  # the store's own unique key refuses it
        rows.insert(mid, 5, *rows.row(mid, 4))
    assert "unique" in str(caught.value).lower() or "duplicate" in str(caught.value).lower()
    report = served.proj.CheckChain(ppb.CheckChainRequest(match_id=table.match_id),
                                    metadata=bearer(AUDITOR))
    assert report.ok and report.events == N


def test_a_forged_seat_token_hash_does_not_work_as_the_seat(
    served: Served, caplog: pytest.LogCaptureFixture,
) -> None:
    """Before the chain was verified on load, a restarted server took the forged hash of
    seat 0 from the store and let the forger act and see seat 0's cards."""
    table = _played(served, seed=5)
    mid = UUID(table.match_id)
    _forged_token_hash(Rows(served.app), mid)
    restarted = Referee(settings_from_env(served.env))
    broken: list[tuple[UUID, int]] = []
    restarted.on_chain_broken(lambda match_id, version: broken.append((match_id, version)))
    server, port = build_server(restarted, "127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch, caplog.at_level(logging.ERROR):
            ref = pbg.RefereeServiceStub(ch)
            info = expect_error(lambda: ref.GetView(pb.GetViewRequest(
                match_id=table.match_id), metadata=bearer("forged")),
                grpc.StatusCode.DATA_LOSS, "CHAIN_BROKEN")
            assert info.metadata["version"] == "2" and info.metadata["matchId"] == str(mid)
            seat = served.ref.GetView(pb.GetViewRequest(match_id=table.match_id),
                                      metadata=bearer(table.spectator)).to_act
            expect_error(lambda: ref.SubmitAction(pb.SubmitActionRequest(
                match_id=table.match_id, action="pass", command_id="x",
                seat=seat), metadata=bearer("forged")), grpc.StatusCode.DATA_LOSS, "CHAIN_BROKEN")
            for token in (table.tokens[1], AUDITOR):
                expect_error(lambda t=token: ref.GetView(pb.GetViewRequest(  # type: ignore[misc]
                    match_id=table.match_id), metadata=bearer(t)), grpc.StatusCode.DATA_LOSS,
                    "CHAIN_BROKEN")
    finally:
        server.stop(1.0)
        restarted.close()
    # Refused four times, reported once: one log line with the match and the position, and
    # one call of the hook the server wires to referee_chain_breaks_total.
    assert broken == [(mid, 2)]
    lines = [r.getMessage() for r in caplog.records if r.name == "referee.application"
             and "chain" in r.getMessage()]
    assert len(lines) == 1 and str(mid) in lines[0] and "event 2" in lines[0], lines


def test_catching_up_with_events_that_do_not_link_to_the_live_head(served: Served) -> None:
    """Another process's events are applied to a cached match only if the first links to
    its live head: a rewrite of an event this process already holds, with the next event
    re-linked to it, verifies from the store alone but not against the live head."""
    table = _played(served, seed=6)
    mid = UUID(table.match_id)
    live = Referee(settings_from_env(served.env))  # caches the match at version N
    other = Referee(settings_from_env(served.env))
    try:
        assert live.get_view(mid, AUDITOR).version == N
        seat = other.get_view(mid, table.spectator).to_act
        assert seat is not None
        legal = other.get_view(mid, table.tokens[seat]).legal_actions
        other.submit_action(mid, table.tokens[seat], legal[0], "next")  # event N + 1
        rows = Rows(served.app)
        rows.edit(mid, N, command_id="forged")
        rows.edit(mid, N + 1, prev_hash=rows.hash_of(mid, N))
        with pytest.raises(RefereeError) as caught:
            live.get_view(mid, AUDITOR)  # a fresh read: catches up first
        assert (caught.value.reason, caught.value.metadata["version"]) == (
            "CHAIN_BROKEN", str(N + 1))
        # Dropped from the cache, reloaded from the store: the rewrite of the last events is
        # invisible to the links alone (only a saved head, or the live one, shows it).
        assert live.get_view(mid, AUDITOR).version == N + 1
    finally:
        live.close()
        other.close()


# -- typed lookups -----------------------------------------------------------------------------
def test_a_tournament_id_is_no_match_and_a_match_id_no_tournament(served: Served) -> None:
    """A tournament's id given as a match id was loaded, cached and used as a match
    (INTERNAL); a match's id given as a tournament id is not a tournament."""
    table = _played(served, seed=7)
    tid = served.tour.CreateTournament(ppb.CreateTournamentRequest(
        name="cup", game="euchre"), metadata=bearer(AUDITOR)).tournament_id
    not_a_match: list[Callable[[], object]] = [
        lambda: served.ref.GetView(pb.GetViewRequest(match_id=tid), metadata=bearer(AUDITOR)),
        lambda: served.ref.SubmitAction(pb.SubmitActionRequest(
            match_id=tid, action="pass", command_id="c"), metadata=bearer(table.tokens[0])),
        lambda: served.ref.GetHandRecord(pb.GetHandRecordRequest(match_id=tid, hand=1),
                                         metadata=bearer(AUDITOR)),
        lambda: served.ref.GetMatchRecord(pb.GetMatchRecordRequest(match_id=tid),
                                          metadata=bearer(AUDITOR)),
        lambda: served.ref.VerifyDeal(pb.VerifyDealRequest(match_id=tid, hand=1),
                                      metadata=bearer(AUDITOR)),
        lambda: next(iter(served.ref.WatchMatch(pb.WatchMatchRequest(match_id=tid),
                          metadata=bearer(AUDITOR)))),
        lambda: served.proj.CheckChain(ppb.CheckChainRequest(match_id=tid),
                                       metadata=bearer(AUDITOR)),
        lambda: served.proj.RecordRuling(ppb.RecordRulingRequest(
            match_id=tid, hand=1, kind="penalty", points=[0, 0],
            reason="x"), metadata=bearer(AUDITOR)),
        lambda: served.tour.AttachMatch(ppb.AttachMatchRequest(
            tournament_id=tid, match_id=tid, sides=["N", "E"]), metadata=bearer(AUDITOR)),
    ]
    for call in not_a_match * 2:  # twice: nothing was cached the first time
        expect_error(call, grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND")
    for call in [
        lambda: served.tour.RegisterEntrant(ppb.RegisterEntrantRequest(
            tournament_id=table.match_id, entrant="N"), metadata=bearer(AUDITOR)),
        lambda: served.tour.AttachMatch(ppb.AttachMatchRequest(
            tournament_id=table.match_id, match_id=table.match_id,
            sides=["N", "E"]), metadata=bearer(AUDITOR)),
    ]:
        expect_error(call, grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND")
    # Both still work as what they are.
    for entrant in ("N", "E"):
        served.tour.RegisterEntrant(ppb.RegisterEntrantRequest(
            tournament_id=tid, entrant=entrant), metadata=bearer(AUDITOR))
    served.tour.AttachMatch(ppb.AttachMatchRequest(
        tournament_id=tid, match_id=table.match_id, sides=["N", "E"]), metadata=bearer(AUDITOR))
    assert served.ref.GetView(pb.GetViewRequest(match_id=table.match_id),
                              metadata=bearer(AUDITOR)).version == N


def test_a_whole_match_loads_verified(served: Served) -> None:
    """No false alarm: a finished match (every kind of event) loads from the store, its
    chain verified, as the live one."""
    app = served.app
    created = app.create_match("euchre", rules={"target_score": 10})
    rng = random.Random(8)
    while not (view := app.get_view(created.match_id, AUDITOR)).match_over:
        assert view.to_act is not None
        token = created.seat_tokens[view.to_act]
        app.submit_action(created.match_id, token,
                          rng.choice(app.get_view(created.match_id, token).legal_actions))
    app.update_match(created.match_id, lambda m: m.record_ruling(1, "penalty", [1, 0], "r"))
    live = app.get_match(created.match_id)
    loaded = app.live.load(created.match_id)
    assert loaded.over and loaded.version == live.version
    assert loaded.chain_head == live.chain_head
    assert loaded.match_state == live.match_state
