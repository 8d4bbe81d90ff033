"""`lovelet serve`: the lobby behind the SSH server, until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from pathlib import Path

from .glue import ssh_app_factory
from .lobby import Lobby, LobbySettings
from .ssh.server import SSHService, start_ssh_server

log = logging.getLogger(__name__)


def parse_listen(listen: str, default_port: int = 2222) -> tuple[str, int]:
    """'HOST:PORT', 'HOST' or ':PORT' → (host, port); ValueError if malformed."""
    host, _, port = listen.rpartition(":") if ":" in listen else (listen, "", "")
    host = host.strip("[]") or "0.0.0.0"
    if not port:
        return host, default_port
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"bad port in {listen!r}")
    return host, int(port)


async def start(listen: str, data_dir: Path, settings: LobbySettings) -> SSHService:
    """Start the lobby and the SSH server; print where to connect."""
    host, port = parse_listen(listen)
    lobby = Lobby(settings)
    service = await start_ssh_server(host, port, data_dir, ssh_app_factory(lobby))
    shown_host = "localhost" if host in ("0.0.0.0", "::") else host
    print(f"lovelet is listening on {host}:{service.port}", flush=True)
    print(f"host key fingerprint: {service.fingerprint}", flush=True)
    print(f"connect with: ssh -p {service.port} yourname@{shown_host}", flush=True)
    gc.freeze()  # start-up objects never need collecting again: shorter GC pauses later
    return service


async def serve(listen: str, data_dir: Path, settings: LobbySettings) -> None:
    """Run until SIGTERM or SIGINT, then close every session and stop."""
    service = await start(listen, data_dir, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    log.info("stopping")
    await service.close()
