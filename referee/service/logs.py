"""Logging of ``referee serve`` and ``referee projections``: text or JSON lines on stderr,
grpc's own loggers quiet unless asked, and an access log of one line per call.

- ``--log-format json`` (``REFEREE_LOG_FORMAT=json``): one JSON object per line with
  ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, plus ``exception`` for a
  traceback and the access fields below; ``text`` (default) is
  ``TIME LEVEL LOGGER MESSAGE``, with control characters in messages escaped.
- ``--log-grpc`` (``REFEREE_LOG_GRPC=y``): let grpc's Python loggers (``grpc.*``) through at
  the chosen level; otherwise they log warnings and errors only (at DEBUG they print several
  lines per call).
- ``--access-log`` (``REFEREE_ACCESS_LOG=y``), and always at ``--log-level DEBUG``: one INFO
  line per call on the ``referee.access`` logger, when it ends, with ``method``
  (``referee.api.v1.RefereeService/SubmitAction``), ``code`` (the gRPC status), ``reason``
  (the ErrorInfo reason of an error), ``match_id`` / ``tournament_id`` when the request names
  one, ``peer`` and ``duration_ms`` (a stream's whole life). Health checks and reflection are
  not logged.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import grpc

from referee.config import read_bool, read_choice
from referee.service.interception import CallInterceptor
from referee.service.metrics import call_code, error_reason

ACCESS = logging.getLogger("referee.access")
FORMATS = ("text", "json")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message", "asctime"}


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else ascii(ch)[1:-1] for ch in text)


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER MESSAGE``; control characters of a message (a player's name in
    it, say) are escaped, so a log line cannot be forged or a terminal reset."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = _printable(record.message)
        return super().formatMessage(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``time``, ``level``, ``logger``, ``message``, the record's
    extra fields (``extra={...}``) and ``exception`` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, default=str)


def configure(level: str = "INFO", fmt: str | None = None, *, grpc_logs: bool | None = None,
              access: bool | None = None, env: Mapping[str, str] | None = None) -> None:
    """Log to stderr at ``level`` in ``fmt`` (``text``/``json``; default
    ``REFEREE_LOG_FORMAT``), grpc's loggers quiet unless ``grpc_logs`` (``REFEREE_LOG_GRPC``),
    the access log on with ``access`` (``REFEREE_ACCESS_LOG``) or at DEBUG.

    :raises referee.config.SettingsError: for a bad ``REFEREE_LOG_*`` value."""
    env = os.environ if env is None else env
    if fmt is None:
        fmt = read_choice(env, "REFEREE_LOG_FORMAT", FORMATS, "text")
    if grpc_logs is None:
        grpc_logs = read_bool(env, "REFEREE_LOG_GRPC", False)
    if access is None:
        access = read_bool(env, "REFEREE_ACCESS_LOG", False)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("grpc").setLevel(logging.NOTSET if grpc_logs else logging.WARNING)
    on = access or root.level <= logging.DEBUG
    ACCESS.setLevel(logging.INFO if on else logging.WARNING)


def access_log_on() -> bool:
    """Whether calls are to be logged (``referee.access`` lets INFO through)."""
    return ACCESS.isEnabledFor(logging.INFO)


def log_call(method: str, request: Any, context: grpc.aio.ServicerContext,
             error: BaseException | None, started: float, peer: str) -> None:
    """The access-log line of a finished call (see the module docstring); ``peer`` was read
    when the call began (grpc's ``context.peer()`` on a call that a cancel has ended can
    crash the process)."""
    code = call_code(context, error)
    fields: dict[str, Any] = {"method": method, "code": code.name}
    reason = "" if code is grpc.StatusCode.OK else error_reason(context)
    if reason:
        fields["reason"] = reason
    for name in ("match_id", "tournament_id"):
        value = getattr(request, name, "")
        if value:
            fields[name] = _printable(str(value))[:64]
    fields["peer"] = peer
    fields["duration_ms"] = round((time.perf_counter() - started) * 1e3, 3)
    text = " ".join(f"{k}={v}" for k, v in fields.items() if k not in ("method", "code"))
    ACCESS.info("%s %s %s", method, code.name, text, extra=fields)


class AccessLogInterceptor(CallInterceptor):
    """One access-log line per call of the referee's services (see the module docstring)."""

    def prepare(self, method: str, kind: str) -> str:
        return method.lstrip("/")

    def begin(self, prepared: str, request: Any, context: grpc.aio.ServicerContext
              ) -> tuple[str, Any, float, str]:
        return prepared, request, time.perf_counter(), context.peer()

    def end(self, call: tuple[str, Any, float, str], context: grpc.aio.ServicerContext,
            error: BaseException | None) -> None:
        method, request, started, peer = call
        log_call(method, request, context, error, started, peer)
