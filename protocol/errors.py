"""Protocol errors: a stable `code` the server may send back, and a human `reason`.

Split by who is at fault, as in h11: `RemoteProtocolError` when the peer's bytes are invalid,
`LocalProtocolError` when this side tried to send an invalid message.
"""

from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable error codes; never renamed, only added to."""

    MALFORMED = "malformed"  # not one valid msgpack map (bad bytes, trailing data, bin, ext)
    UNKNOWN_TYPE = "unknown_type"  # "type" names no message of this direction
    MISSING_FIELD = "missing_field"  # a required field is absent
    UNEXPECTED_FIELD = "unexpected_field"  # a field the message does not have
    BAD_FIELD = "bad_field"  # wrong type, out of range, or not an allowed value
    TOO_LARGE = "too_large"  # frame over the size limit, or too many items in a list/map
    TOO_DEEP = "too_deep"  # nesting deeper than the limit
    TOO_LONG = "too_long"  # a string longer than its limit


class ProtocolError(Exception):
    """Invalid protocol data. `code` is an `ErrorCode`, `reason` says what and where."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.code}: {self.reason}"


class RemoteProtocolError(ProtocolError):
    """The peer sent bytes that are not a valid message."""


class LocalProtocolError(ProtocolError):
    """This side tried to encode a message that is not valid."""
