"""Messages to msgpack bytes and back, validating strictly. No I/O, no state.

`decode` raises only `RemoteProtocolError` (a `ProtocolError`), whatever the bytes; `encode`
raises only `LocalProtocolError`, and what it returns always decodes to an equal message.
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.events import Event
from protocol.framing import text_hint
from protocol.limits import LIMITS, Direction, Limits
from protocol.messages import Choice, Message
from protocol.registry import CHOICE, DIRECTION_OF, EVENT, MESSAGES
from protocol.schema import Invalid, Spec

_CONTAINERS = frozenset({dict, list, tuple})
_SCALARS = frozenset({str, int, bool, type(None)})
_CHOICE_DEPTH = 2  # the choice map and its lists
_EVENT_DEPTH = 3  # the event map, a map by seat, and its lists


class _ExtNotAllowed(Exception):
    pass


def _reject_ext(code: int, data: bytes) -> Any:
    raise _ExtNotAllowed


def to_wire(msg: Message) -> dict[str, Any]:
    """The plain map sent for `msg` (shape only; `encode` also validates it)."""
    direction = _direction_of(msg)
    try:
        return MESSAGES[direction].dump(msg)
    except Invalid as err:
        raise LocalProtocolError(err.code, f"{err.where()}: {err.reason}") from None


def from_wire(wire: Any, direction: Direction) -> Message:
    """The message in a decoded map, after the structure and field checks.

    Raises `RemoteProtocolError`; byte-level limits (string bytes, list and map lengths) are
    checked only by `decode`.
    """
    limits = LIMITS[direction]
    if type(wire) is not dict:
        raise RemoteProtocolError(ErrorCode.MALFORMED, f"expected a map, got {_kind(wire)}")
    check_structure(wire, limits.max_depth)
    try:
        return MESSAGES[direction].load(wire)
    except Invalid as err:
        raise RemoteProtocolError(err.code, f"{err.where()}: {err.reason}") from None


def choice_to_wire(choice: Choice) -> dict[str, Any]:
    """The wire map of an act choice, checked; `LocalProtocolError` if invalid."""
    try:
        wire = CHOICE.dump(choice)
        CHOICE.load(wire)
    except Invalid as err:
        raise LocalProtocolError(err.code, f"{err.where('choice')}: {err.reason}") from None
    return wire


def choice_from_wire(wire: Any) -> Choice:
    """The act choice in a plain map; `RemoteProtocolError` if invalid."""
    return _load_part(CHOICE, wire, _CHOICE_DEPTH, "choice")


def event_to_wire(event: Event) -> dict[str, Any]:
    """The wire map of a log event, as `TableState.events` carries it (shape only)."""
    try:
        return EVENT.dump(event)
    except Invalid as err:
        raise LocalProtocolError(err.code, f"{err.where('event')}: {err.reason}") from None


def event_from_wire(wire: Any) -> Event:
    """The log event in a plain map (the engine's `Event.for_seat` makes one), checked against
    the catalogue; `RemoteProtocolError` if invalid."""
    return _load_part(EVENT, wire, _EVENT_DEPTH, "event")


def _load_part(spec: Spec, wire: Any, depth: int, name: str) -> Any:
    """One part of a message (`name`: a choice, an event) loaded alone, checked as in one."""
    if type(wire) is not dict:
        raise RemoteProtocolError(ErrorCode.BAD_FIELD, f"{name}: expected a map, got {_kind(wire)}")
    check_structure(wire, depth, root_name=name)
    try:
        return spec.load(wire)
    except Invalid as err:
        raise RemoteProtocolError(err.code, f"{err.where(name)}: {err.reason}") from None


def encode(msg: Message, *, check: bool = True) -> bytes:
    """msgpack bytes for `msg`; `LocalProtocolError` if the peer would reject them.

    `check=False` skips decoding the result again (the peer still validates it): for the
    server's broadcast path, where the same shapes go out thousands of times.
    """
    direction = _direction_of(msg)
    wire = to_wire(msg)
    try:
        data = msgpack.packb(wire, use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as err:
        raise LocalProtocolError(ErrorCode.BAD_FIELD, f"cannot pack: {err}") from None
    if not check:
        return data
    try:
        decode(data, direction=direction)
    except ProtocolError as err:
        raise LocalProtocolError(err.code, err.reason) from None
    return data


def decode(data: bytes, *, direction: Direction) -> Message:
    """The message in one frame sent towards `direction`; `RemoteProtocolError` if invalid."""
    limits = LIMITS[direction]
    if not isinstance(data, bytes | bytearray | memoryview):
        raise RemoteProtocolError(ErrorCode.MALFORMED, "expected bytes")
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size > limits.max_frame:
        raise RemoteProtocolError(
            ErrorCode.TOO_LARGE, f"frame of {size} bytes, at most {limits.max_frame}"
        )
    return from_wire(_unpack(data, limits), direction)


def _unpack(data: bytes | bytearray | memoryview, limits: Limits) -> Any:
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_str_len=limits.max_str_bytes,
            max_bin_len=0,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
            ext_hook=_reject_ext,
        )
    except msgpack.StackError:
        raise RemoteProtocolError(ErrorCode.TOO_DEEP, "nesting too deep") from None
    except msgpack.ExtraData as extra:
        reason = text_hint(data) or (
            f"trailing bytes after the message: {len(extra.extra)} bytes follow a whole"
            " msgpack value (one frame holds one map)"
        )
        raise RemoteProtocolError(ErrorCode.MALFORMED, reason) from None
    except _ExtNotAllowed:
        raise RemoteProtocolError(ErrorCode.MALFORMED, "ext types are not allowed") from None
    except Exception as err:  # msgpack reports most failures as ValueError; never leak any
        raise RemoteProtocolError(*_unpack_failure(err, data, limits)) from None


def _unpack_failure(
    err: Exception, data: bytes | bytearray | memoryview, limits: Limits
) -> tuple[ErrorCode, str]:
    text = str(err)
    if "max_str_len" in text:
        return ErrorCode.TOO_LONG, f"a string is longer than {limits.max_str_bytes} bytes"
    if "max_array_len" in text:
        return ErrorCode.TOO_LARGE, f"a list has more than {limits.max_array_len} items"
    if "max_map_len" in text:
        return ErrorCode.TOO_LARGE, f"a map has more than {limits.max_map_len} keys"
    if "max_bin_len" in text or "max_ext_len" in text:
        return ErrorCode.MALFORMED, "binary and ext values are not allowed"
    if isinstance(err, UnicodeDecodeError):
        return ErrorCode.MALFORMED, "invalid UTF-8 in a string"
    hint = text_hint(data)
    if hint:
        return ErrorCode.MALFORMED, hint
    if "incomplete" in text:
        return ErrorCode.MALFORMED, "truncated msgpack: the frame ends inside a value"
    start = bytes(data[:8]).hex(" ")
    return ErrorCode.MALFORMED, (
        f"invalid msgpack ({type(err).__name__}{': ' + text[:80] if text else ''}): the frame"
        f" starts {start or '(empty)'}; a message is a msgpack map (0x80-0x8f, 0xde or 0xdf first)"
    )


def check_structure(root: Any, max_depth: int, *, root_name: str = "message") -> None:
    """Reject nesting deeper than `max_depth`, non-str keys and any value but
    str/int/bool/None/list/map (floats and bytes included). Iterative: no recursion limit."""
    if not _structure_ok(root, max_depth):
        _explain_structure(root, max_depth, root_name)


def _structure_ok(root: Any, max_depth: int) -> bool:
    """The fast check: no paths kept (the hot loop of decoding a table)."""
    scalars, containers = _SCALARS, _CONTAINERS
    if type(root) not in containers:
        return False
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if type(node) is dict:
            for key in node:
                if type(key) is not str:
                    return False
            node = node.values()
        for value in node:
            kind = type(value)
            if kind not in scalars:
                if kind not in containers:
                    return False
                stack.append((value, depth + 1))
    return True


def _explain_structure(root: Any, max_depth: int, root_name: str) -> None:
    """The slow check, run only when the fast one failed: raise naming the path."""
    stack: list[tuple[Any, int, str]] = [(root, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        where = path.lstrip(".") or root_name
        if type(node) not in _CONTAINERS:
            raise _bad_value(where, "value", node)
        if depth > max_depth:
            raise RemoteProtocolError(ErrorCode.TOO_DEEP, f"{where}: deeper than {max_depth}")
        if type(node) is dict:
            for key, value in node.items():
                if type(key) is not str:
                    raise _bad_value(where, "map key", key)
                if type(value) not in _SCALARS:
                    stack.append((value, depth + 1, f"{path}.{key[:40]}"))
        else:
            for index, value in enumerate(node):
                if type(value) not in _SCALARS:
                    stack.append((value, depth + 1, f"{path}[{index}]"))
    raise RemoteProtocolError(ErrorCode.MALFORMED, "invalid structure")


def _bad_value(where: str, what: str, value: Any) -> RemoteProtocolError:
    return RemoteProtocolError(
        ErrorCode.BAD_FIELD, f"{where}: {what} of type {_kind(value)} is not allowed"
    )


def _kind(value: Any) -> str:
    return type(value).__name__


def _direction_of(msg: Any) -> Direction:
    direction = DIRECTION_OF.get(type(msg))
    if direction is None:
        raise LocalProtocolError(ErrorCode.UNKNOWN_TYPE, f"{type(msg).__name__} is not a message")
    return direction
