"""The pending decision as a short numbered list, or what the table is waiting for."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from lovelet_tui.staging import Staging
from lovelet_tui.widgets.redraw import redraw


class ChoicePanel(Static):
    """One step of a staged decision (the cursor line reversed), or a status text."""

    DEFAULT_CSS = """
    ChoicePanel {
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.staging: Staging | None = None

    def on_resize(self) -> None:
        if self.staging is not None:
            self.show_staging(self.staging)

    def show_staging(self, staging: Staging) -> None:
        """The prompt of the current step and as many options as fit, around the cursor."""
        self.staging = staging
        options = staging.options
        rows = self.content_size.height - 1 if self.content_size.height > 1 else len(options)
        start = max(0, min(staging.cursor - rows // 2, len(options) - rows))
        lines = [Text(staging.prompt, style="bold")]
        for index, option in enumerate(options[start : start + rows], start):
            line = Text(f" {option.key or ' '}  {option.label}")
            if index == staging.cursor:
                line.stylize("reverse")
            lines.append(line)
        redraw(self, Text("\n").join(lines))

    def show_text(self, text: Text) -> None:
        """A status text instead of choices."""
        self.staging = None
        redraw(self, text)
