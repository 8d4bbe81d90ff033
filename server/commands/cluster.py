"""`lovelet serve` in parts joined through a broker (Redis): the game core (`--role core`),
SSH front-ends (`--role frontend`), or both on one machine (`--workers N`).

See docs/scaling.md. Without a broker none of this runs: `serve.serve` is one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import logging
import secrets
import signal
import socket
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ..bus.broker import Broker, Lease, connect
from ..bus.core import CoreHost
from ..bus.envelope import CORE_CHANNEL, LEASE_KEY
from ..bus.frontend import FrontEnd
from ..bus.web_logins import RedisLogins
from ..lobby import Lobby, LobbySettings
from ..lobby.outage import TimerKeeper
from ..ops.config import Config, invite_command, name_rules
from ..ops.control import ControlServer, start_control_server
from ..ops.exits import INCURABLE, STOPPED
from ..ops.gather import Gathered, Scraped
from ..ops.logs import event, log_stopped, log_stopping, say
from ..ops.metrics import Metrics, MetricsServer, start_metrics_server
from ..render.collector import Collector
from ..ssh.keys import load_or_create_host_key
from ..ssh.limits import SSHLimits
from ..ssh.server import SSHService, start_ssh_server
from ..ssh.web_login import WebLogins
from ..store import Store
from ..web import WebService
from .glue import ssh_app_factory, ssh_bot_factory
from .policy import StorePolicy
from .serve import (
    RESTART_MESSAGE,
    VERSION,
    close_session,
    go_live,
    open_lobby,
    start_collector,
    stop_signals,
)
from .web import start_web

log = logging.getLogger(__name__)

CORE_WAIT = 30.0
"""Seconds a new front-end waits for a core before it listens anyway (logins are then told
the game server is restarting until one answers)."""
LOOPBACK = "127.0.0.1"
"""Where the children of `--workers` serve their metrics to the supervisor."""
RESTART_DELAY = 1.0
"""Seconds before `--workers` restarts a process that died."""


def shown_url(url: str) -> str:
    """`url` without its password, for logs and the terminal."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


# --------------------------------------------------------------------------- the core


@dataclass(eq=False)
class RunningCore:
    """The lobby, its store and tables, serving every front-end through the broker."""

    host: CoreHost
    broker: Broker
    lease: Lease
    lobby: Lobby
    store: Store
    collector: Collector
    metrics_server: MetricsServer | None = None
    control: ControlServer | None = None
    keeper: TimerKeeper | None = None
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when another core took the lease: this one must stop at once."""
    stopped: bool = False
    _keeper: asyncio.Task[None] | None = None

    async def stop(self, grace: float) -> None:
        """Let rounds that could not be stored finish (at most `grace` s), keep the tables
        in play for the next core, give the lease up. Players stay on their front-ends,
        which tell them the game server restarts."""
        if self.stopped:
            return
        self.stopped = True
        if self._keeper is not None:
            self._keeper.cancel()
        if self.control is not None:
            await self.control.close()
        if not self.lost.is_set():
            log_stopping(self.host.session_count(), grace)
            rounds_over = asyncio.Event()
            self.lobby.when_rounds_over(rounds_over.set)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(rounds_over.wait(), grace)
        if self.keeper is not None:  # the next core's turn timers go on from here
            self.keeper.stop(last=not self.lost.is_set())
        self.lobby.shut_down(keep=True)
        await self.host.stop()
        if not self.lost.is_set():
            await self.lease.release()
        await self.broker.close()
        self.store.close()
        if self.metrics_server is not None:
            self.metrics_server.close()
            await self.metrics_server.wait_closed()
        self.collector.stop()
        log_stopped()

    async def keep_lease(self) -> None:
        """Renew the lease; if another core holds it now, stop (never two cores at once)."""
        while True:
            await asyncio.sleep(self.lease.seconds / 3)
            if await self.lease.renew() is False:
                log.critical("another core took the lease: this core stops now")
                self.lost.set()
                return


async def start_core(
    config: Config,
    settings: LobbySettings | None = None,
    metrics: Metrics | None = None,
    core_id: str | None = None,
) -> RunningCore:
    """Wait for the lease (a standby waits here), then open the store and serve the lobby
    (`core_id`: this core's id on the broker, random if None)."""
    assert config.broker is not None
    metrics = metrics or Metrics(VERSION)
    core_id = core_id or secrets.token_hex(6)
    lease = Lease(connect(config.broker), LEASE_KEY, core_id, config.core_lease)
    await lease.acquire(lambda why: say(f"lovelet core: {why}"))
    hosts: list[CoreHost] = []
    store, lobby = open_lobby(
        config, settings, metrics, lambda session, reason: hosts[0].close_session(session, reason)
    )
    policy = StorePolicy(store, config.limits.sessions_per_identity, name_rules(config))
    invite = invite_command(config, config.listen_address[1])  # the front-ends' port
    lobby.settings = dataclasses.replace(lobby.settings, invite=invite)
    broker = Broker(
        config.broker,
        [CORE_CHANNEL],
        lambda c, d: hosts[0].on_batch(c, d),
        on_up=lambda: hosts[0].broker_back(),
        on_down=lambda: hosts[0].broker_away(),
    )
    host = CoreHost(broker, lobby, policy, core_id, config.frontend_timeout)
    hosts.append(host)
    broker.start()
    host.start()
    metrics.watch_lobby(lobby)
    metrics_server = None
    if config.metrics_address is not None:
        metrics_server = await start_metrics_server(*config.metrics_address, metrics)
    collector = Collector(host.session_count)  # its whole collections stop every table
    start_collector(config, collector)
    control = await start_control_server(config.data_dir, lobby.announce)
    keeper = TimerKeeper(lobby)
    keeper.start()
    core = RunningCore(
        host, broker, lease, lobby, store, collector, metrics_server, control, keeper
    )
    core._keeper = asyncio.get_running_loop().create_task(core.keep_lease())
    say(f"lovelet core {core_id} is running (broker {shown_url(config.broker)})")
    event("core started", core=core_id, broker=shown_url(config.broker), version=VERSION)
    return core


async def serve_core(config: Config, core_id: str | None = None) -> int:
    """The core until SIGTERM or SIGINT (0), or until another core takes the lease (1)."""
    stop = stop_signals()
    core = await until_started(
        start_core(config, core_id=core_id), stop
    )  # a standby waits for the lease
    if core is None:
        return 0
    lost = asyncio.ensure_future(core.lost.wait())
    await asyncio.wait([asyncio.ensure_future(stop.wait()), lost], return_when="FIRST_COMPLETED")
    await core.stop(0 if core.lost.is_set() else config.shutdown_grace)
    return 1 if core.lost.is_set() else 0


Started = TypeVar("Started")


async def until_started(
    starting: Coroutine[Any, Any, Started], stop: asyncio.Event
) -> Started | None:
    """What `starting` returns, or None if `stop` is set first (the start is then cancelled):
    a part waiting for the broker, the lease or a core still stops when told to."""
    start, stopped = asyncio.ensure_future(starting), asyncio.ensure_future(stop.wait())
    await asyncio.wait([start, stopped], return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if start.done():
        return start.result()
    start.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await start
    return None


# --------------------------------------------------------------------------- a front-end


@dataclass(eq=False)
class RunningFrontend:
    """An SSH server (and the web page) whose sessions attach to the core through the
    broker."""

    service: SSHService
    frontend: FrontEnd
    collector: Collector
    metrics_server: MetricsServer | None = None
    web: WebService | None = None

    async def stop(self) -> None:
        """Close every session (their seats are held on the core), then disconnect."""
        log_stopping(len(self.service.sessions), 0)
        if self.web is not None:
            self.web.stop_accepting()
        await self.service.close(RESTART_MESSAGE)  # the browsers' sessions too
        if self.web is not None:
            await self.web.close()
        await self.frontend.stop()
        if self.metrics_server is not None:
            self.metrics_server.close()
            await self.metrics_server.wait_closed()
        self.collector.stop()
        log_stopped()


async def start_frontend(
    config: Config, metrics: Metrics | None = None, frontend_id: str | None = None
) -> RunningFrontend:
    """Join the broker, wait a little for the core, then listen for SSH on a shared port
    (`frontend_id`: this front-end's id on the broker, random if None). Web logins are kept
    in the broker's Redis, through its client: every front-end honours them."""
    assert config.broker is not None
    metrics = metrics or Metrics(VERSION)
    frontend = FrontEnd(config.broker, frontend_id)
    frontend.start()
    try:
        await asyncio.wait_for(frontend.core_found.wait(), CORE_WAIT)
    except TimeoutError:
        log.warning("no game core answered within %.0f s; listening anyway", CORE_WAIT)
    host, port = config.listen_address
    web_link: str | None = None  # the page's address, once the web front-end listens
    service = await start_ssh_server(
        host,
        port,
        config.data_dir,
        ssh_app_factory(frontend, config.public_host, config.public_port, lambda: web_link),
        SSHLimits.from_config(config),
        color_system=config.color_system,
        gatekeeper=frontend,
        metrics=metrics,
        bot_factory=ssh_bot_factory(frontend),
        reuse_port=True,
        web_logins=(
            WebLogins(RedisLogins(frontend.broker.redis))
            if config.web_address is not None
            else None
        ),
    )
    frontend.closer = lambda nickname, reason: close_session(service, nickname, reason)
    metrics_server, collector = await go_live(config, host, service, metrics)
    web = await start_web(config, service, reuse_port=True)  # each front-end: one port
    web_link = web.url if web is not None else None
    return RunningFrontend(service, frontend, collector, metrics_server, web)


async def serve_frontend(config: Config, frontend_id: str | None = None) -> int:
    """A front-end until SIGTERM or SIGINT."""
    stop = stop_signals()
    running = await until_started(
        start_frontend(config, frontend_id=frontend_id), stop
    )  # it may wait for a core
    if running is None:
        return 0
    await stop.wait()
    await running.stop()
    return 0


# --------------------------------------------------------------------------- --workers N


def free_port(host: str) -> int:
    """A port nothing listens on now, for front-ends that must all bind the same one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def shared_web_listen(config: Config) -> str:
    """The web address every front-end serves the page at (SO_REUSEPORT, as for SSH): the
    configured one, a free port for port 0; `off` when there is none."""
    if config.web_address is None:
        return "off"
    host, port = config.web_address
    port = port or free_port(host)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def child_command(argv: Sequence[str], role: str, *more: str) -> list[str]:
    """This `lovelet` command line again, as one part."""
    return [sys.executable, "-m", "server.cli", *argv, "--role", role, *more]


PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux for SIGTERM when the parent dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Child:
    """One process of `--workers`, restarted if it dies while the others run."""

    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        self.command = command
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start the process; its output goes to ours. On Linux it gets SIGTERM if this
        supervisor dies, even by `kill -9` (no core or front-end is left orphaned)."""
        preexec = _die_with_parent if sys.platform == "linux" else None
        self.process = await asyncio.create_subprocess_exec(*self.command, preexec_fn=preexec)

    async def run(self, stopping: asyncio.Event) -> int | None:
        """Keep the process running until `stopping`; if it exits with a status a restart
        cannot cure (`server.ops.exits`), that status, and it is not restarted."""
        while not stopping.is_set():
            await self.start()
            assert self.process is not None
            status = await self.process.wait()
            if stopping.is_set():
                return None
            if status in INCURABLE:
                log.error("%s exited with status %s: a restart cannot cure it", self.name, status)
                return status
            log.error("%s exited with status %s; restarting it", self.name, status)
            await asyncio.sleep(RESTART_DELAY)
        return None

    def terminate(self) -> None:
        """SIGTERM, if it runs."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)

    async def wait(self) -> None:
        """Until it has exited."""
        if self.process is not None:
            await self.process.wait()


def child_metrics(config: Config) -> list[Scraped]:
    """Where the core and each front-end serve their metrics for the supervisor to read (a
    free loopback port each), or none when `metrics_listen` is not set."""
    if config.metrics_address is None:
        return []
    names = [("core", "core")]
    names += [("frontend", f"frontend-{n}") for n in range(1, config.workers + 1)]
    return [Scraped(role, name, LOOPBACK, free_port(LOOPBACK)) for role, name in names]


def metrics_flag(scraped: list[Scraped], index: int) -> list[str]:
    """The `--metrics-listen` of the child at `index` (empty: it serves none)."""
    return ["--metrics-listen", f"{LOOPBACK}:{scraped[index].port}" if scraped else ""]


async def supervise(config: Config, argv: Sequence[str]) -> int:
    """One core and `config.workers` front-ends on one port, until SIGTERM or SIGINT (0),
    or until one exits with a status a restart cannot cure (that status: all stop); with
    `metrics_listen`, one endpoint serving every process's metrics."""
    stop = stop_signals()
    load_or_create_host_key(config.data_dir)  # made once, before the front-ends share it
    host, port = config.listen_address
    port = port or free_port(host)
    listen = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    web = shared_web_listen(config)
    scraped = child_metrics(config)
    core = Child(
        "the core",
        child_command(argv, "core", "--listen", listen, "--web", "off", *metrics_flag(scraped, 0)),
    )
    frontends = [
        Child(
            f"front-end {n}",
            child_command(
                argv, "frontend", "--listen", listen, "--web", web, *metrics_flag(scraped, n)
            ),
        )
        for n in range(1, config.workers + 1)
    ]
    metrics_server = None
    if config.metrics_address is not None:
        metrics_server = await start_metrics_server(*config.metrics_address, Gathered(scraped))
    stopping = asyncio.Event()
    runs = [asyncio.ensure_future(child.run(stopping)) for child in (core, *frontends)]
    stopped = asyncio.ensure_future(stop.wait())
    await asyncio.wait([stopped, *runs], return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    refused = next((run.result() for run in runs if run.done() and run.result()), None)
    stopping.set()
    core.terminate()  # the core first: its rounds get shutdown_grace to finish
    await core.wait()
    for frontend in frontends:
        frontend.terminate()
    await asyncio.gather(*runs)
    if metrics_server is not None:
        metrics_server.close()
        await metrics_server.wait_closed()
    return refused or STOPPED
