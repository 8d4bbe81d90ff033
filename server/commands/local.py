"""`lovelet play`: the same app in your own terminal, against bots, without SSH; its games
are kept in the data directory's database (stats, replays, the player's profile), under a
player of its own (`local:NAME`) that reserves no name there."""

from __future__ import annotations

import asyncio
import getpass
import os
from pathlib import Path

from lovelet_tui.app import LoveletApp
from lovelet_tui.colour import look_for
from protocol import BotSpec, CreateTable, Start, Tutorial, encode

from ..lobby import Identity, Lobby, LobbySettings, TableSettings
from ..services.clock import LoopClock
from ..services.sanitize import clean_name
from ..store import Store, database_path
from .glue import LobbyLink


class LocalLink(LobbyLink):
    """After the app's hello, sets up a table with bots and starts it, as the player would;
    when the app is gone, closes the lobby it had to itself (a game left unfinished is
    recorded as abandoned)."""

    def __init__(self, setup: list[bytes], lobby: Lobby) -> None:
        super().__init__()
        self._setup = setup
        self._lobby = lobby

    def send(self, frame: bytes) -> None:
        """Forward the frame; the first one (hello) is followed by the table set-up."""
        super().send(frame)
        setup, self._setup = self._setup, []
        for queued in setup:
            super().send(queued)

    def close(self) -> None:
        """The app is gone: so is its lobby."""
        super().close()
        self._lobby.shut_down()


def local_app(
    edition: str,
    players: int,
    bots: str,
    bot_delay: float = 0.6,
    *,
    tutorial: bool = False,
    store: Store | None = None,
) -> LoveletApp:
    """The app, attached to a lobby of its own that seats it with bots and starts the game
    (or, with `tutorial`, the tutorial's); its games kept in `store`, if given."""
    name = clean_name(getpass.getuser() or "you")
    identity = Identity(f"local:{name}", name)
    if store is not None:
        store.record_visit(identity.id, name)
    table = TableSettings(bot_delay=bot_delay, round_pause=30)
    lobby = Lobby(LobbySettings(table=table, keep_tables=False), store=store, clock=LoopClock())
    bot_seats = tuple(BotSpec(seat, bots) for seat in range(1, players))
    setup = [
        encode(CreateTable(f"{name}'s table", edition, players, None, bot_seats)),
        encode(Start()),
    ]
    if tutorial:
        setup = [encode(Tutorial())]
    link = LocalLink(setup, lobby)
    app = LoveletApp(link, name, look=look_for(os.environ.get("TERM", ""), os.environ))
    link.attachment = lobby.attach(identity, app.deliver)
    return app


def play(
    edition: str,
    players: int,
    bots: str,
    bot_delay: float,
    data_dir: Path,
    *,
    tutorial: bool = False,
) -> None:
    """Play one table in this terminal until the player quits, its games kept in `data_dir`.

    The lobby is built inside the loop that then runs the app, so its timers run on that loop
    from the start. (`App.run` is `asyncio.run` of `App.run_async`, nothing more.)
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    with Store.open(database_path(data_dir)) as store:
        asyncio.run(_play(edition, players, bots, bot_delay, tutorial, store))


async def _play(
    edition: str, players: int, bots: str, bot_delay: float, tutorial: bool, store: Store
) -> None:
    app = local_app(edition, players, bots, bot_delay, tutorial=tutorial, store=store)
    await app.run_async()
