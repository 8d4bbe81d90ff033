"""The lovelet Textual app: decodes what the server side delivers and routes it to screens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import events
from textual.app import App
from textual.filter import LineFilter
from textual.geometry import Size
from textual.widget import AwaitMount

from lovelet_tui import compat
from lovelet_tui.actions import bindings
from lovelet_tui.colour import ANSI_THEME, Look, look_filters
from lovelet_tui.editions import NO_CATALOGUE
from lovelet_tui.kept import show_kept
from lovelet_tui.link import Link
from lovelet_tui.messages import Arrived, Rejected
from lovelet_tui.names import sentence
from lovelet_tui.screens.help import HelpScreen
from lovelet_tui.screens.lobby import LobbyScreen
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.screens.stats import StatsScreen
from lovelet_tui.screens.table import TableScreen
from lovelet_tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH
from protocol import (
    PROTOCOL_VERSION,
    Catalogue,
    ChatLine,
    ClientMessage,
    CreateTable,
    Direction,
    ErrorReply,
    Friends,
    Hello,
    Hint,
    Join,
    Leave,
    Lobby,
    LocalProtocolError,
    Notice,
    PlayerGames,
    Profile,
    ProtocolError,
    Replay,
    ReplayRequest,
    ServerMessage,
    Spectate,
    Stats,
    TableFits,
    TableState,
    Visit,
    Welcome,
    decode,
    encode,
)

GUEST_NAME = "guest"  # sent in `hello` when the app was given no name
WIDE, TALL = "-wide", "-tall"  # a screen's classes at MIN_WIDTH, MIN_HEIGHT and above


class LoveletApp(App[None]):
    """One player's session. The server side calls `deliver` with each frame for it."""

    TITLE = "lovelet"
    CSS_PATH: ClassVar = ["app.tcss", "screens/lobby.tcss"]  # the lobby is the default screen
    BINDINGS = bindings("app")
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS: ClassVar = [(0, "-narrow"), (MIN_WIDTH, WIDE)]
    VERTICAL_BREAKPOINTS: ClassVar = [(0, "-short"), (MIN_HEIGHT, TALL)]

    def __init__(
        self,
        link: Link,
        name: str = "",
        *,
        look: Look = Look.COLOUR,
        visit: str | None = None,
        replay: ReplayRequest | None = None,
        invite: str | None = None,
        web_link: str | None = None,
    ) -> None:
        """A session sending through `link` as `name`, drawn in `look`; with `visit` (a table
        code), it goes to that table once welcomed; with `replay`, it opens that game's replay
        and quits when it is closed (`lovelet replay`); `invite` is the command before a table
        code that reaches the server from where this player connected (else the welcome's),
        and `web_link` the address of the server's page (a browser's way to a table)."""
        super().__init__(ansi_color=look is Look.SIXTEEN)
        self.colour_theme = self.theme  # the theme of the colour and monochrome looks
        self.look = look
        self.no_color = look is Look.MONOCHROME  # Textual's flag: `App:nocolor` in CSS
        self.set_reactive(App.theme, self._theme_of(look))
        self.stylesheet = compat.stylesheet(self.get_css_variables())  # after the theme
        self.link = link
        self.player_name = name
        self.catalogue: Catalogue = NO_CATALOGUE  # the server's editions and bot levels
        self.lobby = LobbyScreen()
        self.table: TableScreen | None = None
        self.carried: tuple[str, ...] = ()  # notices of a table screen closed to be reopened
        self.left: str | None = None  # the table just left: late updates for it are dropped
        self.visit = visit
        self.own_invite = invite
        self.web_link = web_link
        self.invite: str | None = None  # the command before a table code
        self.opening = replay
        self.table_fits = True  # what the server was last told of the terminal at a table
        self.guest = True  # until the welcome says the player has a key

    def deliver(self, frame: bytes) -> None:
        """Take one frame from the server side. Safe from any task: it only decodes and posts."""
        try:
            message = decode(frame, direction=Direction.TO_CLIENT)
        except ProtocolError as err:
            self.post_message(Rejected(err.reason))
            return
        self.post_message(Arrived(message))

    def get_default_screen(self) -> LobbyScreen:
        """The lobby: the first screen, under every other (Textual loads no CSS of its own
        for it, hence the app's `CSS_PATH`). In a terminal big enough it starts with the
        classes its breakpoints give it, so the first resize does not style it all again (in
        one too small, Textual hides the table the lobby focuses, which then loses the focus)."""
        width, height = self.size
        if width >= MIN_WIDTH and height >= MIN_HEIGHT:
            self.lobby.add_class(WIDE, TALL, update=False)
        return self.lobby

    async def on_mount(self) -> None:
        await AwaitMount(self, [self.lobby])  # composed in its own task: ready for `welcome`
        self.send(Hello(PROTOCOL_VERSION, self.player_name or GUEST_NAME))
        if self.opening is not None:
            seat = self.opening.seat
            replay = ReplayScreen(self.opening.game_id, seat, seat)
            self.push_screen(replay, callback=lambda _: self.exit())

    def on_unmount(self) -> None:
        self.link.close()

    def send(self, message: ClientMessage) -> None:
        """Encode and send; a message the server would refuse is reported here instead."""
        try:
            frame = encode(message)
        except LocalProtocolError as err:
            self.notify(err.reason, title="Not sent", severity="error", markup=False)
            return
        if isinstance(message, Join | Spectate | Visit | CreateTable):
            self.left = None
        self.link.send(frame)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, and in the monochrome look the one that drops every colour."""
        return look_filters(super().get_line_filters(), self.look)

    def _theme_of(self, look: Look) -> str:
        return ANSI_THEME if look is Look.SIXTEEN else self.colour_theme

    def action_next_look(self) -> None:
        """Switch to the next look (colour, monochrome, 16 colours), redrawing every screen."""
        look = self.look = self.look.next
        self.no_color = look is Look.MONOCHROME
        self.ansi_color = look is Look.SIXTEEN
        self.theme = self._theme_of(look)
        self.refresh_css(animate=False)
        for screen in self.screen_stack:
            for widget in (screen, *screen.walk_children()):
                widget.refresh()
        self.notify(f"Switched to {look}: Ctrl+T for {look.next}.", markup=False)

    def on_rejected(self, event: Rejected) -> None:
        self.notify(
            event.reason, title="Bad message from the server", severity="error", markup=False
        )

    async def on_arrived(self, event: Arrived) -> None:
        await self.route(event.message)

    async def route(self, message: ServerMessage) -> None:
        """Hand a server message to the screen that shows it."""
        match message:
            case Welcome():
                self.player_name = message.name  # the server may have suffixed it
                self.guest = message.guest
                self.catalogue = message.catalogue
                self.invite = self.own_invite or message.invite
                await self._back_to_lobby()  # a second welcome: the game server restarted
                self.lobby.show_welcome(message)
                if self.visit is not None:
                    self.send(Visit(self.visit))
                    self.visit = None
            case Lobby():
                self.lobby.show_lobby(message)
            case TableState():
                await self._show_table(message)
            case Hint() if self.table is not None:
                self.table.show_hint(message)
            case ChatLine(scope="table") if self.table is not None:
                self.table.add_chat(message)
            case ChatLine():
                self.lobby.add_chat(message)
            case ErrorReply():
                said = sentence(message.message)
                self.notify(said, title="Refused", severity="error", markup=False)
                if isinstance(self.screen, ReplayScreen):
                    self.screen.refused(message)
                elif self.table is not None:
                    self.table.reopen()
                else:
                    self.lobby.show_notice(said)
            case Notice():
                self._notice(message.text)
            case Stats():
                for screen in self.screen_stack:
                    if isinstance(screen, StatsScreen):
                        screen.show_stats(message)
            case PlayerGames():
                for screen in self.screen_stack:
                    if isinstance(screen, StatsScreen):
                        screen.show_player_games(message)
            case Friends():
                self.lobby.show_friends(message)
            case Profile():
                for screen in self.screen_stack:
                    if isinstance(screen, ProfileScreen):
                        screen.show_profile(message)
            case Replay():
                for screen in self.screen_stack:
                    if isinstance(screen, ReplayScreen):
                        screen.show_replay(message)

    def _notice(self, text: str) -> None:
        """A notice lives where it was told: at a table, in its log (it leaves with the
        table); else on the lobby's notice line, until the next table is left."""
        if self.table is None:
            self.lobby.show_notice(text)
        if self.table is not None and self.screen is self.table:
            self.table.add_notice(text)  # a toast would lay out the screen twice
        else:
            self.notify(text, markup=False)

    async def _show_table(self, state: TableState) -> None:
        code = state.info.code
        if code == self.left:
            return
        table = self.table
        if table is None or table.code != code:
            table = await self._open_table(code)
        table.show_state(state)

    async def _open_table(self, code: str) -> TableScreen:
        """A new table screen right above the lobby (closing help, forms or another table)."""
        while self.screen is not self.lobby and self.lobby in self.screen_stack:
            await self.pop_screen()
        self.table = TableScreen(code, self.carried)
        self.carried = ()
        await self.push_screen(self.table, callback=self._table_closed)
        self.table_fits = True  # as the server takes a newcomer's terminal to be
        self._tell_fits(self.size)
        return self.table

    def on_resize(self, event: events.Resize) -> None:
        self._tell_fits(event.size)

    def _tell_fits(self, size: Size) -> None:
        """At a table, tell the server when the terminal stops (or starts again) being big
        enough to show it: a turn timer waits for a player who cannot see the table."""
        fits = size.width >= MIN_WIDTH and size.height >= MIN_HEIGHT
        if self.table is not None and fits != self.table_fits:
            self.table_fits = fits
            self.send(TableFits(fits))

    async def _back_to_lobby(self) -> None:
        """Close the table screen (and anything above it) without leaving: the server side
        starts afresh, and says where the player sits, if anywhere."""
        self.left = None  # a table left meanwhile may be the one the server puts us back at
        if self.table is None:
            return
        self.carried = self.table.notices  # "the game server is back", for the table again
        while self.screen is not self.lobby and self.lobby in self.screen_stack:
            await self.pop_screen()
        self.table = None

    def _table_closed(self, code: str | None) -> None:
        self.send(Leave())
        self.left = code
        self.table = None
        self.lobby.show_notice("")  # what was said before or at the table leaves with it

    async def action_quit(self) -> None:
        """Quit; seated in a running game, the table asks first (Ctrl+Q again quits)."""
        table = self.table
        if table is not None and table.ask_to_quit():
            while self.screen is not table and table in self.screen_stack:
                await self.pop_screen()
            return
        self.exit()

    def action_help(self) -> None:
        """Help for where the player is: the table's reference card, and the keys.

        Shown again each time, not made anew (`lovelet_tui.kept`)."""
        table, admin = self.table, self.lobby.admin
        edition = table.info.edition if table is not None and table.info is not None else None
        show_kept(self, "help", f"{edition} {admin}", lambda: HelpScreen(edition, admin=admin))
