"""Whether ``referee serve`` traces, from the standard OpenTelemetry environment.

Tracing is off unless asked for; then every call gets a span (:mod:`referee.service.otel`,
the ``[otel]`` extra). Asked for means, as the OpenTelemetry SDKs read it:

- ``OTEL_TRACES_EXPORTER``: ``otlp`` or ``console`` turns tracing on, ``none`` off; unset, it
  is ``otlp`` when ``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
  is set, else ``none``;
- ``OTEL_SDK_DISABLED=true`` turns it off whatever else is set;
- ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` / ``OTEL_EXPORTER_OTLP_PROTOCOL``: ``grpc`` (the only
  one the extra installs).

The exporter reads the other ``OTEL_*`` variables itself (endpoint, headers, timeout,
``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_BSP_*``). With tracing off this
module imports nothing of OpenTelemetry.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from typing import Any

from referee.config import SettingsError, read_bool, read_choice

EXPORTERS = ("otlp", "console", "none")
PROTOCOLS = ("grpc",)
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def exporter_from_env(env: Mapping[str, str]) -> str | None:
    """The span exporter the environment asks for (``otlp``, ``console``), None for no tracing.

    :raises referee.config.SettingsError: for a bad ``OTEL_*`` value, or tracing asked for
        without the ``[otel]`` extra."""
    if read_bool(env, "OTEL_SDK_DISABLED", False):
        return None
    endpoint = next((name for name in _ENDPOINTS if (env.get(name) or "").strip()), None)
    exporter = read_choice(env, "OTEL_TRACES_EXPORTER", EXPORTERS,
                           "otlp" if endpoint else "none")
    if exporter == "none":
        return None
    if exporter == "otlp":
        for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
            read_choice(env, name, PROTOCOLS, "grpc")
    needed = "opentelemetry.exporter.otlp.proto.grpc" if exporter == "otlp" else \
        "opentelemetry.sdk"
    if not _installed(needed):
        asked = "OTEL_TRACES_EXPORTER" if (env.get("OTEL_TRACES_EXPORTER") or "").strip() \
            else endpoint
        raise SettingsError(f"{asked}={env.get(str(asked), '').strip()}: tracing needs the "
                            "otel extra (pip install 'trick-referee[otel]')")
    return exporter


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def start(env: Mapping[str, str]) -> tuple[list[Any], Callable[[], None]]:
    """The interceptors that trace every call (none with tracing off), and what flushes and
    stops the exporter when the server stops.

    :raises referee.config.SettingsError: as :func:`exporter_from_env`."""
    exporter = exporter_from_env(env)
    if exporter is None:
        return [], lambda: None
    from referee.service import otel

    provider = otel.tracer_provider(exporter)
    return [otel.TracingInterceptor(provider)], provider.shutdown
