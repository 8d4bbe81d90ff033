"""Stats: your games and wins per edition, your recent games, the server's latest games, the
leaderboard and the bot ladder (docs/bot-api.md). ↑↓ choose a row: Enter replays a game (your
own seat's view of a game you played, else the public view), p its public view; Enter on a
leader lists their games, p opens their profile."""

from __future__ import annotations

from dataclasses import dataclass

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
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.tallies import (
    CURSOR,
    count_of,
    editions_table,
    games_table,
    grid,
    rating_line,
    title,
    when,
)
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.too_small import TooSmall
from protocol import (
    Catalogue,
    FinishedGame,
    GamesRequest,
    LeaderEntry,
    PlayerGames,
    Stats,
    StatsRequest,
)


@dataclass(frozen=True, slots=True)
class Pick:
    """A row the cursor can be on: a game to replay (with your seat in it, if you played
    it), or a leader whose games Enter asks for."""

    game_id: int | None = None
    seat: int | None = None
    leader: str | None = None


class StatsScreen(Screen[None]):
    """Asks the server on mount; the app hands the answer to `show_stats` (and a leader's
    games to `show_player_games`). Esc closes."""

    CSS_PATH = "stats.tcss"
    BINDINGS = bindings("stats")

    def __init__(self, player: str = "") -> None:
        super().__init__()
        self.player = player
        self.stats: Stats | None = None
        self.player_games: PlayerGames | None = None  # the leader's games asked for last
        self.picks: list[Pick] = []  # the rows the cursor moves through, in screen order
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            yield Static(Text("Loading stats…", style="italic"), id="stats")
        yield KeyBar()

    def on_mount(self) -> None:
        send(self, StatsRequest())

    def on_screen_resume(self) -> None:
        """Shown again (`lovelet_tui.kept`): the server's figures afresh, from the top."""
        if self.is_mounted and self.stats is not None:
            self.player_games, self.cursor = None, 0
            self.query_one("#main", VerticalScroll).scroll_home(animate=False)
            send(self, StatsRequest())

    def show_stats(self, stats: Stats) -> None:
        """Draw the server's answer; every name is plain text, never markup."""
        self.stats = stats
        self._pick_rows()
        self._draw()

    def show_player_games(self, games: PlayerGames) -> None:
        """A leader's latest games, below the leaderboard; the cursor goes to the first."""
        self.player_games = games
        self._pick_rows()
        if games.games:
            self.cursor = len(self.picks) - len(games.games)
        self._draw()

    def _pick_rows(self) -> None:
        stats = self.stats
        if stats is None:
            return
        mine = {game.game_id: game.seat for game in stats.recent}
        picks = [Pick(game.game_id, game.seat) for game in stats.recent]
        picks += [Pick(game.game_id, mine.get(game.game_id)) for game in stats.latest]
        picks += [Pick(leader=row.name) for row in stats.leaderboard]
        if self.player_games is not None:
            picks += [Pick(g.game_id, mine.get(g.game_id)) for g in self.player_games.games]
        self.picks = picks
        self.cursor = min(self.cursor, max(0, len(picks) - 1))

    def _draw(self) -> None:
        stats = self.stats
        if stats is None:
            return
        sections: list[RenderableType] = [title("Your games")]
        catalogue = catalogue_of(self)
        if stats.rating is not None:
            sections.append(rating_line(stats.rating, stats.min_games))
        if stats.note:
            sections.append(Text(stats.note, style="italic"))
        elif not stats.editions:
            sections.append(Text("No finished games yet."))
        if stats.editions:
            sections.append(editions_table(stats.editions, catalogue))
        at = self.cursor
        if stats.recent:
            sections += [Text(), title("Recent games"), games_table(stats.recent, at, catalogue)]
        at -= len(stats.recent)
        if stats.latest:
            latest = _latest(stats.latest, at, catalogue)
            sections += [Text(), title("Latest games on this server"), latest]
        at -= len(stats.latest)
        if self.picks:
            sections.append(
                Text("↑↓: choose · Enter: replay a game, or a leader's games · p: public view")
            )
        leaders = _leaders(stats.leaderboard, self.player, at, stats.min_games)
        sections += [Text(), title("Leaderboard"), leaders]
        at -= len(stats.leaderboard)
        if self.player_games is not None:
            sections += [Text(), title(f"{self.player_games.name}'s latest games")]
            games = self.player_games.games
            none = Text("No public games yet.")
            sections.append(_latest(games, at, catalogue) if games else none)
        if stats.bots:  # the bot ladder: programs on the bot API and the server's bots
            sections += [Text(), title("Bot ladder"), _leaders(stats.bots, self.player, -1, 0)]
        shown = Group(*sections)
        self.query_one("#stats", Static).update(shown)
        self._scroll_to_cursor(shown)
        self.refresh_bindings()

    def _scroll_to_cursor(self, shown: Group) -> None:
        """Keep the chosen row in view: found as the rendered row that starts with the
        cursor (names never do: a row's first cell is the cursor column). Scrolled after the
        next refresh: a scroll now stops at the old end when a leader's games were added."""
        main = self.query_one("#main", VerticalScroll)
        width = self.query_one("#stats", Static).content_size.width or self.app.size.width
        console = self.app.console
        lines = console.render_lines(shown, console.options.update_width(width), pad=False)
        for row, line in enumerate(lines):
            if "".join(segment.text for segment in line).startswith(CURSOR):
                y = max(0, row - main.size.height // 2)  # once laid out: the list may grow
                self.call_after_refresh(main.scroll_to, y=y, animate=False)
                return

    @property
    def picked(self) -> Pick | None:
        """The row under the cursor."""
        return self.picks[self.cursor] if self.picks else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys that mean something on the row under the cursor."""
        picked = self.picked
        if action in ("move", "open"):
            return picked is not None
        if action == "replay_public":
            return picked is not None and picked.game_id is not None
        if action == "profile":
            return picked is not None and picked.leader is not None
        return True

    def action_move(self, delta: int) -> None:
        """↑↓: the previous or next row of the lists."""
        if self.picks:
            self.cursor = max(0, min(len(self.picks) - 1, self.cursor + delta))
            self._draw()

    def action_open(self) -> None:
        """Enter: replay the chosen game, from your own seat if you played it; on a leader,
        ask for their latest games."""
        picked = self.picked
        if picked is None:
            return
        if picked.game_id is None:
            send(self, GamesRequest(picked.leader or ""))
        else:
            self.app.push_screen(ReplayScreen(picked.game_id, picked.seat, picked.seat))

    def action_replay_public(self) -> None:
        """p: replay the chosen game's public view."""
        picked = self.picked
        if picked is not None and picked.game_id is not None:
            self.app.push_screen(ReplayScreen(picked.game_id, None, picked.seat))

    def action_profile(self) -> None:
        """p on a leader: their profile."""
        picked = self.picked
        if picked is not None and picked.leader is not None:
            self.app.push_screen(ProfileScreen(picked.leader))

    def action_close(self) -> None:
        """Back to the lobby."""
        self.dismiss()


def _latest(games: tuple[FinishedGame, ...], cursor: int, catalogue: Catalogue) -> Table:
    table = grid("", "Ended (UTC)", "Edition", "Won by", "Players")
    for index, game in enumerate(games):
        winners = [game.players[s] for s in game.winners if 0 <= s < len(game.players)]
        table.add_row(
            Text(CURSOR if index == cursor else ""),
            Text(when(game.ended_at)),
            Text(edition_name(catalogue, game.edition, short=True)),
            Text(", ".join(winners)),
            Text(", ".join(game.players)),
            style="reverse" if index == cursor else "",
        )
    return table


def _leaders(
    leaders: tuple[LeaderEntry, ...], player: str, cursor: int, min_games: int
) -> RenderableType:
    if not leaders:
        needed = count_of(max(min_games, 1), "rated game")
        return Text(
            f"Nobody has {needed} yet: a rated game is one between two players with SSH keys."
        )
    table = grid("", "#", "Player", "Rating", "±", "Wins", "Games")
    for index, row in enumerate(leaders):
        style = "bold" if row.name == player else ""
        cells = (str(row.rating), str(row.uncertainty), str(row.wins), str(row.games))
        table.add_row(
            Text(CURSOR if index == cursor else ""),
            Text(str(index + 1)),
            Text(row.name, style=style),
            *map(Text, cells),
            style="reverse" if index == cursor else "",
        )
    return table
