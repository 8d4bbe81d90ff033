"""Field specs: small objects that check a wire value (`load`) and shape a Python one (`dump`).

`load` turns a decoded msgpack value into the message's Python value (lists become tuples, maps
become dataclasses) or raises `Invalid`. `dump` does the reverse and only checks the shape;
`protocol.codec.encode` validates what it sends by decoding it again.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Protocol

from protocol import fast
from protocol.errors import ErrorCode

# C0 and C1 control characters (ESC included): never allowed in text a terminal will show.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_IDENT = re.compile(r"[a-z0-9_]+")


class Invalid(Exception):
    """A field failed its spec; `path` is filled in innermost first while unwinding."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason
        self.path: list[str] = []

    def where(self, root: str = "message") -> str:
        """The dotted path of the failing field, e.g. `choice.targets[1]`."""
        return "".join(reversed(self.path)).lstrip(".") or root


class Spec(Protocol):
    """What every field spec provides."""

    def load(self, value: Any) -> Any: ...

    def dump(self, value: Any) -> Any: ...

    def describe(self) -> str: ...


def _kind(value: object) -> str:
    return type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Scalar:
    """Base for specs whose Python and wire values are the same."""

    __slots__ = ()

    def dump(self, value: Any) -> Any:
        return value


class Int(Scalar):
    """An int in `lo..hi` (bool is not an int here)."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def load(self, value: Any) -> int:
        if not _is_int(value):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected an int, got {_kind(value)}")
        if not self.lo <= value <= self.hi:
            raise Invalid(ErrorCode.BAD_FIELD, f"{value} is not in {self.lo}..{self.hi}")
        return value

    def describe(self) -> str:
        return f"int {self.lo}..{self.hi}"


class Bool(Scalar):
    """true or false."""

    __slots__ = ()

    def load(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a bool, got {_kind(value)}")
        return value

    def describe(self) -> str:
        return "bool"


class Text(Scalar):
    """A string of `min_len..max_len` characters without control characters."""

    __slots__ = ("max_len", "min_len", "multiline")

    def __init__(self, max_len: int, *, min_len: int = 1, multiline: bool = False) -> None:
        self.max_len, self.min_len, self.multiline = max_len, min_len, multiline

    def load(self, value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a string, got {_kind(value)}")
        if len(value) > self.max_len:
            raise Invalid(ErrorCode.TOO_LONG, f"{len(value)} characters, at most {self.max_len}")
        if len(value) < self.min_len:
            raise Invalid(ErrorCode.BAD_FIELD, f"at least {self.min_len} characters")
        control = _CONTROL_BUT_NEWLINE if self.multiline else _CONTROL
        if control.search(value):
            raise Invalid(ErrorCode.BAD_FIELD, "control character in text")
        return value

    def describe(self) -> str:
        lines = "multi-line " if self.multiline else ""
        return f"{lines}str {self.min_len}..{self.max_len} chars"


class Ident(Scalar):
    """A lower snake case id (`[a-z0-9_]+`) of at most `max_len` characters."""

    __slots__ = ("max_len",)

    def __init__(self, max_len: int = 32) -> None:
        self.max_len = max_len

    def load(self, value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a string, got {_kind(value)}")
        if len(value) > self.max_len:
            raise Invalid(ErrorCode.TOO_LONG, f"{len(value)} characters, at most {self.max_len}")
        if not _IDENT.fullmatch(value):
            raise Invalid(ErrorCode.BAD_FIELD, "expected a lower snake case id")
        return value

    def describe(self) -> str:
        return f"id [a-z0-9_]{{1,{self.max_len}}}"


class OneOf(Scalar):
    """One of a fixed set of strings."""

    __slots__ = ("values",)

    def __init__(self, *values: str) -> None:
        self.values = frozenset(values)

    def load(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.values:
            shown = repr(value) if isinstance(value, str) and len(value) <= 40 else _kind(value)
            raise Invalid(ErrorCode.BAD_FIELD, f"{shown} is not one of {self.describe()}")
        return value

    def describe(self) -> str:
        return " | ".join(sorted(map(repr, self.values)))


class Nullable:
    """None, or a value of `inner`."""

    __slots__ = ("inner",)

    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def load(self, value: Any) -> Any:
        return None if value is None else self.inner.load(value)

    def dump(self, value: Any) -> Any:
        return None if value is None else self.inner.dump(value)

    def describe(self) -> str:
        return f"{self.inner.describe()} | None"


class ByType:
    """A value whose spec is chosen by its Python type, e.g. a guess that is a str or an int."""

    __slots__ = ("specs",)

    def __init__(self, specs: Mapping[type, Spec]) -> None:
        self.specs = dict(specs)

    def _pick(self, value: Any) -> Spec:
        kind = int if _is_int(value) else str if isinstance(value, str) else None
        spec = self.specs.get(kind) if kind else None
        if spec is None:
            raise Invalid(ErrorCode.BAD_FIELD, f"expected {self.describe()}, got {_kind(value)}")
        return spec

    def load(self, value: Any) -> Any:
        return self._pick(value).load(value)

    def dump(self, value: Any) -> Any:
        return self._pick(value).dump(value)

    def describe(self) -> str:
        return " | ".join(spec.describe() for spec in self.specs.values())


class ListOf:
    """A list of `min_items..max_items` values of `item`, loaded as a tuple."""

    __slots__ = ("item", "max_items", "min_items")

    def __init__(self, item: Spec, max_items: int, *, min_items: int = 0) -> None:
        self.item, self.max_items, self.min_items = item, max_items, min_items

    def load(self, value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a list, got {_kind(value)}")
        if len(value) > self.max_items:
            raise Invalid(ErrorCode.TOO_LARGE, f"{len(value)} items, at most {self.max_items}")
        if len(value) < self.min_items:
            raise Invalid(ErrorCode.BAD_FIELD, f"at least {self.min_items} items")
        try:
            return tuple(map(self.item.load, value))
        except Invalid:  # again, slowly, to name the failing item
            return tuple(self._each(self.item.load, value))

    def dump(self, value: Any) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a tuple, got {_kind(value)}")
        return list(self._each(self.item.dump, value))

    @staticmethod
    def _each(convert: Any, values: Iterable[Any]) -> Iterable[Any]:
        for index, item in enumerate(values):
            try:
                yield convert(item)
            except Invalid as err:
                err.path.append(f"[{index}]")
                raise

    def describe(self) -> str:
        return f"list of {self.min_items}..{self.max_items} x ({self.item.describe()})"


class Record:
    """A map with exactly the keys in `fields` (plus "type" when `cls` has a TYPE tag)."""

    __slots__ = ("_fast_dump", "_fast_load", "cls", "fields", "size", "tag")

    def __init__(self, cls: type, fields: Mapping[str, Spec]) -> None:
        names = [field.name for field in dataclasses.fields(cls)]
        if list(fields) != names or "type" in names:
            raise TypeError(f"{cls.__name__}: specs {list(fields)} do not match fields {names}")
        self.cls = cls
        self.fields = tuple(fields.items())
        self.tag: str | None = getattr(cls, "TYPE", None)
        self.size = len(self.fields) + (self.tag is not None)
        self._fast_load: Callable[[Any], Any] | None = None
        self._fast_dump: Callable[[Any], Any] | None = None

    def fast_load(self) -> Callable[[Any], Any]:
        """This record's compiled loader (`protocol.fast`), made at its first use."""
        if self._fast_load is None:
            self._fast_load = fast.compile_load(self)
        return self._fast_load

    def fast_dump(self) -> Callable[[Any], Any]:
        """This record's compiled dumper (`protocol.fast`), made at its first use."""
        if self._fast_dump is None:
            self._fast_dump = fast.compile_dump(self)
        return self._fast_dump

    def load(self, value: Any) -> Any:
        try:
            return (self._fast_load or self.fast_load())(value)
        except Exception:  # rejected (or not even a map): the checks below say why
            return self._load_checked(value)

    def _load_checked(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a map, got {_kind(value)}")
        if self.tag is not None and value.get("type") != self.tag:
            if "type" not in value:
                raise Invalid(ErrorCode.MISSING_FIELD, "missing field 'type'")
            raise Invalid(ErrorCode.BAD_FIELD, f"'type' must be {self.tag!r}")
        loaded = {}
        for name, spec in self.fields:
            if name not in value:
                raise Invalid(ErrorCode.MISSING_FIELD, f"missing field {name!r}")
            try:
                loaded[name] = spec.load(value[name])
            except Invalid as err:
                err.path.append(f".{name}")
                raise
        if len(value) != self.size:
            raise Invalid(ErrorCode.UNEXPECTED_FIELD, self._unexpected(value))
        return self.cls(**loaded)

    def _unexpected(self, value: dict[str, Any]) -> str:
        known = {name for name, _ in self.fields} | ({"type"} if self.tag else set())
        extra = sorted(str(key)[:40] for key in value if key not in known)
        return f"unexpected field(s) {', '.join(map(repr, extra[:5]))}"

    def dump(self, value: Any) -> dict[str, Any]:
        try:
            return (self._fast_dump or self.fast_dump())(value)
        except Exception:  # not of this record's shape: the checks below say why
            return self._dump_checked(value)

    def _dump_checked(self, value: Any) -> dict[str, Any]:
        if type(value) is not self.cls:
            raise Invalid(ErrorCode.BAD_FIELD, f"expected {self.cls.__name__}, got {_kind(value)}")
        wire: dict[str, Any] = {"type": self.tag} if self.tag is not None else {}
        for name, spec in self.fields:
            try:
                wire[name] = spec.dump(getattr(value, name))
            except Invalid as err:
                err.path.append(f".{name}")
                raise
        return wire

    def describe(self) -> str:
        return f"map {self.cls.__name__}"


class Tagged:
    """One of several records, told apart by their "type" key."""

    __slots__ = ("by_cls", "by_tag", "unknown")

    def __init__(
        self, records: Iterable[Record], *, unknown: ErrorCode = ErrorCode.BAD_FIELD
    ) -> None:
        self.unknown = unknown
        by_tag: dict[str, Record] = {}
        for record in records:
            if record.tag is None or record.tag in by_tag:
                raise TypeError(f"{record.cls.__name__}: missing or duplicate TYPE {record.tag!r}")
            by_tag[record.tag] = record
        self.by_tag = MappingProxyType(by_tag)
        self.by_cls = MappingProxyType({record.cls: record for record in by_tag.values()})

    def load(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a map, got {_kind(value)}")
        return self.record_for(value).load(value)

    def record_for(self, value: dict[str, Any]) -> Record:
        """The record named by `value["type"]`."""
        if "type" not in value:
            raise Invalid(ErrorCode.MISSING_FIELD, "missing field 'type'")
        tag = value["type"]
        if not isinstance(tag, str):
            raise Invalid(ErrorCode.BAD_FIELD, f"'type' must be a string, got {_kind(tag)}")
        record = self.by_tag.get(tag)
        if record is None:
            raise Invalid(self.unknown, f"unknown type {tag[:40]!r}")
        return record

    def dump(self, value: Any) -> dict[str, Any]:
        record = self.by_cls.get(type(value))
        if record is None:
            raise Invalid(self.unknown, f"{_kind(value)} is not one of {self.describe()}")
        return record.dump(value)

    def describe(self) -> str:
        return " | ".join(map(repr, self.by_tag))


class Null(Scalar):
    """Always null (the `seat` of an event that belongs to the table, not to a seat)."""

    __slots__ = ()

    def load(self, value: Any) -> None:
        if value is not None:
            raise Invalid(ErrorCode.BAD_FIELD, f"expected null, got {_kind(value)}")

    def describe(self) -> str:
        return "null"


class MapOf(Scalar):
    """A map of at most `max_items` keys of `key` (strings) to values of `value`; checked,
    and loaded as it is."""

    __slots__ = ("key", "max_items", "value")

    def __init__(self, key: Spec, value: Spec, max_items: int) -> None:
        self.key, self.value, self.max_items = key, value, max_items

    def load(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a map, got {_kind(value)}")
        if len(value) > self.max_items:
            raise Invalid(ErrorCode.TOO_LARGE, f"{len(value)} keys, at most {self.max_items}")
        for key, item in value.items():
            try:
                self.key.load(key)
                self.value.load(item)
            except Invalid as err:
                err.path.append(f"[{str(key)[:40]!r}]")
                raise
        return value

    def describe(self) -> str:
        return f"map of ({self.key.describe()}) to ({self.value.describe()})"


class EventMap:
    """One event of a table's log: on the wire, a map with a known `kind` and exactly that
    kind's fields (`kinds`: each kind's specs of its required and of its optional fields); in
    Python, the kind's record (`classes`), with None for an optional field that is absent."""

    __slots__ = ("_dumps", "_fast_load", "classes", "kinds")

    def __init__(
        self,
        kinds: Mapping[str, tuple[Mapping[str, Spec], Mapping[str, Spec]]],
        classes: Mapping[str, type],
    ) -> None:
        self.kinds = {
            kind: (tuple(required.items()), frozenset({"kind", *required}), dict(optional))
            for kind, (required, optional) in kinds.items()
        }
        self.classes = MappingProxyType(dict(classes))
        self._dumps = {
            classes[kind]: (kind, tuple(required), tuple(optional))
            for kind, (required, optional) in kinds.items()
        }
        self._fast_load: Callable[[Any], Any] | None = None

    def fast_load(self) -> Callable[[Any], Any]:
        """The compiled loader of every kind (`protocol.fast`), made at its first use."""
        if self._fast_load is None:
            self._fast_load = fast.compile_event_kinds(self)
        return self._fast_load

    def load(self, value: Any) -> Any:
        try:
            return (self._fast_load or self.fast_load())(value)
        except Exception:  # rejected: the checks below say why
            return self._load_checked(value)

    def _load_checked(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise Invalid(ErrorCode.BAD_FIELD, f"expected a map, got {_kind(value)}")
        kind = value.get("kind")
        found = self.kinds.get(kind) if isinstance(kind, str) else None
        if found is None:
            shown = repr(kind[:40]) if isinstance(kind, str) else _kind(kind)
            raise Invalid(ErrorCode.BAD_FIELD, f"unknown event kind {shown}")
        required, names, optional = found
        extra = sorted(value.keys() - names) if len(value) != len(names) else ()
        unlisted = [name for name in extra if name not in optional]
        if unlisted:
            shown = f"{unlisted[0][:40]!r}"
            raise Invalid(ErrorCode.UNEXPECTED_FIELD, f"{kind}: unexpected field {shown}")
        name, loaded = "kind", {}
        try:
            for name, spec in required:
                loaded[name] = spec.load(value[name])
            for name in extra:
                loaded[name] = optional[name].load(value[name])
        except KeyError:
            raise Invalid(ErrorCode.MISSING_FIELD, f"{kind}: missing field {name!r}") from None
        except Invalid as err:
            err.path.append(f".{name}")
            raise
        return self.classes[kind](**loaded)

    def dump(self, value: Any) -> dict[str, Any]:
        found = self._dumps.get(type(value))
        if found is None:
            raise Invalid(ErrorCode.BAD_FIELD, f"expected an event record, got {_kind(value)}")
        kind, required, optional = found
        wire = {"kind": kind}
        for name in required:
            wire[name] = getattr(value, name)
        for name in optional:
            field = getattr(value, name)
            if field is not None:
                wire[name] = field
        return wire

    def describe(self) -> str:
        return "an event of the catalogue (`protocol.events`)"
