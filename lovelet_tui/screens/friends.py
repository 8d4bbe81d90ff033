"""Your friends and where they are (`f` in the lobby): ↑↓ choose one, Enter joins the table
they are at (a free seat before its game, else to watch), p opens their profile, Esc goes
back."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lovelet_tui.actions import bindings
from lovelet_tui.messages import send
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.tallies import cursor_rows, moved
from lovelet_tui.widgets.key_bar import KeyBar
from protocol import FriendInfo, Visit


def whereabouts(friend: FriendInfo) -> str:
    """Where a friend is, in words: `at table K7QX`, `online`, `offline`."""
    if friend.table is not None:
        return f"at table {friend.table}"
    return "online" if friend.online else "offline"


class FriendsScreen(ModalScreen[None]):
    """The friends the server last listed, one a row."""

    DEFAULT_CSS = """
    FriendsScreen { align: center middle; }
    FriendsScreen #box {
        width: 50; height: auto; max-height: 22; border: round $accent; padding: 0 1;
        background: $surface;
    }
    """
    BINDINGS = bindings("friends")

    def __init__(self, friends: tuple[FriendInfo, ...]) -> None:
        super().__init__()
        self.friends = friends
        self.cursor = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Label(Text("Your friends", style="bold"))
            yield Static(self._rows(), id="friends")
        yield KeyBar()

    def _rows(self) -> Text:
        if not self.friends:
            return Text("None yet: p on a player, then f, marks a friend.", style="italic")
        width = max(len(friend.name) for friend in self.friends) + 2
        rows = [Text(friend.name.ljust(width) + whereabouts(friend)) for friend in self.friends]
        return cursor_rows(rows, self.cursor)

    @property
    def chosen(self) -> FriendInfo | None:
        """The friend under the cursor."""
        return self.friends[self.cursor] if self.friends else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Join only a friend at a table; moving and profiles need a friend."""
        chosen = self.chosen
        if action == "join":
            return chosen is not None and chosen.table is not None
        if action in ("move", "profile"):
            return chosen is not None
        return True

    def action_move(self, delta: int) -> None:
        """↑↓: the previous or next friend."""
        self.cursor = moved(self.cursor, delta, len(self.friends))
        self.query_one("#friends", Static).update(self._rows())
        self.refresh_bindings()

    def action_join(self) -> None:
        """Enter: to the chosen friend's table."""
        chosen = self.chosen
        if chosen is not None and chosen.table is not None:
            send(self, Visit(chosen.table))
            self.dismiss()

    def action_profile(self) -> None:
        """p: the chosen friend's profile, in place of this list."""
        chosen = self.chosen
        if chosen is not None:
            self.dismiss()
            self.app.push_screen(ProfileScreen(chosen.name))

    def action_close(self) -> None:
        """Back to the lobby."""
        self.dismiss()
