"""Length-prefixed frames for a byte stream: a 4-byte big-endian length, then the frame.

Only needed when a session runs in another process; no I/O here either.
"""

from __future__ import annotations

import struct

from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.limits import LIMITS, Direction

_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size


NOT_MSGPACK = (
    "this looks like {what}, not msgpack: each message is one msgpack map behind a 4-byte"
    " big-endian length (docs/bot-api.md#framing); JSON lines go to the `lovelet-json`"
    " subsystem"
)
_JSON_START = frozenset(b'{["')
_TEXT = frozenset(range(0x20, 0x7F)) | frozenset(b"\t\r\n")


def text_hint(data: bytes | bytearray | memoryview) -> str | None:
    """What to say when `data` (the start of a frame or of its length) looks like JSON or
    text sent by mistake; None when it does not."""
    head = bytes(data[:16])
    if not head or not _TEXT.issuperset(head):
        return None
    return NOT_MSGPACK.format(what="JSON" if head[0] in _JSON_START else "text")


def frame(payload: bytes, *, direction: Direction) -> bytes:
    """`payload` with its length prefix; `LocalProtocolError` if over the direction's limit."""
    limit = LIMITS[direction].max_frame
    if len(payload) > limit:
        raise LocalProtocolError(
            ErrorCode.TOO_LARGE, f"frame of {len(payload)} bytes, at most {limit}"
        )
    return _HEADER.pack(len(payload)) + payload


class StreamReader:
    """Splits a byte stream sent towards `direction` into messages, each at most the
    direction's `max_frame` bytes. Once a `feed` raised `RemoteProtocolError`, the reader is
    broken and every later `feed` raises the same error."""

    __slots__ = ("_buffer", "_error", "max_frame")

    def __init__(self, *, direction: Direction) -> None:
        self.max_frame = LIMITS[direction].max_frame
        self._buffer = bytearray()
        self._error: RemoteProtocolError | None = None

    @property
    def pending(self) -> int:
        """Bytes received that do not make a whole message yet (0 at a boundary)."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Add received bytes; return every message they complete, in order."""
        if self._error is not None:
            raise RemoteProtocolError(self._error.code, self._error.reason)
        try:
            return self._split(data)
        except RemoteProtocolError as error:
            self._error = error
            raise

    def _split(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Take in `data`; the messages it completes (the rest stays in `_buffer`)."""
        raise NotImplementedError


class FrameReader(StreamReader):
    """Splits a byte stream sent towards `direction` into length-prefixed frames.

    A length over the limit raises `RemoteProtocolError(too_large)` as soon as the prefix
    arrives (`malformed` if the bytes look like JSON or text sent by mistake).
    """

    __slots__ = ()

    def _split(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        self._buffer += data
        frames: list[bytes] = []
        start = 0
        while len(self._buffer) - start >= HEADER_SIZE:
            (size,) = _HEADER.unpack_from(self._buffer, start)
            if size > self.max_frame:
                hint = text_hint(self._buffer[start:])
                reason = hint or f"frame of {size} bytes, at most {self.max_frame}"
                raise RemoteProtocolError(
                    ErrorCode.MALFORMED if hint else ErrorCode.TOO_LARGE, reason
                )
            end = start + HEADER_SIZE + size
            if end > len(self._buffer):
                break
            frames.append(bytes(self._buffer[start + HEADER_SIZE : end]))
            start = end
        del self._buffer[:start]
        return frames
