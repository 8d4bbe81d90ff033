"""Limits on one session's channel requests (environment variables, window-size changes), and
the end of a session that breaks one or cannot keep up: its connection is dropped too."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncssh

from server.ssh.limits import SSHLimits
from server.ssh.requests import Environment, WindowChanges

TOO_MANY_ENV = "Too many environment requests; disconnected."
TOO_MANY_RESIZES = "Too many window-size changes; disconnected."


class Guard:
    """Counts a session's requests; past a limit, `disconnect(reason)` ends the session."""

    def __init__(
        self, limits: SSHLimits, resize: Callable[[], None], disconnect: Callable[[str], None]
    ) -> None:
        self.env = Environment(limits.max_env_requests)
        self._window_changes = WindowChanges(
            resize,
            rate=limits.window_change_rate,
            burst=limits.window_change_burst,
            interval=limits.resize_interval,
        )
        self._disconnect = disconnect
        self._close_timeout = limits.close_timeout
        self.conn: asyncssh.SSHServerConnection | None = None
        self.kicked: str | None = None
        """Why the server is ending this session and its connection, once it is."""
        self._drop_timer: asyncio.TimerHandle | None = None

    def env_requested(self, name: bytes, value: bytes) -> bool:
        """Account for one `env` request; True if the variable is kept."""
        kept = self.env.request(name, value)
        if self.env.exhausted:
            self._disconnect(TOO_MANY_ENV)
        return kept

    def size_changed(self) -> bool:
        """Count one window-size change; False (the session is ended) past the rate."""
        if not self._window_changes.changed():
            self._disconnect(TOO_MANY_RESIZES)
            return False
        return True

    def kick(self, reason: str) -> None:
        """The session is ended for `reason`: drop its connection after `close_timeout` (or
        as soon as the channel is gone)."""
        self.kicked = reason
        loop = asyncio.get_running_loop()
        self._drop_timer = loop.call_later(self._close_timeout, self.drop_connection)

    def drop_connection(self) -> None:
        """Disconnect the connection of a kicked session (nothing for one that is not)."""
        if self._drop_timer is not None:
            self._drop_timer.cancel()
            self._drop_timer = None
        if self.conn is not None and self.kicked is not None:
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, self.kicked)
            self.conn = None

    def close(self) -> None:
        """The channel is gone: no resize is pending any more."""
        self._window_changes.close()
