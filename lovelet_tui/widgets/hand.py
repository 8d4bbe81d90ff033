"""The receiver's hand: each card's name, value and one-line effect."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from lovelet_tui.names import Names
from lovelet_tui.widgets.rows import Rows

GUTTER = "Hand  "


class HandView(Rows):
    """Up to three cards (a Chancellor's draw), one line each, cut to the width."""

    DEFAULT_CSS = """
    HandView {
        height: 3;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.lines: list[Text] = []

    def show(self, hand: Sequence[str], names: Names) -> None:
        """Render `hand`."""
        cards = [_card_line(card, names) for card in hand] or [Text("no cards", style="dim")]
        gutters = [GUTTER] + [" " * len(GUTTER)] * (len(cards) - 1)
        self.lines = [
            Text.assemble((gutter, "bold"), card)
            for gutter, card in zip(gutters, cards, strict=True)
        ]
        self.redraw()

    def show_note(self, note: str) -> None:
        """A note instead of cards (before the game, or for a spectator)."""
        self.lines = [Text(note, style="dim")]
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """A row per card, cut to the width."""
        return self.lines


def _card_line(card: str, names: Names) -> Text:
    spec = names.cards.get(card, {})
    line = Text(f"{names.card(card)} {spec.get('value', '?')}", style="bold")
    line.append(f"  {spec.get('text', '')}", style="")
    return line
