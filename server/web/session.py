"""One browser's session: what the page asked for (a name, a size, a table), who it signs in
as, and the `StreamSession` that runs the app over its WebSocket."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers

from server.services.sanitize import Name, name_from
from server.ssh.guard import TOO_MANY_RESIZES
from server.ssh.info import SessionInfo
from server.ssh.limits import SSHLimits
from server.ssh.requests import WindowChanges
from server.ssh.session import Login, SessionConfig, Stream, StreamSession
from server.ssh.terminal import table_code

TERM = "xterm-256color"
"""What xterm.js is, as TERM: the colour look follows the server's colours, as over SSH."""
QUERY_MAX = 400
"""Characters of the WebSocket URL's query looked at."""
FORWARDED_MAX = 1000
"""Characters at the end of an `X-Forwarded-For` header looked at (its last address counts)."""
LOCAL_PROXY = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
"""Where a reverse proxy on this machine connects from."""


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


def client_address(peer: str, headers: Headers) -> str:
    """The client's IP address: the peer's, or, from a proxy on this machine (`LOCAL_PROXY`),
    the address it says it forwards for (the last of `X-Forwarded-For`, the one the proxy
    added), so that the per-address limits count players, not the proxy."""
    if peer not in LOCAL_PROXY:
        return peer
    forwarded = headers.get("X-Forwarded-For", "")[-FORWARDED_MAX:]
    claimed = forwarded.rpartition(",")[2].strip()
    try:
        return str(ipaddress.ip_address(claimed))
    except ValueError:
        return peer


class Dropper(Stream, Protocol):
    """A stream that can also be dropped at once (a kicked client that does not read)."""

    def abort(self) -> None: ...


class WebTerminal:
    """One WebSocket's terminal and its session: the size the page resizes it to (at most at
    the SSH rate of window changes), and the kick of a session that breaks a limit (the
    socket is dropped if the page does not take the goodbye in time)."""

    def __init__(
        self,
        config: SessionConfig,
        stream: Dropper,
        ask: Ask,
        login: Login,
    ) -> None:
        limits = config.limits
        self._limits = limits
        self._stream = stream
        self._ask = ask
        self._size = ask.size
        self._kick_timer: asyncio.TimerHandle | None = None
        self.session = StreamSession(config, login, stream, _nothing, self._kick)
        self._resizes = WindowChanges(
            self._apply_size,
            rate=limits.window_change_rate,
            burst=limits.window_change_burst,
            interval=limits.resize_interval,
        )
        self.session.start(self._make_info)

    # From the connection

    def received(self, data: bytes) -> None:
        """Keys from the page."""
        self.session.received(data)

    def resized(self, cols: int, rows: int) -> None:
        """The page's terminal changed size: passed on, or the session ended past the rate."""
        if self._resizes.changed():
            self._size = self._limits.clamp_size(cols, rows)
        else:
            self.session.disconnect(TOO_MANY_RESIZES)

    def pause_output(self) -> None:
        self.session.pause_output()

    def resume_output(self) -> None:
        self.session.resume_output()

    def lost(self) -> None:
        """The connection is gone."""
        self._resizes.close()
        if self._kick_timer is not None:
            self._kick_timer.cancel()
        self.session.lost()

    # The session's

    def _make_info(self, nickname: str, notice: str | None) -> SessionInfo:
        login = self.session.login  # no `reached`: the SSH invite is the server's own
        return SessionInfo(
            nickname,
            login.identity,
            login.peer,
            TERM,
            self._size,
            notice,
            table_code=self._ask.table_code,
        )

    def _apply_size(self) -> None:
        self.session.resize(self._size)

    def _kick(self, reason: str) -> None:
        """The session was ended for `reason`: drop the socket after `close_timeout`."""
        loop = asyncio.get_running_loop()
        self._kick_timer = loop.call_later(self._limits.close_timeout, self._stream.abort)


def _nothing() -> None:
    """A browser session's end needs no more than its connection's (`WebTerminal.lost`)."""
