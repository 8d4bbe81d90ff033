"""A partial screen update renders only the lines it repaints.

Textual's `Compositor._render_chops` asks every widget that overlaps the box around all
changed regions for all of its lines, then keeps those of the changed lines. A table update
changes rows from the seat list down to the choice panel, so the whole log, the hand and
every unchanged row were rendered (from their caches) and walked over on every screen: 38
lines a screen update in a front-end at 1,000 players; for a 2-line repaint in the test, 38
against 3 now. `render_repainted_lines` makes each widget render only
the band of lines between its first and last repainted one; the chops, and so what is sent,
are the same, as the tests compare.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class Composition(Protocol):
    """What a partial update reads of Textual's compositor."""

    @property
    def cuts(self) -> list[list[int]]:
        """Where each line of the screen is cut between widgets."""
        ...

    @property
    def visible_widgets(self) -> dict[Widget, tuple[Region, Region]]:
        """Each visible widget's region and clip, front to back."""
        ...


def render_repainted_lines(
    compositor: Composition, crop: Region, is_rendered_line: Callable[[int], bool]
) -> Sequence[Mapping[int, Strip]]:
    """Textual's `Compositor._render_chops`, asking each widget for its band of repainted
    lines only (`server.ssh.compat.install_patches` puts it in place)."""
    cuts = compositor.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    repainted = [y for y in crop.line_range if is_rendered_line(y)]  # in order
    overlaps = crop.overlaps
    for widget, (region, clip) in compositor.visible_widgets.items():
        if not overlaps(clip):
            continue
        shown = region.intersection(clip)
        if not shown:
            continue
        first = bisect_left(repainted, shown.y)
        last = bisect_left(repainted, shown.bottom) - 1
        if last < first:
            continue
        top, bottom = repainted[first], repainted[last] + 1
        band = Region(shown.x - region.x, top - region.y, shown.width, bottom - top)
        first_cut, last_cut = shown.column_span
        for y, strip in zip(range(top, bottom), widget.render_lines(band), strict=False):
            if not is_rendered_line(y):
                continue
            chops_line = chops[y]
            final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
            pieces = strip.divide([cut - shown.x for cut in final_cuts[1:]])
            for cut, piece in zip(final_cuts, pieces, strict=False):
                if chops_line.get(cut) is None:  # painting front to back: the first wins
                    chops_line[cut] = piece
    return chops  # type: ignore[return-value]
