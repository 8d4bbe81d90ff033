"""Textual messages that carry what the server side delivered into the app's own queue, and
`send`, which takes a screen's request to the server at once."""

from __future__ import annotations

from typing import Protocol, cast

from textual.dom import DOMNode
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


class _Sender(Protocol):
    def send(self, message: ClientMessage) -> None: ...


def send(node: DOMNode, message: ClientMessage) -> None:
    """Send `message` to the server through `node`'s app (a `LoveletApp`), now: a message
    posted to the app would wait for two trips through the event loop (the screen's queue,
    then the app's) before the table hears of a move."""
    cast(_Sender, node.app).send(message)
