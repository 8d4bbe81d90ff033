"""The footer: one line of the keys that mean something now, redrawn in place.

Textual's `Footer` remounts a widget per key whenever bindings change, one frame late; this
bar re-renders one line at once, and only when the keys shown changed.
"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

from lovelet_tui.widgets.redraw import redraw


class KeyBar(Static):
    """Shown keys of the screen's active bindings, one entry per action, in binding order."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._draw, immediate=True)
        self._draw(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _draw(self, screen: Screen[object]) -> None:
        text = Text()
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in actions:
                continue
            actions.add(binding.action)
            key = self.app.get_key_display(binding)
            text.append(f"{key} ", style="bold").append(f"{binding.description}  ")
        redraw(self, text)
