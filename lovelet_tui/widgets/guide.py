"""The tutorial's words for the receiver, full width above the log and choices; hidden when
the server sends none."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class Guide(Static):
    """A few wrapped lines of server text, shown literally (no markup)."""

    DEFAULT_CSS = """
    Guide {
        height: auto;
        max-height: 6;
        padding: 0 1;
        display: none;
    }
    Guide.-shown {
        display: block;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.text: str | None = None

    def show_guide(self, text: str | None) -> None:
        """`text`, or nothing (the widget takes no room then)."""
        if text == self.text:
            return
        self.text = text
        self.set_class(bool(text), "-shown")
        self.update(Text(text or "", style="italic"))
