"""Start and stop the web front-end: one listener for the page, its assets and the WebSocket."""

from __future__ import annotations

import http
import logging
from dataclasses import dataclass, field

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from server.ssh.limits import ConnectionGate
from server.ssh.session import SessionConfig, note_refusal
from server.web.login import BrowserLogins
from server.web.origin import allowed_origins, public_url
from server.web.pages import page_response, text_response
from server.web.session import WebSessions, peer_address

log = logging.getLogger(__name__)
socket_log = logging.getLogger("server.web.socket")
"""websockets' own lines: one per HTTP answer and connection at INFO, its warnings above."""
socket_log.setLevel(logging.WARNING)  # the server logs each session and refusal itself

MAX_MESSAGE = 64 * 1024
"""Bytes of one message from a browser (a paste arrives as one): more closes the socket."""
MAX_QUEUE = 4
"""Messages received while the session's input is paused, before TCP backs up instead."""


@dataclass(frozen=True, slots=True)
class WebAddress:
    """Where the web front-end listens, and how browsers reach it."""

    host: str
    port: int
    public_url: str = ""
    """`web_public_url`: the page's address behind a proxy (empty: derived from `host`)."""
    public_host: str = ""
    """`public_host`, for the link when no public URL is set."""

    @property
    def secure(self) -> bool:
        """Players reach the page over https (behind a TLS proxy)."""
        return self.public_url.startswith("https://")


@dataclass(eq=False)
class WebService:
    """A running web front-end."""

    port: int
    """The port actually bound (useful when 0 was asked for)."""
    url: str
    """The page's address as players reach it (an invite link is this + `/t/CODE`)."""
    origins: frozenset[str]
    _server: Server = field(repr=False)
    _gate: ConnectionGate = field(repr=False)

    def stop_accepting(self) -> None:
        """Refuse new connections; the sessions running go on."""
        self._gate.shut()
        self._server.close(close_connections=False)

    async def close(self) -> None:
        """Stop listening and drop what is left (the sessions close with the SSH service's
        registry, which holds them too)."""
        self.stop_accepting()
        self._gate.close_all()
        await self._server.wait_closed()


async def start_web_server(
    address: WebAddress, config: SessionConfig, *, reuse_port: bool = False
) -> WebService:
    """Serve the page at `address` and run a session (`config`'s, shared with the SSH
    server: the same registry, lobby, limits and CPU pool; a guest's, or a web login's from
    `config.web_logins`) on each WebSocket opened by a page of an allowed origin. Links of
    `ssh HOST web-login` point here once it listens."""
    limits = config.limits
    gate = ConnectionGate(limits)
    logins = BrowserLogins(config.web_logins, address.secure)
    sessions = WebSessions(config, gate, logins)
    origins: frozenset[str] = frozenset()

    def answer(connection: ServerConnection, request: Request) -> Response | None:
        response = logins.answer(request) or page_response(request)
        if response is not None:
            return response
        origin = request.headers.get("Origin")
        if origin not in origins:
            note_refusal(config, peer_address(connection), label="origin")
            return text_response(http.HTTPStatus.FORBIDDEN, "This page may not connect here.\n")
        return None

    server = await serve(
        sessions.handle,
        address.host,
        address.port,
        process_request=answer,
        server_header="lovelet",
        logger=socket_log,
        compression=None,  # a zlib context per socket costs memory; the LAN or proxy is fast
        max_size=MAX_MESSAGE,
        max_queue=MAX_QUEUE,
        open_timeout=limits.handshake_timeout,
        close_timeout=limits.close_timeout,
        ping_interval=limits.keepalive_interval,
        ping_timeout=limits.keepalive_interval * limits.keepalive_count_max,
        reuse_port=reuse_port or None,
    )
    port = server.sockets[0].getsockname()[1]
    origins = allowed_origins(address.public_url, address.public_host, address.host, port)
    url = public_url(address.public_url, address.public_host, address.host, port)
    if config.web_logins is not None:
        config.web_logins.base_url = url
    log.info("web listening on %s:%d, page at %s", address.host, port, url)
    return WebService(port, url, origins, server, gate)
