"""A client generated fresh from ``proto/`` plays a whole match with no JSON to parse.

The stubs are compiled from the .proto files with grpcio-tools into a temporary directory and
the client runs in a process of its own that cannot import this repository (``python -S``:
no site-packages hooks, so no editable install; only grpcio and protobuf on its path): it
sees only what a third party's generated code sees, and talks to a real server."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import google.protobuf
import grpc
import pytest
from grpc_tools import protoc

from referee.application import Referee
from referee.service.server import build_server
from tests.service.conftest import AUDITOR

PROTO = Path(__file__).resolve().parents[2] / "proto"

CLIENT = textwrap.dedent('''
    import sys
    import grpc
    from referee.api.v1 import referee_pb2 as pb, referee_pb2_grpc as pbg

    address, auditor, game = sys.argv[1:4]
    bearer = lambda token: (("authorization", "Bearer " + token),)
    with grpc.insecure_channel(address) as channel:
        stub = pbg.RefereeServiceStub(channel)
        info = {g.name: g for g in stub.ListGames(pb.ListGamesRequest()).games}[game]
        target = next(p for p in info.parameters if p.name == info.match_length)
        shortest = target.minimum if target.HasField("minimum") else 1
        created = stub.CreateMatch(pb.CreateMatchRequest(
            game=game, rules={info.match_length: pb.RuleValue(int_value=shortest)}))
        tokens = [t.token for t in created.seat_tokens]
        tricks = ended = 0
        for n in range(20000):
            public = stub.GetView(pb.GetViewRequest(match_id=created.match_id),
                                  metadata=bearer(auditor))
            if public.match_over:
                break
            seat = public.to_act
            mine = stub.GetView(pb.GetViewRequest(match_id=created.match_id),
                                metadata=bearer(tokens[seat]))
            table = mine.table
            assert mine.seat == seat and len(table.hand) == table.hand_sizes[seat]
            assert not table.hands and len(table.tricks_taken) == info.sides
            outcome = stub.SubmitAction(pb.SubmitActionRequest(
                match_id=created.match_id, action=mine.legal_actions[n % len(mine.legal_actions)],
                command_id="c%d" % n), metadata=bearer(tokens[seat])).outcome
            for fact in outcome.facts:
                if fact.kind == pb.FACT_KIND_TRICK_TAKEN:
                    assert fact.trick.HasField("winner") and fact.trick.plays
                    tricks += 1
                elif fact.kind == pb.FACT_KIND_HAND_ENDED:
                    assert len(fact.points) == info.sides
                    ended += 1
        final = stub.GetView(pb.GetViewRequest(match_id=created.match_id),
                             metadata=bearer(auditor))
        assert final.match_over and tricks and ended
        print(game, "over after", final.version, "versions;", ended, "hands;", tricks, "tricks")
''')


@pytest.fixture(scope="module")
def stubs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("generated")
    files = [str(p.relative_to(PROTO)) for p in sorted(PROTO.rglob("*.proto"))]
    include = Path(protoc.__file__).parent / "_proto"
    assert protoc.main(["grpc_tools.protoc", f"-I{PROTO}", f"-I{include}",
                        f"--python_out={out}", f"--grpc_python_out={out}", *files]) == 0
    for package in ("referee", "referee/api", "referee/api/v1"):
        (out / package / "__init__.py").touch()
    (out / "client.py").write_text(CLIENT)
    return out


@pytest.fixture(scope="module")
def address(app: Referee) -> Iterator[str]:
    server, port = build_server(app, "127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(1.0)


@pytest.mark.parametrize("game", ["euchre", "belot", "ulti"])
def test_a_fresh_client_plays_a_whole_match(stubs_dir: Path, address: str, game: str) -> None:
    site = {str(Path(grpc.__file__).resolve().parents[1]),  # grpc/__init__.py
            str(Path(str(google.protobuf.__file__)).resolve().parents[2])}  # google/protobuf/
    env = {"PATH": os.environ.get("PATH", ""),
           "PYTHONPATH": os.pathsep.join([str(stubs_dir), *sorted(site)])}
    probe = subprocess.run([sys.executable, "-S", "-c", "import referee, sys; "
                            "print(referee.__file__)"], env=env, cwd=stubs_dir,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip().startswith(str(stubs_dir)), probe.stdout  # not the repo's
    run = subprocess.run([sys.executable, "-S", "client.py", address, AUDITOR, game],
                         env=env, cwd=stubs_dir, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"{game} over after" in run.stdout
