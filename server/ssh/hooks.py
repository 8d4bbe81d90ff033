"""The places lovelet reaches into an asyncssh connection's internals (asyncssh 2.24).

asyncssh tells its `SSHServer` neither about failed authentication attempts nor about
channel opens and global requests it answers itself, so both are counted here, on the one
connection object, without changing what asyncssh does with them. It also sends an empty
ignore packet before every packet once encrypted, which only a CBC cipher needs; that is
left out here. pyproject.toml pins the asyncssh versions these were checked against;
tests/test_ssh_limits.py covers the counts, tests/test_ssh_server.py the ignore packets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncssh
from asyncssh.constants import MSG_CHANNEL_OPEN, MSG_GLOBAL_REQUEST, MSG_IGNORE
from asyncssh.packet import String

COUNTED_PACKETS = (MSG_CHANNEL_OPEN, MSG_GLOBAL_REQUEST)
EMPTY_IGNORE = (String(b""),)  # what asyncssh's countermeasure sends


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


class Switch:
    """Whether a hook is in force for connections from now on (a patch: see compat)."""

    on: bool = True


SKIP_NEEDLESS_IGNORES = Switch()
"""Whether `without_cbc_countermeasure` is in force."""


def without_cbc_countermeasure(conn: asyncssh.SSHServerConnection) -> None:
    """Send no empty ignore packet before each packet unless the cipher is CBC.

    asyncssh sends one before every packet once encrypted: the countermeasure RFC 4251
    (9.3.1) gives against chosen-plaintext attacks on CBC. With GCM or CTR (the ciphers
    `server.ssh.server.CIPHERS` offers) it protects nothing, and it doubles what each
    screen update costs both ends: two packets to encrypt, two socket writes, two to
    decrypt. Other ignore packets (with data) are sent as asyncssh would. Switched off
    (`SKIP_NEEDLESS_IGNORES`): asyncssh's own behaviour. Upstream: send the countermeasure
    only when the negotiated cipher is CBC, as OpenSSH does (patch `cbc_countermeasure`)."""
    if not SKIP_NEEDLESS_IGNORES.on:
        return
    send = conn.send_packet

    def send_packet(pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype == MSG_IGNORE and args == EMPTY_IGNORE and not _cbc(conn):
            return
        send(pkttype, *args, handler=handler)

    conn.send_packet = send_packet  # type: ignore[method-assign]


def _cbc(conn: asyncssh.SSHServerConnection) -> bool:
    """Whether the cipher the server sends with is a CBC one."""
    return "-cbc" in conn.get_extra_info("send_cipher", "")
