"""Stats: your games and wins per edition, your recent games, the server's latest games and
the leaderboard. ↑↓ choose a game, Enter replays it (your own seat's view of a game you
played, else the public view), p the public view."""

from __future__ import annotations

from datetime import datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from lovelet_tui.actions import bindings
from lovelet_tui.editions import edition_name
from lovelet_tui.messages import send
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.too_small import TooSmall
from protocol import (
    EditionTally,
    FinishedGame,
    LeaderEntry,
    PlayedGame,
    RatingInfo,
    Stats,
    StatsRequest,
)

CURSOR = "› "


class StatsScreen(Screen[None]):
    """Asks the server on mount; the app hands the answer to `show_stats`. Esc closes."""

    CSS_PATH = "stats.tcss"
    BINDINGS = bindings("stats")

    def __init__(self, player: str = "") -> None:
        super().__init__()
        self.player = player
        self.stats: Stats | None = None
        self.games: list[tuple[int, int | None]] = []  # (game id, your seat) in list order
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            yield Static(Text("Loading stats…", style="italic"), id="stats")
        yield KeyBar()

    def on_mount(self) -> None:
        send(self, StatsRequest())

    def show_stats(self, stats: Stats) -> None:
        """Draw the server's answer; every name is plain text, never markup."""
        self.stats = stats
        mine = {game.game_id: game.seat for game in stats.recent}
        self.games = [(game.game_id, game.seat) for game in stats.recent]
        self.games += [(game.game_id, mine.get(game.game_id)) for game in stats.latest]
        self.cursor = min(self.cursor, max(0, len(self.games) - 1))
        self._draw()
        self.refresh_bindings()

    def _draw(self) -> None:
        stats = self.stats
        if stats is None:
            return
        sections: list[RenderableType] = [_title("Your games")]
        if stats.rating is not None:
            sections.append(_your_rating(stats.rating))
        if stats.note:
            sections.append(Text(stats.note, style="italic"))
        elif not stats.editions:
            sections.append(Text("No finished games yet."))
        if stats.editions:
            sections.append(_editions(stats.editions))
        if stats.recent:
            recent = _recent(stats.recent, self.cursor)
            sections += [Text(), _title("Recent games"), recent]
        if stats.latest:
            latest = _latest(stats.latest, self.cursor - len(stats.recent))
            sections += [Text(), _title("Latest games on this server"), latest]
        if self.games:
            sections.append(Text("↑↓: choose a game · Enter: replay it · p: its public view"))
        sections += [Text(), _title("Leaderboard"), _leaders(stats.leaderboard, self.player)]
        shown = Group(*sections)
        self.query_one("#stats", Static).update(shown)
        self._scroll_to_cursor(shown)

    def _scroll_to_cursor(self, shown: Group) -> None:
        """Keep the chosen game's row in view: found as the rendered row that starts with
        the cursor (names never do: a row's first cell is the cursor column)."""
        main = self.query_one("#main", VerticalScroll)
        width = self.query_one("#stats", Static).content_size.width or self.app.size.width
        console = self.app.console
        lines = console.render_lines(shown, console.options.update_width(width), pad=False)
        for row, line in enumerate(lines):
            if "".join(segment.text for segment in line).startswith(CURSOR):
                main.scroll_to(y=max(0, row - main.size.height // 2), animate=False)
                return

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The game keys only when there are games to choose."""
        if action in ("move", "replay", "replay_public"):
            return bool(self.games)
        return True

    def action_move(self, delta: int) -> None:
        """↑↓: the previous or next game of the lists."""
        if self.games:
            self.cursor = max(0, min(len(self.games) - 1, self.cursor + delta))
            self._draw()

    def action_replay(self) -> None:
        """Enter: replay the chosen game, from your own seat if you played it."""
        if self.games:
            game_id, seat = self.games[self.cursor]
            self.app.push_screen(ReplayScreen(game_id, seat, seat))

    def action_replay_public(self) -> None:
        """p: replay the chosen game's public view."""
        if self.games:
            game_id, seat = self.games[self.cursor]
            self.app.push_screen(ReplayScreen(game_id, None, seat))

    def action_close(self) -> None:
        """Back to the lobby."""
        self.dismiss()


def _title(text: str) -> Text:
    return Text(text, style="bold underline")


def _grid(*headers: str) -> Table:
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, header_style="bold")
    for header in headers:
        table.add_column(header, no_wrap=header != "Players")
    return table


def _editions(editions: tuple[EditionTally, ...]) -> Table:
    table = _grid("Edition", "Games", "Wins", "Won")
    for row in editions:
        share = f"{100 * row.wins // row.games}%" if row.games else "-"
        table.add_row(*map(Text, (edition_name(row.edition), str(row.games), str(row.wins), share)))
    return table


def _recent(games: tuple[PlayedGame, ...], cursor: int) -> Table:
    table = _grid("", "Ended (UTC)", "Edition", "Result", "Players")
    for index, game in enumerate(games):
        table.add_row(
            Text(CURSOR if index == cursor else ""),
            Text(_when(game.ended_at)),
            Text(edition_name(game.edition, short=True)),
            Text("won", style="bold green") if game.won else Text("lost"),
            Text(", ".join(game.players)),
            style="reverse" if index == cursor else "",
        )
    return table


def _latest(games: tuple[FinishedGame, ...], cursor: int) -> Table:
    table = _grid("", "Ended (UTC)", "Edition", "Won by", "Players")
    for index, game in enumerate(games):
        winners = [game.players[s] for s in game.winners if 0 <= s < len(game.players)]
        table.add_row(
            Text(CURSOR if index == cursor else ""),
            Text(_when(game.ended_at)),
            Text(edition_name(game.edition, short=True)),
            Text(", ".join(winners)),
            Text(", ".join(game.players)),
            style="reverse" if index == cursor else "",
        )
    return table


def _your_rating(rating: RatingInfo) -> Text:
    games = f"{rating.games} rated game{'s' * (rating.games != 1)}"
    return Text.assemble(
        "Rating ", (str(rating.rating), "bold"), f" ± {rating.uncertainty} ({games})"
    )


def _leaders(leaders: tuple[LeaderEntry, ...], player: str) -> RenderableType:
    if not leaders:
        return Text("Nobody has enough rated games yet (games between two players with SSH keys).")
    table = _grid("#", "Player", "Rating", "±", "Wins", "Games")
    for rank, row in enumerate(leaders, 1):
        style = "bold" if row.name == player else ""
        cells = (str(row.rating), str(row.uncertainty), str(row.wins), str(row.games))
        table.add_row(Text(str(rank)), Text(row.name, style=style), *map(Text, cells))
    return table


def _when(ended_at: str) -> str:
    """An ISO time as `2025-06-01 20:30`; shown as sent if it does not parse."""
    try:
        return f"{datetime.fromisoformat(ended_at):%Y-%m-%d %H:%M}"
    except ValueError:
        return ended_at
