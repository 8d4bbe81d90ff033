"""A widget drawn as one-line rows of Rich text, repainted row by row.

Every table update reaches four or more screens, so what one costs matters: a `Static`
re-renders its whole text on any change, and the compositor repaints the whole widget. A
`Rows` widget compares the new rows with those shown, marks only the changed rows dirty, and
keeps each row's rendering (a `Strip`) while the same text stays on screen, even when it moves
to another row (a log scrolling up). Rendered lines are also shared between widgets and
sessions (`SHARED_LINES`): the screens at one table show mostly the same rows, and a row with
the same text, width and look renders to the same line. Wrapped texts are shared the same
way (`SHARED_WRAPS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size, Spacing
from textual.strip import Strip
from textual.widget import Widget

from lovelet_tui.compat import repaint_regions
from lovelet_tui.recent import RecentCache

SHARED_LINES_KEPT = 4096  # whole lines kept for every widget of every session to reuse
SHARED_LINES: RecentCache[tuple, Strip] = RecentCache(SHARED_LINES_KEPT)  # row, width, look → line
SHARED_WRAPS: RecentCache[tuple, tuple[Text, ...]] = RecentCache(SHARED_LINES_KEPT)
"""Texts wrapped to a width, for every widget of every session: a table's screens show
mostly the same log lines and statuses."""
LOOK_NUMBERS: dict[tuple, int] = {}  # each way of drawing seen so far, numbered for those keys


class Rows(Widget):
    """Rows from `build_rows`, each cut to the width with an ellipsis; `redraw` after a change.

    A row is rendered once into a whole line (padding, background and the app's line filters
    included) and kept until it changes, so repainting it skips Textual's per-line styling. A
    widget with a border or an outline takes Textual's usual path instead.
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._rows: list[Text] = []
        self._lines: list[Strip | None] = []  # each row's whole line, once rendered
        self._width = 0  # the content width the lines were rendered at
        self._look: _Look | None = None  # styles and filters, until the styles change
        self._blank: Strip | None = None  # a whole line with no row on it

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The rows to show at this content size; subclasses say what they show."""
        return []

    def redraw(self) -> None:
        """Show what `build_rows` gives now, repainting only the rows that changed."""
        width, height = self.rows_size()
        if width <= 0 or height <= 0:
            return  # not laid out, or hidden: the first resize draws
        self._show(self.build_rows(width, height), width)

    def rows_size(self) -> Size:
        """`content_size`, with the padding and border read once per look: 0 × 0 until the
        widget is laid out, and while it is hidden."""
        region = self.region
        return region.shrink(self._looks().gutter).size if region else Size(0, 0)

    def on_resize(self) -> None:
        self._width = 0  # every row renders anew at the new width
        self.redraw()

    def notify_style_update(self) -> None:
        """Styles changed (classes, theme): every row renders anew."""
        super().notify_style_update()
        self._look = self._blank = None
        self._lines = [None] * len(self._rows)
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The whole lines of `crop` (widget coordinates), from the row cache."""
        look = self._looks()
        if look.framed:
            return super().render_lines(crop)
        top = look.gutter.top
        lines = [self._whole_line(y - top) for y in crop.line_range]
        x1, x2 = crop.column_span
        if (x1, x2) != (0, self.outer_size.width):
            lines = [line.crop(x1, x2) for line in lines]
        return lines

    def render_line(self, y: int) -> Strip:
        """Row `y` of the content alone (Textual's path, for a widget with a border)."""
        style = self._looks().style
        if y >= len(self._rows):
            return Strip.blank(self._width, style)
        width = self._width
        return Strip(_row_segments(self._rows[y], width, self.app.console, style), width)

    def _whole_line(self, y: int) -> Strip:
        """Content row `y` (or a padding row outside them) across the widget's whole width."""
        if 0 <= y < len(self._rows):
            line = self._lines[y]
            if line is None:
                line = self._lines[y] = self._looks().line(
                    self._rows[y], self._width, self.app.console
                )
            return line
        if self._blank is None:
            look = self._looks()
            self._blank = look.finish([Segment(" " * self._width, look.style)], self._width)
        return self._blank

    def _looks(self) -> _Look:
        look = self._look
        if look is None:
            style, styles = self.rich_style, self.styles
            _, right, _, left = styles.padding
            background = self.background_colors[1]
            filters = tuple(self.app.get_line_filters())
            kind = (
                style,
                left,
                right,
                background,
                tuple((type(f), tuple(vars(f).items())) for f in filters),
                self.app.console.color_system,
            )
            number = LOOK_NUMBERS.setdefault(kind, len(LOOK_NUMBERS))
            framed = any(edge for edge, _ in styles.border) or any(
                edge for edge, _ in styles.outline
            )
            look = _Look(
                style,
                Style(bgcolor=style.bgcolor),
                left,
                right,
                background,
                filters,
                number,
                styles.gutter,
                framed,
            )
            self._look = look
        return look

    def _show(self, rows: list[Text], width: int) -> None:
        old_rows, old_lines = self._rows, self._lines
        if width != self._width:
            self._rows, self._lines, self._width = rows, [None] * len(rows), width
            self.refresh()
            return
        moved = {id(row): line for row, line in zip(old_rows, old_lines, strict=True)}
        lines: list[Strip | None] = []
        dirty: list[int] = []
        for y, row in enumerate(rows):
            if y < len(old_rows) and _same(old_rows[y], row):
                lines.append(old_lines[y])
                continue
            lines.append(moved.get(id(row)))
            dirty.append(y)
        dirty.extend(range(len(rows), len(old_rows)))  # rows no longer shown turn blank
        self._rows, self._lines = rows, lines
        if dirty:
            self._repaint(_regions(dirty, width))

    def _repaint(self, regions: list[Region]) -> None:
        """Repaint `regions` at the screen's next update.

        `refresh()` would wake this widget's own message loop, which then posts `Update` to
        the screen: task switches and idle passes per widget per table update. A `Rows`
        widget's size never depends on its rows, so it marks the regions dirty and hands
        itself to the screen directly (`repaint_regions`).
        """
        if not self.is_mounted or not self.display:
            self.refresh(*regions)
            return
        repaint_regions(self, regions)


@dataclass(frozen=True, slots=True)
class _Look:
    """What a widget's lines are drawn with: its style, padding and the app's line filters.
    `number` is the same for looks that draw alike, even in different apps: same style,
    padding, kinds of filters and terminal colours (a line keeps the escape codes it was
    first sent with)."""

    style: Style
    pad: Style
    left: int
    right: int
    background: Color
    filters: tuple[LineFilter, ...]
    number: int
    gutter: Spacing  # padding and border: the content's offset in the widget
    framed: bool  # a border or an outline: drawn by Textual, not by `line`

    def line(self, row: Text, width: int, console: Console) -> Strip:
        """`row` as a whole line `width` cells wide, from `SHARED_LINES` if drawn before."""
        key = (row.plain, tuple(row.spans), row.style, row.justify, width, self.number)
        line = SHARED_LINES.get(key)
        if line is None:
            segments = _row_segments(row, width, console, self.style)
            line = SHARED_LINES[key] = self.finish(segments, width)
        return line

    def finish(self, segments: list[Segment], width: int) -> Strip:
        """`segments`, `width` cells, with the left and right padding and the line filters
        applied, as one strip (Textual's `Strip` methods would make a strip per step)."""
        left, right = self.left, self.right
        if left or right:
            segments = [Segment(" " * left, self.pad), *segments, Segment(" " * right, self.pad)]
        for line_filter in self.filters:
            segments = line_filter.apply(segments, self.background)
        return Strip(segments, left + width + right)


def wrap_rows(text: Text, width: int, console: Console) -> list[Text]:
    """`text` split at its newlines and wrapped to `width` cells, from `SHARED_WRAPS` if
    wrapped before (the rows are shared: never change one)."""
    if width <= 0:
        return []
    key = (text.plain, tuple(text.spans), text.style, text.justify, text.overflow, text.no_wrap)
    key += (text.tab_size, width)
    rows = SHARED_WRAPS.get(key)
    if rows is None:
        rows = SHARED_WRAPS[key] = tuple(text.wrap(console, width))
    return list(rows)


def _same(shown: Text, row: Text) -> bool:
    return shown is row or (
        shown.plain == row.plain and shown.spans == row.spans and shown.style == row.style
    )


def _row_segments(row: Text, width: int, console: Console, style: Style) -> list[Segment]:
    """`row` cut or padded to `width` cells, over the widget's own style."""
    if row.cell_len > width:
        row = row.copy()
        row.truncate(width, overflow="ellipsis")
    segments = list(row.render(console))
    if row.style and not row.spans:  # Rich's `render` applies a base style only with spans
        segments = list(Segment.apply_style(segments, console.get_style(row.style)))
    if (missing := width - row.cell_len) > 0:
        segments.append(Segment(" " * missing))
    return list(Segment.apply_style(segments, style))


def _regions(rows: Sequence[int], width: int) -> list[Region]:
    """Runs of consecutive rows as one region each (content coordinates)."""
    regions: list[Region] = []
    for y in rows:
        last = regions[-1] if regions else None
        if last is not None and last.bottom == y:
            regions[-1] = Region(0, last.y, width, last.height + 1)
        else:
            regions.append(Region(0, y, width, 1))
    return regions


class TextRows(Rows):
    """A Rich text as rows: wrapped to the width, or one row per line cut with an ellipsis."""

    def __init__(self, *, wrap: bool = True, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.wrap = wrap
        self.text = Text()

    def show(self, text: Text) -> None:
        """Show `text`."""
        self.text = text
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The text's rows at this width."""
        if self.wrap:
            return wrap_rows(self.text, width, self.app.console)
        return list(self.text.split(allow_blank=True))[:height]
