"""The answer to `hello`: the welcome, the notice, a held seat back, and the lobby list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import PROTOCOL_VERSION, Hello, Notice, Welcome

from ..services.catalogue import catalogue
from .errors import TableError
from .session import Session
from .table import Rejoin

if TYPE_CHECKING:
    from .lobby import Lobby


def hello(lobby: Lobby, session: Session, message: Hello) -> None:
    """Welcome a session that speaks this protocol, and put it where it belongs; once."""
    if session.greeted:
        raise TableError("already_greeted", "hello is said once, and it was: nothing changed")
    if message.version != PROTOCOL_VERSION:
        raise TableError(
            "version", f"protocol {message.version} is not {PROTOCOL_VERSION}: please update"
        )
    identity = session.identity
    session.greeted = True
    session.send(
        Welcome(
            PROTOCOL_VERSION,
            identity.name,
            None if identity.guest else identity.id,
            identity.guest,
            lobby.motd(),
            lobby.is_admin(identity),
            lobby.settings.default_timer,
            lobby.settings.invite,
            catalogue=catalogue(),
        )
    )
    if session.notice:
        session.send(Notice(session.notice))
    rejoin_held_seat(lobby, session)
    if session.table is None:
        lobby.lobby_list.send_to(session)
    lobby.friends.greet(session)
    lobby.lobby_list.changed()


def rejoin_held_seat(lobby: Lobby, session: Session) -> None:
    """A keyed player seated at a table gets the seat (and its view) back, from a dropped
    session or from another of theirs (which is told and closed); a guest of a held guest
    seat's name and address is told how to take it back."""
    for table in list(lobby.tables.values()):
        table.submit(session, Rejoin())
        if session.table is not None:
            return
