"""Auditor-only requests on a server with no auditor say so, and how to give it one."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.application import Referee
from referee.config import settings_from_env
from referee.domain.errors import PermissionDeniedError, UnauthenticatedError
from referee.tournaments import create_tournament

HINT = "this server has no auditor: start it with REFEREE_AUDITOR_TOKEN set"


@pytest.mark.parametrize("auditor", ["", "secret"])
def test_auditor_only_refusals_hint_at_a_missing_auditor(tmp_path: Path, auditor: str) -> None:
    app = Referee(settings_from_env({"REFEREE_DATA_DIR": str(tmp_path),
                                     "REFEREE_AUDITOR_TOKEN": auditor}))
    try:
        refusals = [
            (PermissionDeniedError, lambda: create_tournament(app, "guess", "cup", "euchre")),
            (UnauthenticatedError, lambda: create_tournament(app, "", "cup", "euchre")),
            (PermissionDeniedError, lambda: app.list_rejections("guess")),
        ]
        for error, call in refusals:
            with pytest.raises(error) as caught:
                call()
            assert (HINT in str(caught.value)) == (not auditor), caught.value
    finally:
        app.close()
