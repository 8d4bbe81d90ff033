"""Choosing a player by name (`p` in the lobby and at a table): ↑↓ and Enter open their
profile, Esc goes back."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lovelet_tui.actions import bindings
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.tallies import cursor_rows, moved
from lovelet_tui.widgets.key_bar import KeyBar


class PlayersScreen(ModalScreen[None]):
    """A list of `names` (as given: online, or at the table); Enter opens the chosen one's
    profile in place of this list."""

    DEFAULT_CSS = """
    PlayersScreen { align: center middle; }
    PlayersScreen #box {
        width: 40; height: auto; max-height: 20; border: round $accent; padding: 0 1;
        background: $surface;
    }
    """
    BINDINGS = bindings("players")

    def __init__(self, names: tuple[str, ...], title: str) -> None:
        super().__init__()
        self.names = names
        self.title_text = title
        self.cursor = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Label(Text(self.title_text, style="bold"))
            yield Static(self._rows(), id="names")
        yield KeyBar()

    def _rows(self) -> Text:
        if not self.names:
            return Text("Nobody here.", style="italic")
        return cursor_rows([Text(name) for name in self.names], self.cursor)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Choosing needs a name to choose."""
        return bool(self.names) or action == "cancel"

    def action_move(self, delta: int) -> None:
        """↑↓: the previous or next name."""
        self.cursor = moved(self.cursor, delta, len(self.names))
        self.query_one("#names", Static).update(self._rows())

    def action_choose(self) -> None:
        """Enter: the chosen player's profile, in place of this list."""
        name = self.names[self.cursor]
        self.dismiss()
        self.app.push_screen(ProfileScreen(name))

    def action_cancel(self) -> None:
        """Back, choosing nobody."""
        self.dismiss()
