"""Writes `protocol/events.py`, the wire's copy of the engine's event catalogue.

The protocol may not import the engine, so it holds a generated copy of the catalogue's
fields and types; tests/test_protocol_events.py fails when the copy is stale. Regenerate
after changing `server/engine/event_catalogue.py`::

    .venv/bin/python -m server.commands.wire_events
"""

from __future__ import annotations

import subprocess
import sys
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
are one of a few words.
"""

from __future__ import annotations

'''


def _entry(spec: EventSpec) -> tuple[str, tuple[tuple[str, str, tuple[str, ...]], ...]]:
    fields = tuple(
        (f.name, f.type, tuple(flag for flag in ("private", "optional") if getattr(f, flag)))
        for f in spec.fields
    )
    return spec.seat, fields


def wire_events() -> dict[str, Any]:
    """`protocol.events.EVENTS` as the catalogue makes it."""
    return {kind: _entry(spec) for kind, spec in EVENTS.items()}


def source() -> str:
    """The text of `protocol/events.py` (before `ruff format`) for the catalogue as it is."""
    return (
        HEADER
        + f"EVENTS = {pformat(wire_events(), sort_dicts=False)}\n\n"
        + f"WORDS = {pformat(dict(WORDS), sort_dicts=False)}\n"
    )


if __name__ == "__main__":
    TARGET.write_text(source(), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=True)
