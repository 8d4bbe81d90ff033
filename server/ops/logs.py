"""Logging to stderr as text or JSON lines, and one helper per event the server logs.

Structured fields travel as `extra={"fields": {...}}`. Tracebacks are the standard ones:
file, line and code, never local variables.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import IO, Any

EVENTS = "lovelet.events"
"""The logger every helper below writes to."""
RESERVED = ("time", "level", "logger", "message", "exception")
NOISY_LOGGERS = ("asyncssh",)
"""Libraries that log every connection at INFO; kept at WARNING unless the level is DEBUG."""

log = logging.getLogger(EVENTS)


# --------------------------------------------------------------------------- formatters


def _fields(record: logging.LogRecord) -> Mapping[str, Any]:
    fields = getattr(record, "fields", None)
    return fields if isinstance(fields, Mapping) else {}


def _timestamp(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the fields, any exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in _fields(record).items():
            entry[f"field_{name}" if name in RESERVED else str(name)] = _finite(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str, separators=(",", ":"))


def _finite(value: object) -> object:
    """Infinity and NaN are not JSON: write them as strings."""
    return str(value) if isinstance(value, float) and not math.isfinite(value) else value


class TextFormatter(logging.Formatter):
    """`TIME LEVEL logger: message key=value ...`; values quoted when needed, one line each."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), record.levelname, f"{record.name}:", _one_line(record)]
        parts += [f"{name}={_quote(value)}" for name, value in _fields(record).items()]
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _one_line(record: logging.LogRecord) -> str:
    message = record.getMessage()
    return json.dumps(message, ensure_ascii=False) if _needs_escape(message) else message


def _needs_escape(text: str) -> bool:
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


def _quote(value: object) -> str:
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    text = value if isinstance(value, str) else str(value)
    plain = text and not _needs_escape(text) and not any(c in text for c in ' "=\\')
    return text if plain else json.dumps(text, ensure_ascii=False)


# --------------------------------------------------------------------------- set-up


def setup_logging(format: str = "text", level: str = "info", stream: IO[str] | None = None) -> None:
    """Send every log record to stderr (or `stream`) as text or JSON lines, from `level` up.

    Replaces the root logger's handlers, so calling it again reconfigures logging.
    """
    if format not in ("text", "json"):
        raise ValueError(f"log format must be text or json, not {format!r}")
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
        old.close()  # a StreamHandler leaves its stream open
    root.addHandler(handler)
    root.setLevel(numeric)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(numeric if numeric <= logging.DEBUG else logging.WARNING)
    logging.captureWarnings(True)


# --------------------------------------------------------------------------- events


def event(message: str, level: int = logging.INFO, **fields: object) -> None:
    """Log one event with structured fields (None values are left out)."""
    kept = {name: value for name, value in fields.items() if value is not None}
    log.log(level, message, extra={"fields": kept})


def log_started(
    listen: str, fingerprint: str, metrics_listen: str | None, version: str, event_loop: str
) -> None:
    """The server is listening (`event_loop`: the package of the loop it runs on)."""
    event(
        "server started",
        listen=listen,
        host_key=fingerprint,
        metrics=metrics_listen,
        version=version,
        event_loop=event_loop,
    )


def log_stopping(sessions: int, grace: float) -> None:
    """SIGTERM or SIGINT: running rounds get `grace` seconds."""
    event("server stopping", sessions=sessions, grace_seconds=grace)


def log_stopped() -> None:
    """Every session is closed."""
    event("server stopped")


def log_connect(address: str) -> None:
    """A TCP connection arrived (before authentication)."""
    event("connect", address=address)


def log_refused(address: str, reason: str) -> None:
    """A connection or session was refused; `reason` is a short label like `per_address`."""
    event("refused", address=address, reason=reason)


def log_login(
    address: str,
    fingerprint: str | None,
    name: str,
    client_version: str | None,
    term: str | None,
    size: tuple[int, int] | None,
) -> None:
    """A session started: key fingerprint (None = guest), nickname and terminal."""
    event(
        "login",
        address=address,
        identity=fingerprint or "guest",
        name=name,
        client=client_version,
        term=term,
        size=f"{size[0]}x{size[1]}" if size else None,
    )


def log_disconnect(
    address: str,
    name: str | None,
    duration: float,
    reason: str | None = None,
    cost: tuple[float, int] | None = None,
) -> None:
    """A session or connection ended after `duration` seconds; `cost` is the server time
    the session caused (seconds) and how often its input was held back to its share."""
    event(
        "disconnect",
        address=address,
        name=name,
        duration_seconds=round(duration, 3),
        reason=reason,
        **({"cpu_seconds": round(cost[0], 3), "held": cost[1]} if cost else {}),
    )


def log_tables_resumed(tables: int, failed: int, seconds: float) -> None:
    """At start: `tables` tables rebuilt from the store, `failed` that could not be."""
    event("tables resumed", tables=tables, failed=failed, seconds=round(seconds, 3))


def log_table_closed(code: str) -> None:
    """A table was closed."""
    event("table closed", table=code)


def log_game_start(code: str, edition: str, humans: int, bots: int) -> None:
    """A game started at a table."""
    event("game start", table=code, edition=edition, humans=humans, bots=bots)


def log_game_end(
    code: str, edition: str, duration: float, rounds: int, winner: str | None = None
) -> None:
    """A game ended (`winner` None when abandoned)."""
    event(
        "game end",
        table=code,
        edition=edition,
        duration_seconds=round(duration, 3),
        rounds=rounds,
        winner=winner,
        abandoned=winner is None,
    )


def log_admin_action(admin: str, action: str, target: str | None = None) -> None:
    """An administrator did something (kick, ban, close a table...)."""
    event("admin action", logging.WARNING, admin=admin, action=action, target=target)


def log_error(message: str, error: BaseException | None = None, **context: object) -> None:
    """An error with context; the traceback (never locals) is included when `error` is given."""
    kept = {name: value for name, value in context.items() if value is not None}
    if error is not None:
        kept["error"] = f"{type(error).__name__}: {error}"
    exc_info = (type(error), error, error.__traceback__) if error is not None else None
    log.error(message, exc_info=exc_info, extra={"fields": kept})


class Stopwatch:
    """Seconds since creation, for disconnect and game durations."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the stopwatch was created."""
        return time.monotonic() - self.start
