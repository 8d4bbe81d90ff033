"""One TCP connection of the web front-end, driven from asyncio's callbacks through
websockets' Sans-I/O protocol, as asyncssh drives an SSH channel: no task per connection, and
the transport's own flow control (`pause_writing`, `pause_reading`) is the session's.

A connection answers HTTP requests (the page, its assets, a login link), one after another
(HTTP/1.1 keep-alive: a fresh Sans-I/O protocol for each, up to `KEEP_ALIVE_REQUESTS`, each
within `handshake_timeout`), or, upgraded, carries one session's terminal stream: binary
messages out, keys in as binary messages and the page's size as a text message
(`{"cols": C, "rows": R}`). A request's answer may wait on the store of web logins (Redis,
under `--workers`): the connection reads nothing more until it is given.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.ssh.limits import SSHLimits
from server.ssh.web_login import WebLogin

log = logging.getLogger(__name__)
socket_log = logging.getLogger("server.web.socket")
"""websockets' own lines: one per HTTP answer and connection at INFO, its warnings above."""
socket_log.setLevel(logging.WARNING)  # the server logs each session and refusal itself

MAX_MESSAGE = 64 * 1024
"""Bytes of one message from a browser (a paste arrives as one): more closes the socket."""
RESIZE_MAX = 64
"""Characters of a resize message looked at: `{"cols": C, "rows": R}` and a little more."""
CLOSE_CODES = {0: 1000, 1: 1008}
"""WebSocket close codes for a session's exit status: normal, or policy (kicked, refused)."""
CLIENT = "websocket"
"""The client version a browser session logs (SSH logs the client's version string)."""
KEEP_ALIVE_REQUESTS = 100
"""HTTP requests one connection answers; the last answer closes it."""


class Terminal(Protocol):
    """The session an upgraded connection carries (`server.web.session.WebTerminal`)."""

    def received(self, data: bytes) -> None: ...

    def resized(self, cols: int, rows: int) -> None: ...

    def pause_output(self) -> None: ...

    def resume_output(self) -> None: ...

    def lost(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Upgrade:
    """The answer that opens the WebSocket: signed in as `keyed`, the web login its cookie
    names (None: a guest)."""

    keyed: WebLogin | None


class Front(Protocol):
    """What a connection asks of the server (`server.web.server.WebFront`)."""

    limits: SSHLimits

    def arrived(self, connection: WebConnection) -> bool:
        """A new connection, its request still to come: False to drop it (too many)."""
        ...

    def settled(self, connection: WebConnection) -> None:
        """Its request came (or it closed before): it counts as waiting no more."""
        ...

    def waiting_again(self, connection: WebConnection) -> bool:
        """Answered, it is to wait for another request: False to close it instead."""
        ...

    async def answer(self, request: Request, address: str) -> Response | Upgrade:
        """The HTTP answer to `request`, or the WebSocket to open."""
        ...

    def open(
        self, connection: WebConnection, request: Request, address: str, keyed: WebLogin | None
    ) -> Terminal | str:
        """The session to run on the upgraded `connection`, or why not (a refusal)."""
        ...

    def closed(self, connection: WebConnection) -> None:
        """The connection is gone."""
        ...


class WebConnection(asyncio.Protocol):
    """One connection: an HTTP answer, or a WebSocket carrying one session (its `Stream`)."""

    def __init__(self, front: Front) -> None:
        self._front = front
        self._limits = front.limits
        self._ws = ServerProtocol(max_size=MAX_MESSAGE, logger=socket_log)
        self._transport: asyncio.Transport | None = None
        self._terminal: Terminal | None = None
        self._timer: asyncio.TimerHandle | None = None  # handshake, keepalive or close
        self._answering: asyncio.Task[None] | None = None  # held: the loop's reference is weak
        self._answered = 0  # HTTP requests
        self._ponged = 0.0
        self.peer = "?"
        """The peer's IP address (a proxy's, when one forwards for the client)."""

    # asyncio's callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # uvloop's is no subclass
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        if not self._front.arrived(self):
            transport.abort()
            return
        limits = self._limits
        transport.set_write_buffer_limits(limits.output_high_water, limits.output_low_water)
        self._arm(limits.handshake_timeout, self.abort)

    def data_received(self, data: bytes) -> None:
        self._ws.receive_data(data)
        for event in self._ws.events_received():
            if isinstance(event, Request):
                self._requested(event)
            elif isinstance(event, Frame):
                self._frame(event)
        self._flush()

    def eof_received(self) -> bool | None:
        self._ws.receive_eof()
        self._flush()
        return None

    def pause_writing(self) -> None:
        if self._terminal is not None:
            self._terminal.pause_output()

    def resume_writing(self) -> None:
        if self._terminal is not None:
            self._terminal.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._front.settled(self)
        self._transport = None
        terminal, self._terminal = self._terminal, None
        if terminal is not None:
            terminal.lost()
        self._front.closed(self)

    # HTTP, then the WebSocket

    def _requested(self, request: Request) -> None:
        self._disarm()
        self._front.settled(self)
        self.pause_reading()  # until it is answered
        self._answering = asyncio.get_running_loop().create_task(self._answer(request))

    async def _answer(self, request: Request) -> None:
        """Answer `request`: an HTTP answer (the flush ends the stream), or the WebSocket
        opened with its session."""
        try:
            answer = await self._front.answer(request, self.peer)
        except Exception:
            log.exception("no answer to %s", request.path)
            self.abort()
            return
        if self._transport is None:
            return  # the client left meanwhile
        self.resume_reading()
        if isinstance(answer, Response):
            self._respond(request, answer)
            return
        response = self._ws.accept(request)
        self._ws.send_response(response)
        if response.status_code == 101:
            self._opened(request, answer.keyed)
        self._flush()

    def _respond(self, request: Request, response: Response) -> None:
        """Send an HTTP answer, then wait for the next request on a fresh protocol, within
        `handshake_timeout` as a new connection does; or close (the last request allowed,
        the client's wish, no room left, or a protocol already failed by what followed)."""
        assert self._transport is not None
        self._answered += 1
        if (
            self._answered < KEEP_ALIVE_REQUESTS
            and self._ws.state is State.CONNECTING
            and "close" not in request.headers.get("Connection", "").lower()
            and self._front.waiting_again(self)
        ):
            response.headers["Connection"] = "keep-alive"
            self._transport.write(response.serialize())
            self._ws = ServerProtocol(max_size=MAX_MESSAGE, logger=socket_log)
            self._arm(self._limits.handshake_timeout, self.abort)
            return
        response.headers["Connection"] = "close"
        self._ws.send_response(response)
        self._flush()

    def _opened(self, request: Request, keyed: WebLogin | None) -> None:
        """The WebSocket is open: ping it, and run its session (or say why not)."""
        self._ponged = asyncio.get_running_loop().time()
        self._arm(self._limits.keepalive_interval, self._keepalive)
        opened = self._front.open(self, request, self.peer, keyed)
        if isinstance(opened, str):
            self._refuse(opened)
        else:
            self._terminal = opened

    def _refuse(self, reason: str) -> None:
        """Say why in one line of the terminal, and close."""
        self._ws.send_binary(reason.rstrip("\r\n").encode() + b"\r\n")
        self.exit(1)

    def _frame(self, frame: Frame) -> None:
        terminal = self._terminal
        if frame.opcode is Opcode.PONG:
            self._ponged = asyncio.get_running_loop().time()
        elif terminal is None or frame.opcode in (Opcode.CLOSE, Opcode.PING):
            return  # the protocol answers those itself
        elif not frame.fin or frame.opcode is Opcode.CONT:
            self._ws.fail(1003, "one frame a message")  # the page never splits its messages
        elif frame.opcode is Opcode.BINARY:
            terminal.received(bytes(frame.data))
        elif frame.opcode is Opcode.TEXT:
            size = parse_resize(bytes(frame.data).decode("utf-8", "replace"))
            if size is not None:
                terminal.resized(*size)

    def _keepalive(self) -> None:
        """Ping every `keepalive_interval`; drop a client silent for `keepalive_count_max`
        of them."""
        limits = self._limits
        now = asyncio.get_running_loop().time()
        if now - self._ponged > limits.keepalive_interval * limits.keepalive_count_max:
            self.abort()
            return
        if self._ws.state is State.OPEN:
            self._ws.send_ping(b"")
            self._flush()
        self._arm(limits.keepalive_interval, self._keepalive)

    def _flush(self) -> None:
        """Send what the protocol has to send; its end of the stream closes the transport's
        writing side, and the client then closes (or `close_timeout` aborts it)."""
        transport = self._transport
        if transport is None:
            return
        for data in self._ws.data_to_send():
            if data:
                transport.write(data)
                continue
            self._arm(self._limits.close_timeout, self.abort)  # the end: the client closes
            if transport.can_write_eof():
                transport.write_eof()
            else:
                transport.close()

    def _arm(self, delay: float, then: Any) -> None:
        self._disarm()
        self._timer = asyncio.get_running_loop().call_later(delay, then)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # The Stream a session runs over (server.ssh.session), and the gate's Connection

    def write(self, data: bytes) -> None:
        """Send output as one binary message."""
        if self._ws.state is State.OPEN:
            self._ws.send_binary(data)
            self._flush()

    def get_write_buffer_size(self) -> int:
        """Bytes written and not yet sent."""
        return self._transport.get_write_buffer_size() if self._transport is not None else 0

    def pause_reading(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.pause_reading()

    def resume_reading(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()

    def is_closing(self) -> bool:
        return self._ws.state is not State.OPEN or self._transport is None

    def exit(self, status: int) -> None:
        """Close the WebSocket with the code for `status`, after what was written."""
        if self._ws.state is State.OPEN:
            self._ws.send_close(CLOSE_CODES.get(status, 1011))
            self._flush()
            self._arm(self._limits.close_timeout, self.abort)

    def close(self) -> None:
        """Close politely (a WebSocket with 1001, going away)."""
        if self._ws.state is State.OPEN:
            self._ws.send_close(1001)
            self._flush()
            self._arm(self._limits.close_timeout, self.abort)
        elif self._transport is not None:
            self._transport.close()

    def abort(self) -> None:
        """Drop the connection at once."""
        if self._transport is not None:
            self._transport.abort()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """A browser has always spoken by the time it is counted (its handshake is done)."""
        return CLIENT if name == "client_version" else default


def parse_resize(message: str) -> tuple[int, int] | None:
    """(cols, rows) from a resize message; None for anything else."""
    if len(message) > RESIZE_MAX:
        return None
    try:
        value = json.loads(message)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    cols, rows = value.get("cols"), value.get("rows")
    if type(cols) is not int or type(rows) is not int:
        return None
    return cols, rows
