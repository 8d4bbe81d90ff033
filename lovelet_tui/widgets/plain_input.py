"""A one-line Input that never holds control characters (the protocol refuses them)."""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Input

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: ESC and friends


class PlainInput(Input):
    """Typed or pasted text loses its control characters as it goes in. No blinking cursor
    (a blink is a timer per session)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cursor_blink = False

    def replace(self, text: str, start: int, end: int) -> None:
        """Replace `start:end` with `text`, control characters removed."""
        super().replace(CONTROL.sub("", text), start, end)
