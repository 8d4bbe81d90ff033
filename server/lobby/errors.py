"""The one error type of the lobby and its tables: a refusal the client is told about."""

from __future__ import annotations


class TableError(Exception):
    """A request the table refuses; `code` is stable, the message is for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
