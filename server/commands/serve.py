"""`lovelet serve`: the lobby behind the SSH server, until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from ..lobby import Lobby, LobbySettings, resume_tables
from ..lobby.lobby import CloseSession
from ..ops.config import Config, invite_command, name_rules
from ..ops.control import ControlServer, start_control_server
from ..ops.logs import log_started, log_stopped, log_stopping, say
from ..ops.metrics import Metrics, MetricsServer, start_metrics_server
from ..render.collector import Collector
from ..services.clock import LoopClock
from ..ssh import compat
from ..ssh.limits import SSHLimits
from ..ssh.server import SSHService, start_ssh_server
from ..ssh.web_login import MemoryLogins, WebLogins
from ..store import Store
from ..web import WebService
from .glue import ssh_app_factory, ssh_bot_factory
from .policy import StorePolicy
from .web import start_web

log = logging.getLogger(__name__)

RESTART_MESSAGE = "The server restarts; reconnect to continue."
"""What everyone is told on SIGTERM, as a notice and again as the connection closes: tables
in play are rebuilt when the server starts again."""

try:
    VERSION = version("lovelet")
except PackageNotFoundError:  # running from a source tree that was never installed
    VERSION = "unknown"


@dataclass(eq=False)
class RunningServer:
    """Store, lobby, SSH service and metrics endpoint, started and stopped together."""

    service: SSHService
    lobby: Lobby
    store: Store
    collector: Collector
    metrics_server: MetricsServer | None = None
    control: ControlServer | None = None
    web: WebService | None = None

    async def stop(self, grace: float) -> None:
        """Tell everyone the server restarts, stop accepting, let rounds that could not be
        rebuilt finish (at most `grace` s), keep the tables in play for the next start,
        close."""
        log_stopping(len(self.service.sessions), grace)
        if self.control is not None:
            await self.control.close()
        self.lobby.announce(RESTART_MESSAGE)
        self.service.stop_accepting()
        if self.web is not None:
            self.web.stop_accepting()
        rounds_over = asyncio.Event()
        self.lobby.when_rounds_over(rounds_over.set)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(rounds_over.wait(), grace)
        self.lobby.shut_down(keep=True)
        await self.service.close(RESTART_MESSAGE)  # the browsers' sessions too
        if self.web is not None:
            await self.web.close()
        self.store.close()
        if self.metrics_server is not None:
            self.metrics_server.close()
            await self.metrics_server.wait_closed()
        self.collector.stop()
        log_stopped()


async def start(
    config: Config, settings: LobbySettings | None = None, metrics: Metrics | None = None
) -> RunningServer:
    """Start the store, the lobby, the SSH server and metrics; print where to connect.

    `settings` replaces the lobby settings derived from `config` (tests use instant bots).
    """
    metrics = metrics or Metrics(VERSION)
    host, port = config.listen_address
    store, lobby = open_lobby(
        config,
        settings,
        metrics,
        lambda session, reason: close_session(service, session.name, reason),
    )
    web_link: str | None = None  # the page's address, once the web front-end listens
    service = await start_ssh_server(
        host,
        port,
        config.data_dir,
        ssh_app_factory(lobby, config.public_host, config.public_port, lambda: web_link),
        SSHLimits.from_config(config),
        color_system=config.color_system,
        gatekeeper=StorePolicy(store, config.limits.sessions_per_identity, name_rules(config)),
        metrics=metrics,
        bot_factory=ssh_bot_factory(lobby),
        web_logins=WebLogins(MemoryLogins()) if config.web_address is not None else None,
    )
    invite = invite_command(config, service.port)  # the port is known once bound
    lobby.settings = dataclasses.replace(lobby.settings, invite=invite)
    metrics.watch_lobby(lobby)
    metrics_server, collector = await go_live(config, host, service, metrics)
    control = await start_control_server(config.data_dir, lobby.announce)
    web = await start_web(config, service)
    web_link = web.url if web is not None else None  # what invites link to from now on
    return RunningServer(service, lobby, store, collector, metrics_server, control, web)


async def go_live(
    config: Config, host: str, service: SSHService, metrics: Metrics
) -> tuple[MetricsServer | None, Collector]:
    """The SSH service is bound: serve metrics, say where to connect, log the start, and
    start the render patches and the paced collector. Returns the metrics server (if any)
    and the collector."""
    metrics_server = None
    if config.metrics_address is not None:
        metrics_server = await start_metrics_server(*config.metrics_address, metrics)
    shown_host = "localhost" if host in ("0.0.0.0", "::") else host
    say(f"lovelet is listening on {host}:{service.port}", listen=f"{host}:{service.port}")
    say(f"host key fingerprint: {service.fingerprint}", host_key=service.fingerprint)
    say(f"connect with: ssh -p {service.port} yourname@{shown_host}")
    event_loop = type(asyncio.get_running_loop()).__module__.split(".")[0]
    log_started(
        f"{host}:{service.port}", service.fingerprint, config.metrics_listen, VERSION, event_loop
    )
    compat.install_patches(config.render_patches)  # those verified for the libraries here
    sessions = service.sessions
    collector = Collector(lambda: len(sessions), leftovers=sessions.ended)  # see its module
    start_collector(config, collector)
    return metrics_server, collector


def start_collector(config: Config, collector: Collector) -> None:
    """Pace the garbage collector (`server.render.collector`) unless the operator said no."""
    if config.paced_collector == "on":
        collector.start()
    else:
        log.info("paced garbage collector off: Python's own collector runs")


def open_lobby(
    config: Config, settings: LobbySettings | None, metrics: Metrics, closer: CloseSession
) -> tuple[Store, Lobby]:
    """The store and the lobby over it, as the game starts after any stop or crash: the
    tables in play are rebuilt from the store, games that cannot be are recorded as
    abandoned. Shared by `lovelet serve` and the core of
    `--role core` (server/commands/cluster.py)."""
    store = Store.open(config.database_path)
    lobby = Lobby(
        settings or LobbySettings.from_config(config),
        store=store,
        metrics=metrics,
        clock=LoopClock(),
        closer=closer,
    )
    store.abandon_unfinished(keep=resume_tables(lobby).games)  # the rest cannot be rebuilt
    return store, lobby


def close_session(service: SSHService, nickname: str, reason: str) -> None:
    """End one player's SSH session politely, telling them why."""
    ssh_session = service.sessions.get(nickname)
    if ssh_session is not None:
        ssh_session.request_close(reason)


def stop_signals() -> asyncio.Event:
    """An event set by the first SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


async def serve(config: Config) -> None:
    """Run until SIGTERM or SIGINT, then stop cleanly."""
    stop = stop_signals()
    server = await start(config)
    await stop.wait()
    await server.stop(config.shutdown_grace)
