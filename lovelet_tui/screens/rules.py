"""The rules of one edition in short plain text, then its cards; ← and → switch editions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from lovelet_tui.actions import bindings
from lovelet_tui.editions import catalogue_of, reference
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.too_small import TooSmall


class RulesScreen(Screen[None]):
    """Rules text for `edition` (the catalogue's first if it has no such edition); Esc goes
    back to help."""

    CSS_PATH = "rules.tcss"
    BINDINGS = bindings("rules")

    def __init__(self, edition: str) -> None:
        super().__init__()
        self.edition = edition
        self.index = 0

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            yield Static(id="rules")
        yield KeyBar()

    def on_mount(self) -> None:
        self._start()

    def on_screen_resume(self) -> None:
        """Shown again (`lovelet_tui.kept`): from its own edition, at the top."""
        if self.is_mounted:
            self._start()
            self.query_one("#main", VerticalScroll).scroll_home(animate=False)

    def _start(self) -> None:
        ids = [e.id for e in catalogue_of(self).editions]
        self.index = ids.index(self.edition) if self.edition in ids else 0
        self._draw()

    def action_edition(self, delta: int) -> None:
        """Show the next or previous edition's rules."""
        self.index = (self.index + delta) % max(1, len(catalogue_of(self).editions))
        self._draw()

    def action_close(self) -> None:
        """Back to help."""
        self.dismiss()

    def _draw(self) -> None:
        catalogue = catalogue_of(self)
        if not catalogue.editions:
            self.query_one("#rules", Static).update(Text("No editions yet: still connecting."))
            return
        edition = catalogue.editions[self.index]
        text = Text.assemble((edition.name, "bold underline"), "\n\n", edition.rules, "\n")
        cards = Text("Cards", style="bold underline")
        table = card_table(reference(catalogue, edition.id))
        self.query_one("#rules", Static).update(Group(text, cards, table))


def card_table(cards: Sequence[Mapping[str, Any]]) -> Table:
    """The reference card; every cell a plain Text, never markup."""
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right")
    table.add_column(no_wrap=True)
    table.add_column(justify="right")
    table.add_column(ratio=1)
    for card in cards:
        table.add_row(
            Text(str(card.get("value", ""))),
            Text(str(card.get("name", "")), style="bold"),
            Text(f"×{card.get('count', '')}"),
            Text(str(card.get("text", ""))),
        )
    return table
