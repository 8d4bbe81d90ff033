"""`lovelet play`: the same app in your own terminal, against bots, without SSH."""

from __future__ import annotations

import asyncio
import getpass
import os

from lovelet_tui.app import LoveletApp
from lovelet_tui.colour import look_for
from protocol import BotSpec, CreateTable, Start, Tutorial, encode

from ..lobby import Identity, Lobby, LobbySettings, TableSettings
from ..services.clock import LoopClock
from ..services.sanitize import clean_name
from .glue import LobbyLink


class LocalLink(LobbyLink):
    """After the app's hello, sets up a table with bots and starts it, as the player would."""

    def __init__(self, setup: list[bytes]) -> None:
        super().__init__()
        self._setup = setup

    def send(self, frame: bytes) -> None:
        """Forward the frame; the first one (hello) is followed by the table set-up."""
        super().send(frame)
        setup, self._setup = self._setup, []
        for queued in setup:
            super().send(queued)


def local_app(
    edition: str, players: int, bots: str, bot_delay: float = 0.6, *, tutorial: bool = False
) -> LoveletApp:
    """The app, attached to a lobby of its own that seats it with bots and starts the game
    (or, with `tutorial`, the tutorial's)."""
    name = clean_name(getpass.getuser() or "you")
    settings = LobbySettings(table=TableSettings(bot_delay=bot_delay, round_pause=30))
    lobby = Lobby(settings, clock=LoopClock())
    bot_seats = tuple(BotSpec(seat, bots) for seat in range(1, players))
    setup = [
        encode(CreateTable(f"{name}'s table", edition, players, None, bot_seats)),
        encode(Start()),
    ]
    if tutorial:
        setup = [encode(Tutorial())]
    link = LocalLink(setup)
    app = LoveletApp(link, name, look=look_for(os.environ.get("TERM", ""), os.environ))
    link.attachment = lobby.attach(Identity(f"local:{name}", name), app.deliver)
    return app


def play(
    edition: str, players: int, bots: str, bot_delay: float, *, tutorial: bool = False
) -> None:
    """Play one table in this terminal until the player quits.

    The lobby is built inside the loop that then runs the app, so its timers run on that loop
    from the start. (`App.run` is `asyncio.run` of `App.run_async`, nothing more.)
    """
    asyncio.run(_play(edition, players, bots, bot_delay, tutorial))


async def _play(edition: str, players: int, bots: str, bot_delay: float, tutorial: bool) -> None:
    await local_app(edition, players, bots, bot_delay, tutorial=tutorial).run_async()
