"""Help: the table edition's cards (value, count, effect) and every key, from the actions
table."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen

from lovelet_tui.actions import ACTIONS, SCOPES, bindings, key_label
from lovelet_tui.editions import catalogue_of, edition_name, reference
from lovelet_tui.kept import show_kept
from lovelet_tui.screens.rules import RulesScreen, card_table
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.prerendered import Prerendered
from lovelet_tui.widgets.too_small import TooSmall

ADMIN_ONLY = "admin"  # the lobby's admin action and the admin command line's scope


class HelpScreen(Screen[None]):
    """Scrolls with ↑↓ and PgUp/PgDn; `r` opens the rules of the edition."""

    CSS_PATH = "help.tcss"
    BINDINGS = bindings("help")

    def __init__(
        self,
        edition: str | None = None,
        *,
        admin: bool = False,
    ) -> None:
        """Help for a table of `edition` with its reference card (from the catalogue), or for
        the lobby; the admin keys are listed only to an `admin`."""
        super().__init__()
        self.edition = edition
        self.admin = admin

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            key = ("help", catalogue_of(self), self.edition, self.admin)
            yield Prerendered(key, lambda: Group(*self._sections()))
        yield KeyBar()

    def _sections(self) -> list[RenderableType]:
        sections: list[RenderableType] = []
        catalogue = catalogue_of(self)
        cards = reference(catalogue, self.edition) if self.edition else []
        if cards and self.edition:
            title = _title(edition_name(catalogue, self.edition))
            sections += [title, card_table(cards), Text()]
        return [*sections, _title("Keys"), _keys(self.admin)]

    def on_screen_resume(self) -> None:
        """Shown again (`lovelet_tui.kept`): at the top."""
        if self.is_mounted:
            self.query_one("#main", VerticalScroll).scroll_home(animate=False)

    def action_rules(self) -> None:
        """Show the rules of this table's edition (the catalogue's first in the lobby)."""
        edition = self.edition or ""
        show_kept(self.app, "rules", edition, lambda: RulesScreen(edition))

    def action_close(self) -> None:
        """Back to where help was opened."""
        self.dismiss()


def _title(text: str) -> Text:
    return Text(text, style="bold underline")


def _keys(admin: bool) -> Table:
    """Every key by scope; the admin command line's only for an `admin`."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, style="bold")
    table.add_column()
    shown_scope = ""
    for entry in ACTIONS:
        if not admin and ADMIN_ONLY in (entry.scope, entry.action):
            continue
        scope = SCOPES[entry.scope] if entry.scope != shown_scope else ""
        shown_scope = entry.scope
        table.add_row(scope, key_label(entry), entry.description)
    return table
