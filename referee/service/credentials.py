"""Start-up check of the credentials ``referee serve`` is given: a template's placeholder
(``REPLACE-WITH-A-LONG-RANDOM-TOKEN`` from ``k8s/base/secrets.yaml``) or a short guessable
value is refused before the server listens, so a deployment never runs with a credential
anyone can read in the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from referee.config import SettingsError

#: The credentials a server holds (unset: that role does not exist on this server).
CREDENTIALS = ("REFEREE_AUDITOR_TOKEN", "REFEREE_ORGANISER_TOKEN")
MIN_LENGTH = 12
_PLACEHOLDER = re.compile(r"REPLACE|CHANGE[-_ ]?ME|PLACEHOLDER|^<.*>$", re.IGNORECASE)


def check_credentials(env: Mapping[str, str] | None = None) -> None:
    """:raises SettingsError: (one line naming the variable) when a credential of ``env``
    (default ``os.environ``) is a placeholder or shorter than :data:`MIN_LENGTH`."""
    env = os.environ if env is None else env
    for name in CREDENTIALS:
        value = env.get(name, "")
        if not value:
            continue
        hint = 'set it to a long random value, e.g. "$(openssl rand -hex 32)", or unset it'
        if _PLACEHOLDER.search(value.strip()):
            raise SettingsError(f"{name} is still the template's placeholder: {hint}")
        if len(value) < MIN_LENGTH:
            raise SettingsError(f"{name} is {len(value)} characters long, fewer than "
                                f"{MIN_LENGTH}: {hint}")
