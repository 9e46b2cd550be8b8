"""Fuzzing every RPC of the three services over a real server and channel (issue 16: no
input, however hostile, gets INTERNAL or UNKNOWN).

Requests come from the protobuf descriptors. Mostly a valid request of the method (a *seed*,
made against a real match and tournament) with one to three fields replaced by a hostile
value: text of every kind (non-ASCII, control characters), integers over the field's whole
range and at its edges, random bytes, lists of any length or the right length with wrong
items, nested messages; else a request made up field by field, a few fields hostile and the
others set to the ids, tokens, actions and names of the real match, so that a bad value is
met past the checks of the others. Three runs: each method on its own, random bytes as the
request, and calls to every method interleaved (a read meets what a fuzzed write left).

Each call must end OK or with a status our code chose, never INTERNAL or UNKNOWN, and every
such refusal carries exactly one ``ErrorInfo``. Streams are read for a few messages, then
cancelled. After each run the server still answers (health, ``ListGames``), the projection
worker has not failed, and the process's RSS has grown by less than :data:`RSS_GROWTH_LIMIT`
since the first fuzzed call.

What it found, pinned in ``test_hostile_input.py``: undecodable bytes (UNKNOWN), tokens that
are not ASCII (INTERNAL), ruling points that push a score out of int64 (INTERNAL on every
later scoreboard). The store is SQLite (fast); the module runs in about 20 s;
``REFEREE_FUZZ_SCALE=10`` runs ten times as many examples.
"""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.api.v1 import projections_pb2 as ppb
from referee.api.v1 import projections_pb2_grpc as ppbg
from referee.api.v1 import referee_pb2 as pb
from referee.api.v1 import referee_pb2_grpc as pbg
from referee.api.v1 import webhooks_pb2 as wpb
from referee.api.v1 import webhooks_pb2_grpc as wpbg
from referee.application import Referee
from referee.config import settings_from_env
from referee.rules.cards import CARD_NAMES
from referee.rules.registry import GAMES
from referee.service.server import build_server
from referee_projections.runner import ProjectionWorker
from tests.service.conftest import AUDITOR
from tests.service.helpers import create, error_info, step
from trick_referee_client.sdk import bearer

#: Every RPC of the public API, found from the descriptors (a new RPC is fuzzed unasked).
METHODS: list[MethodDescriptor] = [
    m for f in (pb.DESCRIPTOR, ppb.DESCRIPTOR, wpb.DESCRIPTOR)
    for s in f.services_by_name.values() for m in s.methods
]
WEBHOOK_SECRET = "whsec_" + "QUJD" * 8  # the base64 of 24 bytes
#: Statuses no input may get: they mean the server did not decide what happened.
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
#: Statuses the client or gRPC itself produces (they carry no ErrorInfo of ours).
TRANSPORT = {grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED}
RSS_GROWTH_LIMIT = 128 << 20  # a run at REFEREE_FUZZ_SCALE=6 grew it by 34 MiB
#: Field name -> values meaningful to the server (a list to pick from, or a strategy).
Known = dict[str, list[Any] | st.SearchStrategy[Any]]
STREAM_MESSAGES = 3
STREAM_WAIT = 0.2
#: Examples per method (a stream that stays open costs up to STREAM_WAIT, hence fewer).
#: REFEREE_FUZZ_SCALE multiplies them all, for a longer hunt than the suite's.
SCALE = float(os.environ.get("REFEREE_FUZZ_SCALE", "1"))
EXAMPLES, STREAM_EXAMPLES, RAW_EXAMPLES, INTERLEAVED_EXAMPLES = (
    max(1, round(n * SCALE)) for n in (100, 40, 25, 100))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def path(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


def rss() -> int:
    """The process's resident set now (Linux), else its peak, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class World:
    """A served application with a real match and tournament in it. ``known``: field name ->
    values that mean something to the server; ``seeds``: method name -> valid requests and
    their callers' credentials (``authorization`` metadata), which the fuzzer mutates."""

    channel: grpc.Channel
    worker: ProjectionWorker
    known: Known = field(default_factory=dict)
    seeds: dict[str, list[tuple[Message, str]]] = field(default_factory=dict)
    rss_start: int = 0


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    env = {
        "REFEREE_DATA_DIR": str(tmp_path_factory.mktemp("fuzz")),
        "REFEREE_AUDITOR_TOKEN": AUDITOR,
        # The per-peer budget of tokenless calls would turn most of them into
        # RESOURCE_EXHAUSTED before the code under fuzzing runs (the budget has its own tests).
        "REFEREE_ANONYMOUS_RATE": "0",
    }
    app = Referee(settings_from_env(env))
    worker = ProjectionWorker(app.event_log, poll=0.05).start()
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        world = World(channel, worker)
        _populate(world)
        yield world
    server.stop(1.0)
    worker.stop()
    app.close()


def _populate(world: World) -> None:
    """A public match with its first hand played out, a private one, a tournament with the
    first attached: their ids, tokens, legal actions, names, and a valid request per method."""
    import random

    stub = pbg.RefereeServiceStub(world.channel)
    tour = ppbg.TournamentServiceStub(world.channel)
    played = create(stub, "euchre", public_spectators=True)
    rng = random.Random(16)
    while stub.GetView(pb.GetViewRequest(match_id=played.match_id),
                       metadata=bearer(AUDITOR)).hand == 1:
        step(stub, played, rng)
    private = create(stub, "coinche")
    tid = tour.CreateTournament(ppb.CreateTournamentRequest(
        name="cup", game="euchre"), metadata=bearer(AUDITOR)).tournament_id
    entrants = ["north-south", "east-west"]
    for e in entrants:
        tour.RegisterEntrant(ppb.RegisterEntrantRequest(tournament_id=tid,
                                                        entrant=e, members=["a", "b"]),
        metadata=bearer(AUDITOR))
    tour.AttachMatch(ppb.AttachMatchRequest(tournament_id=tid,
                                            match_id=played.match_id, sides=entrants),
        metadata=bearer(AUDITOR))
    deals = [pb.FixedDeal(cards=[CARD_NAMES[c] for c in GAMES["euchre"].pack])]
    for _ in range(2):  # two tables of one duplicate board, neither finished
        tour.AttachMatch(ppb.AttachMatchRequest(
            tournament_id=tid, sides=entrants, board="b1",
            match_id=create(stub, "euchre", fixed_deals=deals).match_id), metadata=bearer(AUDITOR))
    world.worker.wait()
    board = ppbg.ProjectionsServiceStub(world.channel).GetScoreboard(
        ppb.GetScoreboardRequest(match_id=played.match_id), metadata=bearer(AUDITOR)).scoreboard
    actions = {"pass", "play:JH", "order", "name:S", "hidden"}
    for table in (played, private):
        for token in table.tokens:
            view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(token))
            actions |= set(view.legal_actions)
    games = stub.ListGames(pb.ListGamesRequest()).games
    # Repeated values are picked more often: the played match and the auditor reach furthest.
    match_ids = [*[played.match_id] * 6, private.match_id, str(uuid.uuid4()), tid,
                 played.match_id.upper(), f"urn:uuid:{played.match_id}"]
    params = [p.name for g in games for p in g.parameters]
    world.known = {
        "match_id": match_ids,
        "tournament_id": [tid, tid, str(uuid.uuid4()), played.match_id],
        "token": [*[AUDITOR] * 8, *played.tokens, played.spectator, *private.tokens,
                  private.spectator, ""],
        "hand": [1, 1, 2],
        "action": sorted(actions),
        "command_id": ["c-1", "c-2"],
        "game": [n for g in games for n in (g.name, *g.aliases)],
        # Rule parameters of every game (and other names), with values of any type or none.
        "rules": st.dictionaries(st.one_of(st.sampled_from([*params, "nope"]), _TEXT),
                                 _RULE_VALUES, max_size=3),
        "players": [["ann", "bob", "cy", "di"], ["ann", "bob", "cy"], []],
        "cards": _PACKS,
        "kind": ["penalty", "annul", "correction", "redeal"],
        "reason": ["slow play"],
        "points": [[0, 0], [3, 1], [2, 0, 1]],
        "entrant": entrants,
        "sides": [entrants, entrants[::-1], entrants[:1]],
        "members": [["a", "b"], []],
        "board": ["b1", "b2"],
        "name": ["cup"],
        "anchor_head": [board.head_hash, "0" * 64],
        "undo": ["off", "consent", "always"],
        "abandonment": ["forfeit", "adjusted", "coin toss"],
        "at_fault": [[True, False], [False, False], [True]],
        "url": ["http://127.0.0.1:9/hook", "https://example.org/h?x=1", "ftp://x/"],
        "secret": [WEBHOOK_SECRET, "", "whsec_AAAA"],
        "event_types": [["hand.scored"], [], ["match.finished", "results.final"]],
    }
    hooks = wpbg.WebhookServiceStub(world.channel)
    endpoints = [hooks.AddWebhook(wpb.AddWebhookRequest(
        match_id=played.match_id, url="http://127.0.0.1:9/hook"),
        metadata=bearer(AUDITOR)).endpoint.endpoint_id for _ in range(2)]
    world.known["endpoint_id"] = [*endpoints, str(uuid.uuid4())]
    mid, seat_token = played.match_id, played.tokens[0]
    to_act = stub.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(AUDITOR)).to_act
    legal = stub.GetView(pb.GetViewRequest(match_id=mid), metadata=bearer(played.tokens[to_act]))
    euchre_pack = [CARD_NAMES[c] for c in GAMES["euchre"].pack]
    hour = pb.TimeControl(action_ms=3_600_000, bank_ms=60_000, increment_ms=1000, lag_ms=500,
                          policy=pb.TIMEOUT_POLICY_PAUSE)
    timed = stub.CreateMatch(pb.CreateMatchRequest(game="euchre", time_control=hour)).match_id
    seeds: list[tuple[Message, str]] = [  # a request and its caller's credential
        (pb.ListGamesRequest(), AUDITOR),
        (pb.CreateMatchRequest(game="euchre",
                               rules={"target_score": pb.RuleValue(int_value=3)},
                               players=["ann", "bob", "cy", "di"], seed_entropy=b"fuzz",
                               fixed_deals=[pb.FixedDeal(cards=euchre_pack)], first_dealer=1,
                               public_spectators=True, time_control=hour,
                               policies=pb.TablePolicies(undo="consent")), ""),
        (pb.PauseClocksRequest(match_id=timed, reason="a disconnect"), AUDITOR),
        (pb.ResumeClocksRequest(match_id=timed, add_ms=1000), AUDITOR),
        (pb.SubmitActionRequest(match_id=mid,
                                action=legal.legal_actions[0], command_id="c-1",
                                 expected_version=legal.version, seat=to_act),
         played.tokens[to_act]),
        _claimed(stub, rng),  # accepted once here: the seed is its retry
        _conceded(stub, rng),
        *_undone(stub),  # each accepted once here: the seeds are their retries
        *_put_to_the_table(stub, rng),
        (pb.SubstitutePlayerRequest(match_id=timed, seat=1, player="eve"), AUDITOR),
        (pb.GetViewRequest(match_id=mid), seat_token),
        (pb.WatchMatchRequest(match_id=mid, after_version=1,
                              heartbeat_seconds=1), seat_token),
        (pb.GetHandRecordRequest(match_id=mid, hand=1), seat_token),
        (pb.GetMatchRecordRequest(match_id=mid), played.spectator),
        (pb.VerifyDealRequest(match_id=mid, hand=1), seat_token),
        (pb.ListRejectionsRequest(match_id=mid, page_size=5,
                                  page_token=_next_page(stub, mid)), AUDITOR),
        (ppb.GetScoreboardRequest(match_id=mid), seat_token),
        (ppb.WatchScoreboardRequest(match_id=mid, after_version=1), seat_token),
        (ppb.GetReplayRequest(match_id=mid, hand=1, action_index=3), seat_token),
        (ppb.WalkReplayRequest(match_id=mid, hand=1, from_index=2, to_index=5),
         seat_token),
        (ppb.ExportHandRequest(match_id=mid, hand=1), seat_token),
        (ppb.ExportMatchRequest(match_id=mid), seat_token),
        (ppb.RecordRulingRequest(match_id=mid, hand=1, kind="correction",
                                 points=[1, 0], reason="slow play"), AUDITOR),
        (ppb.CheckChainRequest(match_id=mid, anchor_version=board.version,
                               anchor_head=board.head_hash), seat_token),
        (ppb.GetHandViewRequest(match_id=mid, hand=1), seat_token),
        (ppb.CreateTournamentRequest(name="league", game="euchre",
                                     abandonment="adjusted"), AUDITOR),
        (ppb.AbandonMatchRequest(match_id=create(stub, "euchre").match_id,
                                 at_fault=[True, False], reason="no show",
                                 command_id="abandon-seed"), AUDITOR),
        (ppb.RegisterEntrantRequest(tournament_id=tid, entrant="west",
                                    members=["w"]), AUDITOR),
        (ppb.AttachMatchRequest(tournament_id=tid,
                                match_id=create(stub, "euchre").match_id, sides=entrants), AUDITOR),
        (ppb.GetStandingsRequest(tournament_id=tid), AUDITOR),
        (ppb.FinalizeResultsRequest(tournament_id=tid, command_id="close"), AUDITOR),
        (ppb.ReleaseBoardRequest(tournament_id=tid, board="b1"), AUDITOR),
        (ppb.ExportTournamentRequest(tournament_id=tid), AUDITOR),
        (wpb.AddWebhookRequest(tournament_id=tid, url="http://127.0.0.1:9/hook",
                               secret=WEBHOOK_SECRET, event_types=["results.final"]), AUDITOR),
        (wpb.ListWebhooksRequest(match_id=mid), AUDITOR),
        (wpb.ListWebhookDeliveriesRequest(endpoint_id=endpoints[0], page_size=10), AUDITOR),
        (wpb.RemoveWebhookRequest(endpoint_id=endpoints[1]), AUDITOR),
    ]
    by_input = {m.input_type.full_name: m for m in METHODS}
    for seed, token in seeds:
        method = by_input[seed.DESCRIPTOR.full_name]
        code = outcome(world.channel, method, seed.SerializeToString(), token)
        allowed = {grpc.StatusCode.OK, grpc.StatusCode.CANCELLED}  # a stream left open
        assert code in allowed if method.server_streaming else code is grpc.StatusCode.OK, (
            f"the seed of {method.name} is refused: {code.name}")
        world.seeds.setdefault(method.name, []).append((seed, token))


# -- requests from descriptors -------------------------------------------------------------
_F = FieldDescriptor
_INT_RANGES = {
    _F.TYPE_INT32: (-(2**31), 2**31 - 1), _F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _F.TYPE_SFIXED32: (-(2**31), 2**31 - 1), _F.TYPE_INT64: (-(2**63), 2**63 - 1),
    _F.TYPE_SINT64: (-(2**63), 2**63 - 1), _F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _F.TYPE_UINT32: (0, 2**32 - 1), _F.TYPE_FIXED32: (0, 2**32 - 1),
    _F.TYPE_UINT64: (0, 2**64 - 1), _F.TYPE_FIXED64: (0, 2**64 - 1),
}
_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8", max_codepoint=0x9F), max_size=20),  # controls, C1
    st.sampled_from(["é", "\x00", "ü" * 40, "\u202e", "\ufeff", " ", "\n", "💥", "../..",
                     "%s%n", "'; DROP TABLE events;--", "0" * 32, "{" + "0" * 32 + "}"]),
)
#: A whole pack of one game, shuffled: what a fixed deal must be.
_PACKS = st.sampled_from(sorted(GAMES)).flatmap(
    lambda g: st.permutations([CARD_NAMES[c] for c in GAMES[g].pack]))
_RULE_VALUES = st.one_of(
    st.builds(pb.RuleValue),  # no value set
    st.booleans().map(lambda b: pb.RuleValue(bool_value=b)),
    st.integers(-(2**63), 2**63 - 1).map(lambda i: pb.RuleValue(int_value=i)),
    _TEXT.map(lambda t: pb.RuleValue(string_value=t)),
)


def _is_map(f: FieldDescriptor) -> bool:
    return f.message_type is not None and f.message_type.GetOptions().map_entry


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, picked in proportion to its weight."""
    table = [s for weight, s in choices for _ in range(weight)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


def _hostile(f: FieldDescriptor, known: Known, depth: int) -> st.SearchStrategy[Any]:
    """Any one value of the field's type: text of every kind, integers over the whole range
    and at its edges."""
    if f.type == _F.TYPE_MESSAGE:
        return message_strategy(f.message_type, known, depth + 1)
    if f.type == _F.TYPE_STRING:
        return _TEXT
    if f.type == _F.TYPE_BYTES:
        return st.binary(max_size=64)
    if f.type == _F.TYPE_BOOL:
        return st.booleans()
    if f.type == _F.TYPE_ENUM:
        return st.integers(-1, len(f.enum_type.values) + 1)  # proto3 enums are open
    if f.type in (_F.TYPE_DOUBLE, _F.TYPE_FLOAT):
        return st.floats(width=32 if f.type == _F.TYPE_FLOAT else 64)
    lo, hi = _INT_RANGES[f.type]
    edges = [v for v in (lo, hi, lo + 1, hi - 1, -1, 0) if lo <= v <= hi]
    return weighted((1, st.integers(lo, hi)), (2, st.sampled_from(edges)))


def _sane(f: FieldDescriptor, known: Known, depth: int) -> st.SearchStrategy[Any]:
    """A value that means something to the server: a known id, token, name, list; a small
    number. Known values of a repeated field are whole lists."""
    values = known.get(f.name)
    if isinstance(values, st.SearchStrategy):
        return values
    if values:
        return st.sampled_from(values)
    if f.type in _INT_RANGES:
        one: st.SearchStrategy[Any] = st.integers(max(_INT_RANGES[f.type][0], -1), 12)
    else:
        one = _hostile(f, known, depth)
    return st.lists(one, max_size=4) if f.is_repeated else one


def _bad(f: FieldDescriptor, known: Known, depth: int) -> st.SearchStrategy[Any]:
    """A hostile value of the field; for a repeated field, any list of hostile values or a
    sane list with some of its items made hostile (the right length, wrong values)."""
    if _is_map(f):  # hostile keys and values come from its known strategy
        return _sane(f, known, depth)
    one = _hostile(f, known, depth)
    if not f.is_repeated:
        return one
    spoilt = _sane(f, known, depth).flatmap(
        lambda xs: st.tuples(*(st.one_of(st.just(x), one) for x in xs)).map(list))
    return st.one_of(st.lists(one, max_size=6), spoilt)


def mutations(seed: Message, known: Known) -> st.SearchStrategy[Message]:
    """``seed`` with one to three of its fields replaced by a hostile value (mostly), another
    meaningful one, or nothing."""
    fields = list(seed.DESCRIPTOR.fields)
    if not fields:
        return st.just(seed)

    def replaced(values: dict[str, Any]) -> Message:
        out = type(seed)()
        out.CopyFrom(seed)
        for name, value in values.items():
            out.ClearField(name)
            f = seed.DESCRIPTOR.fields_by_name[name]
            if value is None:
                continue
            if _is_map(f):
                for key, item in value.items():
                    getattr(out, name)[key].CopyFrom(item)
            elif f.is_repeated:
                getattr(out, name).extend(value)
            elif f.type == _F.TYPE_MESSAGE:
                getattr(out, name).CopyFrom(value)
            else:
                setattr(out, name, value)
        return out

    def replace(chosen: list[FieldDescriptor]) -> st.SearchStrategy[Message]:
        return st.fixed_dictionaries({
            f.name: weighted((6, _bad(f, known, 0)), (1, _sane(f, known, 0)), (1, st.none()))
            for f in chosen
        }).map(replaced)

    count = weighted((8, st.just(1)), (2, st.just(2)), (1, st.just(3)))
    return st.tuples(count, st.permutations(fields)).flatmap(lambda t: replace(t[1][: t[0]]))


def _in_trick_play(stub: pbg.RefereeServiceStub, rng: Any) -> tuple[Any, int]:
    """A new Euchre match played at random into its trick play; the seat to act."""
    table = create(stub, "euchre")
    while True:
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
        if view.table.phase == "play":
            return table, view.to_act
        step(stub, table, rng)


def _next_page(stub: pbg.RefereeServiceStub, match_id: str) -> str:
    """A page token the referee issued: the second page of the match's rejections."""
    for action in ("bogus", "nonsense"):  # two rejections, so that a page of one has a next
        with contextlib.suppress(grpc.RpcError):
            stub.SubmitAction(pb.SubmitActionRequest(match_id=match_id,
                                                     action=action), metadata=bearer(AUDITOR))
    return stub.ListRejections(pb.ListRejectionsRequest(
        match_id=match_id, page_size=1), metadata=bearer(AUDITOR)).next_page_token


def _claimed(stub: pbg.RefereeServiceStub, rng: Any) -> tuple[Message, str]:
    """A claim the referee accepted (tried at every turn of the trick play until one holds)."""
    table, seat = _in_trick_play(stub, rng)
    while True:
        request = pb.SubmitClaimRequest(match_id=table.match_id, command_id="claim-seed")
        try:
            stub.SubmitClaim(request, metadata=bearer(table.tokens[seat]))
            return request, table.tokens[seat]
        except grpc.RpcError:
            step(stub, table, rng)  # refused: play on
            seat = stub.GetView(pb.GetViewRequest(match_id=table.match_id),
                                metadata=bearer(AUDITOR)).to_act


def _conceded(stub: pbg.RefereeServiceStub, rng: Any) -> tuple[Message, str]:
    table, seat = _in_trick_play(stub, rng)
    request = pb.ConcedeRequest(match_id=table.match_id, command_id="concede-seed")
    stub.Concede(request, metadata=bearer(table.tokens[seat]))
    return request, table.tokens[seat]


def _undone(stub: pbg.RefereeServiceStub) -> list[tuple[Message, str]]:
    """An undo asked for and agreed in a match whose undo policy is consent."""
    table = create(stub, "euchre", policies=pb.TablePolicies(undo="consent"))
    seat = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR)).to_act
    stub.SubmitAction(pb.SubmitActionRequest(match_id=table.match_id,
                                             action="pass"), metadata=bearer(table.tokens[seat]))
    asker, answerer = table.tokens[seat], table.tokens[(seat + 1) % 4]
    ask = pb.RequestUndoRequest(match_id=table.match_id, command_id="undo-seed")
    stub.RequestUndo(ask, metadata=bearer(asker))
    answer = pb.AnswerUndoRequest(match_id=table.match_id, agree=True, command_id="answer-seed")
    stub.AnswerUndo(answer, metadata=bearer(answerer))
    return [(ask, asker), (answer, answerer)]


def _put_to_the_table(stub: pbg.RefereeServiceStub, rng: Any) -> list[tuple[Message, str]]:
    """An unchecked claim put to the other side, and rejected."""
    table = create(stub, "euchre", policies=pb.TablePolicies(unchecked_claims="consent"))
    while True:
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(AUDITOR))
        if view.table.phase == "play":
            break
        step(stub, table, rng)
    seat = view.to_act
    claimer, answerer = table.tokens[seat], table.tokens[(seat + 1) % 4]
    put = pb.SubmitClaimRequest(match_id=table.match_id, command_id="put-seed", unchecked=True)
    stub.SubmitClaim(put, metadata=bearer(claimer))
    answer = pb.AnswerClaimRequest(match_id=table.match_id, accept=False, command_id="no-seed")
    stub.AnswerClaim(answer, metadata=bearer(answerer))
    return [(put, claimer), (answer, answerer)]


Call = tuple[Message, str]  # a request and the credential sent with it


def credentials(known: Known) -> st.SearchStrategy[str]:
    """A credential for the ``authorization`` metadata: a known one (mostly), none, or
    hostile printable ASCII, oversized too (metadata carries nothing else)."""
    hostile = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=300)
    return weighted((6, st.sampled_from(known["token"])), (1, st.just("")), (2, hostile))


def requests_for(method: MethodDescriptor, world: World) -> st.SearchStrategy[Call]:
    """Mutated seeds of ``method`` (two thirds), or requests made up from the descriptor; a
    seed keeps its credential mostly, else another."""
    seeds = st.sampled_from(world.seeds[method.name]).flatmap(
        lambda seed: st.tuples(mutations(seed[0], world.known),
                               weighted((3, st.just(seed[1])),
                                        (1, credentials(world.known)))))
    made = st.tuples(message_strategy(method.input_type, world.known),
                     credentials(world.known))
    return weighted((2, seeds), (1, made))


def message_strategy(descriptor: Descriptor, known: Known, depth: int = 0
                     ) -> st.SearchStrategy[Message]:
    """Messages of ``descriptor``: a few fields (none, one, two, or all of them) hostile, the
    others sane or unset; so that a bad value is usually met past the other fields' checks."""
    cls = GetMessageClass(descriptor)
    fields = [f for f in descriptor.fields if f.type != _F.TYPE_MESSAGE or depth < 2]
    if not fields:
        return st.builds(cls)
    good = {f.name: weighted((9, _sane(f, known, depth)), (1, st.none())) for f in fields}
    bad = {f.name: _bad(f, known, depth) for f in fields}

    def with_bad(names: frozenset[str]) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries({n: bad[n] if n in names else good[n] for n in good})

    def build(values: dict[str, Any]) -> Message:
        return cls(**{k: v for k, v in values.items() if v is not None})

    count = weighted((5, st.just(0)), (8, st.just(1)), (4, st.just(2)),
                     (3, st.just(len(fields))))
    # A permutation's head, not st.sets: that favours the first names, and so the fields
    # declared first.
    chosen = st.tuples(count, st.permutations(sorted(good))).map(
        lambda t: frozenset(t[1][: t[0]]))
    return chosen.flatmap(with_bad).map(build)


# -- calls and the invariant --------------------------------------------------------------
def _drain(call: Any) -> None:
    """Read a few messages of a stream (at most :data:`STREAM_WAIT` seconds), then cancel."""
    timer = threading.Timer(STREAM_WAIT, call.cancel)
    timer.start()
    try:
        for n, _ in enumerate(call, 1):
            if n >= STREAM_MESSAGES:
                break
    finally:
        timer.cancel()
        call.cancel()


def outcome(channel: grpc.Channel, method: MethodDescriptor, request: bytes, token: str
            ) -> grpc.StatusCode:
    """Send ``request`` (serialized) to ``method`` with ``token`` as its credential; the
    status it ended with. A refusal by our code must carry exactly one ErrorInfo
    (``error_info`` asserts it)."""
    assert not method.client_streaming, "the API has no client-streaming methods"
    kind = channel.unary_stream if method.server_streaming else channel.unary_unary
    call = kind(path(method), request_serializer=None, response_deserializer=None)
    metadata = bearer(token)
    try:
        if method.server_streaming:
            _drain(call(request, timeout=10, metadata=metadata))
        else:
            call(request, timeout=10, metadata=metadata)
    except grpc.RpcError as err:
        code: grpc.StatusCode = err.code()  # type: ignore[attr-defined]
        assert code not in FORBIDDEN, (
            f"{path(method)} {request!r} -> {code.name}: {err.details()}"  # type: ignore[attr-defined]
        )
        if code not in TRANSPORT:
            error_info(err)
        return code
    return grpc.StatusCode.OK


def still_serving(world: World) -> None:
    """The server answers, the views are still followed, memory has not run away."""
    health = health_pb2_grpc.HealthStub(world.channel).Check(
        health_pb2.HealthCheckRequest(), timeout=5)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert pbg.RefereeServiceStub(world.channel).ListGames(pb.ListGamesRequest(), timeout=5).games
    assert world.worker.error is None, world.worker.error
    grown = rss() - world.rss_start
    assert grown < RSS_GROWTH_LIMIT, f"RSS grew by {grown >> 20} MiB during the fuzzing"


@pytest.fixture(scope="module")
def fuzzing(world: World) -> World:
    world.rss_start = rss()
    return world


def _method_ids() -> list[str]:
    return [f"{m.containing_service.name}.{m.name}" for m in METHODS]


@pytest.mark.parametrize("method", METHODS, ids=_method_ids())
def test_generated_requests_never_get_internal_or_unknown(
    fuzzing: World, method: MethodDescriptor
) -> None:
    requests = requests_for(method, fuzzing)

    @settings(FUZZ, max_examples=STREAM_EXAMPLES if method.server_streaming else EXAMPLES)
    @given(request=requests)
    def fuzz(request: Call) -> None:
        outcome(fuzzing.channel, method, request[0].SerializeToString(), request[1])

    fuzz()
    still_serving(fuzzing)


@pytest.mark.parametrize("method", METHODS, ids=_method_ids())
def test_random_bytes_never_get_internal_or_unknown(fuzzing: World, method: MethodDescriptor
                                                    ) -> None:
    valid = requests_for(method, fuzzing).map(
        lambda m: m[0].SerializeToString())
    raw = st.one_of(
        st.binary(max_size=128),
        st.tuples(valid, st.binary(min_size=1, max_size=16)).map(lambda t: t[0] + t[1]),
        valid.map(lambda b: b[: len(b) // 2]),  # truncated mid-field
    )

    @settings(FUZZ, max_examples=RAW_EXAMPLES)
    @given(request=raw, token=credentials(fuzzing.known))
    def fuzz(request: bytes, token: str) -> None:
        outcome(fuzzing.channel, method, request, token)

    fuzz()
    still_serving(fuzzing)


def test_interleaved_calls_never_get_internal_or_unknown(fuzzing: World) -> None:
    """Calls to every method in random order, so that reads meet what fuzzed writes left
    behind (a ruling, a match, a tournament change), as the per-method runs cannot."""
    requests = {m: requests_for(m, fuzzing) for m in METHODS}
    call = st.sampled_from(METHODS).flatmap(lambda m: st.tuples(st.just(m), requests[m]))

    @settings(FUZZ, max_examples=INTERLEAVED_EXAMPLES)
    @given(calls=st.lists(call, min_size=1, max_size=12))
    def fuzz(calls: list[tuple[MethodDescriptor, Call]]) -> None:
        for method, (request, token) in calls:
            outcome(fuzzing.channel, method, request.SerializeToString(), token)

    fuzz()
    still_serving(fuzzing)


def test_the_fuzzer_reaches_past_validation(fuzzing: World) -> None:
    """Not vacuous: generated requests are answered OK as well as refused."""
    seen: set[grpc.StatusCode] = set()
    get_view = pb.DESCRIPTOR.services_by_name["RefereeService"].methods_by_name["GetView"]

    @settings(FUZZ, max_examples=60)
    @given(request=requests_for(get_view, fuzzing))
    def fuzz(request: Call) -> None:
        seen.add(outcome(fuzzing.channel, get_view, request[0].SerializeToString(),
                         request[1]))

    fuzz()
    assert {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT} <= seen, seen


def test_every_service_on_the_port_is_fuzzed(world: World) -> None:
    """The services the server lists (reflection), health and reflection aside, are the ones
    whose methods :data:`METHODS` holds."""
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    stub = reflection_pb2_grpc.ServerReflectionStub(world.channel)
    answer = next(iter(stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)))
    served = {s.name for s in answer.list_services_response.service} - {
        "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}
    assert served == {m.containing_service.full_name for m in METHODS}
    assert set(world.seeds) == {m.name for m in METHODS}, "every method has a seed"
