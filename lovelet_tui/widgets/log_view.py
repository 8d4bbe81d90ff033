"""A log that shows its newest lines: a plain Static, redrawn in place.

A `RichLog` changes its virtual size on every write, and that re-lays out the whole screen;
this view keeps its size, wraps only the lines that fit, and pages back on request.
"""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual.widgets import Static

from lovelet_tui.widgets.redraw import redraw

MORE = Text("… PgDn for newer lines", style="dim italic")


class LogView(Static):
    """The last lines that fit, wrapped to the width; `page` scrolls back and forth."""

    DEFAULT_CSS = """
    LogView {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None, max_lines: int = 500) -> None:
        super().__init__(id=id)
        self.lines: deque[Text] = deque(maxlen=max_lines)
        self.back = 0  # how many of the newest lines are scrolled out of view

    def write(self, *lines: Text) -> None:
        """Add lines and show the newest."""
        self.lines.extend(lines)
        self.back = 0
        self._draw()

    def clear(self) -> None:
        """Forget every line."""
        self.lines.clear()
        self.back = 0
        self._draw()

    def page(self, pages: int) -> None:
        """Scroll by `pages` screens: negative is older, positive newer."""
        step = max(1, self.content_size.height - 1)
        self.back = max(0, min(len(self.lines) - 1, self.back - pages * step))
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        width, height = self.content_size
        if width <= 0 or height <= 0:
            return
        rows = [MORE] if self.back else []
        room = height - len(rows)
        shown: list[Text] = []
        for index in range(len(self.lines) - 1 - self.back, -1, -1):
            shown[:0] = self.lines[index].wrap(self.app.console, width)
            if len(shown) >= room:
                break
        redraw(self, Text("\n").join(shown[-room:] + rows))
