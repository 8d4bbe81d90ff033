"""The lobby: open tables, who is online, your friends, a new-table form, join, watch, lobby chat,
stats, profiles, and for administrators the admin command line."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from lovelet_tui.actions import bindings
from lovelet_tui.editions import catalogue_of, edition_name
from lovelet_tui.kept import show_kept
from lovelet_tui.messages import send
from lovelet_tui.screens.admin import AdminScreen
from lovelet_tui.screens.create_table import CreateTableScreen
from lovelet_tui.screens.friends import FriendsScreen, whereabouts
from lovelet_tui.screens.players import PlayersScreen
from lovelet_tui.screens.rejoin import RejoinScreen
from lovelet_tui.screens.stats import StatsScreen
from lovelet_tui.widgets.chat_input import ChatInput, chat_text, typing_chat
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.log_view import LogView
from lovelet_tui.widgets.rows import TextRows
from lovelet_tui.widgets.too_small import TooSmall
from protocol import (
    DEFAULT_TIMER,
    Catalogue,
    Chat,
    ChatLine,
    FriendInfo,
    Friends,
    Join,
    Lobby,
    Spectate,
    TableSummary,
    Tutorial,
    Welcome,
)

COLUMNS = ("Code", "Name", "Edition", "Seats", "Status", "Watching")
STATUS = {"waiting": "open", "playing": "playing", "round_over": "playing", "finished": "over"}
# Widest text each column other than Name can hold: a cell that changes never needs more room.
FIXED_WIDTHS = {
    "Code": 4,
    "Seats": len("8/8"),
    "Status": max(len(status) for status in STATUS.values()),
    "Watching": len("999"),
}


class LobbyScreen(Screen[None]):
    """The first screen; the app fills it from `welcome`, `lobby` and lobby chat messages."""

    BINDINGS = bindings("lobby")
    AUTO_FOCUS = "#tables"

    def __init__(self) -> None:
        super().__init__()
        self.player = ""
        self.admin = False
        self.guest = False
        self.timer: int | None = DEFAULT_TIMER  # the server's default turn timer for new tables
        self.tables: tuple[TableSummary, ...] | None = None  # what the table list shows
        self.columns: list[ColumnKey] = []
        self.resumed = False  # shown once already
        self.online: tuple[str, ...] = ()  # the names online, as the server listed them
        self.friends: tuple[FriendInfo, ...] = ()  # as the server last listed them

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="main"):
            yield TextRows(wrap=False, id="welcome")
            yield TextRows(id="notice")
            yield TextRows(wrap=False, id="tables-title")
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
            yield TextRows(wrap=False, id="online")
            yield TextRows(wrap=False, id="friends")
            yield LogView(id="chat", max_lines=200)
            yield ChatInput()
        yield KeyBar()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first resume comes right after the lobby (the default screen) was composed and
        styled: Textual would style every widget again, for nothing."""
        if not self.resumed:
            event.refresh_styles = False
            self.resumed = True

    def on_mount(self) -> None:
        self.query_one("#welcome", TextRows).show(Text("lovelet · connecting…"))
        self._show_tables(())

    def show_welcome(self, welcome: Welcome) -> None:
        """Who we are, and the message of the day."""
        self.player = welcome.name
        self.admin = welcome.admin
        self.guest = welcome.guest
        self.timer = welcome.timer
        self.refresh_bindings()
        guest = " (guest)" if welcome.guest else ""
        line = Text.assemble(("lovelet", "bold"), " · signed in as ", (welcome.name, "bold"), guest)
        self.query_one("#welcome", TextRows).show(line)
        if welcome.motd:
            self.query_one(LogView).write(Text(welcome.motd, style="italic"))

    def show_notice(self, text: str) -> None:
        """The server's latest word to this player (first: why their name is not the one
        asked for), on the line under the welcome; two lines if it needs them."""
        notice = self.query_one("#notice", TextRows)
        notice.set_class(cell_len(text) > self.size.width - 2, "-long")
        notice.show(Text(text, style="italic"))

    def show_lobby(self, lobby: Lobby) -> None:
        """The table list (the cursor stays on its table) and the names online."""
        self._show_tables(lobby.tables)
        self.online = lobby.online
        names = online_names(lobby)
        online = Text.assemble(("Online: ", "bold"), ", ".join(names) or "nobody")
        self.query_one("#online", TextRows).show(online)

    def show_friends(self, friends: Friends) -> None:
        """Your friends and where they are, on the line under the names online (none: no
        line)."""
        self.friends = friends.friends
        shown = " · ".join(f"{friend.name} {whereabouts(friend)}" for friend in self.friends)
        row = self.query_one("#friends", TextRows)
        row.set_class(bool(self.friends), "-some")
        row.show(Text.assemble(("Friends (f): ", "bold"), shown))

    def add_chat(self, line: ChatLine) -> None:
        """One lobby chat line, shown literally."""
        self.query_one(LogView).write(chat_text(line))

    def _show_tables(self, tables: tuple[TableSummary, ...]) -> None:
        """Rebuild the list only when tables came or went; a changed table updates its cells."""
        if tables == self.tables:
            return
        grid = self.query_one(DataTable)
        shown, self.tables = self.tables, tables
        if shown is not None and [t.code for t in shown] == [t.code for t in tables]:
            for old, new in zip(shown, tables, strict=True):
                if old != new:
                    self._update_row(grid, old, new)
            return
        selected = self._selected()
        grid.clear(columns=True)
        self.columns = [
            grid.add_column(label, width=width)
            for label, width in _column_widths(tables, catalogue_of(self))
        ]
        for table in tables:
            grid.add_row(*_row(table, catalogue_of(self)), key=table.code)
        if selected is not None and selected in grid.rows:
            grid.move_cursor(row=grid.get_row_index(selected))
        title = f"Tables ({len(tables)})" if tables else "No tables yet: press n to open one"
        self.query_one("#tables-title", TextRows).show(Text(title, style="bold"))
        self.refresh_bindings()

    def _update_row(self, grid: DataTable[Text], old: TableSummary, new: TableSummary) -> None:
        catalogue = catalogue_of(self)
        rows = _row(old, catalogue), _row(new, catalogue)
        for column, before, after in zip(self.columns, *rows, strict=True):
            if before != after:
                grid.update_cell(new.code, column, after)

    def _selected(self) -> str | None:
        grid = self.query_one(DataTable)
        if not grid.row_count:
            return None
        return grid.coordinate_to_cell_key(grid.cursor_coordinate).row_key.value

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Join and Watch only when there is a table to pick; Admin only for administrators;
        Rejoin only for guests; New table once the server said what it offers;
        Chat unless typing a line already."""
        if action == "new_table":
            return bool(catalogue_of(self).editions)
        if action == "chat":
            return not typing_chat(self)
        if action in ("join", "watch"):
            return self._selected() is not None
        if action == "admin":
            return self.admin
        if action == "rejoin":
            return self.guest
        if action == "friends":
            return not self.guest
        return True

    def action_new_table(self) -> None:
        """Open the new-table form."""
        player, timer = self.player, self.timer
        show_kept(self.app, "form", f"{player} {timer}", lambda: CreateTableScreen(player, timer))

    def action_join(self) -> None:
        """Join the selected table as a player."""
        code = self._selected()
        if code is not None:
            send(self, Join(code))

    def action_watch(self) -> None:
        """Watch the selected table."""
        code = self._selected()
        if code is not None:
            send(self, Spectate(code))

    def action_tutorial(self) -> None:
        """Start the tutorial: a guided first game against bots."""
        send(self, Tutorial())

    def action_stats(self) -> None:
        """Open the stats screen."""
        show_kept(self.app, "stats", self.player, lambda: StatsScreen(self.player))

    def action_profile(self) -> None:
        """Choose a player online: their profile."""
        self.app.push_screen(PlayersScreen(self.online, "Whose profile? (online)"))

    def action_friends(self) -> None:
        """Your friends: join one at their table."""
        self.app.push_screen(FriendsScreen(self.friends))

    def action_admin(self) -> None:
        """Open the admin command line."""
        self.app.push_screen(AdminScreen())

    def action_rejoin(self) -> None:
        """A guest types the rejoin code of a held seat."""
        self.app.push_screen(RejoinScreen())

    def action_chat(self) -> None:
        """Start typing a lobby chat line."""
        self.query_one(ChatInput).open()

    def on_chat_input_closed(self, event: ChatInput.Closed) -> None:
        if event.text:
            send(self, Chat(event.text))
        self.query_one(DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_join()


def _column_widths(tables: tuple[TableSummary, ...], catalogue: Catalogue) -> list[tuple[str, int]]:
    """Each column's label and width, set here: a DataTable that sizes its own columns draws
    rows added between two refreshes at the old widths until something else redraws it."""
    name = max((_name(table).cell_len for table in tables), default=0)
    code = max((len(table.code) for table in tables), default=0)  # private codes are longer
    edition = max((cell_len(e.short) for e in catalogue.editions), default=0)
    widths = {**FIXED_WIDTHS, "Name": name, "Code": max(code, FIXED_WIDTHS["Code"])}
    widths["Edition"] = edition
    return [(label, max(len(label), widths[label])) for label in COLUMNS]


def _row(table: TableSummary, catalogue: Catalogue) -> tuple[Text, ...]:
    """A table's cells; every text that came from a client stays a plain Text."""
    return (
        Text(table.code),
        _name(table),
        Text(edition_name(catalogue, table.edition, short=True)),
        Text(f"{table.taken}/{table.seats}"),
        Text(STATUS.get(table.status, table.status)),
        Text(str(table.spectators)),
    )


def _name(table: TableSummary) -> Text:
    """The table's name, marked when it is private (only administrators see those)."""
    name = Text(table.name)
    if table.private:
        name.append(" (private)", style="italic")
    return name


def online_names(lobby: Lobby) -> list[str]:
    """Each name online, with its rating if it has one and a mark if it is an API bot."""
    rated = {entry.name: entry.rating for entry in lobby.ratings}
    programs = set(lobby.api_bots)
    return [
        name
        + (f" ({rated[name]})" if name in rated else "")
        + (" [API bot]" if name in programs else "")
        for name in lobby.online
    ]
