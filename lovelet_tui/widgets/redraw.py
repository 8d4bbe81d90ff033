"""Update a Static in place only when what it shows changes: an unchanged widget costs no
render in the next frame."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def redraw(widget: Static, text: Text) -> None:
    """Show `text` in `widget` (its size is fixed by CSS), unless it shows it already."""
    shown = widget.content
    if not (isinstance(shown, Text) and shown == text and shown.style == text.style):
        widget.update(text, layout=False)
