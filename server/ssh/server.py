"""Start and stop the SSH service."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh

from server.ops.config import COLOR_SYSTEMS
from server.ssh import usernames
from server.ssh.auth import server_factory
from server.ssh.botapi import BotFactory, BotSession
from server.ssh.cost import CostPool
from server.ssh.gatekeeper import Gatekeeper, OpenDoor
from server.ssh.keys import fingerprint, load_or_create_host_key
from server.ssh.limits import ConnectionGate, SSHLimits
from server.ssh.registry import SessionRegistry
from server.ssh.session import AppFactory, SessionConfig, StreamSession, note_refusal
from server.ssh.web_login import WebLogins

if TYPE_CHECKING:
    from server.ops.metrics import Metrics

log = logging.getLogger(__name__)

DEFAULT_LIMITS = SSHLimits()
# AES-GCM and AES-CTR only: asyncssh's ChaCha20-Poly1305 sets up two ciphers per packet and
# costs about four times the CPU of AES-GCM per screen update sent. The client's order
# decides, so ChaCha20 is left out; every client that has it has AES-GCM or AES-CTR too.
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes256-ctr")
SHUTDOWN_MESSAGE = "The lovelet server is shutting down. See you soon!"


@dataclass(eq=False)
class SSHService:
    """A running SSH server."""

    port: int
    """The port actually bound (useful when 0 was asked for)."""
    fingerprint: str
    """SHA256 fingerprint of the host key, for users to verify."""
    sessions: SessionRegistry[StreamSession | BotSession]
    """Live sessions (terminal and bot API) by nickname."""
    session_config: SessionConfig
    """What every session of this server shares: another transport's (the web's) too."""
    _acceptor: asyncssh.SSHAcceptor = field(repr=False)
    _gate: ConnectionGate = field(repr=False)

    def stop_accepting(self) -> None:
        """Refuse new connections and sessions; the ones running go on."""
        self._gate.shut()
        self._acceptor.close()

    async def close(self, message: str | None = SHUTDOWN_MESSAGE) -> None:
        """Stop listening, close every session (restoring terminals), drop connections."""
        self.stop_accepting()
        await self.sessions.close_all(message)
        self._gate.close_all()
        await self.sessions.close_all()  # any that started meanwhile
        await self._acceptor.wait_closed()


async def start_ssh_server(
    host: str,
    port: int,
    data_dir: Path,
    app_factory: AppFactory,
    limits: SSHLimits = DEFAULT_LIMITS,
    *,
    mouse: bool = False,
    color_system: str = "256",
    gatekeeper: Gatekeeper | None = None,
    metrics: Metrics | None = None,
    bot_factory: BotFactory | None = None,
    reuse_port: bool = False,
    web_logins: WebLogins | None = None,
) -> SSHService:
    """Listen for SSH on `host:port`; each terminal session runs `app_factory(info)`, and
    each `lovelet` subsystem session is attached by `bot_factory` (refused without one).

    The host key lives in `data_dir` (created on first start). Refusals and logins are
    counted in `metrics` when given. With `reuse_port`, other processes may listen on the
    same port (SO_REUSEPORT: the kernel spreads connections over them). `web_logins`
    answers `ssh HOST web-login` and `web-logout` (without it, no page is offered). Raises
    HostKeyError when the key file is unusable, and ValueError for an unknown
    `color_system`.
    """
    if color_system not in COLOR_SYSTEMS:
        raise ValueError(f"color_system must be one of {sorted(COLOR_SYSTEMS)}")
    host_key = load_or_create_host_key(data_dir)
    usernames.install()
    registry: SessionRegistry[StreamSession | BotSession] = SessionRegistry()
    config = SessionConfig(
        app_factory,
        registry,
        limits,
        mouse,
        color_system,
        gatekeeper or OpenDoor(),
        metrics,
        bot_factory,
        cpu_pool=CostPool(limits.cpu_pool) if limits.cpu_pool else None,
        web_logins=web_logins,
    )
    gate = ConnectionGate(
        limits, dropped=lambda address: note_refusal(config, address, label="silent")
    )
    acceptor = await asyncssh.create_server(
        server_factory(gate, config),
        host,
        port,
        server_host_keys=[host_key],
        encoding=None,
        line_editor=False,
        allow_pty=True,
        agent_forwarding=False,
        x11_forwarding=False,
        allow_scp=False,
        password_auth=False,
        kbdint_auth=True,
        public_key_auth=True,
        host_based_auth=False,
        gss_host=None,
        encryption_algs=list(CIPHERS),
        login_timeout=limits.login_timeout,
        keepalive_interval=limits.keepalive_interval,
        keepalive_count_max=limits.keepalive_count_max,
        config=None,
        window=limits.input_window,
        reuse_port=reuse_port or None,
    )
    service = SSHService(
        acceptor.get_port(), fingerprint(host_key), registry, config, acceptor, gate
    )
    log.info("SSH listening on %s:%d, host key %s", host, service.port, service.fingerprint)
    return service
