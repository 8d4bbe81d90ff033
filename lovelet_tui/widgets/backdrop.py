"""A backdrop: a screen or container whose own lines (its background) change only with its
styles or size, so they are rendered once and kept.

Textual's compositor renders every widget under a changed region on every update: the table
screen and its body container behind the widgets that cover them cost about as much per
table update as the rows that did change."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget


class Backdrop(Widget):
    """Keeps its rendered lines, all of them, until its size or styles change.

    List it after the widget's own class (`class Body(Horizontal, Backdrop)`): Textual
    takes a widget's CSS from its first base alone."""

    _kept: tuple[Size, list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of `crop`, cut from the whole backdrop rendered once."""
        size, kept = self.outer_size, self._kept
        if kept is None or kept[0] != size:
            kept = self._kept = (size, super().render_lines(size.region))
        lines = kept[1][crop.y : crop.bottom]
        if crop.column_span != (0, size.width):
            return [line.crop(crop.x, crop.right) for line in lines]
        return lines

    def notify_style_update(self) -> None:
        """Styles changed (classes, theme): render anew."""
        super().notify_style_update()
        self._kept = None


class BackdropRow(Horizontal, Backdrop):
    """A `Horizontal` container that is a backdrop."""
