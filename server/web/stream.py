"""A WebSocket as the byte stream a `StreamSession` runs its app over: the driver's writes
are queued and sent by one writer task, and reading pauses by not receiving (the socket's
own bounded queue then stops reading from TCP, so a fast client backs up on its side)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

RESIZE_MAX = 64
"""Characters of a resize message looked at: `{"cols": C, "rows": R}` and a little more."""
CLOSE_CODES = {0: 1000, 1: 1008}
"""WebSocket close codes for a session's exit status: normal, or policy (kicked, refused)."""


class WebStream:
    """One WebSocket as a session's `Stream`.

    Output: `write` queues; the writer task (`send_all`) sends what is queued as one binary
    message at a time, waiting for the socket to drain. Past `high_water` queued and unsent
    bytes, `on_pause` (the driver drops frames), and `on_resume` once below `low_water`
    (`follow`).
    Input: `receive_all` hands binary messages to `on_input` and resize messages to
    `on_resize`, waiting while reading is paused.
    """

    def __init__(
        self,
        socket: ServerConnection,
        *,
        high_water: int,
        low_water: int,
    ) -> None:
        self._socket = socket
        self._high, self._low = high_water, low_water
        self._on_pause: Callable[[], None] = _nothing
        self._on_resume: Callable[[], None] = _nothing
        self._queued = bytearray()
        self._wake = asyncio.Event()
        self._reading = asyncio.Event()
        self._reading.set()
        self._paused = False
        self._exit_code = 1000
        self._closing = False

    def follow(self, on_pause: Callable[[], None], on_resume: Callable[[], None]) -> None:
        """Call `on_pause` when the output backs up past the high-water mark, `on_resume`
        when it has drained to the low-water mark."""
        self._on_pause, self._on_resume = on_pause, on_resume

    # The Stream protocol (server.ssh.session)

    def write(self, data: bytes) -> None:
        """Queue output for the writer task."""
        if self._closing:
            return
        self._queued += data
        self._wake.set()
        if not self._paused and self.get_write_buffer_size() > self._high:
            self._paused = True
            self._on_pause()

    def get_write_buffer_size(self) -> int:
        """Bytes queued or in the socket's buffer, not yet sent."""
        transport = self._socket.transport
        buffered = transport.get_write_buffer_size() if transport is not None else 0
        return len(self._queued) + buffered

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_closing(self) -> bool:
        return self._closing

    def exit(self, status: int) -> None:
        """Send what is queued (the goodbye line among it), then close with the code for
        `status`."""
        self._exit_code = CLOSE_CODES.get(status, 1011)
        self.close()

    def close(self) -> None:
        """Close once what is queued has been sent."""
        self._closing = True
        self._wake.set()

    def abort(self) -> None:
        """Drop the connection at once (a kicked client that does not read)."""
        self._closing = True
        transport = self._socket.transport
        if transport is not None:
            transport.abort()

    # The two tasks

    async def send_all(self) -> None:
        """Send queued output until the stream closes, then close the socket."""
        socket = self._socket
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._queued:
                    data = bytes(self._queued)
                    self._queued.clear()
                    await socket.send(data)
                    self._drained()
                if self._closing:
                    break
        await socket.close(self._exit_code)

    def _drained(self) -> None:
        if self._paused and self.get_write_buffer_size() <= self._low:
            self._paused = False
            self._on_resume()

    async def receive_all(
        self, on_input: Callable[[bytes], None], on_resize: Callable[[int, int], None]
    ) -> None:
        """Hand the client's messages on until the socket closes."""
        socket = self._socket
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self._reading.wait()
                message = await socket.recv()
                if isinstance(message, bytes):
                    on_input(message)
                else:
                    size = parse_resize(message)
                    if size is not None:
                        on_resize(*size)


def _nothing() -> None:
    pass


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
