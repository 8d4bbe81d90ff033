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
    invite: str | None = None,
    web_link: str | None = None,
) -> LoveletApp:
    """A new app whose frames travel to and from `lobby` as `identity`, drawn in `look`;
    with `table_code`, it goes straight to that table; `invite`: its own invite command;
    `web_link`: the server's page, for the invite link."""
    link = LobbyLink()
    app = LoveletApp(
        link, identity.name, look=look, visit=table_code, invite=invite, web_link=web_link
    )
    link.attachment = lobby.attach(identity, app.deliver, notice)
    return app


def identity_of(info: SessionInfo) -> Identity:
    """The lobby identity of an SSH session: its key fingerprint, or a one-off guest id."""
    if info.identity is None:
        guest_id = f"guest:{secrets.token_hex(8)}"
        return Identity(guest_id, info.nickname, guest=True, address=info.peer)
    return Identity(info.identity, info.nickname, address=info.peer, api_bot=info.api_bot)


def session_invite(reached: tuple[str, int] | None, public_port: int = 0) -> str | None:
    """Until `public_host` is set: the invite command to the address this player connected
    to (`ssh -t -p 2222 yourname@192.0.2.7`), `public_port` for its port if set."""
    if reached is None:
        return None
    host, port = reached
    host = host.removeprefix("::ffff:")  # an IPv4 client on a dual-stack socket
    port = public_port or port
    return f"ssh -t yourname@{host}" if port == 22 else f"ssh -t -p {port} yourname@{host}"


def ssh_app_factory(
    lobby: Core,
    public_host: str = "",
    public_port: int = 0,
    web_link: Callable[[], str | None] = lambda: None,
):
    """The factory the SSH server (and the web front-end) calls for each terminal session;
    without `public_host`, each app shows the invite to the address its player connected
    to; `web_link()` is the server's page, if it serves one (known once it listens)."""

    def make_app(info: SessionInfo) -> LoveletApp:
        look = look_for(info.term, info.environment)
        identity = identity_of(info)
        invite = None if public_host else session_invite(info.reached, public_port)
        return attach_app(
            lobby,
            identity,
            info.notice,
            look=look,
            table_code=info.table_code,
            invite=invite,
            web_link=web_link(),
        )

    return make_app


def ssh_bot_factory(lobby: Core) -> BotFactory:
    """The factory the SSH server calls for each bot API session: the same attach path as an
    app's, with the frames going straight to and from the program."""

    def attach_bot(info: SessionInfo, send_frame: Callable[[bytes], None]) -> Attachment:
        return lobby.attach(identity_of(info), send_frame, info.notice)

    return attach_bot
