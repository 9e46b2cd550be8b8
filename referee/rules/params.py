"""Rule parameters: every house rule is a named, typed parameter with a documented default.

A game declares its parameters as a frozen dataclass deriving from :class:`RuleSet`, each field
made with :func:`param`, which records the rule id it comes from and a one-line description:

    @dataclasses.dataclass(frozen=True)
    class EuchreRules(RuleSet):
        stick_the_dealer: bool = param(True, "EU-8", "the dealer may not pass in round 2")

``EuchreRules.from_dict({"stick_the_dealer": False})`` validates names and types; unknown names
and ill-typed values raise :class:`RuleParameterError`, never pass silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from referee.rules.errors import RuleParameterError

ParamValue = bool | int | str


@dataclasses.dataclass(frozen=True)
class ParamSpec:
    """What a rule parameter is: its name, type, default, allowed values and source."""

    name: str
    type: type
    default: ParamValue
    rule: str
    doc: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready description (for ``referee games`` and ``ListGames``)."""
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "rule": self.rule,
            "doc": self.doc,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


def param(
    default: ParamValue,
    rule: str,
    doc: str,
    *,
    choices: tuple[str, ...] = (),
    minimum: int | None = None,
    maximum: int | None = None,
) -> Any:
    """A dataclass field for a rule parameter (see the module docstring)."""
    meta = {"rule": rule, "doc": doc, "choices": choices, "minimum": minimum, "maximum": maximum}
    return dataclasses.field(default=default, metadata=meta)


_TYPES: dict[str, type] = {"bool": bool, "int": int, "str": str}


@dataclasses.dataclass(frozen=True)
class RuleSet:
    """Base class of every game's rule parameters."""

    specs: ClassVar[tuple[ParamSpec, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Specs are filled in lazily by ``param_specs`` because the dataclass decorator runs
        # after ``__init_subclass__``.
        cls.specs = ()

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        """The parameters of this rule set, in declaration order."""
        if not cls.specs:
            specs = []
            for f in dataclasses.fields(cls):
                ftype = _TYPES[f.type] if isinstance(f.type, str) else f.type
                # the metadata holds the rest of the spec (see :func:`param`)
                default: ParamValue = f.default  # type: ignore[assignment]
                specs.append(ParamSpec(f.name, ftype, default, **f.metadata))
            cls.specs = tuple(specs)
        return cls.specs

    @classmethod
    def from_dict(cls, given: Mapping[str, object] | None = None) -> Self:
        """Rules from a mapping of non-default values, validated.

        :raises RuleParameterError: for an unknown name or a bad value.
        """
        given = dict(given or {})
        specs = {s.name: s for s in cls.param_specs()}
        values: dict[str, ParamValue] = {}
        for name, value in given.items():
            spec = specs.get(name)
            if spec is None:
                known = ", ".join(sorted(specs)) or "none"
                raise RuleParameterError(
                    f"unknown rule parameter {name!r} (this game's parameters: {known})"
                )
            values[name] = _check(spec, value)
        return cls(**values)

    def to_dict(self, *, only_changed: bool = True) -> dict[str, ParamValue]:
        """The values as a dict; by default only those that differ from the defaults."""
        out: dict[str, ParamValue] = {}
        for spec in self.param_specs():
            value = getattr(self, spec.name)
            if not only_changed or value != spec.default:
                out[spec.name] = value
        return out


def _check(spec: ParamSpec, value: object) -> ParamValue:
    if spec.type is bool:
        if not isinstance(value, bool):
            raise RuleParameterError(
                f"rule parameter {spec.name!r} must be true or false, not {value!r}"
            )
        return value
    if spec.type is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleParameterError(
                f"rule parameter {spec.name!r} must be an integer, not {value!r}"
            )
        if spec.minimum is not None and value < spec.minimum:
            raise RuleParameterError(
                f"rule parameter {spec.name!r} must be at least {spec.minimum}, not {value}"
            )
        if spec.maximum is not None and value > spec.maximum:
            raise RuleParameterError(
                f"rule parameter {spec.name!r} must be at most {spec.maximum}, not {value}"
            )
        return value
    if not isinstance(value, str) or (spec.choices and value not in spec.choices):
        raise RuleParameterError(
            f"rule parameter {spec.name!r} must be one of {', '.join(spec.choices)}; got {value!r}"
        )
    return value


def choice(rule: str, doc: str, *choices: str) -> Any:
    """A rule parameter that is one of ``choices``, the first being the default."""
    return param(choices[0], rule, doc, choices=choices)
