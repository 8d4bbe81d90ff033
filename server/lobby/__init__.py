"""The shared in-process heart of the server: sessions, the lobby and its tables."""

from .lobby import Attachment, Lobby, LobbySettings
from .session import Identity, Session
from .table import Table, TableError, TableSettings

__all__ = [
    "Attachment",
    "Identity",
    "Lobby",
    "LobbySettings",
    "Session",
    "Table",
    "TableError",
    "TableSettings",
]
