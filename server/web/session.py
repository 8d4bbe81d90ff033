"""One WebSocket, one guest: what the page asked for (a name, a size, a table), the limits a
connection meets, and a `StreamSession` running the app over the socket."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server.ops.logs import log_connect
from server.services.sanitize import Name, name_from
from server.ssh.guard import TOO_MANY_RESIZES
from server.ssh.info import SessionInfo
from server.ssh.limits import EARLY_DROP, ConnectionGate, SSHLimits
from server.ssh.requests import WindowChanges
from server.ssh.session import Login, SessionConfig, StreamSession, note_refusal
from server.ssh.terminal import table_code
from server.ssh.usernames import mixed_refusal
from server.web.login import BrowserLogins
from server.web.stream import WebStream

TERM = "xterm-256color"
"""What xterm.js is, as TERM: the colour look follows the server's colours, as over SSH."""
CLIENT = "websocket"
"""The client version a browser session logs (SSH logs the client's version string)."""
QUERY_MAX = 400
"""Characters of the WebSocket URL's query looked at."""
FORWARDED_MAX = 1000
"""Characters of an `X-Forwarded-For` header looked at (its last address counts)."""


@dataclass(frozen=True, slots=True)
class Ask:
    """What the page asked for in the WebSocket's URL, sanitised."""

    name: Name
    size: tuple[int, int]
    table_code: str | None

    @classmethod
    def from_path(cls, path: str, limits: SSHLimits) -> Ask:
        """`/ws?name=N&cols=C&rows=R[&code=CODE]`; what is missing or malformed defaults."""
        query = parse_qs(urlsplit(path[:QUERY_MAX]).query, max_num_fields=8)
        one = {key: values[0] for key, values in query.items() if values}
        size = limits.clamp_size(_number(one, "cols", 80), _number(one, "rows", 24))
        code = table_code(one.get("code", "")) if one.get("code") else None
        return cls(name_from(one.get("name", "")), size, code)


def _number(query: Mapping[str, str], key: str, default: int) -> int:
    text = query.get(key, "")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 5 else default


class GateEntry:
    """A WebSocket as the connection gate counts it (`server.ssh.limits.Connection`)."""

    def __init__(self, stream: WebStream) -> None:
        self._stream = stream

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """A browser has always spoken by the time it is counted (its handshake is done)."""
        return CLIENT if name == "client_version" else default

    def close(self) -> None:
        self._stream.close()

    def abort(self) -> None:
        self._stream.abort()


class WebSessions:
    """Runs a session on each WebSocket (a guest's, or the player's whose web login its
    cookie names), within the SSH layer's limits: the same per-address and total connection
    counts (a gate of their own), input and key budgets, CPU share, output back-pressure and
    resize rate."""

    def __init__(self, config: SessionConfig, gate: ConnectionGate, logins: BrowserLogins) -> None:
        self._config = config
        self._gate = gate
        self._logins = logins

    async def handle(self, socket: ServerConnection) -> None:
        """The WebSocket's whole life: admitted, then one session until either side ends."""
        address = peer_address(socket)
        log_connect(address)
        limits = self._config.limits
        stream = WebStream(
            socket, high_water=limits.output_high_water, low_water=limits.output_low_water
        )
        entry = GateEntry(stream)
        refusal = self._refusal(address, entry)
        if refusal is not None:
            await _refuse(socket, refusal)
            return
        try:
            ask = Ask.from_path(socket.request.path, limits)
            login = self._login(socket, ask, address)
            if isinstance(login, str):
                await _refuse(socket, login)
                return
            await self._run(stream, ask, login)
        finally:
            self._gate.release(entry)

    def _login(self, socket: ServerConnection, ask: Ask, address: str) -> Login | str:
        """Who the socket signs in as: the player with a key its cookie names (a web
        login), else a guest under the name asked for; or why not (a name that mixes
        scripts, refused as over SSH)."""
        keyed = self._logins.login_of(socket.request.headers)
        if keyed is not None:
            return Login(keyed.name, keyed.identity, address, CLIENT)
        mixed = mixed_refusal(ask.name.name)
        if mixed is not None:
            note_refusal(self._config, address, label="mixed_scripts")
            return mixed
        return Login(ask.name.name, None, address, CLIENT, name_problem=ask.name.problem)

    def _refusal(self, address: str, entry: GateEntry) -> str | None:
        """Why this connection may not go on (counted and logged), or None (counted in)."""
        config = self._config
        reason = config.gatekeeper.refuse_address(address) or self._gate.admit(address, entry)
        if reason is None:
            self._gate.logged_in(entry)
            return None
        note_refusal(config, address, reason, label="early_drop" if reason == EARLY_DROP else None)
        return reason

    async def _run(self, stream: WebStream, ask: Ask, login: Login) -> None:
        """One session on the socket, until either side ends it."""
        config = self._config
        done = asyncio.Event()
        session = StreamSession(config, login, stream, done.set, lambda reason: kick(reason))
        stream.follow(session.pause_output, session.resume_output)
        size = ask.size
        kick_timer: list[asyncio.TimerHandle] = []

        def kick(reason: str) -> None:
            loop = asyncio.get_running_loop()
            kick_timer.append(loop.call_later(config.limits.close_timeout, stream.abort))

        def apply_size() -> None:
            session.resize(size)

        resizes = WindowChanges(
            apply_size,
            rate=config.limits.window_change_rate,
            burst=config.limits.window_change_burst,
            interval=config.limits.resize_interval,
        )

        def resized(cols: int, rows: int) -> None:
            nonlocal size
            if resizes.changed():
                size = config.limits.clamp_size(cols, rows)
            else:
                session.disconnect(TOO_MANY_RESIZES)

        def make_info(nickname: str, notice: str | None) -> SessionInfo:
            return SessionInfo(
                nickname, login.identity, login.peer, TERM, size, notice, table_code=ask.table_code
            )  # no `reached`: the SSH invite is the server's own, not this page's address

        session.start(make_info)
        sender = session.run_metered(stream.send_all())
        await session.run_metered(stream.receive_all(session.received, resized))
        resizes.close()
        stream.close()
        session.lost()
        await done.wait()
        await sender
        for timer in kick_timer:
            timer.cancel()


async def _refuse(socket: ServerConnection, message: str) -> None:
    """Say why in one line of the terminal, and close."""
    try:
        await socket.send(message.rstrip("\r\n").encode() + b"\r\n")
        await socket.close(1008)
    except ConnectionClosed:
        pass


def peer_address(socket: ServerConnection) -> str:
    """The client's IP address: the peer's, or, from a proxy on this machine (a loopback
    peer), the address it says it forwards for (the last of `X-Forwarded-For`, the one the
    proxy added), so that the per-address limits count players, not the proxy."""
    peer = socket.remote_address
    address = str(peer[0]) if peer else "?"
    request = socket.request
    if request is None or not _loopback(address):
        return address
    forwarded = request.headers.get("X-Forwarded-For", "")[:FORWARDED_MAX]
    claimed = forwarded.rpartition(",")[2].strip()
    try:
        return str(ipaddress.ip_address(claimed))
    except ValueError:
        return address


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.removeprefix("::ffff:")).is_loopback
    except ValueError:
        return False
