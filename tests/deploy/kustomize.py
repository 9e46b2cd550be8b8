"""The small subset of kustomize that ``k8s/`` uses, for tests (no kustomize binary ships on
PyPI or in Debian): ``resources`` (files and directories), ``namespace``, ``labels`` (metadata
only, ``includeSelectors: false``), ``images`` and ``patches`` given as strategic-merge patch
files (maps merge, lists of named items merge by ``name``, other lists are replaced). Any other
field is an error, so the subset cannot silently drift from what the manifests use.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

Doc = dict[str, Any]
SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "labels", "images", "patches"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"}


def load_docs(path: Path) -> list[Doc]:
    with path.open() as f:
        return [d for d in yaml.safe_load_all(f) if d]


def build(directory: Path) -> list[Doc]:
    """The resources of the kustomization in ``directory``, transformed."""
    kust = load_docs(directory / "kustomization.yaml")[0]
    unknown = set(kust) - SUPPORTED
    if unknown:
        raise NotImplementedError(f"kustomize subset: unsupported fields {sorted(unknown)}")
    docs: list[Doc] = []
    for entry in kust.get("resources", []):
        path = (directory / entry).resolve()
        docs.extend(build(path) if path.is_dir() else load_docs(path))
    for patch_entry in kust.get("patches", []):
        if set(patch_entry) != {"path"}:
            raise NotImplementedError(f"kustomize subset: patch {patch_entry}")
        for patch in load_docs(directory / patch_entry["path"]):
            targets = [d for d in docs if _key(d) == _key(patch)]
            if len(targets) != 1:
                raise ValueError(f"patch target {_key(patch)} not found")
            merged = merge(targets[0], patch)
            docs[docs.index(targets[0])] = merged
    for group in kust.get("labels", []):
        if group.get("includeSelectors") or group.get("includeTemplates"):
            raise NotImplementedError("kustomize subset: labels on selectors/templates")
        for d in docs:
            d.setdefault("metadata", {}).setdefault("labels", {}).update(group["pairs"])
    if "namespace" in kust:
        for d in docs:
            if d["kind"] not in CLUSTER_SCOPED:
                d["metadata"]["namespace"] = kust["namespace"]
    for image in kust.get("images", []):
        for d in docs:
            for c in _containers(d):
                name, _, _tag = c["image"].partition(":")
                if name == image["name"]:
                    c["image"] = f"{image.get('newName', name)}:{image.get('newTag', _tag)}"
    return docs


def _key(d: Doc) -> tuple[str, str]:
    return d["kind"], d["metadata"]["name"]


def _containers(d: Doc) -> list[Doc]:
    spec = d.get("spec", {}).get("template", {}).get("spec", {})
    return [*spec.get("containers", []), *spec.get("initContainers", [])]


def merge(base: Any, patch: Any) -> Any:
    """Strategic merge (the subset): maps recursively, named lists by ``name``."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = copy.deepcopy(base)
        for k, v in patch.items():
            out[k] = merge(out[k], v) if k in out else copy.deepcopy(v)
        return out
    if (isinstance(base, list) and isinstance(patch, list)
            and all(isinstance(x, dict) and "name" in x for x in base + patch)):
        out_list = copy.deepcopy(base)
        for item in patch:
            found = [i for i, b in enumerate(out_list) if b["name"] == item["name"]]
            if found:
                out_list[found[0]] = merge(out_list[found[0]], item)
            else:
                out_list.append(copy.deepcopy(item))
        return out_list
    return copy.deepcopy(patch)
