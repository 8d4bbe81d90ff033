"""The card tracker: how many copies of each card the receiver has not seen."""

from __future__ import annotations

from collections.abc import Mapping

from rich.cells import cell_len
from rich.text import Text

from lovelet_tui.names import Names
from lovelet_tui.widgets.rows import Rows
from protocol import CardInfo

TITLE = Text("Unseen cards (left/total)", style="bold")
GAP = 2  # cells between the two columns


class Tracker(Rows):
    """Two columns of `value name unseen/count`, from the view's `unseen` and reference."""

    DEFAULT_CSS = """
    Tracker {
        height: 1fr;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.unseen: Mapping[str, int] = {}
        self.names: Names | None = None

    def show(self, unseen: Mapping[str, int], names: Names) -> None:
        """Render the counts; cards with nothing left unseen are dimmed. Nothing is built
        while the tracker was never shown (the log has its pane until `t`)."""
        self.unseen, self.names = unseen, names
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The title, then the cells in two columns, the first half on the left."""
        cards = self.names.cards if self.names else {}
        cells = [_cell(card, self.unseen.get(card_id, 0)) for card_id, card in cards.items()]
        half = (len(cells) + 1) // 2
        column = max((cell_len(cell.plain) for cell in cells[:half]), default=0) + GAP
        rows = [TITLE]
        for index, left in enumerate(cells[:half]):
            row = left.copy()
            if half + index < len(cells):
                row.pad_right(column - cell_len(left.plain))
                row.append_text(cells[half + index])
            rows.append(row)
        return rows


def _cell(card: CardInfo, left: int) -> Text:
    text = Text(f"{card.value} {card.name} {left}/{card.count}")
    if left == 0:
        text.stylize("dim")
    return text
