"""docs/protocol.md's event reference is the engine's event catalogue, as generated."""

from __future__ import annotations

from server.commands.event_docs import PAGE, reference
from server.engine.event_catalogue import EVENTS


def test_the_event_reference_in_the_docs_is_the_catalogue() -> None:
    page = PAGE.read_text()
    assert reference() in page, "stale: run .venv/bin/python -m server.commands.event_docs"
    for kind in EVENTS:
        assert f"| `{kind}` |" in page
