"""Stats: your games and wins per edition, your recent games, and the leaderboard."""

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
from lovelet_tui.editions import catalogue_of, edition_name
from lovelet_tui.messages import send
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.too_small import TooSmall
from protocol import (
    Catalogue,
    EditionTally,
    LeaderEntry,
    PlayedGame,
    RatingInfo,
    Stats,
    StatsRequest,
)


class StatsScreen(Screen[None]):
    """Asks the server on mount; the app hands the answer to `show_stats`. Esc closes."""

    CSS_PATH = "stats.tcss"
    BINDINGS = bindings("stats")

    def __init__(self, player: str = "") -> None:
        super().__init__()
        self.player = player

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            yield Static(Text("Loading stats…", style="italic"), id="stats")
        yield KeyBar()

    def on_mount(self) -> None:
        send(self, StatsRequest())

    def show_stats(self, stats: Stats) -> None:
        """Draw the server's answer; every name is plain text, never markup."""
        sections: list[RenderableType] = [_title("Your games")]
        if stats.rating is not None:
            sections.append(_your_rating(stats.rating))
        if stats.note:
            sections.append(Text(stats.note, style="italic"))
        elif not stats.editions:
            sections.append(Text("No finished games yet."))
        if stats.editions:
            sections.append(_editions(stats.editions, catalogue_of(self)))
        if stats.recent:
            sections += [Text(), _title("Recent games"), _recent(stats.recent, catalogue_of(self))]
        sections += [Text(), _title("Leaderboard"), _leaders(stats.leaderboard, self.player)]
        self.query_one("#stats", Static).update(Group(*sections))

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


def _editions(editions: tuple[EditionTally, ...], catalogue: Catalogue) -> Table:
    table = _grid("Edition", "Games", "Wins", "Won")
    for row in editions:
        share = f"{100 * row.wins // row.games}%" if row.games else "-"
        name = edition_name(catalogue, row.edition)
        table.add_row(*map(Text, (name, str(row.games), str(row.wins), share)))
    return table


def _recent(games: tuple[PlayedGame, ...], catalogue: Catalogue) -> Table:
    table = _grid("Ended (UTC)", "Edition", "Result", "Players")
    for game in games:
        table.add_row(
            Text(_when(game.ended_at)),
            Text(edition_name(catalogue, game.edition, short=True)),
            Text("won", style="bold green") if game.won else Text("lost"),
            Text(", ".join(game.players)),
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
