"""The pending decision as a short numbered list, or what the table is waiting for."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lovelet_tui.staging import Staging


class ChoicePanel(Static):
    """Shows one step of a staged decision (the cursor line reversed), or a status text."""

    DEFAULT_CSS = """
    ChoicePanel {
        height: 1fr;
    }
    """

    def show_staging(self, staging: Staging) -> None:
        """The prompt of the current step and its options, each with the key that picks it."""
        lines = [Text(staging.prompt, style="bold")]
        for index, option in enumerate(staging.options):
            line = Text(f" {option.key or ' '}  {option.label}")
            if index == staging.cursor:
                line.stylize("reverse")
            lines.append(line)
        if staging.marks:
            lines.append(Text("Esc: back", style="dim"))
        self.update(Text("\n").join(lines), layout=False)

    def show_text(self, text: Text) -> None:
        """A status text instead of choices."""
        self.update(text, layout=False)
