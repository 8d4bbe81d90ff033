"""A backdrop: a screen or container whose own lines (its background) change only with its
styles or size, so they are rendered once and kept.

Textual's compositor renders every widget under a changed region, whole, on every update:
the table screen and its body container behind the widgets that cover them cost about as much
per table update as the rows that did change."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


class Backdrop(Widget):
    """Keeps its rendered lines for the last crop and size until its styles change.

    List it after the widget's own class (`class Body(Horizontal, Backdrop)`): Textual
    takes a widget's CSS from its first base alone."""

    _kept: tuple[Region, Size, list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of `crop`, rendered anew only for a new crop, size or style."""
        kept = self._kept
        if kept is None or kept[0] != crop or kept[1] != self.size:
            kept = self._kept = (crop, self.size, super().render_lines(crop))
        return list(kept[2])

    def notify_style_update(self) -> None:
        """Styles changed (classes, theme): render anew."""
        super().notify_style_update()
        self._kept = None


class BackdropRow(Horizontal, Backdrop):
    """A `Horizontal` container that is a backdrop."""
