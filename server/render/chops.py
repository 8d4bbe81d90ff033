"""A partial screen update renders only the lines it repaints.

Textual's `Compositor._render_chops` asks every widget that overlaps the box around all
changed regions for all of its lines, then keeps those of the changed lines. A table update
changes rows from the seat list down to the choice panel, so the whole log, the hand and
every unchanged row were rendered (from their caches) and walked over on every screen: 38
lines a screen update in a front-end at 1,000 players; for a 2-line repaint in the test, 38
against 3 now. `render_repainted_lines` makes each widget render only the band of lines
between its first and last repainted one, and not even those where the widgets in front of
it cover it whole (the table screen and its body, under their panes); the chops, and so
what is sent, are the same, as the tests compare.

`render_segments` writes those chops out without the cursor move Textual sent for each
piece starting just where a repainted span ends (an empty piece: nothing to draw).

Upstream, `Compositor._render_chops` could pass the changed lines' band to
`Widget.render_lines` (it takes a crop already) and skip widgets that `visible_widgets`
shows covered, and `ChopsUpdate.render_segments` could drop empty pieces (patch `chops`;
what it buys: benchmarks/results/2026-12-06-patches.md).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from rich.console import Console
from rich.control import Control
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class Chops(Protocol):
    """What a partial update holds: Textual's `ChopsUpdate`."""

    chops: Sequence[Mapping[int, Strip | None]]  # each line's pieces, by where they start
    spans: list[tuple[int, int, int]]  # y, x1, x2 (x2 excluded) of each repainted span
    chop_ends: list[list[int]]  # where each line's pieces end


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
        open_cuts = _open_cuts(chops, cuts, repainted[first : last + 1], shown.column_span)
        if not open_cuts:
            continue  # covered, on every line it has, by the widgets in front of it
        top, bottom = next(iter(open_cuts)), next(reversed(open_cuts)) + 1
        band = Region(shown.x - region.x, top - region.y, shown.width, bottom - top)
        for y, strip in zip(range(top, bottom), widget.render_lines(band), strict=False):
            final_cuts = open_cuts.get(y)
            if final_cuts is None:
                continue
            chops_line = chops[y]
            if len(final_cuts) == 2 and strip.cell_length == shown.width:
                pieces: Sequence[Strip] = (strip,)  # one piece: what `divide` gives
            else:
                pieces = strip.divide([cut - shown.x for cut in final_cuts[1:]])
            for cut, piece in zip(final_cuts, pieces, strict=False):
                if chops_line.get(cut) is None:  # painting front to back: the first wins
                    chops_line[cut] = piece
    return chops  # type: ignore[return-value]


def _open_cuts(
    chops: list[dict[int, Strip | None]],
    cuts: list[list[int]],
    lines: list[int],
    span: tuple[int, int],
) -> dict[int, list[int]]:
    """For each of `lines` where a widget spanning `span` would still show, the cuts of the
    line within its span. A widget fills a line's pieces from its first cut to the one
    before its last; where widgets in front filled them all, it shows nothing."""
    first_cut, last_cut = span
    open_cuts: dict[int, list[int]] = {}
    for y in lines:
        final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
        filled = chops[y].get
        for cut in final_cuts[:-1]:
            if filled(cut) is None:
                open_cuts[y] = final_cuts
                break
    return open_cuts


def render_segments(update: Chops, console: Console) -> str:
    """Textual's `ChopsUpdate.render_segments`, without a cursor move for a piece that
    starts where a span ends: Textual took that end as included, and sent a move and an
    empty piece (an empty `Strip`, with its caches) for each."""
    sequences: list[str] = []
    append = sequences.append
    move_to = Control.move_to
    chops, chop_ends = update.chops, update.chop_ends
    last_y = update.spans[-1][0]
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(chop_ends[y], chops[y].items(), strict=False):
            if strip is None or x >= x2 or end <= x1:
                continue
            if end > x2:
                strip = strip.crop(0, x2 - x)
            append(move_to(x, y).segment.text)
            append(strip.render(console))
        if y != last_y:
            append("\n")
    return "".join(sequences)
