"""``k8s/``, the Dockerfile and the code agree: schemas, ports, probes, env names, commands.

Built-in kinds are validated by ``kubernetes-validate`` (schemas bundled in the package, no
network) in strict mode (unknown fields are errors). CloudNativePG's ``Cluster`` and
``ScheduledBackup`` are validated against ``schemas/cnpg.json``, a hand-written subset of the
CRDs from their documented fields. The overlay is rendered by ``tests/deploy/kustomize.py``, and
compared with ``kubectl kustomize`` when a kubectl is on PATH.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import eventsourcing.persistence
import eventsourcing.postgres
import jsonschema
import kubernetes_validate
import pytest
import yaml

import referee.cli
import referee.config
from referee.service import keepalive, logs, metrics
from referee.service.server import LIVENESS_NAME, SERVICE_NAME
from referee_projections.views import PROJECTIONS
from tests.deploy.kustomize import build, load_docs

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
KUBERNETES = "1.30.0"  # oldest supported: native gRPC probes (GA 1.27), preStop sleep (1.30)
CNPG = json.loads((Path(__file__).parent / "schemas" / "cnpg.json").read_text())
Doc = dict[str, Any]


class _Parsed(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def cli_parser() -> argparse.ArgumentParser:
    """The real ``referee`` parser, caught as ``referee.cli.main`` is about to use it."""
    original = argparse.ArgumentParser.parse_args

    def catch(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        raise _Parsed(self)

    argparse.ArgumentParser.parse_args = catch  # type: ignore[method-assign]
    try:
        referee.cli.main(["--help"])
    except _Parsed as caught:
        return caught.parser
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    raise AssertionError("referee.cli.main did not build a parser")


PARSER = cli_parser()


def subcommands() -> dict[str, argparse.ArgumentParser]:
    for action in PARSER._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def known_env_names() -> set[str]:
    """Every variable the server reads: referee's own (config and CLI), eventsourcing's
    application and PostgreSQL settings (POSTGRES_* pass through referee.config)."""
    names = set()
    for module in (referee.config, referee.cli, keepalive, logs):
        source = Path(module.__file__ or "").read_text()
        names |= set(re.findall(r'"((?:REFEREE|POSTGRES|PERSISTENCE|AGGREGATE|SQLITE)_[A-Z_]+)"',
                                source))
    names.add(metrics.PORT_ENV)
    for cls in (eventsourcing.postgres.PostgresFactory,
                eventsourcing.persistence.InfrastructureFactory):
        values = (getattr(cls, k) for k in dir(cls) if k.isupper())
        names |= {v for v in values if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z_]+", v)}
    return names


def base_docs() -> list[Doc]:
    return build(K8S / "base")


def overlay_docs() -> list[Doc]:
    return build(K8S / "overlays" / "example")


def by_kind(docs: list[Doc], kind: str) -> dict[str, Doc]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def pod_spec(d: Doc) -> Doc:
    spec: Doc = d["spec"]["template"]["spec"]
    return spec


def serve_args(args: list[str]) -> argparse.Namespace:
    ns = PARSER.parse_args(args)
    assert ns.command == "serve"
    return ns


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def every_doc() -> Iterator[tuple[str, Doc]]:
    for path in sorted(K8S.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for d in load_docs(path):
            yield str(path.relative_to(ROOT)), d


# -- schemas ----------------------------------------------------------------------------------

def validate(doc: Doc) -> None:
    if doc["apiVersion"].startswith("postgresql.cnpg.io/"):
        jsonschema.validate(doc, CNPG[doc["kind"]])
    else:
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


@pytest.mark.parametrize("docs", [base_docs, overlay_docs], ids=["base", "overlay"])
def test_every_rendered_manifest_is_valid(docs: Any) -> None:
    rendered = docs()
    assert len(rendered) >= 15
    for d in rendered:
        validate(d)


def test_the_validators_reject_broken_manifests() -> None:
    deployment = by_kind(base_docs(), "Deployment")["referee"]
    broken = json.loads(json.dumps(deployment))
    pod_spec(broken)["containers"][0]["readinessProbe"]["grpc"]["prot"] = 50051
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(broken)
    cluster = json.loads(json.dumps(by_kind(base_docs(), "Cluster")["referee-db"]))
    cluster["spec"]["instance"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validate(cluster)


def test_patches_target_only_documents_the_schemas_accept() -> None:
    for name, d in every_doc():
        if d["kind"] in ("Cluster", "ScheduledBackup") and "overlays" in name:
            continue  # partial patches
        if "overlays" in name and d["kind"] != "Namespace":
            continue
        validate(d)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl to cross-check")
def test_the_kustomize_subset_renders_what_kubectl_kustomize_renders() -> None:
    out = subprocess.run(["kubectl", "kustomize", str(K8S / "overlays" / "example")],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    theirs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(out) if d}
    ours = {(d["kind"], d["metadata"]["name"]): d for d in overlay_docs()}
    assert ours == theirs


# -- the referee Deployment matches `referee serve` -------------------------------------------

def test_referee_pods_run_what_referee_serve_accepts() -> None:
    docs = overlay_docs()
    config = by_kind(docs, "ConfigMap")["referee-config"]["data"]
    for name in ("referee", "referee-exports"):
        deployment = by_kind(docs, "Deployment")[name]
        spec = pod_spec(deployment)
        (container,) = spec["containers"]
        args = serve_args(container["args"])
        assert args.address.startswith("0.0.0.0:"), "listen on every interface in a pod"
        grpc_port = port_of(args.address)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["grpc"] == grpc_port
        assert ports.get("http") == (args.http or None)  # --http N: its port is declared
        assert ports["metrics"] == int(config[metrics.PORT_ENV])
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert int(annotations["prometheus.io/port"]) == ports["metrics"]
        assert annotations["prometheus.io/scrape"] == "true"
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == grpc_port
        assert container["readinessProbe"]["grpc"]["service"] == SERVICE_NAME
        assert container["livenessProbe"]["grpc"]["service"] == LIVENESS_NAME
        pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        assert spec["terminationGracePeriodSeconds"] > args.grace + pre_stop
        assert spec["securityContext"]["runAsNonRoot"] is True
        res = container["resources"]
        assert res["requests"]["cpu"] and res["limits"]["memory"]


def test_services_and_autoscaler_point_at_real_pods_and_ports() -> None:
    docs = overlay_docs()
    deployments = by_kind(docs, "Deployment")
    for service in by_kind(docs, "Service").values():
        selector = service["spec"]["selector"]
        pods = [d for d in deployments.values()
                if selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()]
        assert pods, f"{service['metadata']['name']} selects no pods"
        for port in service["spec"]["ports"]:
            for d in pods:
                names = {p["name"] for c in pod_spec(d)["containers"] for p in c["ports"]}
                assert port["targetPort"] in names
    assert by_kind(docs, "Service")["referee-headless"]["spec"]["clusterIP"] == "None"
    hpa = by_kind(docs, "HorizontalPodAutoscaler")["referee"]
    assert hpa["spec"]["scaleTargetRef"]["name"] in deployments
    assert hpa["spec"]["minReplicas"] >= 2
    for d in deployments.values():
        assert d["spec"]["selector"]["matchLabels"].items() <= (
            d["spec"]["template"]["metadata"]["labels"].items())


def test_environment_names_are_ones_the_code_reads_and_references_resolve() -> None:
    docs = overlay_docs()
    known = known_env_names()
    configmaps = by_kind(docs, "ConfigMap")
    secrets = {name: {**s.get("stringData", {}), **s.get("data", {})}
               for name, s in by_kind(docs, "Secret").items()}
    for cm in configmaps.values():
        assert set(cm["data"]) <= known, set(cm["data"]) - known
    for name, values in secrets.items():
        if name.startswith("referee-") and name != "referee-db-app" and "backup" not in name:
            assert set(values) <= known, set(values) - known
    for d in by_kind(docs, "Deployment").values():
        for container in pod_spec(d)["containers"]:
            for source in container.get("envFrom", []):
                assert source["configMapRef"]["name"] in configmaps
            for var in container.get("env", []):
                assert var["name"] in known, var["name"]
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["key"] in secrets[ref["name"]], ref
    cluster = by_kind(docs, "Cluster")["referee-db"]
    assert cluster["spec"]["bootstrap"]["initdb"]["secret"]["name"] in secrets
    for store in ("accessKeyId", "secretAccessKey"):
        ref = cluster["spec"]["backup"]["barmanObjectStore"]["s3Credentials"][store]
        assert ref["key"] in secrets[ref["name"]]


def test_database_services_and_network_policy() -> None:
    docs = overlay_docs()
    cluster = by_kind(docs, "Cluster")["referee-db"]["metadata"]["name"]
    config = by_kind(docs, "ConfigMap")["referee-config"]["data"]
    assert config["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert config["POSTGRES_HOST"] == f"{cluster}-rw", "commands go to the primary"
    exports = pod_spec(by_kind(docs, "Deployment")["referee-exports"])["containers"][0]
    env = {v["name"]: v.get("value") for v in exports["env"]}
    assert env["POSTGRES_HOST"] == f"{cluster}-ro", "exports read from replicas"
    assert env["CREATE_TABLE"] == "n", "a hot standby refuses DDL"
    policy = by_kind(docs, "NetworkPolicy")["referee-db-access"]
    assert policy["spec"]["podSelector"]["matchLabels"] == {"cnpg.io/cluster": cluster}
    allowed = [peer["podSelector"]["matchLabels"]
               for rule in policy["spec"]["ingress"] for peer in rule["from"]
               if "podSelector" in peer]
    for d in by_kind(docs, "Deployment").values():
        labels = d["spec"]["template"]["metadata"]["labels"]
        reaches_db = any(s.get("configMapRef", {}).get("name") == "referee-config"
                         for c in pod_spec(d)["containers"] for s in c.get("envFrom", []))
        admitted = any(sel.items() <= labels.items() for sel in allowed)
        assert reaches_db == admitted, d["metadata"]["name"]


def selects(selector: Doc, labels: dict[str, str]) -> bool:
    """Whether a label selector (matchLabels and matchExpressions) selects ``labels``."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for e in selector.get("matchExpressions", []):
        present, value = e["key"] in labels, labels.get(e["key"])
        ok = {"In": present and value in e.get("values", []),
              "NotIn": not present or value not in e.get("values", []),
              "Exists": present, "DoesNotExist": not present}[e["operator"]]
        if not ok:
            return False
    return True


def test_referee_pods_network_policy_lets_in_grpc_and_metrics_and_out_only_dns_and_db() -> None:
    docs = overlay_docs()
    policy = by_kind(docs, "NetworkPolicy")["referee-pods"]["spec"]
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    deployments = by_kind(docs, "Deployment")
    grpc_port = port_of(serve_args(pod_spec(deployments["referee"])["containers"][0][
        "args"]).address)
    config = by_kind(docs, "ConfigMap")["referee-config"]["data"]
    metrics_port = int(config[metrics.PORT_ENV])
    for d in deployments.values():  # every pod of ours is covered, no other pod is
        labels = d["spec"]["template"]["metadata"]["labels"]
        assert selects(policy["podSelector"], labels), d["metadata"]["name"]
        for c in pod_spec(d)["containers"]:  # each port a container listens on is let in
            for port in c["ports"]:
                assert any(port["containerPort"] in {p["port"] for p in rule["ports"]}
                           for rule in policy["ingress"]), (d["metadata"]["name"], port)
    assert not selects(policy["podSelector"], {"cnpg.io/cluster": "referee-db"})
    ingress = {p["port"]: rule.get("from") for rule in policy["ingress"] for p in rule["ports"]}
    http_port = serve_args(pod_spec(deployments["referee"])["containers"][0]["args"]).http
    assert ingress == {grpc_port: None, http_port: None,
                       metrics_port: [{"namespaceSelector": {}}]}, ingress
    cluster = by_kind(docs, "Cluster")["referee-db"]["metadata"]["name"]
    egress = {(p["protocol"], p["port"]): rule["to"] for rule in policy["egress"]
              for p in rule["ports"]}
    assert set(egress) == {("UDP", 53), ("TCP", 53), ("TCP", 5432)}
    assert egress[("TCP", 5432)] == [{"podSelector": {"matchLabels": {
        "cnpg.io/cluster": cluster}}}]
    assert egress[("UDP", 53)][0]["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}
    db = by_kind(docs, "NetworkPolicy")["referee-db-access"]["spec"]  # and the db lets us in
    admitted = [peer["podSelector"] for rule in db["ingress"] for peer in rule["from"]
                if "podSelector" in peer and 5432 in {p["port"] for p in rule.get("ports", [])}]
    for d in deployments.values():
        labels = d["spec"]["template"]["metadata"]["labels"]
        assert any(selects(sel, labels) for sel in admitted), d["metadata"]["name"]


def test_only_the_projection_workers_may_send_webhooks_out() -> None:
    """They deliver the webhooks (REFEREE_PROJECTIONS=separate): HTTP(S) out for them, for no
    other pod of ours."""
    docs = overlay_docs()
    policy = by_kind(docs, "NetworkPolicy")["referee-webhooks"]["spec"]
    assert policy["policyTypes"] == ["Egress"]
    assert {p["port"] for rule in policy["egress"] for p in rule["ports"]} == {80, 443}
    for d in by_kind(docs, "Deployment").values():
        labels = d["spec"]["template"]["metadata"]["labels"]
        sends = any(c["args"][0] == "projections" for c in pod_spec(d)["containers"])
        assert selects(policy["podSelector"], labels) == sends, d["metadata"]["name"]


def test_projection_workers_one_replica_per_view() -> None:
    workers = [d for d in by_kind(overlay_docs(), "Deployment").values()
               if d["metadata"]["labels"].get("app.kubernetes.io/component") == "projection"]
    assert len(workers) >= 2
    views = set()
    commands = subcommands()
    for d in workers:
        assert d["spec"]["replicas"] == 1 and d["spec"]["strategy"]["type"] == "Recreate"
        (container,) = pod_spec(d)["containers"]
        args = container["args"]
        assert args[:2] == ["projections", "--views"]
        assert "projections" in commands, "the worker command exists"
        ns = PARSER.parse_args(args)  # the real parser: names are checked, no abbreviations
        assert ns.command == "projections" and not ns.rebuild and not ns.once
        (view,) = ns.views  # exactly one view per worker
        views.add(view)
        assert d["metadata"]["labels"]["referee.io/view"] == view
    assert len(views) == len(workers)
    assert views == set(PROJECTIONS), "every view has its worker"
    for wrong in (["projections", "--view", "scoreboard"],
                  ["projections", "--views", "replay"]):
        with pytest.raises(SystemExit):
            PARSER.parse_args(wrong)


# -- the Dockerfile ---------------------------------------------------------------------------

def dockerfile() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


def exec_form(rest: str) -> list[str]:
    value = json.loads(rest)
    assert isinstance(value, list), f"exec form expected: {rest}"
    return [str(v) for v in value]


def test_dockerfile_runs_referee_serve_as_a_non_root_user() -> None:
    instructions = dockerfile()
    ops = dict(instructions)  # last of each kind wins, as in Docker
    assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", ops["FROM"]), ops["FROM"]
    assert ops["USER"] not in ("root", "0") and not ops["USER"].startswith("0:")
    entry = exec_form(ops["ENTRYPOINT"])
    assert entry == ["referee"]
    assert 'referee = "referee.cli:main"' in (ROOT / "pyproject.toml").read_text()
    args = serve_args(exec_form(ops["CMD"]))
    assert args.address.startswith("0.0.0.0:")
    grpc_port = port_of(args.address)
    exposed = {int(p.split("/")[0]) for p in ops["EXPOSE"].split()}
    assert exposed == {grpc_port, args.http, metrics.DEFAULT_PORT}
    env_names = set()
    for op, rest in instructions:
        if op == "ENV":
            env_names |= {token.split("=", 1)[0] for token in shlex.split(rest)}
    pip = {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PIP_NO_CACHE_DIR",
           "PIP_DISABLE_PIP_VERSION_CHECK"}
    assert env_names - pip <= known_env_names()
    cmd = exec_form(ops["HEALTHCHECK"].split("CMD", 1)[1])
    assert cmd[0] == "referee"
    ns = PARSER.parse_args(cmd[1:])
    assert ns.command == "health" and port_of(ns.address) == grpc_port
    # The deployment's args are the image's default command.
    referee = pod_spec(by_kind(overlay_docs(), "Deployment")["referee"])["containers"][0]
    assert referee["args"] == exec_form(ops["CMD"])
    user = ops["USER"]
    assert pod_spec(by_kind(overlay_docs(), "Deployment")["referee"])[
        "securityContext"]["runAsUser"] == int(user)


def test_dockerignore_keeps_what_the_install_needs() -> None:
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    # COPY --from=STAGE copies between build stages, not from the context
    context = [rest for op, rest in dockerfile() if op == "COPY" and not rest.startswith("--")]
    copied = {w for rest in context for w in rest.split()[:-1]}
    assert ".git" in ignored and "tests" in ignored
    assert not copied & ignored, copied & ignored
    for name in copied:
        assert (ROOT / name).exists(), name
