"""Connection admission and authentication: any key, or a guest without one."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import NoReturn

import asyncssh

from server.ops.logs import log_connect
from server.services.sanitize import Name, clean_text, name_from
from server.ssh.botapi import bot_subsystems
from server.ssh.hooks import on_auth_failure, on_request, without_cbc_countermeasure
from server.ssh.input import TokenBucket
from server.ssh.keys import fingerprint
from server.ssh.limits import EARLY_DROP, ConnectionGate, SSHLimits
from server.ssh.session import Login, LoveletSession, SessionConfig, note_refusal
from server.ssh.usernames import mixed_refusal

CLIENT_VERSION_MAX_LEN = 100

log = logging.getLogger(__name__)

AUTH_BANNER = (
    "Welcome to lovelet. Your SSH username is your nickname.\r\n"
    "No SSH key? You play as a guest. To keep your identity, create a key once:\r\n"
    "    ssh-keygen -t ed25519\r\n"
)
FORWARDING_REFUSED = "Port forwarding is disabled on this server"


class LoveletSSHServer(asyncssh.SSHServer):
    """One per connection: admits it, authenticates it, opens its sessions.

    Identity is the SHA256 fingerprint of the key that completed public-key authentication.
    asyncssh calls `validate_public_key` for unsigned queries too, before any signature is
    checked, so a key is only remembered there; it becomes the identity in `auth_completed`,
    and only if public-key auth was the last method attempted (auth requests are processed
    one at a time, a new one cancelling the previous). Keyboard-interactive with no prompts
    logs in a guest.

    Before login a connection has `handshake_timeout` seconds to send its first
    authentication request and `max_auth_tries` failures; channel opens and global requests
    are budgeted (`request_rate`, `request_burst`). Each breach closes the connection and
    logs one line with the address and the reason.
    """

    def __init__(self, gate: ConnectionGate, config: SessionConfig) -> None:
        self._gate = gate
        self._config = config
        self._conn: asyncssh.SSHServerConnection | None = None
        self._peer = "?"
        self._name = Name("")
        self._candidate_key: asyncssh.SSHKey | None = None
        self._login: Login | None = None
        self._sessions = 0
        self._banner_sent = False
        self._refusal: str | None = None
        self._handshake_timer: asyncio.TimerHandle | None = None
        self._auth_failures = 0
        self._requests = TokenBucket(self.limits.request_rate, self.limits.request_burst)

    @property
    def limits(self) -> SSHLimits:
        return self._config.limits

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self._peer = str(peer[0]) if peer else "?"
        log_connect(self._peer)
        reason = self._config.gatekeeper.refuse_address(self._peer) or self._gate.admit(
            self._peer, conn
        )
        if reason == EARLY_DROP:
            note_refusal(self._config, self._peer, label="early_drop")
            asyncio.get_running_loop().call_soon(conn.abort)
            return
        self._handshake_timer = asyncio.get_running_loop().call_later(
            self.limits.handshake_timeout, self._handshake_expired
        )
        on_auth_failure(conn, self._auth_failed)
        on_request(conn, self._request_allowed)
        without_cbc_countermeasure(conn)
        if reason is None:
            return
        note_refusal(self._config, self._peer, reason)
        if self._gate.begin_refusal():
            self._refusal = reason  # told at begin_auth, once the client can show it
        else:
            asyncio.get_running_loop().call_soon(conn.abort)

    def _handshake_expired(self) -> None:
        """No authentication request in time: key exchange never finished (or never began)."""
        self._handshake_timer = None
        note_refusal(self._config, self._peer, label="handshake_timeout")
        assert self._conn is not None
        self._conn.abort()

    def _auth_failed(self) -> bool:
        """Count a failed attempt; past the cap, disconnect instead of answering it."""
        self._auth_failures += 1
        if self._auth_failures <= self.limits.max_auth_tries + 1:  # + the first `none` probe
            return True
        note_refusal(self._config, self._peer, label="auth_tries")
        assert self._conn is not None
        self._conn.disconnect(
            asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "Too many authentication failures."
        )
        return False

    def _request_allowed(self) -> bool:
        """Spend one channel open or global request; over budget, disconnect."""
        if self._requests.spend(1) == 0.0:
            return True
        note_refusal(self._config, self._peer, label="requests")
        assert self._conn is not None
        self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "Too many requests.")
        return False

    def _handshake_done(self) -> None:
        if self._handshake_timer is not None:
            self._handshake_timer.cancel()
            self._handshake_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._handshake_done()
        if self._conn is not None:
            self._gate.release(self._conn)  # nothing for one refused, or dropped meanwhile
        if self._refusal is not None:
            self._refusal = None
            self._gate.end_refusal()

    # Authentication

    def begin_auth(self, username: str) -> bool:
        self._name = name_from(username)
        self._candidate_key = None
        conn = self._conn
        assert conn is not None
        self._handshake_done()
        mixed = mixed_refusal(self._name.name) if self._refusal is None else None
        if mixed is not None:
            note_refusal(self._config, self._peer, label="mixed_scripts")
            raise asyncssh.IllegalUserName(mixed)  # disconnects as for names SASLprep refuses
        if self._refusal is not None:
            conn.send_auth_banner(f"{self._refusal}\r\n")
            asyncio.get_running_loop().call_soon(_refuse, conn, self._refusal)
        elif not self._banner_sent:
            self._banner_sent = True
            conn.send_auth_banner(AUTH_BANNER)
        return True

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        self._candidate_key = key
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._candidate_key = None
        return True

    def auth_completed(self) -> None:
        key, self._candidate_key = self._candidate_key, None
        identity = fingerprint(key) if key is not None else None
        name = self._name
        self._login = Login(
            name.name,
            identity,
            self._peer,
            self._client_version(),
            name_problem=name.problem,
            reached=self._reached(),
        )
        if self._conn is not None:
            self._gate.logged_in(self._conn)
        log.debug(
            "authenticated %s as %r (%s)",
            self._peer,
            self._login.requested_name,
            identity or "guest",
        )

    def _reached(self) -> tuple[str, int] | None:
        """The local address and port of the connection: where the client connected to."""
        local = self._conn.get_extra_info("sockname") if self._conn else None
        return (str(local[0]), int(local[1])) if local else None

    def _client_version(self) -> str | None:
        """The client's SSH version string (e.g. `SSH-2.0-OpenSSH_9.6`), made safe to log."""
        version = self._conn.get_extra_info("client_version") if self._conn else None
        if not isinstance(version, str):
            return None
        return clean_text(version, CLIENT_VERSION_MAX_LEN) or None

    # Channels

    def session_requested(self) -> LoveletSession | bool:
        if self._login is None:
            return False
        if not self._gate.accepting:
            note_refusal(self._config, self._peer, label="shutting_down")
            return False
        if self._sessions >= self.limits.max_sessions_per_connection:
            note_refusal(self._config, self._peer, label="sessions_per_connection")
            return False
        self._sessions += 1
        subsystems = bot_subsystems(self._config, self._login)
        return LoveletSession(self._config, self._login, self._session_finished, subsystems)

    def _session_finished(self) -> None:
        self._sessions -= 1

    # Forwarding of any kind is refused: "administratively prohibited", as OpenSSH says it

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        self._refuse_forwarding()

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        note_refusal(self._config, self._peer, label="forwarding")
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        self._refuse_forwarding()

    def unix_server_requested(self, listen_path: str) -> bool:
        note_refusal(self._config, self._peer, label="forwarding")
        return False

    def _refuse_forwarding(self) -> NoReturn:
        note_refusal(self._config, self._peer, label="forwarding")
        raise asyncssh.ChannelOpenError(
            asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, FORWARDING_REFUSED
        )


def _refuse(conn: asyncssh.SSHServerConnection, reason: str) -> None:
    conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)


def server_factory(gate: ConnectionGate, config: SessionConfig) -> Callable[[], LoveletSSHServer]:
    """The per-connection factory for `asyncssh.create_server`."""
    return lambda: LoveletSSHServer(gate, config)
