"""A player's profile: their rating and its history, games and wins per edition, favourite
cards and latest games. ↑↓ choose a game, Enter replays it (from the player's seat in your
own profile, else the public view), Esc closes."""

from __future__ import annotations

from typing import Protocol, cast

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from lovelet_tui.actions import bindings
from lovelet_tui.editions import card_name, catalogue_of
from lovelet_tui.messages import send
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.tallies import editions_table, games_table, rating_line, title
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.too_small import TooSmall
from protocol import CardCount, Catalogue, FriendRequest, Profile, ProfileRequest

SPARKS = "▁▂▃▄▅▆▇█"


class ProfileScreen(Screen[None]):
    """Asks the server for `name`'s profile on mount; the app hands the answer to
    `show_profile`."""

    DEFAULT_CSS = "ProfileScreen #main { padding: 0 1; }"
    BINDINGS = bindings("profile")

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player = name
        self.profile: Profile | None = None
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="main"):
            yield Static(Text(f"Loading {self.player}'s profile…", style="italic"), id="profile")
        yield KeyBar()

    def on_mount(self) -> None:
        send(self, ProfileRequest(self.player))

    def show_profile(self, profile: Profile) -> None:
        """Draw the server's answer, if it is this player's; names are plain text."""
        if profile.name != self.player:
            return
        self.profile = profile
        self._draw()

    def _draw(self) -> None:
        profile = self.profile
        if profile is None:
            return
        self.query_one("#profile", Static).update(
            Group(*_sections(profile, self.cursor, catalogue_of(self)))
        )
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Moving and replaying need a game to choose; a player with a key marks another
        who has a profile as a friend, or no longer."""
        profile = self.profile
        if action in ("move", "replay"):
            return profile is not None and bool(profile.games)
        if action in ("befriend", "unfriend"):
            keyed = profile is not None and not profile.note and not profile.yours
            return keyed and not _guest(self) and profile.friend == (action == "unfriend")
        return True

    def action_befriend(self) -> None:
        """f: mark this player as a friend (the server's answer redraws the profile)."""
        self._friend(add=True)

    def action_unfriend(self) -> None:
        """f: this player is no longer a friend."""
        self._friend(add=False)

    def _friend(self, *, add: bool) -> None:
        send(self, FriendRequest(self.player, add))
        send(self, ProfileRequest(self.player))

    def action_move(self, delta: int) -> None:
        """↑↓: the previous or next game."""
        if self.profile is not None and self.profile.games:
            self.cursor = max(0, min(len(self.profile.games) - 1, self.cursor + delta))
            self._draw()

    def action_replay(self) -> None:
        """Enter: replay the chosen game: your own from your seat, another's publicly."""
        if self.profile is None or not self.profile.games:
            return
        game = self.profile.games[self.cursor]
        seat = game.seat if self.profile.yours else None
        self.app.push_screen(ReplayScreen(game.game_id, seat, seat))

    def action_close(self) -> None:
        """Back to where `p` was pressed."""
        self.dismiss()


class _Signed(Protocol):
    guest: bool


def _guest(screen: Screen[None]) -> bool:
    """Whether the app's player is a guest (who keeps no friends)."""
    return cast(_Signed, screen.app).guest


def _sections(profile: Profile, cursor: int, catalogue: Catalogue) -> list[RenderableType]:
    head = Text.assemble((f"{profile.name}'s profile", "bold underline"))
    if profile.friend:
        head.append(" · your friend", style="italic")
    sections: list[RenderableType] = [head]
    if profile.note:
        return [*sections, Text(profile.note, style="italic")]
    if profile.rating is not None:
        sections.append(rating_line(profile.rating))
    if len(profile.history) > 1:
        sections.append(_history(profile.history))
    if profile.editions:
        sections += [Text(), editions_table(profile.editions, catalogue)]
    else:
        sections.append(Text("No finished games yet."))
    if profile.favourites:
        sections += [Text(), _favourites(profile.favourites, catalogue)]
    if profile.games:
        sections += [
            Text(),
            title("Latest games"),
            games_table(profile.games, cursor, catalogue),
            Text("↑↓: choose · Enter: replay"),
        ]
    return sections


def _history(history: tuple[int, ...]) -> Text:
    """The rating after each of the latest rated games: first, a sparkline, last."""
    low, high = min(history), max(history)
    steps = len(SPARKS) - 1
    line = "".join(SPARKS[(r - low) * steps // (high - low) if high > low else 0] for r in history)
    return Text.assemble(
        f"History (last {len(history)} rated games): {history[0]} ", line, f" {history[-1]}"
    )


def _favourites(favourites: tuple[CardCount, ...], catalogue: Catalogue) -> Text:
    played = ", ".join(f"{card_name(catalogue, f.card)} ×{f.count}" for f in favourites)
    return Text.assemble(("Favourite cards: ", "bold"), played)
