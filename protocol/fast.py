"""Fast paths for the field specs: each record compiled, once, into one plain function.

`compile_load(record)` returns a function that loads a valid wire map in straight-line code
(no call per field) and raises on anything it does not accept; `compile_dump(record)` likewise
for the Python side. They accept exactly what the specs' own `load` and `dump` accept, or less:
the specs call them first and, when they raise, run their own code, which names the failure
(tests/test_protocol_fuzz.py compares both on random values). No I/O, no state but the cache
of compiled functions on each record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from protocol import schema as s


class Reject(Exception):
    """The fast path does not accept the value; the spec's own code will say why."""


class _Writer:
    """The source of one function being generated, and the names it refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"Reject": Reject}
        self.count = 0
        self.depth = 1

    def local(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def const(self, value: Any) -> str:
        self.count += 1
        name = f"c{self.count}"
        self.names[name] = value
        return name

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @contextmanager
    def block(self, head: str) -> Iterator[None]:
        self.line(head)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def reject_if(self, condition: str) -> None:
        self.line(f"if {condition}: raise Reject")

    def function(self, name: str, body: Callable[[], str]) -> Callable[[Any], Any]:
        result = body()
        self.line(f"return {result}")
        source = f"def {name}(value):\n" + "\n".join(self.lines)
        exec(compile(source, f"<protocol.fast {name}>", "exec"), self.names)
        return self.names[name]


# --- loading --------------------------------------------------------------------------------


def compile_load(spec: s.Record | s.Tagged | s.EventMap) -> Callable[[Any], Any]:
    """The fast loader of a record, a tagged union or an event map."""
    writer = _Writer()
    return writer.function("load", lambda: _load(spec, "value", writer))


def _load(spec: Any, src: str, w: _Writer) -> str:
    """Emit the checks of `spec` on the local `src`; return the loaded value's expression."""
    match spec:
        case s.Int():
            w.reject_if(f"type({src}) is not int or not {spec.lo} <= {src} <= {spec.hi}")
        case s.Bool():
            w.reject_if(f"type({src}) is not bool")
        case s.Text():
            control = s._CONTROL_BUT_NEWLINE if spec.multiline else s._CONTROL
            search = w.const(control.search)
            size = f"{spec.min_len} <= len({src}) <= {spec.max_len}"
            w.reject_if(f"type({src}) is not str or not {size} or {search}({src})")
        case s.Ident():
            match = w.const(s._IDENT.fullmatch)
            limit = f"len({src}) > {spec.max_len}"
            w.reject_if(f"type({src}) is not str or {limit} or not {match}({src})")
        case s.OneOf():
            w.reject_if(f"type({src}) is not str or {src} not in {w.const(spec.values)}")
        case s.Null():
            w.reject_if(f"{src} is not None")
        case s.Nullable():
            return _nullable(spec, src, w, _load)
        case s.ByType():
            _by_type(spec, src, w)
        case s.ListOf():
            return _load_list(spec, src, w)
        case s.MapOf():
            w.reject_if(f"type({src}) is not dict or len({src}) > {spec.max_items}")
            key, item = w.local(), w.local()
            with w.block(f"for {key}, {item} in {src}.items():"):
                _load(spec.key, key, w)
                _load(spec.value, item, w)
        case s.Record():
            return _load_record(spec, src, w)
        case s.Tagged():
            loaders = {tag: record.fast_load() for tag, record in spec.by_tag.items()}
            return f"{w.const(loaders)}[{src}['type']]({src})"
        case s.EventMap():
            return f"{w.const(spec.fast_load())}({src})"
        case _:
            raise TypeError(f"no fast path for {spec!r}")
    return src


def _nullable(spec: s.Nullable, src: str, w: _Writer, emit: Callable[..., str]) -> str:
    out = w.local()
    with w.block(f"if {src} is None:"):
        w.line(f"{out} = None")
    with w.block("else:"):
        w.line(f"{out} = {emit(spec.inner, src, w)}")
    return out


def _by_type(spec: s.ByType, src: str, w: _Writer) -> None:
    first = True
    for kind, inner in spec.specs.items():
        with w.block(f"{'if' if first else 'elif'} type({src}) is {w.const(kind)}:"):
            _load(inner, src, w)
        first = False
    with w.block("else:"):
        w.line("raise Reject")


def _load_list(spec: s.ListOf, src: str, w: _Writer) -> str:
    size = f"len({src}) <= {spec.max_items}"
    if spec.min_items:
        size = f"{spec.min_items} <= {size}"
    kind = f"type({src})"  # a tuple as well: the engine's maps hold tuples (`event_from_wire`)
    w.reject_if(f"{kind} is not list and {kind} is not tuple or not {size}")
    if isinstance(spec.item, s.Record | s.Tagged | s.EventMap):
        item = w.local()
        loaded = _load(spec.item, item, w)
        return f"tuple([{loaded} for {item} in {src}])"
    out, item = w.local(), w.local()
    start = len(w.lines)
    with w.block(f"for {item} in {src}:"):
        loaded = _load(spec.item, item, w)
        if loaded == item:  # checked as it is: the list itself is the value
            return f"tuple({src})"
        w.line(f"{out}.append({loaded})")
    w.lines.insert(start, "    " * w.depth + f"{out} = []")
    return f"tuple({out})"


def _load_record(spec: s.Record, src: str, w: _Writer) -> str:
    if src != "value":  # a record inside another: its own function
        return f"{w.const(spec.fast_load())}({src})"
    w.reject_if(f"type(value) is not dict or len(value) != {spec.size}")
    if spec.tag is not None:
        w.reject_if(f"value['type'] != {spec.tag!r}")
    keyword = {f.name for f in dataclasses.fields(spec.cls) if f.kw_only}
    args = []
    for name, field_spec in spec.fields:
        local = w.local()
        w.line(f"{local} = value[{name!r}]")
        loaded = _load(field_spec, local, w)
        args.append(f"{name}={loaded}" if name in keyword else loaded)
    return f"{w.const(spec.cls)}({', '.join(args)})"


def compile_event_kinds(spec: s.EventMap) -> Callable[[Any], Any]:
    """The fast loader of an event map: one function per kind, chosen by `kind`."""
    by_kind = {}
    for kind, (required, names, optional) in spec.kinds.items():
        writer = _Writer()
        cls = spec.classes[kind]
        by_kind[kind] = writer.function(
            f"load_{kind}",
            lambda w=writer, r=required, n=names, o=optional, c=cls: _event(r, n, o, c, w),
        )
    writer = _Writer()
    return writer.function("load", lambda: f"{writer.const(by_kind)}[value['kind']](value)")


def _event(
    required: Any, names: frozenset[str], optional: dict[str, Any], cls: type, w: _Writer
) -> str:
    extra = w.local()
    w.reject_if("type(value) is not dict")
    w.line(f"{extra} = len(value) - {len(names)}")
    args = []
    for name, field_spec in required:
        local = w.local()
        w.line(f"{local} = value[{name!r}]")
        args.append(f"{name}={_load(field_spec, local, w)}")
    for name, field_spec in optional.items():
        out = w.local()
        with w.block(f"if {name!r} in value:"):
            local = w.local()
            w.line(f"{extra} -= 1")
            w.line(f"{local} = value[{name!r}]")
            w.line(f"{out} = {_load(field_spec, local, w)}")
        with w.block("else:"):
            w.line(f"{out} = None")
        args.append(f"{name}={out}")
    w.reject_if(extra)
    return f"{w.const(cls)}({', '.join(args)})"


# --- dumping --------------------------------------------------------------------------------


def compile_dump(spec: s.Record) -> Callable[[Any], Any]:
    """The fast dumper of a record."""
    writer = _Writer()
    return writer.function("dump", lambda: _dump_record(spec, writer))


def _dump(spec: Any, src: str, w: _Writer) -> str:
    """Emit the shape checks of `spec` on the local `src`; return the wire value's expression."""
    match spec:
        case s.Nullable():
            return _nullable(spec, src, w, _dump)
        case s.ByType():
            kinds = " and ".join(f"type({src}) is not {w.const(kind)}" for kind in spec.specs)
            w.reject_if(kinds)
        case s.ListOf():
            return _dump_list(spec, src, w)
        case s.Record():
            return f"{w.const(spec.fast_dump())}({src})"
        case s.Tagged():
            dumpers = {cls: record.fast_dump() for cls, record in spec.by_cls.items()}
            return f"{w.const(dumpers)}[type({src})]({src})"
        case s.EventMap():
            return f"{w.const(spec.dump)}({src})"
    return src  # the other specs dump a value as it is


def _dump_list(spec: s.ListOf, src: str, w: _Writer) -> str:
    w.reject_if(f"type({src}) is not tuple and type({src}) is not list")
    if not _nested(spec.item):
        return f"list({src})"
    item = w.local()
    if isinstance(spec.item, s.Record | s.Tagged | s.EventMap):
        return f"[{_dump(spec.item, item, w)} for {item} in {src}]"
    out = w.local()
    w.line(f"{out} = []")
    with w.block(f"for {item} in {src}:"):
        w.line(f"{out}.append({_dump(spec.item, item, w)})")
    return out


def _nested(spec: Any) -> bool:
    """Whether dumping `spec` takes more than the value itself (checks or conversions)."""
    if isinstance(spec, s.Nullable):
        return _nested(spec.inner)
    return isinstance(spec, s.ByType | s.ListOf | s.Record | s.Tagged | s.EventMap)


def _dump_record(spec: s.Record, w: _Writer) -> str:
    w.reject_if(f"type(value) is not {w.const(spec.cls)}")
    items = [f"'type': {spec.tag!r}"] if spec.tag is not None else []
    for name, field_spec in spec.fields:
        local = w.local()
        w.line(f"{local} = value.{name}")
        items.append(f"{name!r}: {_dump(field_spec, local, w)}")
    return "{" + ", ".join(items) + "}"
