"""Start and stop the web front-end: one listener for the page, its assets and the WebSocket."""

from __future__ import annotations

import asyncio
import http
import logging
from collections import Counter
from dataclasses import dataclass, field

from websockets.http11 import Request, Response

from server.ops.logs import log_connect
from server.services.addresses import address_key
from server.ssh.limits import EARLY_DROP, ConnectionGate, SSHLimits
from server.ssh.session import Login, SessionConfig, note_refusal
from server.ssh.usernames import mixed_refusal
from server.ssh.web_login import LoginsUnavailable, WebLogin
from server.web.connection import CLIENT, Terminal, Upgrade, WebConnection
from server.web.login import BrowserLogins, unavailable
from server.web.origin import allowed_origins, public_url
from server.web.pages import page_response, text_response
from server.web.session import LOCAL_PROXY, Ask, WebTerminal, client_address

log = logging.getLogger(__name__)


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


class WebFront:
    """What every connection of the web front-end shares: the answers to HTTP requests, the
    origins allowed to open the WebSocket, and a session on each WebSocket (a guest's, or
    the player's whose web login its cookie names) within the SSH layer's limits: the same
    per-address and total connection counts (a gate of their own), input and key budgets,
    CPU share, output back-pressure and resize rate."""

    def __init__(self, config: SessionConfig, logins: BrowserLogins) -> None:
        self.config = config
        self.limits: SSHLimits = config.limits
        self.gate = ConnectionGate(config.limits)
        self.logins = logins
        self.origins: frozenset[str] = frozenset()
        self._waiting: dict[WebConnection, str] = {}  # request still to come, by address key
        self._waiting_from: Counter[str] = Counter()
        self._idle: dict[WebConnection, None] = {}  # of those, answered before: oldest first

    def arrived(self, connection: WebConnection) -> bool:
        """Count a connection whose request is still to come: at most `max_per_address`
        from one address (but a proxy on this machine: it sends each request as it opens
        the connection) and `max_connections` in all (a request normally comes at once;
        silent ones are dropped at `handshake_timeout`). At a limit, an idle connection
        kept alive (of that address, or any) is closed to make room. False: drop it
        (counted, logged)."""
        key = address_key(connection.peer, self.limits.ipv6_prefix)
        full = self._full(connection.peer, key)
        if full is not None and not self.close_idle(key if full == "per_address" else None):
            note_refusal(self.config, connection.peer, label=full)
            return False
        self._wait(connection, key)
        return True

    def waiting_again(self, connection: WebConnection) -> bool:
        """An answered connection is to wait for another request (HTTP keep-alive): counted
        as one whose request is still to come, and the first closed to make room for a new
        one. False (nothing counted): there is no room, close it instead."""
        key = address_key(connection.peer, self.limits.ipv6_prefix)
        if self._full(connection.peer, key) is not None:
            return False
        self._wait(connection, key)
        self._idle[connection] = None
        return True

    def _wait(self, connection: WebConnection, key: str) -> None:
        """Count `connection`, from address `key`, as waiting for its request."""
        self._waiting[connection] = key
        self._waiting_from[key] += 1

    def _full(self, peer: str, key: str) -> str | None:
        """Which limit one more waiting connection from `peer` would break, if any."""
        if peer not in LOCAL_PROXY and self._waiting_from[key] >= self.limits.max_per_address:
            return "per_address"
        if len(self._waiting) >= self.limits.max_connections:
            return "full"
        return None

    def close_idle(self, key: str | None) -> bool:
        """Close the oldest idle connection (from address `key`, or any); False if none."""
        idle = next((c for c in self._idle if key is None or self._waiting[c] == key), None)
        if idle is None:
            return False
        self.settled(idle)
        idle.close()
        return True

    def settled(self, connection: WebConnection) -> None:
        """The connection's request came, or it closed (nothing if it was not waiting)."""
        self._idle.pop(connection, None)
        key = self._waiting.pop(connection, None)
        if key is not None:
            self._waiting_from[key] -= 1
            if not self._waiting_from[key]:
                del self._waiting_from[key]

    async def answer(self, request: Request, peer: str) -> Response | Upgrade:
        """The HTTP answer to `request`, or the WebSocket to open (from an allowed page),
        signed in as its cookie's web login if it has one."""
        address = client_address(peer, request.headers)
        response = await self.logins.answer(request, address) or page_response(request)
        if response is not None:
            return response
        if request.headers.get("Origin") not in self.origins:
            note_refusal(self.config, address, label="origin")
            return text_response(http.HTTPStatus.FORBIDDEN, "This page may not connect here.\n")
        try:
            return Upgrade(await self.logins.login_of(request.headers))
        except LoginsUnavailable:
            return unavailable()

    def open(
        self, connection: WebConnection, request: Request, peer: str, keyed: WebLogin | None
    ) -> Terminal | str:
        """The session on the upgraded `connection` (`keyed`: the web login its cookie
        names, None for a guest), or why not (counted and logged)."""
        address = client_address(peer, request.headers)
        log_connect(address)
        config = self.config
        reason = config.gatekeeper.refuse_address(address) or self.gate.admit(address, connection)
        if reason is not None:
            label = "early_drop" if reason == EARLY_DROP else None
            note_refusal(config, address, reason, label=label)
            return reason
        self.gate.logged_in(connection)
        ask = Ask.from_path(request.path, self.limits)
        login = self._login(keyed, ask, address)
        if isinstance(login, str):
            return login
        return WebTerminal(config, connection, ask, login)

    def _login(self, keyed: WebLogin | None, ask: Ask, address: str) -> Login | str:
        """Who the socket signs in as: the player with a key its cookie names (`keyed`, a
        web login), else a guest under the name asked for; or why not (a name that mixes
        scripts, refused as over SSH)."""
        if keyed is not None:
            return Login(keyed.name, keyed.identity, address, CLIENT)
        mixed = mixed_refusal(ask.name.name)
        if mixed is not None:
            note_refusal(self.config, address, label="mixed_scripts")
            return mixed
        return Login(ask.name.name, None, address, CLIENT, name_problem=ask.name.problem)

    def closed(self, connection: WebConnection) -> None:
        """A connection is gone (nothing for one the gate never counted)."""
        self.gate.release(connection)


@dataclass(eq=False)
class WebService:
    """A running web front-end."""

    port: int
    """The port actually bound (useful when 0 was asked for)."""
    url: str
    """The page's address as players reach it (an invite link is this + `/t/CODE`)."""
    origins: frozenset[str]
    _server: asyncio.Server = field(repr=False)
    _front: WebFront = field(repr=False)

    def stop_accepting(self) -> None:
        """Refuse new connections; the sessions running go on."""
        self._front.gate.shut()
        self._server.close()

    async def close(self) -> None:
        """Stop listening and close what is left: connections kept alive between requests,
        and sessions (which close with the SSH service's registry too)."""
        self.stop_accepting()
        while self._front.close_idle(None):
            pass
        self._front.gate.close_all()
        await self._server.wait_closed()


async def start_web_server(
    address: WebAddress, config: SessionConfig, *, reuse_port: bool = False
) -> WebService:
    """Serve the page at `address` and run a session (`config`'s, shared with the SSH
    server: the same registry, lobby, limits and CPU pool; a guest's, or a web login's from
    `config.web_logins`) on each WebSocket opened by a page of an allowed origin. Links of
    `ssh HOST web-login` point here once it listens."""
    front = WebFront(config, BrowserLogins(config.web_logins, address.secure))
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: WebConnection(front), address.host, address.port, reuse_port=reuse_port or None
    )
    port = server.sockets[0].getsockname()[1]
    front.origins = allowed_origins(address.public_url, address.public_host, address.host, port)
    url = public_url(address.public_url, address.public_host, address.host, port)
    if config.web_logins is not None:
        config.web_logins.base_url = url
    log.info("web listening on %s:%d, page at %s", address.host, port, url)
    return WebService(port, url, front.origins, server, front)
