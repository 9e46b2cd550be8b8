"""A match's table policies, chosen at its creation (``CreateMatch.policies``):

- ``undo``: ``off`` (the default, for tournament play) or ``consent``: a seat may ask to
  withdraw its last action before the next one is made; the other sides agree or refuse
  (docs/undo.md).
- ``unchecked_claims``: ``off`` (the default: every claim is checked by the referee) or
  ``consent``: a claim the referee cannot confirm may be put to the opponents, who accept
  or reject it (docs/claims.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from referee.domain.errors import InvalidPolicyError

#: Each policy and its values, the default first.
CHOICES: dict[str, tuple[str, ...]] = {"undo": ("off", "consent"),
                                       "unchecked_claims": ("off", "consent")}


@dataclasses.dataclass(frozen=True)
class TablePolicies:
    """The table policies of one match (see the module docstring)."""

    undo: str = "off"
    unchecked_claims: str = "off"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TablePolicies:
        """Validated policies (an empty value: the default).

        :raises InvalidPolicyError: an unknown policy or value, naming it and the choices."""
        values: dict[str, str] = {}
        for name, value in data.items():
            choices = CHOICES.get(name)
            if choices is None:
                raise InvalidPolicyError(
                    f"unknown table policy {name!r}: the policies are "
                    f"{', '.join(sorted(CHOICES))}", field=name)
            if value in ("", None):
                continue
            if value not in choices:
                raise InvalidPolicyError(
                    f"table policy {name} must be one of {', '.join(choices)}, not {value!r}",
                    field=name)
            values[name] = value
        return cls(**values)

    def to_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)

    @property
    def default(self) -> bool:
        return self == TablePolicies()
