"""The manifests run the views in their own Deployments, so the referee pods must not write
them too: the ConfigMap every referee pod reads sets ``REFEREE_PROJECTIONS=separate``."""

from __future__ import annotations

from pathlib import Path

import yaml

from referee.config import settings_from_env

BASE = Path(__file__).resolve().parents[2] / "k8s" / "base"


def test_referee_pods_leave_the_views_to_the_projection_deployments() -> None:
    config = yaml.safe_load((BASE / "configmap.yaml").read_text())
    workers = [d for d in yaml.safe_load_all((BASE / "projections.yaml").read_text()) if d]
    assert workers and all(d["spec"]["template"]["spec"]["containers"][0]["args"][0]
                           == "projections" for d in workers)
    data = config["data"]
    assert data["REFEREE_PROJECTIONS"] == "separate"
    for name in ("referee.yaml", "exports.yaml"):
        (deployment, *_) = [d for d in yaml.safe_load_all((BASE / name).read_text())
                            if d and d["kind"] == "Deployment"]
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        assert {"configMapRef": {"name": config["metadata"]["name"]}} in container["envFrom"]
        assert all(e["name"] != "REFEREE_PROJECTIONS" for e in container.get("env", []))
        assert "--projections" not in container["args"]
    assert settings_from_env({**data, "POSTGRES_USER": "u"}).projections == "separate"
