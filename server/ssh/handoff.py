"""Subsystem hand-off: a session that opens a subsystem (the bot API) gives its channel to
that subsystem's handler, which then gets every channel callback the app would have."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import asyncssh

from server.ssh.input import InputPump


class ChannelTaker(Protocol):
    """A subsystem's handler: it takes a session's channel over once the subsystem opens."""

    def start(self) -> None: ...

    def eof(self) -> None: ...

    def pause_writing(self) -> None: ...

    def resume_writing(self) -> None: ...

    def connection_lost(self) -> None: ...


Subsystems = Mapping[str, Callable[["asyncssh.SSHServerChannel[bytes]", InputPump], ChannelTaker]]
"""The subsystems a session may open, each with the factory of its handler."""


class Handoff:
    """The subsystems a session may open, and the handler that took its channel, if one did."""

    def __init__(self, subsystems: Subsystems | None) -> None:
        self._subsystems = subsystems or {}
        self.taker: ChannelTaker | None = None

    def request(
        self, name: str, chan: asyncssh.SSHServerChannel[bytes] | None, pump: InputPump | None
    ) -> bool:
        """Hand the channel to subsystem `name`'s handler; False for one not offered."""
        make = self._subsystems.get(name)
        if make is None or chan is None or pump is None:
            return False
        self.taker = make(chan, pump)
        return True

    def start(self) -> bool:
        """Start the handler that took the channel; False if none did."""
        if self.taker is None:
            return False
        self.taker.start()
        return True

    def eof(self) -> None:
        """The client sent EOF."""
        if self.taker is not None:
            self.taker.eof()

    def pause_writing(self) -> None:
        """The channel's output buffer is full."""
        if self.taker is not None:
            self.taker.pause_writing()

    def resume_writing(self) -> None:
        """The channel's output buffer has drained."""
        if self.taker is not None:
            self.taker.resume_writing()

    def connection_lost(self) -> None:
        """The channel is gone."""
        if self.taker is not None:
            self.taker.connection_lost()
