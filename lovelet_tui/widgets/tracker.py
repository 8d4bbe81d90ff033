"""The card tracker: how many copies of each card the receiver has not seen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from lovelet_tui.names import Names


class Tracker(Static):
    """Two columns of `value name unseen/count`, from the view's `unseen` and reference."""

    DEFAULT_CSS = """
    Tracker {
        height: 1fr;
        padding: 0 1;
    }
    """

    def show(self, unseen: Mapping[str, int], names: Names) -> None:
        """Render the counts; cards with nothing left unseen are dimmed."""
        grid = Table.grid(padding=(0, 2))
        grid.add_column()
        grid.add_column()
        cells = [_cell(spec, unseen.get(card_id, 0)) for card_id, spec in names.cards.items()]
        half = (len(cells) + 1) // 2
        for left, right in zip(cells[:half], [*cells[half:], Text()], strict=False):
            grid.add_row(left, right)
        title = Text("Unseen cards (left/total)", style="bold")
        self.update(_stack(title, grid), layout=False)


def _cell(spec: Mapping[str, Any], left: int) -> Text:
    text = Text(f"{spec.get('value', '?')} {spec.get('name', '?')} {left}/{spec.get('count', '?')}")
    if left == 0:
        text.stylize("dim")
    return text


def _stack(title: Text, grid: Table) -> Table:
    outer = Table.grid()
    outer.add_row(title)
    outer.add_row(grid)
    return outer
