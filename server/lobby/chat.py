"""Chat: a line to everyone at the sender's table, or to everyone in the lobby."""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import Chat, ChatLine

from ..services.sanitize import clean_text
from .errors import TableError
from .session import Session
from .table import Say

if TYPE_CHECKING:
    from .lobby import Lobby


def chat(lobby: Lobby, session: Session, message: Chat) -> None:
    """Send `session`'s line where it is, cleaned and within its rate limit."""
    settings = lobby.settings
    text = clean_text(message.text, settings.chat_max_length)
    if not text:
        raise TableError("empty_chat", "nothing to say")
    if not session.chat_limit.allow(lobby.clock.now()):
        raise TableError(
            "chat_rate",
            f"slow down: at most {settings.chat_burst} lines every {settings.chat_interval:.0f} s",
        )
    if session.table is not None:
        session.table.submit(session, Say(ChatLine("table", session.name, text)))
        return
    line = ChatLine("lobby", session.name, text)
    for receiver in lobby.sessions:
        if receiver.greeted and receiver.table is None:
            receiver.send(line)
