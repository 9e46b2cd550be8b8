"""A small local state file for seat tokens, written only when the user asks (``--save``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def default_path() -> Path:
    """``$REFEREE_CLIENT_STATE``, else ``~/.config/referee-client/state.json``."""
    env = os.environ.get("REFEREE_CLIENT_STATE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "referee-client" / "state.json"


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {"matches": {}}
    return data if isinstance(data, dict) and isinstance(data.get("matches"), dict) else {
        "matches": {}}


def save_tokens(path: Path, match_id: str, *, seats: dict[int, str] | None = None,
                spectator: str = "", game: str = "", address: str = "") -> None:
    """Merge tokens for ``match_id`` into the file (created with mode 0600)."""
    data = load(path)
    entry = data["matches"].setdefault(match_id, {"seats": {}})
    entry.setdefault("seats", {}).update({str(k): v for k, v in (seats or {}).items()})
    if spectator:
        entry["spectator"] = spectator
    if game:
        entry["game"] = game
    if address:
        entry["address"] = address
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    tmp.replace(path)


def token_for(path: Path, match_id: str, seat: int | None) -> str | None:
    """The saved token of ``seat`` (``None``: the spectator's) for ``match_id``."""
    entry = load(path)["matches"].get(match_id) or {}
    if seat is None:
        return entry.get("spectator") or None
    return (entry.get("seats") or {}).get(str(seat))


def seat_tokens(path: Path, match_id: str) -> dict[int, str]:
    entry = load(path)["matches"].get(match_id) or {}
    return {int(k): v for k, v in (entry.get("seats") or {}).items()}
