"""The pending decision as a short numbered list, or what the table is waiting for; above
either, the timer when it concerns the receiver (its turn, or the pause between rounds)."""

from __future__ import annotations

from rich.text import Text

from lovelet_tui.staging import Staging
from lovelet_tui.widgets.rows import Rows, wrap_rows


class ChoicePanel(Rows):
    """One step of a staged decision (the cursor line reversed), or a status text."""

    DEFAULT_CSS = """
    ChoicePanel {
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.staging: Staging | None = None
        self.status = Text()
        self.note = Text()  # above the staged step: a hint the server gave for this decision
        self.clock = Text()
        self._body: tuple[int, int, list[Text]] | None = None  # width, height, rows below it

    def on_resize(self) -> None:
        self._body = None
        super().on_resize()

    def show_clock(self, clock: Text) -> None:
        """The timer line (empty: none); a tick repaints that row alone."""
        if clock.plain == self.clock.plain and clock.style == self.clock.style:
            return  # another player's turn: the panel has nothing to redraw
        if bool(clock) != bool(self.clock):
            self._body = None  # the rows below it get one row more or less
        self.clock = clock
        self.redraw()

    def show_staging(self, staging: Staging, note: Text | None = None) -> None:
        """The prompt of the current step and as many options as fit, around the cursor,
        below `note` (a hint) if given."""
        self.staging, self.note, self._body = staging, note or Text(), None
        self.redraw()

    def show_text(self, text: Text) -> None:
        """A status text instead of choices."""
        self.staging, self.status, self._body = None, text, None
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The timer, then the staged step's rows or the status wrapped to the width (kept
        while only the timer changes)."""
        clock = [self.clock] if self.clock else []
        if self._body is None or self._body[:2] != (width, height):
            self._body = (width, height, self._body_rows(width, height - len(clock)))
        return clock + self._body[2]

    def _body_rows(self, width: int, height: int) -> list[Text]:
        staging = self.staging
        if staging is None:
            return wrap_rows(self.status, width, self.app.console)
        options = staging.options
        rows = wrap_rows(self.note, width, self.app.console) if self.note else []
        rows += wrap_rows(Text(staging.prompt, style="bold"), width, self.app.console)
        room = max(1, height - len(rows))
        start = max(0, min(staging.cursor - room // 2, len(options) - room))
        for index, option in enumerate(options[start : start + room], start):
            row = Text(f" {option.key or ' '}  {option.label}")
            if index == staging.cursor:
                row.stylize("reverse")
            rows.append(row)
        return rows
