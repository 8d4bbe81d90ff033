"""A message's handlers, looked up once per pair of classes by the server's patch
(`server/ssh/compat.py`), are the ones Textual's own lookup finds, in its order."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from test_tui_support import FakeLink
from textual import events, on
from textual.app import App
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input

from lovelet_tui.app import LoveletApp
from lovelet_tui.screens.lobby import LobbyScreen
from lovelet_tui.screens.table import TableScreen
from lovelet_tui.widgets.chat_input import ChatInput
from lovelet_tui.widgets.log_view import LogView
from server.ssh import compat

Lookup = Callable[[MessagePump, str, Message], Iterable[tuple[type, Any]]]


class Ping(Message):
    """A message with handlers by name and by `@on` on several classes."""


class Pong(Ping):
    """A subclass: handlers of `Ping` take it too."""


class Base(Widget):
    def on_ping(self, message: Ping) -> None: ...

    def _on_idle(self, event: events.Idle) -> None: ...

    @on(Ping)
    def pinged(self, message: Ping) -> None: ...


class Derived(Base):
    def on_ping(self, message: Ping) -> None: ...

    def on_pong(self, message: Pong) -> None: ...

    @on(Pong)
    @on(Ping)
    def on_key(self, message: Message) -> None:
        """Named like a key handler, and decorated: it handles only what `@on` says."""


class Picky(Derived):
    @on(Button.Pressed, "#ok")
    def ok(self, message: Button.Pressed) -> None: ...


class Stops(Derived):
    def on_ping(self, message: Ping) -> None:
        message.prevent_default()


def _pumps() -> list[MessagePump]:
    return [
        Widget(),
        Base(),
        Derived(),
        Picky(),
        Stops(),
        Input(),
        Button("ok", id="ok"),
        LogView(),
        ChatInput(),
        Screen(),
        LobbyScreen(),
        TableScreen("ABCD"),
        App(),
        LoveletApp(FakeLink(), "ana"),
    ]


def _messages() -> list[Message]:
    return [
        events.Idle(),
        events.Key("a", "a"),
        events.Mount(),
        events.Resize.from_dimensions((80, 24), None),
        Ping(),
        Pong(),
        Button.Pressed(Button("ok", id="ok")),
        ChatInput.Closed("hi"),
    ]


def _found(lookup: Lookup, pump: MessagePump, message: Message) -> list[tuple[type, Any]]:
    """What `_on_message` would run, running nothing: handlers that prevent the default
    action are the ones in `Stops`, which does so on `Ping`."""
    found = []
    for cls, method in lookup(pump, message.handler_name, message):
        found.append((cls, method))
        if cls is Stops and isinstance(message, Ping):
            message.prevent_default()
    return found


@pytest.mark.parametrize("patched", [False, True], ids=["first", "known"])
def test_every_pump_finds_textuals_handlers_for_every_message(patched: bool) -> None:
    known: Lookup = compat._dispatch_methods_known  # type: ignore[assignment]
    textuals: Lookup = compat._get_dispatch_methods  # type: ignore[assignment]
    compat._HANDLERS.clear()  # each pair of classes is looked up anew on its first message
    if patched:
        for pump in _pumps():
            for message in _messages():
                list(known(pump, message.handler_name, message))  # now known
    for pump in _pumps():
        for theirs_to, ours_to in zip(_messages(), _messages(), strict=True):
            theirs = _found(textuals, pump, theirs_to)
            ours = _found(known, pump, ours_to)
            assert ours == theirs, (type(pump).__name__, type(ours_to).__name__)


def test_a_handler_that_prevents_the_default_stops_the_base_classes_ones() -> None:
    handlers = _found(compat._dispatch_methods_known, Stops(), Ping())  # type: ignore[arg-type]
    assert [cls for cls, _ in handlers] == [Stops]
    both = _found(compat._dispatch_methods_known, Derived(), Pong())  # type: ignore[arg-type]
    assert [cls.__name__ for cls, _ in both] == ["Derived", "Derived", "Base"]
