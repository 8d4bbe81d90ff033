"""One terminal session running one Textual app: `StreamSession` over any byte stream, and
`LoveletSession`, its SSH transport (the browser's is server/web/)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh

from server.ops.logs import log_refused
from server.ops.metrics import refusal_reason
from server.ssh.cost import CostBudget, CostMeter, CostPool, run_metered
from server.ssh.driver import TerminalDriver, prepare_app
from server.ssh.gatekeeper import Admission, Gatekeeper, OpenDoor
from server.ssh.guard import Guard
from server.ssh.handoff import Handoff, Subsystems
from server.ssh.info import SessionInfo
from server.ssh.input import InputPump, KeyBudget
from server.ssh.limits import SSHLimits
from server.ssh.registry import SessionRegistry
from server.ssh.requests import intercept_env_requests
from server.ssh.session_log import SessionLog
from server.ssh.terminal import Terminal
from server.ssh.web_login import COMMANDS as WEB_COMMANDS
from server.ssh.web_login import WebLogins, command_answer

if TYPE_CHECKING:
    from textual.app import App

    from server.ops.metrics import Metrics
    from server.ssh.botapi import BotFactory

log = logging.getLogger(__name__)

AppFactory = Callable[[SessionInfo], "App[Any]"]

CRASHED = "Sorry, lovelet hit an internal error and closed this session.\r\n"
CPU_HOG = "This session kept the server busier than any game needs; disconnected."


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Settings shared by every session of one server."""

    app_factory: AppFactory
    registry: SessionRegistry[Any]
    """Terminal sessions and bot sessions by nickname."""
    limits: SSHLimits
    mouse: bool = False
    color_system: str = "256"
    gatekeeper: Gatekeeper = field(default_factory=OpenDoor)
    metrics: Metrics | None = None
    """Where refusals and logins are counted; None counts nothing."""
    bot_factory: BotFactory | None = None
    """Attaches bot API sessions to the lobby; None: the `lovelet` subsystem is refused."""
    cpu_pool: CostPool | None = None
    """The server's time lent to sessions past their share (`SSHLimits.cpu_pool`)."""
    web_logins: WebLogins | None = None
    """The links that bring a key's identity to a browser (`ssh HOST web-login`)."""


def note_refusal(
    config: SessionConfig, address: str, message: str = "", *, label: str | None = None
) -> None:
    """Log and count a refusal: `label` (a REFUSAL_REASONS value), else one read from `message`."""
    reason = label or refusal_reason(message)
    log_refused(address, reason)
    if config.metrics is not None:
        config.metrics.refused(reason)


def name_notice(login: Login, admission: Admission, nickname: str) -> str | None:
    """One line saying why the player is not called what their SSH username asked for."""
    said = (
        [f"{login.name_problem}, so you are {admission.name} here."] if login.name_problem else []
    )
    taken = admission.notice or taken_notice(admission.name, nickname)
    if taken:
        said.append(taken)
    return " ".join(said) or None


def taken_notice(wanted: str, nickname: str) -> str | None:
    """Why the player is `nickname` and not `wanted` (None when they are the same)."""
    if nickname == wanted:
        return None
    return f"Someone called {wanted} is playing right now, so you are {nickname} here."


@dataclass(frozen=True, slots=True)
class Login:
    """Who authenticated on the connection this session belongs to."""

    requested_name: str
    identity: str | None
    peer: str
    client_version: str | None = None
    """The client's SSH version string, already sanitised."""
    name_problem: str | None = None
    """Why `requested_name` is not the SSH username as sent, in words (None if it is)."""
    reached: tuple[str, int] | None = None
    """The server's address and port the client connected to."""


class Stream(Protocol):
    """A terminal session's byte stream: an SSH channel, or a browser's WebSocket
    (server/web/): output written, input paused and resumed, an exit status, a close."""

    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...

    def is_closing(self) -> bool: ...

    def exit(self, status: int) -> None: ...

    def close(self) -> None: ...


InfoMaker = Callable[[str, "str | None"], SessionInfo]
"""Builds a session's `SessionInfo` from its nickname and admission notice."""


class StreamSession:
    """One Textual app over one terminal byte stream, whatever carries it (SSH or WebSocket).

    Admits the player through the gatekeeper, holds their nickname in the registry, runs the
    app from `app_factory` with a `TerminalDriver` on the stream, meters its cost and holds
    its input to its share of the server's time (`CostBudget`, `InputPump`), and ends it:
    politely, by a kick (`disconnect`: `on_kick` then drops the connection), or when the
    stream is lost. The transport forwards its input, back-pressure and loss here.
    """

    def __init__(
        self,
        config: SessionConfig,
        login: Login,
        stream: Stream,
        on_finished: Callable[[], None],
        on_kick: Callable[[str], None],
    ) -> None:
        limits = config.limits
        self._config = config
        self._login = login
        self._stream: Stream | None = stream
        self._on_finished = on_finished
        self._on_kick = on_kick
        self._log = SessionLog(login.peer, login.identity, login.client_version, config.metrics)
        self._meter = CostMeter()
        self._cost = CostBudget(
            self._meter,
            share=limits.cpu_share,
            burst=limits.cpu_burst,
            pool=config.cpu_pool,
            cut_off_after=limits.cpu_cut_off,
        )
        self.pump = InputPump(
            stream,
            rate=limits.input_rate,
            burst=limits.input_burst,
            buffer=limits.input_buffer,
            chunk=limits.input_chunk,
            cost=self._cost,
            on_held=lambda: self._log.held_back(self._nickname),
            on_persistent=self._cut_off_for_cpu,
        )
        self.kicked: str | None = None
        """Why the server is ending this session and its connection, once it is."""
        self._nickname: str | None = None
        self._info: SessionInfo | None = None
        self._app: App[Any] | None = None
        self._driver: TerminalDriver | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._refused = False
        self._close_message: str | None = None
        self._done = asyncio.Event()

    @property
    def nickname(self) -> str | None:
        """The nickname held while the app runs."""
        return self._nickname

    @property
    def info(self) -> SessionInfo | None:
        """What the app factory was given, once the app has started."""
        return self._info

    @property
    def driver(self) -> TerminalDriver | None:
        """The driver bridging the app to this stream, once the app has started."""
        return self._driver

    @property
    def app(self) -> App[Any] | None:
        """The running app, if any. Reach it only via post_message/call_later."""
        return self._app

    @property
    def login(self) -> Login:
        """Who this session is for."""
        return self._login

    # From the transport

    def start(self, make_info: InfoMaker) -> None:
        """Admit the player and run the app (in a task charged to this session)."""
        self._task = self.run_metered(self._run(make_info))

    def run_metered(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `coro` as a task whose every step is charged to this session's cost."""
        return run_metered(coro, self._meter)

    def received(self, data: bytes) -> None:
        """Input from the client."""
        self.pump.received(data)

    def resize(self, size: tuple[int, int]) -> None:
        """The client's terminal has this (clamped) size now."""
        if self._driver is not None:
            self._driver.resize(*size)

    def pause_output(self) -> None:
        """The stream's send buffer is above its high-water mark."""
        if self._driver is not None:
            self._driver.pause_output()

    def resume_output(self) -> None:
        """The stream's send buffer has drained."""
        if self._driver is not None:
            self._driver.resume_output()

    def lost(self) -> None:
        """The stream is gone: no more input or output; the app is asked to exit."""
        self._stream = None
        self.pump.close()
        if self._driver is not None:
            self._driver.detach()
        self.request_close()
        if self._task is None:
            self._mark_done()

    # Closing from outside

    def request_close(self, message: str | None = None) -> None:
        """Ask the app to exit; `message` is shown on the restored terminal."""
        self._closing = True
        if message is not None and self._close_message is None:
            self._close_message = message
        if self._app is not None:
            self._app.exit()

    async def close(self, message: str | None = None) -> None:
        """Close politely, waiting up to `close_timeout`, then force it."""
        self.request_close(message)
        if self._task is None:
            if self._stream is not None:
                self._stream.close()
            return
        try:
            timeout = self._config.limits.close_timeout
            await asyncio.wait_for(asyncio.shield(self._done.wait()), timeout)
        except TimeoutError:
            log.warning("session %s did not exit in time; cancelling it", self._nickname)
            self._task.cancel()
            await self._done.wait()

    async def wait_closed(self) -> None:
        """Wait until the app has ended and the stream is closed or closing."""
        await self._done.wait()

    def disconnect(self, reason: str) -> None:
        """End the session now (the client misbehaves or cannot keep up) and its connection.

        The client's terminal is restored and told why first; `on_kick` drops the connection
        once that has been sent, or after `close_timeout` if the client does not read it.
        """
        if self.kicked is not None:
            return
        self.kicked = reason
        self._log.kicked(self._nickname, reason)
        self._on_kick(reason)
        if self._close_message is None:
            self._close_message = reason
        self._goodbye(reason, 1)
        self.request_close()

    # Running the app

    async def _run(self, make_info: InfoMaker) -> None:
        config = self._config
        login = self._login
        online = {s.nickname: s.info.identity for s in config.registry if s.info and s.nickname}
        admission = config.gatekeeper.admit(
            login.identity, login.peer, login.requested_name, online
        )
        if inspect.isawaitable(admission):  # a gatekeeper that asks the game core
            admission = await admission
        if admission.refusal is not None:
            note_refusal(config, login.peer, admission.refusal)
            self._close_message = admission.refusal
            self._refused = True
            self._finish()
            return
        self._nickname = config.registry.register(admission.name, self, login.identity)
        try:
            self._info = info = make_info(
                self._nickname, name_notice(login, admission, self._nickname)
            )
            self._log.logged_in(self._nickname, info.term, info.size)
            app = config.app_factory(info)
            prepare_app(app, self._make_driver, self._on_app_error, config.color_system)
            self._app = app
            if self._closing:
                app.exit()
            await app.run_async(size=info.size, mouse=config.mouse)
        except Exception as error:
            self._on_app_error(error)
        finally:
            config.registry.unregister(self._nickname, self)
            self._finish()

    def _make_driver(self, app: App[Any], **kwargs: Any) -> TerminalDriver:
        assert self._stream is not None
        limits = self._config.limits
        driver = TerminalDriver(
            app,
            channel=self._stream,
            hard_limit=limits.output_hard_limit,
            stall_timeout=limits.output_stall_timeout,
            max_paste=limits.max_paste,
            pump=self.pump,
            keys=KeyBudget(limits.key_rate, limits.key_burst, limits.key_flood),
            disconnect=self.disconnect,
            **kwargs,
        )
        self._driver = driver
        return driver

    def _cut_off_for_cpu(self) -> None:
        """The session stayed past its share of the server's time: count it, end it."""
        if self._config.metrics is not None:
            self._config.metrics.refused("cpu_cut_off")
        self.disconnect(CPU_HOG)

    def _on_app_error(self, error: BaseException) -> None:
        self._log.crashed(self._nickname, error)

    def _finish(self) -> None:
        """Restore the terminal, say goodbye, report the exit status, close the stream."""
        failed = self._log.error is not None
        message = CRASHED if failed else self._close_message
        self._goodbye(message, 1 if failed or self._refused else 0)
        self._app = None
        self._log.ended(self._nickname, self._close_message, self._cost_so_far())
        self._mark_done()

    def _goodbye(self, message: str | None, status: int) -> None:
        """Restore the client's terminal, say `message` in one line, exit with `status`."""
        if self._driver is not None:
            self._driver.restore_terminal()
        stream = self._stream
        if stream is None or stream.is_closing():
            return
        try:
            if message:
                stream.write(message.rstrip("\r\n").encode() + b"\r\n")
            stream.exit(status)
        except OSError:
            pass

    def _cost_so_far(self) -> tuple[float, int]:
        """Server time this session caused, and how often its input was held back."""
        return self._meter.total, self._cost.held

    def _mark_done(self) -> None:
        if not self._done.is_set():
            self._done.set()
            self._on_finished()


class LoveletSession(asyncssh.SSHServerSession[bytes]):
    """One SSH session channel: the SSH transport of a `StreamSession`, made when the channel
    opens (the channel is its stream).

    Each SSH concern is one part: `Terminal` (a PTY is required; the command is a table
    code), `Guard` (request limits, and the kick of a session that breaks them, which drops
    the connection), `Handoff` (a subsystem takes the channel over); asyncssh's callbacks go
    to the parts and to the stream session."""

    def __init__(
        self,
        config: SessionConfig,
        login: Login,
        on_finished: Callable[[], None],
        subsystems: Subsystems | None = None,
    ) -> None:
        self._config = config
        self._handoff = Handoff(subsystems)
        self._login = login
        self._on_finished = on_finished
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._guard = Guard(config.limits, self._resize, self._disconnect)
        self._terminal = Terminal(config.limits)
        self._session: StreamSession | None = None
        self._answering: asyncio.Task[None] | None = None  # a web command's (held: see below)

    @property
    def nickname(self) -> str | None:
        """The nickname held while the app runs."""
        return self._session.nickname if self._session is not None else None

    @property
    def info(self) -> SessionInfo | None:
        """What the app factory was given, once the app has started."""
        return self._session.info if self._session is not None else None

    @property
    def driver(self) -> TerminalDriver | None:
        """The driver bridging the app to this channel, once the app has started."""
        return self._session.driver if self._session is not None else None

    @property
    def app(self) -> App[Any] | None:
        """The running app, if any. Reach it only via post_message/call_later."""
        return self._session.app if self._session is not None else None

    # asyncssh callbacks

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        limits = self._config.limits
        self._chan = chan
        self._guard.conn = chan.get_connection()
        chan.set_write_buffer_limits(limits.output_high_water, limits.output_low_water)
        intercept_env_requests(chan, self._guard.env_requested)
        self._session = StreamSession(
            self._config, self._login, chan, self._on_finished, self._guard.kick
        )

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any
    ) -> bool:
        self._terminal.pty_requested(term_type, term_size[0], term_size[1])
        return True

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if self._guard.size_changed():
            self._terminal.set_size(width, height)

    def _resize(self) -> None:
        """Pass the latest size on (at most one resize per `resize_interval`)."""
        if self._session is not None:
            self._session.resize(self._terminal.size)

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        """Accepted, to be answered once the session starts: a table code goes to that
        table, anything else gets one line saying what lovelet takes."""
        self._terminal.command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        pump = self._session.pump if self._session is not None else None
        return self._handoff.request(subsystem, self._chan, pump)

    def session_started(self) -> None:
        if self._chan is None or self._session is None or self._guard.kicked is not None:
            return  # disconnected before the shell started (e.g. an env flood)
        if self._handoff.start():
            return
        command = (self._terminal.command or "").strip()
        if command in WEB_COMMANDS:
            self._answer_web_command(command)
            return
        refusal = self._terminal.refusal()
        if refusal is not None:
            self._chan.write(refusal.encode())
            self._chan.exit(1)
            return
        self._session.start(self._make_info)

    def _answer_web_command(self, command: str) -> None:
        """`ssh HOST web-login` (a one-time link for a browser) or `web-logout`: the answer
        in a few lines (once the store of web logins, maybe Redis, has answered), then the
        channel closes. The task is held here: the event loop keeps only a weak reference."""
        self._answering = asyncio.get_running_loop().create_task(self._web_command(command))

    async def _web_command(self, command: str) -> None:
        login = self._login
        try:
            answer = await command_answer(
                self._config.web_logins, command, login.identity, login.requested_name
            )
        except Exception:
            log.exception("answering %s", command)
            answer = CRASHED.rstrip()
        if self._chan is None:
            return  # the client left meanwhile
        self._chan.write(answer.replace("\n", "\r\n").encode() + b"\r\n")
        self._chan.exit(0)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if datatype is None and self._session is not None:
            self._session.received(data)

    def eof_received(self) -> bool:
        self._handoff.eof()
        self.request_close()
        return True

    def pause_writing(self) -> None:
        self._handoff.pause_writing()
        if self._session is not None:
            self._session.pause_output()

    def resume_writing(self) -> None:
        self._handoff.resume_writing()
        if self._session is not None:
            self._session.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._handoff.connection_lost()
        self._chan = None
        self._guard.close()
        self._guard.drop_connection()
        if self._session is not None:
            self._session.lost()

    # Closing from outside

    def request_close(self, message: str | None = None) -> None:
        """Ask the app to exit; `message` is shown on the restored terminal."""
        if self._session is not None:
            self._session.request_close(message)

    def _disconnect(self, reason: str) -> None:
        """A channel request broke a limit: end the session and its connection."""
        if self._session is not None:
            self._session.disconnect(reason)

    def _make_info(self, nickname: str, notice: str | None) -> SessionInfo:
        login = self._login
        terminal = self._terminal
        assert terminal.term is not None
        return SessionInfo(
            nickname=nickname,
            identity=login.identity,
            peer=login.peer,
            term=terminal.term,
            size=terminal.size,
            notice=notice,
            environment=self._guard.env.variables,
            table_code=terminal.table_code(),
            reached=login.reached,
        )
