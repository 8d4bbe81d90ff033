"""Textual messages that carry what the server side delivered into the app's own queue."""

from __future__ import annotations

from textual.message import Message

from protocol import ClientMessage, ServerMessage


class Arrived(Message):
    """A decoded server message, now on the app's own task."""

    def __init__(self, message: ServerMessage) -> None:
        super().__init__()
        self.message = message


class Rejected(Message):
    """A frame that did not decode; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class Outgoing(Message):
    """A screen asks the app to send `message` to the server."""

    def __init__(self, message: ClientMessage) -> None:
        super().__init__()
        self.message = message
