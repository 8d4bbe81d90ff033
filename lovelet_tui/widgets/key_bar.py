"""The footer: one line of the keys that mean something now, redrawn in place.

Textual's `Footer` remounts a widget per key whenever bindings change, one frame late; this
bar re-renders one line at once, and only when the keys shown changed. A screen whose keys
follow from a state it can name (`keys_state()`) gets each state's line made once: a table
screen's keys change twice per turn of its player.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

from rich.cells import cell_len
from rich.text import Text
from textual.screen import Screen

from lovelet_tui.recent import RecentCache
from lovelet_tui.widgets.rows import Rows

GAP = "  "  # between two entries (a description has no two spaces in a row)
SHARED_LINES_KEPT = 256
SHARED_LINES: RecentCache[Hashable, Text] = RecentCache(SHARED_LINES_KEPT)
"""Key lines by screen class, keys state and focused widget, shared by every bar."""


class KeyBar(Rows):
    """Shown keys of the screen's active bindings, one entry per action, in binding order."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $footer-background;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys = Text()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed, immediate=True)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The keys that fit the width, the last two (Quit and Help) always among them."""
        return [fit_keys(self.keys, width)]

    def _bindings_changed(self, screen: Screen[object]) -> None:
        state = getattr(screen, "keys_state", None)
        if state is None:
            self.keys = self._line(screen)
        else:
            focused = self.app.focused
            key = (type(self.app), type(screen), state(), type(focused), focused and focused.id)
            line = SHARED_LINES.get(key)
            if line is None:
                line = SHARED_LINES[key] = self._line(screen)
            self.keys = line
        self.redraw()

    def _line(self, screen: Screen[object]) -> Text:
        text = Text()
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in actions:
                continue
            actions.add(binding.action)
            shown = getattr(screen, "key_shown", None)  # a screen may name keys that vary
            key = (shown(binding) if shown else None) or self.app.get_key_display(binding)
            text.append(f"{key} ", style="bold").append(f"{binding.description}{GAP}")
        return text


def fit_keys(line: Text, width: int) -> Text:
    """`line` if it fits `width`; else its first entries that fit with "…" and its last two
    (help lists every key): `→ Step  ← Back  …  ^q Quit  ? Help`. Entries are never cut."""
    if cell_len(line.plain) <= width:
        return line
    plain = line.plain.rstrip()
    starts = [0, *(m.end() for m in re.finditer(GAP, plain))]
    entries = [line[a:b] for a, b in zip(starts, [*starts[1:], len(plain)], strict=True)]
    head, tail = entries[:-2], entries[-2:]
    for kept in range(len(head), -1, -1):
        more = [Text(f"…{GAP}")] if kept < len(head) else []
        cut = Text("").join([*head[:kept], *more, *tail])
        if cell_len(cut.plain) <= width:
            return cut
    return Text("").join(tail)
