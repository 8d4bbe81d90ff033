"""Prometheus metrics in a private registry, served with `GET /metrics` and `GET /health`.

The HTTP side is a few lines on `asyncio.start_server`: no thread, no framework. Every
request is bounded (size and read time), answered once, and its connection closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Protocol

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

log = logging.getLogger(__name__)

REFUSAL_REASONS = (
    "banned",
    "shutting_down",
    "full",
    "per_address",
    "logins_per_address",
    "logins_per_network",
    "logins_in_progress",
    "silent",
    "early_drop",
    "handshake_timeout",
    "auth_tries",
    "requests",
    "forwarding",
    "sessions_per_connection",
    "sessions_per_identity",
    "idle",
    "chat_rate",
    "bot_guest",
    "bot_cut_off",
    "mixed_scripts",
    "cpu_cut_off",
    "origin",
    "other",
)
"""Label values of `lovelet_refusals_total`; anything else is counted as `other`."""
_GATE_MESSAGES = {
    "in progress from your address": "logins_per_address",
    "in progress from your network": "logins_per_network",
    "banned": "banned",
    "open with this key": "sessions_per_identity",
    "shutting down": "shutting_down",
    "full": "full",
    "from your address": "per_address",
    "logins in progress": "logins_in_progress",
}
GAME_STATUSES = frozenset({"playing", "round_over"})
"""`Table.status` values of a table whose game is in progress."""
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
MAX_REQUEST = 8 * 1024
READ_TIMEOUT = 5.0
MAX_CLIENTS = 32


class Exposition(Protocol):
    """What the endpoint serves at `GET /metrics`: `Metrics`, or the supervisor's
    `Gathered` (every process of `--workers`)."""

    async def exposition(self) -> bytes: ...


class LobbyGauges(Protocol):
    """What the gauges read from the lobby at each scrape."""

    def session_count(self) -> int: ...
    def table_count(self) -> int: ...
    def games_in_progress(self) -> int: ...


class Metrics:
    """Every metric of the server, registered in its own `CollectorRegistry`."""

    def __init__(self, version: str = "") -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.sessions = Gauge(
            "lovelet_sessions", "Open sessions (terminals and bot API programs).", registry=reg
        )
        self.tables = Gauge("lovelet_tables", "Open tables.", registry=reg)
        self.games_in_progress = Gauge(
            "lovelet_games_in_progress", "Tables with a game being played.", registry=reg
        )
        self.actions = Counter(
            "lovelet_actions", "Decisions applied to games (players and bots).", registry=reg
        )
        self.games_finished = Counter(
            "lovelet_games_finished", "Games played to the end.", ["edition"], registry=reg
        )
        self.refusals = Counter(
            "lovelet_refusals",
            "Connections or requests refused, by reason.",
            ["reason"],
            registry=reg,
        )
        self.logins = Counter(
            "lovelet_logins", "Successful logins, by kind (key or guest).", ["kind"], registry=reg
        )
        self.session_cpu = Counter(
            "lovelet_session_cpu_seconds",
            "Event-loop time charged to sessions (their screen updates and what their keys "
            "set off), counted as each session ends.",
            registry=reg,
        )
        self.sessions_held = Counter(
            "lovelet_sessions_held",
            "Times a session's keys waited for its share of the server's time.",
            registry=reg,
        )
        self.update_latency = Histogram(
            "lovelet_update_latency_seconds",
            "Time from a change at a table to its update being handed to every session.",
            buckets=LATENCY_BUCKETS,
            registry=reg,
        )
        build = Gauge(
            "lovelet_build_info", "Always 1; the version label.", ["version"], registry=reg
        )
        build.labels(version=version or "unknown").set(1)
        ProcessCollector(registry=reg)  # CPU, memory and file descriptors of this process
        GCCollector(registry=reg)  # collections and their objects, see the GC-pause notes
        for reason in REFUSAL_REASONS:
            self.refusals.labels(reason=reason)
        for kind in ("key", "guest"):
            self.logins.labels(kind=kind)

    def watch(
        self,
        sessions: Callable[[], float],
        tables: Callable[[], float],
        games_in_progress: Callable[[], float],
    ) -> None:
        """Read the three gauges from these functions at every scrape (no bookkeeping)."""
        self.sessions.set_function(sessions)
        self.tables.set_function(tables)
        self.games_in_progress.set_function(games_in_progress)

    def watch_lobby(self, lobby: LobbyGauges) -> None:
        """`watch` a lobby: its sessions, tables, and tables mid-game."""
        self.watch(lobby.session_count, lobby.table_count, lobby.games_in_progress)

    def refused(self, reason: str) -> None:
        """Count a refusal; `reason` is one of REFUSAL_REASONS (others count as `other`)."""
        self.refusals.labels(reason=reason if reason in REFUSAL_REASONS else "other").inc()

    def login(self, guest: bool) -> None:
        """Count a successful login."""
        self.logins.labels(kind="guest" if guest else "key").inc()

    def session_ended(self, cpu_seconds: float) -> None:
        """Count the server time an ended session was charged."""
        self.session_cpu.inc(cpu_seconds)

    def session_held(self) -> None:
        """Count one wait of a session's keys for its share of the server's time."""
        self.sessions_held.inc()

    def game_finished(self, edition: str) -> None:
        """Count a game played to the end."""
        self.games_finished.labels(edition=edition).inc()

    @contextlib.contextmanager
    def time_update(self) -> Iterator[None]:
        """Observe how long the body takes in `lovelet_update_latency_seconds`."""
        with self.update_latency.time():
            yield

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)

    async def exposition(self) -> bytes:
        """`render`, for the endpoint."""
        return self.render()


def refusal_reason(message: str) -> str:
    """The reason label for a refusal message of `ConnectionGate.admit` or `StorePolicy`."""
    lowered = message.lower()
    return next((label for text, label in _GATE_MESSAGES.items() if text in lowered), "other")


# --------------------------------------------------------------------------- HTTP


class MetricsServer:
    """The running HTTP endpoint: `close()` stops listening and drops any client."""

    def __init__(self, metrics: Exposition) -> None:
        self.metrics = metrics
        self.port = 0
        self._server: asyncio.Server | None = None
        self._clients: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    async def _start(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._handle, host, port, limit=MAX_REQUEST)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if len(self._clients) >= MAX_CLIENTS or task is None:
            writer.close()
            return
        self._clients[task] = writer
        try:
            await _serve_one(reader, writer, self.metrics)
        finally:
            del self._clients[task]

    def close(self) -> None:
        """Stop accepting and abort every connection still open."""
        if self._server is not None:
            self._server.close()
        for writer in self._clients.values():
            writer.transport.abort()

    async def wait_closed(self) -> None:
        """Wait until the listener and every client handler are gone."""
        if self._clients:
            await asyncio.wait(list(self._clients))
        if self._server is not None:
            await self._server.wait_closed()


async def start_metrics_server(host: str, port: int, metrics: Exposition) -> MetricsServer:
    """Serve `GET /metrics` and `GET /health` on host:port (port 0 = any free port).

    Stop it with `server.close(); await server.wait_closed()`; `server.port` is the bound port.
    """
    server = MetricsServer(metrics)
    await server._start(host, port)
    log.info("metrics on http://%s:%d/metrics", host, server.port)
    return server


async def _serve_one(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, metrics: Exposition
) -> None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
        status, content_type, body = await _respond(head, metrics)
    except (asyncio.LimitOverrunError, ValueError):
        status, content_type, body = 431, "text/plain", b"request too large\n"
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
        status = 0
    except Exception:  # a bug here must never take the server down
        log.exception("metrics request failed")
        status, content_type, body = 500, "text/plain", b"internal error\n"
    try:
        if status:
            writer.write(_response(status, content_type, body))
            await asyncio.wait_for(writer.drain(), READ_TIMEOUT)
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), READ_TIMEOUT)


async def _respond(head: bytes, metrics: Exposition) -> tuple[int, str, bytes]:
    """(status, content type, body) for one request head."""
    request_line = head.split(b"\r\n", 1)[0]
    parts = request_line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        return 400, "text/plain", b"bad request\n"
    method, target = parts[0], parts[1].split(b"?", 1)[0]
    if method != b"GET":
        return 405, "text/plain", b"method not allowed\n"
    if target == b"/metrics":
        return 200, CONTENT_TYPE_LATEST, await metrics.exposition()
    if target == b"/health":
        return 200, "text/plain; charset=utf-8", b"ok\n"
    return 404, "text/plain", b"not found\n"


REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
}


def _response(status: int, content_type: str, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {status} {REASONS[status]}\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n"
        "Cache-Control: no-store\r\n\r\n"
    )
    return head.encode("ascii") + body
