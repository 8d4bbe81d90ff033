"""`lovelet serve`: the lobby behind the SSH server, until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from dataclasses import dataclass
from pathlib import Path

from .glue import ssh_app_factory
from .lobby import Lobby, LobbySettings
from .policy import StorePolicy
from .ssh.server import SSHService, start_ssh_server
from .store import Store, database_path

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


@dataclass(eq=False)
class RunningServer:
    """The lobby, its store and the SSH service, started together and stopped together."""

    service: SSHService
    lobby: Lobby
    store: Store

    async def stop(self, grace: float) -> None:
        """Tell everyone, stop accepting, let rounds finish (at most `grace` s), save, close."""
        self.lobby.announce(f"The server is stopping: rounds in play get {grace:.0f} s to finish.")
        self.service.stop_accepting()
        await self.lobby.wait_rounds_over(grace)
        self.lobby.shut_down()
        await self.service.close()
        self.store.close()


async def start(listen: str, data_dir: Path, settings: LobbySettings) -> RunningServer:
    """Start the store, the lobby and the SSH server; print where to connect."""
    host, port = parse_listen(listen)
    store = Store.open(database_path(data_dir))
    for game in store.unfinished_games():
        store.abandon_game(game.id)  # cut off by a crash or a kill: its log is kept
    lobby = Lobby(settings, store=store)
    service = await start_ssh_server(
        host, port, data_dir, ssh_app_factory(lobby), gatekeeper=StorePolicy(store)
    )
    lobby.close_session = lambda session, reason: _close(service, session.name, reason)
    shown_host = "localhost" if host in ("0.0.0.0", "::") else host
    print(f"lovelet is listening on {host}:{service.port}", flush=True)
    print(f"host key fingerprint: {service.fingerprint}", flush=True)
    print(f"connect with: ssh -p {service.port} yourname@{shown_host}", flush=True)
    gc.freeze()  # start-up objects never need collecting again: shorter GC pauses later
    return RunningServer(service, lobby, store)


def _close(service: SSHService, nickname: str, reason: str) -> None:
    """End one player's SSH session politely, telling them why."""
    ssh_session = service.sessions.get(nickname)
    if ssh_session is not None:
        ssh_session.request_close(reason)


async def serve(listen: str, data_dir: Path, settings: LobbySettings, grace: float = 30) -> None:
    """Run until SIGTERM or SIGINT, then stop cleanly."""
    server = await start(listen, data_dir, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    log.info("stopping")
    await server.stop(grace)
