"""docs/bot-api.md's message reference is the protocol's own specs, as generated: every message
both ways, with every field."""

from __future__ import annotations

from protocol import Direction
from protocol.registry import MESSAGES
from server.commands.message_docs import PAGE, reference


def test_the_message_reference_in_the_docs_is_the_protocols() -> None:
    page = PAGE.read_text()
    assert reference() in page, "stale: run .venv/bin/python -m server.commands.message_docs"
    for direction in Direction:
        for tag, record in MESSAGES[direction].by_tag.items():
            rows = [line for line in page.splitlines() if line.startswith(f"| `{tag}` |")]
            for field, _ in record.fields:
                assert any(f"`{field}`: " in row for row in rows), (tag, field)
