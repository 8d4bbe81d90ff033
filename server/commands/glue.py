"""Bind one app to the lobby: frames from the app go in, frames from the lobby come out."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Protocol

from lovelet_tui.app import LoveletApp
from lovelet_tui.colour import Look, look_for

from ..lobby import Identity
from ..lobby.session import SendFrame
from ..ssh.botapi import BotFactory
from ..ssh.info import SessionInfo


class Attachment(Protocol):
    """A session's end of the game: frames in through `receive`, out through its sink."""

    def receive(self, frame: bytes) -> None: ...

    def detach(self) -> None: ...


class Core(Protocol):
    """What sessions attach to: the in-process `Lobby`, or a front-end's remote core."""

    def attach(
        self, identity: Identity, send_frame: SendFrame, notice: str | None = None
    ) -> Attachment: ...


class LobbyLink:
    """The app's `Link`: its frames go to the lobby; `close` detaches the session once."""

    def __init__(self) -> None:
        self.attachment: Attachment | None = None

    def send(self, frame: bytes) -> None:
        """A frame from the app to the lobby."""
        if self.attachment is not None:
            self.attachment.receive(frame)

    def close(self) -> None:
        """The app is gone: free its place in the lobby."""
        if self.attachment is not None:
            self.attachment.detach()
            self.attachment = None


def attach_app(
    lobby: Core,
    identity: Identity,
    notice: str | None = None,
    *,
    look: Look = Look.COLOUR,
    table_code: str | None = None,
) -> LoveletApp:
    """A new app whose frames travel to and from `lobby` as `identity`, drawn in `look`;
    with `table_code`, it goes straight to that table."""
    link = LobbyLink()
    app = LoveletApp(link, identity.name, look=look, visit=table_code)
    link.attachment = lobby.attach(identity, app.deliver, notice)
    return app


def identity_of(info: SessionInfo) -> Identity:
    """The lobby identity of an SSH session: its key fingerprint, or a one-off guest id."""
    if info.identity is None:
        guest_id = f"guest:{secrets.token_hex(8)}"
        return Identity(guest_id, info.nickname, guest=True, address=info.peer)
    return Identity(info.identity, info.nickname, address=info.peer, api_bot=info.api_bot)


def ssh_app_factory(lobby: Core):
    """The factory the SSH server calls for each terminal session."""

    def make_app(info: SessionInfo) -> LoveletApp:
        look = look_for(info.term, info.environment)
        identity = identity_of(info)
        return attach_app(lobby, identity, info.notice, look=look, table_code=info.table_code)

    return make_app


def ssh_bot_factory(lobby: Core) -> BotFactory:
    """The factory the SSH server calls for each bot API session: the same attach path as an
    app's, with the frames going straight to and from the program."""

    def attach_bot(info: SessionInfo, send_frame: Callable[[bytes], None]) -> Attachment:
        return lobby.attach(identity_of(info), send_frame, info.notice)

    return attach_bot
