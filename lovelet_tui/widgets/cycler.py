"""A one-line form field whose value is picked from a list with ← and →."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from lovelet_tui.actions import bindings


class Cycler(Static, can_focus=True):
    """`label: ‹ value ›`; posts `Changed` when the value moves."""

    DEFAULT_CSS = """
    Cycler {
        height: 1;
        width: 1fr;
    }
    Cycler:focus {
        background: $accent 30%;
    }
    """
    BINDINGS = bindings("field")

    class Changed(Message):
        """The value of `cycler` changed."""

        def __init__(self, cycler: Cycler) -> None:
            super().__init__()
            self.cycler = cycler

    def __init__(
        self,
        label: str,
        options: Sequence[tuple[Any, str]],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.label = label
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

    def action_cycle(self, delta: int) -> None:
        """Move to the next (`delta` 1) or previous (-1) option, wrapping around."""
        self.index = (self.index + delta) % len(self.options)
        self._draw()
        self.post_message(self.Changed(self))

    def _draw(self) -> None:
        shown = self.options[self.index][1]
        self.update(Text.assemble((f"{self.label:<12}", "bold"), f"‹ {shown} ›"), layout=False)
