"""The shared in-process heart of the server: sessions, the lobby and its tables.

The lobby routes each session's frames to its handlers (`greeting`, `codes`, `history`,
`chat`, `admin`) and to the table the session is at; a table (`table.Table`) is an actor over
its seating, doors (who comes and goes, and `claims` of bot seats), game runner (with `turns`:
its timer and bots) and broadcaster. Time comes from an injected `clock.Clock`. Imports the
engine, bots, store, services, operations (logs, metrics, configuration defaults) and the
protocol; never asyncio, SSH, the bus or the TUI (an import-linter contract in pyproject.toml
holds the last three).
"""

from .errors import TableError
from .lobby import Attachment, Lobby, LobbySettings
from .resume import Resumed, resume_tables
from .runner import TableSettings
from .session import Identity, Session
from .table import Table

__all__ = [
    "Attachment",
    "Identity",
    "Lobby",
    "LobbySettings",
    "Resumed",
    "Session",
    "Table",
    "TableError",
    "TableSettings",
    "resume_tables",
]
