"""The table's header line: code, name, edition and round on the left, the running timer on
the right; shorter forms of the parts where the width is tight, whole words only."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from lovelet_tui.widgets.rows import Rows

SEPARATOR = " · "
GAP = 2  # cells at least between the left part and the timer


class TableHeader(Rows):
    """One row; `show` takes the parts in their long and short forms, `show_clock` the
    timer, which alone changes while a timer runs."""

    DEFAULT_CSS = """
    TableHeader {
        height: 1;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.parts: Sequence[tuple[str, str]] = ()  # (long, short) forms; short "" drops it
        self.keep = 0  # how many of the first parts are never left out
        self.clock = Text()

    def show(self, parts: Sequence[tuple[str, str]], keep: int | None = None) -> None:
        """The left part: each part as (long form, short form or "" to leave it out); where
        even the short forms do not fit, the parts after the first `keep` (all by default) are
        left out from the last, before words are cut."""
        self.parts, self.keep = parts, len(parts) if keep is None else keep
        self.redraw()

    def show_clock(self, clock: Text) -> None:
        """The timer at the right edge (empty when none runs)."""
        if clock.plain == self.clock.plain and clock.style == self.clock.style:
            return
        self.clock = clock
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The longest form of the parts that fits beside the timer."""
        room = width - (cell_len(self.clock.plain) + GAP if self.clock else 0)
        left = _fit(self.parts, room, self.keep)
        row = Text(left, style="bold", end="")
        if self.clock:
            row.pad_right(max(GAP, width - cell_len(left) - cell_len(self.clock.plain)))
            row.append_text(self.clock)
        return [row]


def _fit(parts: Sequence[tuple[str, str]], room: int, keep: int) -> str:
    """The parts joined, shortening them from the first one on until the line fits, then
    leaving out those after the first `keep` from the last one on."""
    chosen = [long for long, _ in parts]
    for index in range(len(parts)):
        line = SEPARATOR.join(part for part in chosen if part)
        if cell_len(line) <= room:
            return line
        chosen[index] = parts[index][1]
    line = SEPARATOR.join(part for part in chosen if part)
    while cell_len(line) > room and len(chosen) > keep:
        chosen.pop()
        line = SEPARATOR.join(part for part in chosen if part)
    return line if cell_len(line) <= room else _words(line, room)


def _words(line: str, room: int) -> str:
    """The first whole words of `line` that fit in `room` cells, then "…"."""
    kept = ""
    for word in line.split(" "):
        longer = f"{kept} {word}" if kept else word
        if cell_len(longer) + 1 > room:
            break
        kept = longer
    kept = kept.rstrip(SEPARATOR)  # no separator before the ellipsis
    return f"{kept}…" if kept else ""
