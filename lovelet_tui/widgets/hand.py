"""The receiver's hand: each card's name, value and effect, wrapped under the card's name
when the width is short (a rare three-card hand with long texts is cut at the last row)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from lovelet_tui.names import Names
from lovelet_tui.widgets.rows import Rows, wrap_rows

GUTTER = "Hand  "
MIN_ROWS, MAX_ROWS = 3, 5


class HandView(Rows):
    """Up to three cards (a Chancellor's draw); the widget grows to fit wrapped texts.

    It does not shrink back while cards are shown at one width: a hand changes every turn,
    and each change of height costs every widget of the screen a layout."""

    DEFAULT_CSS = """
    HandView {
        height: 3;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.cards: list[Text] = []
        self.note: Text | None = None
        self.shown: tuple[tuple[str, ...], object] | None = None  # the hand, by its card names
        self.fitted = (0, MIN_ROWS)  # the width last fitted, and the tallest hand at it
        self._wrapped: tuple[int, list[Text]] | None = None  # (width, rows) for what is shown

    def show(self, hand: Sequence[str], names: Names) -> None:
        """Render `hand` (nothing to do when it is what is shown, by the same card names)."""
        shown = (tuple(hand), names.cards)
        if shown == self.shown:
            return
        self.shown = shown
        self.cards = [_card_line(card, names) for card in hand]
        self.note = None if self.cards else Text("no cards", style="dim")
        self._wrapped = None
        self._fit()

    def show_note(self, note: str) -> None:
        """A note instead of cards (before the game, or for a spectator)."""
        shown = Text(note, style="dim")
        if self.cards or shown != self.note:
            self.cards, self.note, self._wrapped, self.shown = [], shown, None, None
            self._fit()

    def on_resize(self) -> None:
        self._fit()
        super().on_resize()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """The gutter, then each card's rows wrapped under its name."""
        return self._card_rows(width)[:height]

    def _fit(self) -> None:
        """Grow to the rows the hand takes now (shrink only for a note or a new width), then
        draw."""
        width = self.rows_size().width
        wanted = (
            max(MIN_ROWS, min(MAX_ROWS, len(self._card_rows(width)))) if width > 0 else MIN_ROWS
        )
        fitted_width, tallest = self.fitted
        if self.shown is not None and width == fitted_width:  # a hand, even an empty one
            wanted = max(wanted, tallest)
        self.fitted = (width, wanted)
        if self.styles.height is None or self.styles.height.value != wanted:
            self.styles.height = wanted
        self.redraw()

    def _card_rows(self, width: int) -> list[Text]:
        """The rows of what is shown at `width` (wrapped once per hand and width)."""
        if self.note is not None:
            return [self.note]
        if self._wrapped is not None and self._wrapped[0] == width:
            return self._wrapped[1]
        rows = self._wrap(width)
        self._wrapped = (width, rows)
        return rows

    def _wrap(self, width: int) -> list[Text]:
        indent = len(GUTTER)
        rows: list[Text] = []
        for card in self.cards:
            for part in wrap_rows(card, max(1, width - indent), self.app.console):
                gutter = GUTTER if not rows else " " * indent
                rows.append(Text.assemble((gutter, "bold"), part))
        return rows


def _card_line(card: str, names: Names) -> Text:
    spec = names.cards.get(card)
    line = Text(f"{names.card(card)} {spec.value if spec else '?'}", style="bold")
    line.append(f"  {spec.text if spec else ''}", style="")
    return line
