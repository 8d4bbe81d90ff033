"""The two places lovelet reaches into an asyncssh connection's internals (asyncssh 2.24).

asyncssh tells its `SSHServer` neither about failed authentication attempts nor about
channel opens and global requests it answers itself, so both are counted here, on the one
connection object, without changing what asyncssh does with them. pyproject.toml pins the
asyncssh versions these were checked against; tests/test_ssh_limits.py covers both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncssh
from asyncssh.constants import MSG_CHANNEL_OPEN, MSG_GLOBAL_REQUEST

COUNTED_PACKETS = (MSG_CHANNEL_OPEN, MSG_GLOBAL_REQUEST)


def on_auth_failure(conn: asyncssh.SSHServerConnection, failed: Callable[[], bool]) -> None:
    """Call `failed()` before each authentication failure is sent; if it returns False the
    failure is not sent (the callback has disconnected instead)."""
    send = conn.send_userauth_failure

    def counted(partial_success: bool) -> None:
        if failed():
            send(partial_success)

    conn.send_userauth_failure = counted  # type: ignore[method-assign]


def on_request(conn: asyncssh.SSHServerConnection, allowed: Callable[[], bool]) -> None:
    """Call `allowed()` for each channel open and global request the client sends; the
    packet is handled only if it returns True (the callback has disconnected otherwise)."""
    handlers: dict[int, Any] = dict(type(conn)._packet_handlers)
    for packet_type in COUNTED_PACKETS:
        handlers[packet_type] = _gated(handlers[packet_type], allowed)
    conn._packet_handlers = handlers  # type: ignore[misc]


def _gated(handler: Any, allowed: Callable[[], bool]) -> Any:
    def gated(conn: asyncssh.SSHServerConnection, *args: Any) -> Any:
        return handler(conn, *args) if allowed() else None

    return gated
