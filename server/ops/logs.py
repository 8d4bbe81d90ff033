"""Logging to stderr as text or JSON lines, and one helper per event the server logs.

Structured fields travel as `extra={"fields": {...}}`. Tracebacks are the standard ones:
file, line and code, never local variables. Given a `ProcessTag`, every line names the process
that wrote it (role, core or front-end id, pid): `lovelet serve --workers N` runs several.
What the server says to the person who started it (where it listens, its host key) goes to
stdout through `say`: plain lines in the text format, JSON records like every log line in the
JSON format.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any

EVENTS = "lovelet.events"
"""The logger every helper below writes to."""
SAID = "lovelet.said"
"""The logger of `say` (stdout); `lovelet.said.error` goes to stderr."""
RESERVED = ("time", "level", "logger", "message", "exception", "role", "pid")
NOISY_LOGGERS = ("asyncssh",)
"""Libraries that log every connection at INFO; kept at WARNING unless the level is DEBUG."""

log = logging.getLogger(EVENTS)


# --------------------------------------------------------------------------- formatters


@dataclass(frozen=True)
class ProcessTag:
    """The process every log line names: its role (`all`, `core`, `frontend`, or
    `supervisor` for `--workers`) and, for a core or a front-end, its id on the broker."""

    role: str
    id: str | None = None

    def fields(self, pid: int | None) -> dict[str, object]:
        """`role`, the id under the role's name (`core` or `frontend`) and `pid`."""
        named = {self.role: self.id} if self.id is not None else {}
        return {"role": self.role, **named, "pid": pid}

    def label(self, pid: int | None) -> str:
        """`[frontend 09ca86e3ee47 pid 4242]`, for text lines."""
        return f"[{' '.join(str(v) for v in (self.role, self.id) if v)} pid {pid}]"


class _Tagger(logging.Filter):
    """Puts the process's tag on every record a handler writes."""

    def __init__(self, tag: ProcessTag) -> None:
        super().__init__()
        self.tag = tag

    def filter(self, record: logging.LogRecord) -> bool:
        record.tag = self.tag
        return True


def _tag(record: logging.LogRecord) -> ProcessTag | None:
    tag = getattr(record, "tag", None)
    return tag if isinstance(tag, ProcessTag) else None


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
        tag = _tag(record)
        if tag is not None:
            entry.update(tag.fields(record.process))
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
        tag = _tag(record)
        parts = [_timestamp(record), record.levelname]
        parts += [tag.label(record.process)] if tag is not None else []
        parts += [f"{record.name}:", _one_line(record)]
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


class _MessageOnly(logging.Formatter):
    """The message alone: what `say` prints in the text format."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage()


def setup_logging(
    format: str = "text",
    level: str = "info",
    stream: IO[str] | None = None,
    tag: ProcessTag | None = None,
    said: IO[str] | None = None,
) -> None:
    """Send every log record to stderr (or `stream`) as text or JSON lines, from `level` up,
    each naming the process when `tag` is given; `say` writes to stdout (or `said`).

    Replaces the root logger's handlers, so calling it again reconfigures logging.
    """
    if format not in ("text", "json"):
        raise ValueError(f"log format must be text or json, not {format!r}")
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    errors = stream or sys.stderr
    handler = _handler(errors, JsonFormatter() if format == "json" else TextFormatter(), tag)
    _replace_handlers(logging.getLogger(), handler)
    root = logging.getLogger()
    root.setLevel(numeric)
    plain = JsonFormatter() if format == "json" else _MessageOnly()
    for name, out in ((SAID, said or sys.stdout), (f"{SAID}.error", errors)):
        said_logger = logging.getLogger(name)
        _replace_handlers(said_logger, _handler(out, plain, tag))
        said_logger.propagate = False
        said_logger.setLevel(logging.INFO)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(numeric if numeric <= logging.DEBUG else logging.WARNING)
    logging.captureWarnings(True)


def _handler(
    stream: IO[str], formatter: logging.Formatter, tag: ProcessTag | None
) -> logging.Handler:
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    if tag is not None:
        handler.addFilter(_Tagger(tag))
    return handler


def _replace_handlers(logger: logging.Logger, handler: logging.Handler) -> None:
    for old in logger.handlers[:]:
        logger.removeHandler(old)
        old.close()  # a StreamHandler leaves its stream open
    logger.addHandler(handler)


def say(text: str, error: bool = False, **fields: object) -> None:
    """Tell whoever started the server `text`: a plain line on stdout (stderr for an
    `error`), or a JSON record there in the JSON format. Printed as is before logging is set
    up (a server started by a test)."""
    logger = logging.getLogger(f"{SAID}.error" if error else SAID)
    if not logger.handlers:
        print(text, file=sys.stderr if error else sys.stdout, flush=True)
        return
    kept = {name: value for name, value in fields.items() if value is not None}
    logger.log(logging.ERROR if error else logging.INFO, text, extra={"fields": kept})


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
