"""Newline-delimited JSON: the same messages as msgpack frames, one JSON object a line.

The `lovelet-json` subsystem and `lovelet arena --json` carry these. A message's map is the
same in both: msgpack maps are JSON objects (their keys are strings in both), ints are JSON
integers, and str, bool, null and lists are themselves; a JSON number with a fraction or an
exponent is refused as a float is in msgpack. No I/O here either.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgpack

from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.framing import StreamReader

NOT_JSON = (
    "this looks like msgpack frames, not JSON: each message is one JSON object on a line of its"
    " own; msgpack frames go to the `lovelet` subsystem (docs/bot-api.md#json-lines-lovelet-json)"
)


_BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""Bytes that JSON text never holds (control characters other than whitespace)."""


class _Float(Exception):
    """A JSON number that is not an integer (or NaN, Infinity)."""


def _reject(_text: str) -> Any:
    raise _Float


class LineReader(StreamReader):
    """Splits a byte stream sent towards `direction` into lines (without their `\\n`).

    A line longer than the direction's `max_frame` raises `RemoteProtocolError(too_large)` as
    soon as that many bytes wait without a newline, and bytes that JSON never holds (msgpack
    frames sent by mistake) raise `malformed` at once. Blank lines are skipped.
    """

    __slots__ = ()

    def _split(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        if _BINARY.search(data):
            raise RemoteProtocolError(ErrorCode.MALFORMED, NOT_JSON)
        self._buffer += data
        *lines, rest = self._buffer.split(b"\n")
        if len(rest) > self.max_frame or any(len(line) > self.max_frame for line in lines):
            reason = f"a line over {self.max_frame} bytes (one JSON object a line)"
            raise RemoteProtocolError(ErrorCode.TOO_LARGE, reason)
        self._buffer = rest
        return [bytes(line) for line in lines if line.strip()]


def parse_line(line: bytes) -> Any:
    """The JSON value of one line; `RemoteProtocolError(malformed)` saying what is wrong."""
    try:
        return json.loads(line, parse_float=_reject, parse_constant=_reject)
    except _Float:
        reason = "a number that is not an integer (no fractions, exponents or NaN)"
        raise RemoteProtocolError(ErrorCode.MALFORMED, reason) from None
    except UnicodeDecodeError:
        raise RemoteProtocolError(ErrorCode.MALFORMED, NOT_JSON) from None
    except RecursionError:
        raise RemoteProtocolError(ErrorCode.TOO_DEEP, "nesting too deep") from None
    except ValueError as err:
        raise RemoteProtocolError(ErrorCode.MALFORMED, f"invalid JSON: {err}") from None


def line_to_payload(line: bytes) -> bytes:
    """The msgpack frame carrying the same map as a JSON line (checked later, by `decode`)."""
    value = parse_line(line)
    try:
        return msgpack.packb(value, use_bin_type=True)
    except (ValueError, OverflowError) as err:  # nesting or an int msgpack cannot hold
        raise RemoteProtocolError(ErrorCode.MALFORMED, f"cannot carry this value: {err}") from None


def json_line(wire: dict[str, Any]) -> bytes:
    """One map as a line of compact JSON, its `\\n` included."""
    try:
        text = json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise LocalProtocolError(ErrorCode.BAD_FIELD, f"not JSON: {err}") from None
    return text.encode() + b"\n"


def payload_to_line(payload: bytes) -> bytes:
    """The JSON line carrying the same map as a msgpack frame."""
    return json_line(msgpack.unpackb(payload, raw=False, strict_map_key=False))
