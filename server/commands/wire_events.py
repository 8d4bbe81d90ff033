"""Writes `protocol/events.py`, the wire's copy of the engine's event catalogue.

The protocol may not import the engine, so it holds a generated copy of the catalogue's
fields and types; tests/test_protocol_events.py fails when the copy is stale. Regenerate
after changing `server/engine/event_catalogue.py`::

    .venv/bin/python -m server.commands.wire_events
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from pprint import pformat
from typing import Any

from ..engine.event_catalogue import EVENTS, WORDS, EventSpec

TARGET = Path(__file__).resolve().parents[2] / "protocol" / "events.py"

HEADER = '''"""The events of a table's log, as the wire carries them. GENERATED: do not edit.

Generated from `server/engine/event_catalogue.py` (field types and who sees the private ones
are explained there) by `.venv/bin/python -m server.commands.wire_events`.

`EVENTS`: for each kind, the type of its `seat` and its fields as (name, type, flags):
"private" (only some seats are sent it), "optional" (may be absent). `WORDS`: the types that
are one of a few words. Then one frozen record per kind (`KINDS`), as a receiver gets it: a
private or optional field it was not sent is None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

'''

BASE = '''

@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One event of a table's log; `KIND` is its wire tag, `seat` the acting seat (None: the
    table's)."""

    KIND: ClassVar[str]
    seat: int | None
'''

PYTHON_TYPES = {
    "seat": "int",
    "seat_or_none": "int | None",
    "none": "None",
    "seats": "tuple[int, ...]",
    "card": "str",
    "cards": "tuple[str, ...]",
    "guess": "str | int | None",
    "count": "int",
    "counts": "tuple[int, ...]",
    "bool": "bool",
    "round": "int",
    "reason": "str",
    "card_by_seat": "Mapping[str, str]",
    "cards_by_seat": "Mapping[str, tuple[str, ...]]",
    "count_by_seat": "Mapping[str, int]",
    "reasons_by_seat": "Mapping[str, tuple[str, ...]]",
}
"""The Python type of each field type of the catalogue (a word type is a str)."""


def _entry(spec: EventSpec) -> tuple[str, tuple[tuple[str, str, tuple[str, ...]], ...]]:
    fields = tuple(
        (f.name, f.type, tuple(flag for flag in ("private", "optional") if getattr(f, flag)))
        for f in spec.fields
    )
    return spec.seat, fields


def wire_events() -> dict[str, Any]:
    """`protocol.events.EVENTS` as the catalogue makes it."""
    return {kind: _entry(spec) for kind, spec in EVENTS.items()}


def class_name(kind: str) -> str:
    """The record's name for event `kind`: "round_start" -> "RoundStart"."""
    return "".join(part.capitalize() for part in kind.split("_"))


def _record(spec: EventSpec) -> str:
    lines = ["", "", "@dataclass(frozen=True, slots=True, kw_only=True)"]
    lines += [f"class {class_name(spec.kind)}(Event):", _docstring(spec.doc), ""]
    lines.append(f"    KIND: ClassVar[str] = {spec.kind!r}")
    lines.append("    seat: int" if spec.seat == "seat" else "    seat: None = None")
    for field in spec.fields:
        python = PYTHON_TYPES.get(field.type, "str")
        if field.private or field.optional:
            lines.append(f"    {field.name}: {python} | None = None")
        else:
            lines.append(f"    {field.name}: {python}")
    return "\n".join(lines) + "\n"


def _docstring(doc: str) -> str:
    """A catalogue entry's text as the record's docstring, wrapped to the line length."""
    return textwrap.fill(
        " ".join(doc.split()) + '"""', 96, initial_indent='    """', subsequent_indent="    "
    )


def source() -> str:
    """The text of `protocol/events.py` (before `ruff format`) for the catalogue as it is."""
    kinds = ", ".join(f"{class_name(kind)}.KIND: {class_name(kind)}" for kind in EVENTS)
    return (
        HEADER
        + f"EVENTS = {pformat(wire_events(), sort_dicts=False)}\n\n"
        + f"WORDS = {pformat(dict(WORDS), sort_dicts=False)}\n"
        + BASE
        + "".join(_record(spec) for spec in EVENTS.values())
        + f"\n\nKINDS: Mapping[str, type[Event]] = {{{kinds}}}\n"
        + '"""The record of each kind."""\n'
    )


if __name__ == "__main__":
    TARGET.write_text(source(), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=True)
