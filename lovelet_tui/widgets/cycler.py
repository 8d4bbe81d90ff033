"""A one-line form field whose value is picked from a list with ← and →.

The field runs its own keys as they reach it, and tells its form of a change at once, so keys
read in one burst act in order: left to the app's bindings, a key with a Tab behind it would be
checked only once the Tab had moved the focus, and a message would arrive after later keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

from lovelet_tui.actions import bindings, key_actions

LABEL_WIDTH = 13  # the longest label ("Late joiners") and a space before the value


class Cycler(Static, can_focus=True):
    """`label  ‹ value ›`, the arrows only where there is more; calls `on_change` with
    itself when the value moves."""

    DEFAULT_CSS = """
    Cycler {
        height: 1;
        width: 1fr;
    }
    Cycler:focus {
        background: $accent 30%;
    }
    """
    BINDINGS = bindings("field")  # for the key bar and help: `on_key` runs them, in order
    KEYS = key_actions("field")

    def __init__(
        self,
        label: str,
        options: Sequence[tuple[Any, str]],
        *,
        id: str | None = None,
        on_change: Callable[[Cycler], None] | None = None,
    ) -> None:
        super().__init__(id=id)
        self.label = label
        self.on_change = on_change
        self.options = list(options)
        self.index = 0

    @property
    def value(self) -> Any:
        """The chosen value."""
        return self.options[self.index][0]

    def set_options(self, options: Sequence[tuple[Any, str]], value: Any) -> None:
        """Replace the options and select `value` (the first option if it is not offered)."""
        self.options = list(options)
        values = [v for v, _ in self.options]
        self.index = values.index(value) if value in values else 0
        self._draw()

    def on_mount(self) -> None:
        self._draw()

    async def on_key(self, event: events.Key) -> None:
        if event.key in self.KEYS:
            event.prevent_default()
            event.stop()
            await self.run_action(self.KEYS[event.key])

    def action_cycle(self, delta: int) -> None:
        """Move to the next (`delta` 1) or previous (-1) option, stopping at either end."""
        index = max(0, min(len(self.options) - 1, self.index + delta))
        if index == self.index:
            return
        self.index = index
        self._draw()
        if self.on_change is not None:
            self.on_change(self)

    def _draw(self) -> None:
        shown = self.options[self.index][1]
        before = "‹ " if self.index > 0 else "  "
        after = " ›" if self.index < len(self.options) - 1 else ""
        label = (f"{self.label:<{LABEL_WIDTH}}", "bold")
        self.update(Text.assemble(label, before, shown, after), layout=False)
