"""One-line Inputs that never hold control characters (the protocol refuses them)."""

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


class FieldInput(PlainInput):
    """A text field of a box whose screen binds Enter (the new-table form, the admin line, the
    rejoin code): Enter is the screen's key. The field's own Enter binding (submit, hidden)
    is switched off, so Enter reaches the screen's binding, in order after the keys typed
    before it, and the key bar shows that binding while the field has the focus."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Every action of an Input but submitting, which is the screen's Enter binding."""
        return action != "submit" and super().check_action(action, parameters)
