"""Fuzzing the protocol: whatever the bytes, decoding raises nothing but ProtocolError.

Valid messages are generated from the registry's own field specs, so a new message is fuzzed
as soon as it is registered.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import (
    LIMITS,
    Direction,
    ErrorCode,
    FrameReader,
    LocalProtocolError,
    Message,
    ProtocolError,
    RemoteProtocolError,
    choice_from_wire,
    decode,
    encode,
    frame,
    from_wire,
    to_wire,
)
from protocol.registry import DIRECTION_OF, MESSAGES
from protocol.schema import (
    Bool,
    ByType,
    EventMap,
    Ident,
    Int,
    ListOf,
    MapOf,
    Null,
    Nullable,
    OneOf,
    Record,
    Spec,
    Tagged,
    Text,
)

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIRECTIONS = st.sampled_from(list(Direction))

# --- strategies ---------------------------------------------------------------------------------

INTS = st.integers(-(2**63), 2**64 - 1)  # what msgpack can carry
SCALARS = st.none() | st.booleans() | INTS | st.text(max_size=12)


def text(spec: Text) -> st.SearchStrategy[str]:
    chars = st.characters(exclude_categories=("Cc", "Cs"))
    if spec.multiline:
        chars = chars | st.just("\n")
    return st.text(chars, min_size=spec.min_len, max_size=spec.max_len)


def valid(spec: Spec) -> st.SearchStrategy[Any]:
    """Values that `spec.load` accepts, as the Python side holds them."""
    match spec:
        case Int():
            return st.integers(spec.lo, spec.hi)
        case Bool():
            return st.booleans()
        case Text():
            return text(spec)
        case Ident():
            return st.from_regex(rf"[a-z0-9_]{{1,{spec.max_len}}}", fullmatch=True)
        case OneOf():
            return st.sampled_from(sorted(spec.values))
        case Nullable():
            return st.none() | valid(spec.inner)
        case ByType():
            return st.one_of([valid(inner) for inner in spec.specs.values()])
        case ListOf():
            size = min(spec.max_items, max(spec.min_items, 6))
            return st.lists(valid(spec.item), min_size=spec.min_items, max_size=size).map(tuple)
        case Record():
            return st.builds(spec.cls, **{name: valid(inner) for name, inner in spec.fields})
        case Tagged():
            return st.one_of([valid(record) for record in spec.by_tag.values()])
        case Null():
            return st.none()
        case MapOf():
            size = min(spec.max_items, 4)
            return st.dictionaries(valid(spec.key), valid(spec.value).map(as_sent), max_size=size)
        case EventMap():  # each kind's record, from the maps that arrive
            return st.one_of([event(kind, *entry) for kind, entry in spec.kinds.items()]).map(
                spec.load
            )
    raise TypeError(f"no strategy for {spec!r}")


def event(kind: str, required: Any, names: Any, optional: dict[str, Spec]) -> Any:
    """Events of one kind as they arrive: required fields, and any of the optional ones."""
    fields = {name: valid(spec).map(as_sent) for name, spec in required}
    extra = {name: valid(spec).map(as_sent) for name, spec in optional.items()}
    return st.fixed_dictionaries({"kind": st.just(kind), **fields}, optional=extra)


def as_sent(value: Any) -> Any:
    """`value` with its tuples as lists, as msgpack gives them back (events are plain maps)."""
    if isinstance(value, tuple | list):
        return [as_sent(item) for item in value]
    if isinstance(value, dict):
        return {key: as_sent(item) for key, item in value.items()}
    return value


MESSAGE_STRATEGIES = {direction: valid(table) for direction, table in MESSAGES.items()}
VALID_MESSAGES = st.one_of(list(MESSAGE_STRATEGIES.values()))

# Anything msgpack can carry, including what the protocol forbids (floats, bin, ext, big ints).
PACKABLE_SCALARS = (
    SCALARS
    | st.floats(allow_nan=True)
    | st.binary(max_size=8)
    | INTS
    | st.text(max_size=300)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=4))
)
PACKABLE = st.recursive(
    PACKABLE_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8) | INTS, inner, max_size=5)
    ),
    max_leaves=20,
)

# Anything at all for from_wire, including values msgpack could never produce.
PYTHON_VALUES = st.recursive(
    PACKABLE_SCALARS | st.sets(st.integers(), max_size=3) | st.just(object()) | st.just(1j),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8) | st.integers() | st.none(), inner, max_size=4)
    ),
    max_leaves=15,
)


def attempt(data: bytes, direction: Direction) -> Message | ProtocolError:
    """Decode, returning the RemoteProtocolError instead of raising it; anything else escapes."""
    try:
        return decode(data, direction=direction)
    except RemoteProtocolError as err:
        assert isinstance(err.code, ErrorCode) and err.reason
        return err


def direction_of(msg: Message) -> Direction:
    return DIRECTION_OF[type(msg)]


def accepted_is_consistent(result: Message | ProtocolError, direction: Direction) -> None:
    """Whatever decode accepts, encode accepts too and gives back the same message."""
    if not isinstance(result, ProtocolError):
        assert decode(encode(result), direction=direction) == result


# --- valid messages -----------------------------------------------------------------------------


@FUZZ
@given(VALID_MESSAGES)
def test_every_valid_message_round_trips(msg: Message) -> None:
    data = encode(msg)
    assert decode(data, direction=direction_of(msg)) == msg
    assert from_wire(to_wire(msg), direction_of(msg)) == msg


# --- random and mutated bytes -------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=300), DIRECTIONS)
def test_random_bytes(data: bytes, direction: Direction) -> None:
    accepted_is_consistent(attempt(data, direction), direction)


@FUZZ
@given(st.lists(SCALARS | st.binary(max_size=4), max_size=6), DIRECTIONS)
def test_random_msgpack_sequences(values: list[Any], direction: Direction) -> None:
    data = b"".join(msgpack.packb(value) for value in values)
    accepted_is_consistent(attempt(data, direction), direction)


def mutate(data: bytes, draw: Any) -> bytes:
    """One random edit: flip a bit, truncate, insert, delete or overwrite bytes."""
    buffer = bytearray(data)
    kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "overwrite"]))
    at = draw(st.integers(0, len(buffer)))
    if kind == "flip" and at < len(buffer):
        buffer[at] ^= 1 << draw(st.integers(0, 7))
    elif kind == "truncate":
        del buffer[at:]
    elif kind == "insert":
        buffer[at:at] = draw(st.binary(min_size=1, max_size=8))
    elif kind == "delete":
        del buffer[at : at + draw(st.integers(1, 8))]
    elif kind == "overwrite":
        patch = draw(st.binary(min_size=1, max_size=8))
        buffer[at : at + len(patch)] = patch
    return bytes(buffer)


@FUZZ
@given(VALID_MESSAGES, st.data())
def test_mutated_frames(msg: Message, data: st.DataObject) -> None:
    frame_bytes = encode(msg)
    for _ in range(data.draw(st.integers(1, 4))):
        frame_bytes = mutate(frame_bytes, data.draw)
    direction = data.draw(st.sampled_from([direction_of(msg), *Direction]))
    accepted_is_consistent(attempt(frame_bytes, direction), direction)


# --- valid frames with a wrong value somewhere --------------------------------------------------


def maps_in(value: Any) -> list[dict[str, Any]]:
    """Every map inside a wire value, the value itself included."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@FUZZ
@given(VALID_MESSAGES, st.data())
def test_wrong_field_values(msg: Message, data: st.DataObject) -> None:
    wire = to_wire(msg)
    target = data.draw(st.sampled_from(maps_in(wire)))
    key = data.draw(st.sampled_from([*target, "type", "extra"]))
    action = data.draw(st.sampled_from(["replace", "delete"]))
    if action == "delete" and key in target:
        del target[key]
    else:
        target[key] = data.draw(PACKABLE)
    direction = direction_of(msg)
    accepted_is_consistent(attempt(msgpack.packb(wire, use_bin_type=True), direction), direction)


@FUZZ
@given(PYTHON_VALUES, DIRECTIONS)
def test_from_wire_on_any_python_value(value: Any, direction: Direction) -> None:
    with contextlib.suppress(RemoteProtocolError):
        from_wire(value, direction)
    with contextlib.suppress(RemoteProtocolError):
        choice_from_wire(value)


@FUZZ
@given(VALID_MESSAGES, PYTHON_VALUES, st.data())
def test_from_wire_with_any_python_value_inside(
    msg: Message, value: Any, data: st.DataObject
) -> None:
    wire = to_wire(msg)
    target = data.draw(st.sampled_from(maps_in(wire)))
    target[data.draw(st.sampled_from([*target, "extra"]))] = value
    with contextlib.suppress(RemoteProtocolError):
        from_wire(wire, direction_of(msg))


# --- deep nesting and huge strings --------------------------------------------------------------


def pack_with(wire: dict[str, Any], key: str, raw_value: bytes) -> bytes:
    """`wire` packed with `raw_value` (already msgpack bytes) under `key`; packb alone refuses
    nesting deeper than 512."""
    rest = {k: v for k, v in wire.items() if k != key}
    header = msgpack.packb({k: None for k in range(len(rest) + 1)})[:1]  # a fixmap header
    return header + msgpack.packb(rest)[1:] + msgpack.packb(key) + raw_value


@FUZZ
@given(VALID_MESSAGES, st.integers(1, 3000), st.booleans(), st.data())
def test_deep_nesting(msg: Message, depth: int, as_maps: bool, data: st.DataObject) -> None:
    nest = (b"\x81\xa1a" if as_maps else b"\x91") * depth + b"\x00"
    wire = to_wire(msg)
    direction = direction_of(msg)
    result = attempt(pack_with(wire, data.draw(st.sampled_from(list(wire))), nest), direction)
    if 1 + depth > LIMITS[direction].max_depth:
        assert isinstance(result, ProtocolError) and result.code == ErrorCode.TOO_DEEP


@FUZZ
@given(VALID_MESSAGES, st.integers(0, 40_000), st.sampled_from("aé€🌹"), st.data())
def test_huge_strings(msg: Message, length: int, char: str, data: st.DataObject) -> None:
    huge = char * length
    wire = to_wire(msg)
    target = data.draw(st.sampled_from(maps_in(wire)))
    if data.draw(st.booleans()):
        target[huge] = 1
    else:
        target[data.draw(st.sampled_from([*target, "extra"]))] = huge
    direction = direction_of(msg)
    result = attempt(msgpack.packb(wire), direction)
    if len(huge.encode()) > LIMITS[direction].max_str_bytes:
        assert isinstance(result, ProtocolError)
        assert result.code in (ErrorCode.TOO_LONG, ErrorCode.TOO_LARGE)


# --- encoding arbitrary instances ---------------------------------------------------------------


@FUZZ
@given(st.sampled_from(sorted(DIRECTION_OF, key=lambda cls: cls.__name__)), st.data())
def test_encode_raises_only_local_errors(cls: type, data: st.DataObject) -> None:
    values = {f.name: data.draw(PYTHON_VALUES) for f in dataclasses.fields(cls)}
    try:
        frame_bytes = encode(cls(**values))
    except LocalProtocolError:
        return
    assert not isinstance(attempt(frame_bytes, DIRECTION_OF[cls]), ProtocolError)


# --- the compiled fast paths against the specs' own checks ---------------------------------------


def compiled_specs() -> list[Record | EventMap]:
    """Every record and event map the message tables reach: the specs that have fast paths."""
    found: dict[int, Record | EventMap] = {}
    stack: list[Any] = list(MESSAGES.values())
    while stack:
        spec = stack.pop()
        if isinstance(spec, Record | EventMap):
            if id(spec) in found:
                continue
            found[id(spec)] = spec
        match spec:
            case Tagged():
                stack.extend(spec.by_tag.values())
            case Record():
                stack.extend(inner for _, inner in spec.fields)
            case Nullable():
                stack.append(spec.inner)
            case ListOf():
                stack.append(spec.item)
            case MapOf():
                stack.extend((spec.key, spec.value))
            case EventMap():
                for required, _, optional in spec.kinds.values():
                    stack.extend(inner for _, inner in required)
                    stack.extend(optional.values())
            case ByType():
                stack.extend(spec.specs.values())
    return list(found.values())


def _refuse(value: Any) -> Any:
    raise ValueError("fast paths off")


@contextlib.contextmanager
def checked_only() -> Any:
    """Every fast path off: the specs' own checks alone decide."""
    saved = [(spec, spec.fast_load(), getattr(spec, "_fast_dump", None)) for spec in COMPILED]
    for spec, _, _ in saved:
        spec._fast_load = _refuse
        if isinstance(spec, Record):
            spec._fast_dump = _refuse
    try:
        yield
    finally:
        for spec, load, dump in saved:
            spec._fast_load = load
            if isinstance(spec, Record):
                spec._fast_dump = dump


COMPILED = compiled_specs()
NEAR_MISSES = st.sampled_from(
    [-1, 0, 1, 2, 7, 8, 9, 255, 256, 2**31, "", "a", "A", "a" * 33, "a\x1b", None, True, [], {}]
)
"""Values just outside (or inside) the usual limits: a wrong check shows on these first."""


def outcome(load: Any) -> Any:
    """What `load()` gives: the message, or the error's code and reason."""
    try:
        return load()
    except ProtocolError as err:
        return (err.code, err.reason)


@FUZZ
@given(VALID_MESSAGES, st.data())
def test_fast_paths_decide_as_the_checks_do(msg: Message, data: st.DataObject) -> None:
    """On a valid message with one field made wrong or left out, the compiled loaders accept
    exactly what the checks accept, and load it alike (else the checks give the reason)."""
    wire = to_wire(msg)
    target = data.draw(st.sampled_from(maps_in(wire)))
    key = data.draw(st.sampled_from([*target, "type", "extra"]))
    if data.draw(st.booleans()) and key in target:
        del target[key]
    else:
        target[key] = data.draw(NEAR_MISSES | PACKABLE)
    direction = direction_of(msg)
    fast = outcome(lambda: from_wire(wire, direction))
    with checked_only():
        assert outcome(lambda: from_wire(wire, direction)) == fast


@FUZZ
@given(VALID_MESSAGES)
def test_fast_paths_take_every_valid_message(msg: Message) -> None:
    """A valid message never needs the slow path, either way."""
    record = MESSAGES[direction_of(msg)].by_cls[type(msg)]
    wire = record.fast_dump()(msg)
    with checked_only():
        assert wire == to_wire(msg)
    assert record.fast_load()(msgpack.unpackb(msgpack.packb(wire))) == msg


def test_checked_only_turns_the_fast_paths_off() -> None:
    """The comparison above compares something: with the fast paths off, loading runs the
    checks (and the fast loaders are back after)."""
    table = MESSAGES[Direction.TO_CLIENT].by_tag["notice"]
    with checked_only():
        assert table._fast_load is _refuse
        assert from_wire({"type": "notice", "text": "hi"}, Direction.TO_CLIENT).text == "hi"
    assert table._fast_load is not _refuse


# --- framing ------------------------------------------------------------------------------------


@FUZZ
@given(st.lists(VALID_MESSAGES, max_size=5), st.lists(st.integers(1, 50), max_size=50))
def test_framing_any_chunking(msgs: list[Message], cuts: list[int]) -> None:
    payloads = [encode(msg) for msg in msgs]
    stream = b"".join(frame(p, direction=Direction.TO_CLIENT) for p in payloads)
    reader, got, at = FrameReader(direction=Direction.TO_CLIENT), [], 0
    for cut in [*cuts, len(stream)]:
        got += reader.feed(stream[at : at + cut])
        at += cut
    assert got == payloads and reader.pending == 0


@FUZZ
@given(st.lists(st.binary(max_size=40), max_size=20), DIRECTIONS)
def test_framing_random_bytes(chunks: list[bytes], direction: Direction) -> None:
    reader = FrameReader(direction=direction)
    try:
        for chunk in chunks:
            for payload in reader.feed(chunk):
                attempt(payload, direction)
    except RemoteProtocolError as err:  # malformed: a prefix that looks like JSON or text
        assert err.code in (ErrorCode.TOO_LARGE, ErrorCode.MALFORMED)
