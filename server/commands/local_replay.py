"""`lovelet replay GAME_ID`: the replay screen in your own terminal, straight from the database.

The app talks to a link that answers like the server would, from the same code
(`lobby.replays.replay_for`), as the operator: any finished game, from any seat.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import sys
from collections.abc import Callable
from pathlib import Path

from lovelet_tui.app import LoveletApp
from lovelet_tui.colour import look_for
from protocol import (
    PROTOCOL_VERSION,
    Direction,
    ErrorReply,
    Hello,
    Message,
    ProtocolError,
    ReplayRequest,
    Welcome,
    decode,
    encode,
)

from ..lobby.errors import TableError
from ..lobby.replays import replay_for
from ..services.catalogue import catalogue
from ..services.sanitize import clean_name
from ..store import Store, StoreError, database_path

HERE_ONLY = "only the replay is open here"


class ReplayLink:
    """The app's `Link`: answers `hello` and `replay_request` from `store`, refuses the rest."""

    def __init__(self, store: Store, name: str) -> None:
        self.store = store
        self.name = name
        self.deliver: Callable[[bytes], None] = lambda frame: None

    def send(self, frame: bytes) -> None:
        """One frame from the app, answered at once."""
        try:
            message = decode(frame, direction=Direction.TO_SERVER)
            self._reply(self._answer(message))
        except ProtocolError as err:
            self._reply(ErrorReply(str(err.code), err.reason))
        except TableError as err:
            self._reply(ErrorReply(err.code, err.message))

    def _answer(self, message: Message) -> Message:
        if isinstance(message, Hello):
            return Welcome(
                PROTOCOL_VERSION, self.name, None, False, "", False, None, catalogue=catalogue()
            )
        if isinstance(message, ReplayRequest):
            return replay_for(self.store, message, None, any_seat=True)
        return ErrorReply("not_here", HERE_ONLY)

    def _reply(self, message: Message) -> None:
        self.deliver(encode(message))

    def close(self) -> None:
        """The app quits: nothing to free (the command closes the database)."""


def replay_command(data_dir: Path, game_id: int, seat: int | None) -> int:
    """Open game `game_id`'s replay from `seat`'s view (None: the public view) until the
    player closes it; 1 with a message if it cannot be replayed."""
    path = database_path(data_dir)
    if not path.exists():
        return _fail(f"no database at {path} (has `lovelet serve` run with this data directory?)")
    request = ReplayRequest(game_id, seat, 1)
    try:
        with Store.open(path) as store:
            replay_for(store, request, None, any_seat=True)  # refused now, before the screen
            link = ReplayLink(store, clean_name(getpass.getuser() or "you"))
            asyncio.run(_run(link, request))
    except TableError as err:
        return _fail(err.message)
    except StoreError as err:
        return _fail(str(err))
    return 0


async def _run(link: ReplayLink, request: ReplayRequest) -> None:
    look = look_for(os.environ.get("TERM", ""), os.environ)
    app = LoveletApp(link, link.name, look=look, replay=request)
    link.deliver = app.deliver
    await app.run_async()


def _fail(message: str) -> int:
    print(f"lovelet replay: {message}", file=sys.stderr)
    return 1
