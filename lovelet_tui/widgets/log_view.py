"""A log that shows its newest lines, wrapped to the width; pages back on request.

A `RichLog` changes its virtual size on every write, and that re-lays out the whole screen;
this view keeps its size and wraps each line once per width. New lines go below the last one
shown; when they no longer fit, the view jumps so that the newest half of it moves to the top
and the new lines follow. Scrolling by one line at each update would repaint every row of the
log on every screen at the table, half of what each update sends.
"""

from __future__ import annotations

from collections import deque

from rich.text import Text

from lovelet_tui.widgets.rows import Rows, wrap_rows

MORE = Text("… PgDn for newer lines", style="dim italic")


class Entry:
    """One log line and its rows at the width it was last wrapped to."""

    __slots__ = ("rows", "text", "width")

    def __init__(self, text: Text) -> None:
        self.text = text
        self.width = 0
        self.rows: list[Text] = []


class LogView(Rows):
    """The last lines that fit, wrapped to the width; `page` scrolls back and forth."""

    DEFAULT_CSS = """
    LogView {
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None, max_lines: int = 500) -> None:
        super().__init__(id=id)
        self.entries: deque[Entry] = deque(maxlen=max_lines)
        self.back = 0  # how many of the newest rows are scrolled out of view
        self.fill = 0  # rows in use from the top (the newest ones), when not paged back

    def write(self, *lines: Text) -> None:
        """Add lines and show the newest: below those shown while they fit, else after the
        newest half of the view, moved to the top."""
        entries = [Entry(line) for line in lines]
        self.entries.extend(entries)
        self.back = 0
        width, height = self.rows_size()
        if width > 0 and height > 0:
            added = sum(len(self._wrapped(entry, width)) for entry in entries)
            fill = self.fill + added
            self.fill = fill if fill <= height else min(height, height // 2 + added)
        self.redraw()

    def clear(self) -> None:
        """Forget every line."""
        self.entries.clear()
        self.back = self.fill = 0
        self.redraw()

    def on_resize(self) -> None:
        width, height = self.rows_size()
        self.fill = self._newest_rows(width, height)  # as many as fit
        super().on_resize()

    def _newest_rows(self, width: int, height: int) -> int:
        """How many rows the newest lines take, counted up to `height`."""
        rows = 0
        for entry in reversed(self.entries):
            rows += len(self._wrapped(entry, width))
            if rows >= height:
                return height
        return rows

    def page(self, pages: int) -> None:
        """Scroll by `pages` screens: negative is older, positive newer. Each page back
        ends on the row just above the top of the one before; the oldest page is full."""
        width, height = self.rows_size()
        if width <= 0 or height <= 1:
            return
        total = sum(len(self._wrapped(entry, width)) for entry in self.entries)
        room = height - 1  # a page back ends with the "newer lines" row
        newest = min(self.fill, height)  # rows shown when not paged back
        back = self.back
        for _ in range(abs(pages)):
            if pages < 0:
                back = max(0, min(back + (room if back else newest), total - room))
            else:
                back = 0 if back <= max(room, newest) else back - room
        self.back = back
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The newest `fill` rows from the top; when paged back, the `height - 1` rows that
        end `back` rows above the newest, then a "newer lines" row."""
        if not self.back:
            return self._ending(0, min(self.fill, height), width)
        return [*self._ending(self.back, height - 1, width), MORE]

    def _ending(self, back: int, room: int, width: int) -> list[Text]:
        """`room` rows of the log ending `back` rows above its newest row."""
        shown: list[Text] = []
        for index in range(len(self.entries) - 1, -1, -1):
            shown[:0] = self._wrapped(self.entries[index], width)
            if len(shown) >= back + room:
                break
        end = len(shown) - back
        return shown[max(0, end - room) : end] if room > 0 and end > 0 else []

    def _wrapped(self, entry: Entry, width: int) -> list[Text]:
        if entry.width != width:
            entry.rows, entry.width = wrap_rows(entry.text, width, self.app.console), width
        return entry.rows
