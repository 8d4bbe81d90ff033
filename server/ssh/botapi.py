"""The bot API: the `lovelet` SSH subsystem (length-prefixed msgpack frames) and
`lovelet-json` (the same messages as JSON lines).

A program opens a subsystem (`ssh -s host lovelet`) instead of a shell and speaks the same
messages as the apps (docs/bot-api.md). It is let in, named and registered as a player is,
then attached to the lobby like an app. Every frame is checked before the lobby sees it
(`BotStream`, which `lovelet arena` uses too, on a child's stdin and stdout): frames over the
rate are refused with the time to wait (a frame sent sooner is an error), and an invalid frame
is an error; too many errors, a length prefix over the limit, or output the client does not
read cut it off.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import asyncssh

from protocol import (
    Direction,
    ErrorReply,
    FrameReader,
    LocalProtocolError,
    Message,
    Notice,
    RemoteProtocolError,
    decode,
    encode,
    frame,
)
from protocol.jsonlines import LineReader, line_to_payload, payload_to_line
from protocol.registry import MAX_ERROR_MESSAGE, MAX_NOTICE
from server.ops.logs import Stopwatch, log_disconnect, log_login
from server.ssh.info import SessionInfo
from server.ssh.input import InputPump, TokenBucket
from server.ssh.limits import SSHLimits
from server.ssh.session import Login, SessionConfig, name_notice, note_refusal

log = logging.getLogger(__name__)

BOT_SUBSYSTEM = "lovelet"
JSON_SUBSYSTEM = "lovelet-json"
KEY_REQUIRED = "The bot API needs an SSH key: guests play from a terminal only."
RATE_LIMITED = "too many frames: at most {rate:g} a second (bursts of {burst})"
TOO_MANY_ERRORS = "Too many errors; disconnected."
OUTPUT_OVERFLOW = "Output not read; disconnected."
OUTPUT_STALLED = "Output not read for too long; disconnected."


class BotLink(Protocol):
    """The lobby's end of a bot session (the lobby's `Attachment`)."""

    def receive(self, frame: bytes) -> None:
        """One valid frame from the client."""

    def detach(self) -> None:
        """The client is gone."""


BotFactory = Callable[[SessionInfo, Callable[[bytes], None]], BotLink]
"""Attaches a bot session (its info, the sink for its frames) to the lobby."""


@dataclass(frozen=True, slots=True)
class Wire:
    """How messages travel on a bot's byte stream: msgpack frames, or JSON lines."""

    reader: Callable[[], FrameReader | LineReader]
    """A new splitter of the client's bytes into units (frames, lines)."""
    to_payload: Callable[[bytes], bytes]
    """A unit to the msgpack frame the lobby takes (`RemoteProtocolError` if it is not one)."""
    to_stream: Callable[[bytes], bytes]
    """One of the lobby's msgpack frames to the bytes written (`LocalProtocolError`)."""


MSGPACK = Wire(
    lambda: FrameReader(direction=Direction.TO_SERVER),
    lambda unit: unit,
    lambda payload: frame(payload, direction=Direction.TO_CLIENT),
)
JSON_LINES = Wire(
    lambda: LineReader(direction=Direction.TO_SERVER), line_to_payload, payload_to_line
)
WIRES = {BOT_SUBSYSTEM: MSGPACK, JSON_SUBSYSTEM: JSON_LINES}
"""The bot API's subsystems and what each carries."""


class BotStream:
    """A bot session's messages, whatever carries them: the client's bytes are split (`wire`),
    checked (the request rate unless `rate_limited` is False, the error budget, `decode`) and
    handed to `link`; the lobby's frames go out through `write` in the same wire format.

    `cut_off(reason)` is called when the stream cannot go on (a unit over the size limit, too
    many errors); the owner ends the session and calls `stop`.
    """

    def __init__(
        self,
        wire: Wire,
        limits: SSHLimits,
        write: Callable[[bytes], None],
        cut_off: Callable[[str], None],
        *,
        rate_limited: bool = True,
    ) -> None:
        self._wire = wire
        self._limits = limits
        self._write = write
        self._cut_off = cut_off
        self._reader = wire.reader()
        self._requests = (
            TokenBucket(limits.bot_request_rate, limits.bot_request_burst) if rate_limited else None
        )
        self._errors = TokenBucket(1 / limits.bot_error_forgiveness, limits.bot_max_errors)
        self._retry_at = 0.0  # when the last `rate_limited` told the client to send again
        self._stopped = False
        self.link: BotLink | None = None
        self.last_frame = b""
        """The last frame sent (so that a notice the lobby just sent is not said twice)."""

    def stop(self) -> None:
        """Handle and send nothing more."""
        self._stopped = True

    def feed(self, chunk: bytes) -> None:
        """Bytes from the client: every whole unit in them is handled, in order."""
        try:
            units = self._reader.feed(chunk)
        except RemoteProtocolError as err:  # a length over the limit: the stream is lost
            self.send(ErrorReply(str(err.code), err.reason[:MAX_ERROR_MESSAGE]))
            self._cut_off(f"{err}; disconnected.")
            return
        for unit in units:
            if self._stopped:
                break
            self._unit(unit)

    def send(self, message: Message) -> None:
        """One message to the client."""
        self.send_frame(encode(message))

    def send_frame(self, payload: bytes) -> None:
        """One of the lobby's frames to the client, in the wire's format."""
        if self._stopped:
            return
        self.last_frame = payload
        try:
            data = self._wire.to_stream(payload)
        except LocalProtocolError:
            log.exception("a frame for a bot is over the limit; not sent")
            return
        self._write(data)

    def _unit(self, unit: bytes) -> None:
        """One frame or line: refused over the rate, answered with an error if invalid, else on."""
        if self._requests is not None and not self._requests.take(1):
            self._rate_limited()
            return
        try:
            payload = self._wire.to_payload(unit)
            decode(payload, direction=Direction.TO_SERVER)
        except RemoteProtocolError as err:
            self._error(str(err.code), err.reason)
            return
        if self.link is not None:
            self.link.receive(payload)

    def _rate_limited(self) -> None:
        """A frame over the rate: refused, with the time a token takes to come back; an error
        only if the client did not wait that long since the last refusal."""
        rate, burst = self._limits.bot_request_rate, self._limits.bot_request_burst
        now, wait = time.monotonic(), 1 / rate
        counts, self._retry_at = now < self._retry_at, now + wait
        message = RATE_LIMITED.format(rate=rate, burst=burst)
        self._error("rate_limited", message, counts, math.ceil(wait * 1000))

    def _error(
        self, code: str, message: str, counts: bool = True, retry_after_ms: int | None = None
    ) -> None:
        """Tell the client; past its error budget, cut it off."""
        self.send(ErrorReply(code, message[:MAX_ERROR_MESSAGE], retry_after_ms))
        if counts and not self._errors.take(1):
            self.send(ErrorReply("too_many_errors", TOO_MANY_ERRORS))
            self._cut_off(TOO_MANY_ERRORS)


class BotSession:
    """One bot API subsystem channel between a program and the lobby.

    It takes over the channel of the SSH session that accepted the subsystem: input comes
    through that session's `InputPump` (the same byte budget and buffering as a terminal's),
    and output is written in whole frames. Frames are never dropped (a protocol stream has no
    repaint); a client whose unsent output passes `output_hard_limit`, or stays over the
    high-water mark for `output_stall_timeout` seconds, is disconnected instead.
    """

    def __init__(
        self,
        config: SessionConfig,
        login: Login,
        channel: asyncssh.SSHServerChannel[bytes],
        pump: InputPump,
        wire: Wire = MSGPACK,
    ) -> None:
        self._config = config
        self._login = login
        self._chan: asyncssh.SSHServerChannel[bytes] | None = channel
        self._pump = pump
        self._stream = BotStream(wire, config.limits, self._write, self._cut_off)
        self._nickname: str | None = None
        self._info: SessionInfo | None = None
        self._started: Stopwatch | None = None
        self._stall: asyncio.TimerHandle | None = None
        self._drop: asyncio.TimerHandle | None = None
        self._ended: str | None = None
        self._eof = False
        self._done = asyncio.Event()

    @property
    def nickname(self) -> str | None:
        """The nickname held while attached."""
        return self._nickname

    @property
    def info(self) -> SessionInfo | None:
        """What the lobby was given, once attached."""
        return self._info

    # The channel (called by the SSH session that accepted the subsystem)

    def start(self) -> None:
        """Admit the client as a player would be, register it and attach it to the lobby."""
        config, login = self._config, self._login
        if config.bot_factory is None:
            return
        if login.identity is None:
            note_refusal(config, login.peer, label="bot_guest")
            self._refuse("key_required", KEY_REQUIRED)
            return
        online = {s.nickname: s.info.identity for s in config.registry if s.info and s.nickname}
        admission = config.gatekeeper.admit(
            login.identity, login.peer, login.requested_name, online
        )
        if admission.refusal is not None:
            note_refusal(config, login.peer, admission.refusal)
            self._refuse("refused", admission.refusal)
            return
        self._nickname = nickname = config.registry.register(admission.name, self, login.identity)
        self._started = Stopwatch()
        log_login(login.peer, login.identity, nickname, login.client_version, None, None)
        if config.metrics is not None:
            config.metrics.login(guest=False)
        notice = name_notice(login, admission, nickname)
        self._info = SessionInfo(
            nickname, login.identity, login.peer, "", (0, 0), notice, api_bot=True
        )
        self._stream.link = config.bot_factory(self._info, self._stream.send_frame)
        self._pump.attach(self._consume)

    def eof(self) -> None:
        """The client will send no more: end the session once what it sent is handled."""
        self._eof = True
        if self._pump.waiting == 0:
            self._end("eof", 0)

    def pause_writing(self) -> None:
        """Unsent output passed the high-water mark: start the stall clock."""
        if self._stall is None:
            timeout = self._config.limits.output_stall_timeout
            self._stall = asyncio.get_running_loop().call_later(
                timeout, self._cut_off, OUTPUT_STALLED
            )

    def resume_writing(self) -> None:
        """The client caught up."""
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def connection_lost(self) -> None:
        """The channel is gone: what the client sent before it is handled, then the session
        ends (a `leave` written just before the connection dropped still leaves)."""
        self._chan = None
        if self._ended is None:
            self._stream.feed(self._pump.take())
        self._end(self._ended or "closed", 0)
        if self._drop is not None:
            self._drop.cancel()
            self._drop = None

    # Closing from outside (the registry, the lobby's closer)

    def request_close(self, message: str | None = None) -> None:
        """End the session, telling the client `message` in a `notice` first (unless the
        lobby's last frame to it said just that)."""
        notice = encode(Notice(message[:MAX_NOTICE])) if message else b""
        if notice and notice != self._stream.last_frame:
            self._stream.send_frame(notice)
        self._end(message or "closed", 0)

    async def close(self, message: str | None = None) -> None:
        """End the session (at once: there is no app to wait for)."""
        self.request_close(message)

    async def wait_closed(self) -> None:
        """Wait until the session has ended."""
        await self._done.wait()

    # Input

    def _consume(self, chunk: bytes) -> bool:
        """A chunk of input from the pump: every whole frame in it is handled."""
        self._stream.feed(chunk)
        if self._eof and self._pump.waiting == 0:
            self._end("eof", 0)
        return False

    # Output

    def _write(self, data: bytes) -> None:
        """Bytes to the client; cut off if it falls too far behind."""
        chan = self._chan
        if chan is None or self._ended is not None or chan.is_closing():
            return
        try:
            chan.write(data)
        except OSError:
            return
        if chan.get_write_buffer_size() > self._config.limits.output_hard_limit:
            self._cut_off(OUTPUT_OVERFLOW)

    # Ending

    def _refuse(self, code: str, reason: str) -> None:
        """Refused before login: one error frame, exit status 1."""
        self._stream.send(ErrorReply(code, reason[:MAX_ERROR_MESSAGE]))
        self._end(reason, 1)

    def _cut_off(self, reason: str) -> None:
        """The client misbehaves: end the session, and drop the connection once the last
        frames are sent (or after `close_timeout` if the client does not read them)."""
        if self._ended is not None:
            return
        log.warning("bot session %s from %s: %s", self._nickname, self._login.peer, reason)
        note_refusal(self._config, self._login.peer, label="bot_cut_off")
        conn = self._chan.get_connection() if self._chan is not None else None
        self._end(reason, 1)
        if conn is not None:
            timeout = self._config.limits.close_timeout
            self._drop = asyncio.get_running_loop().call_later(
                timeout, conn.disconnect, asyncssh.DISC_BY_APPLICATION, reason
            )

    def _end(self, reason: str, status: int) -> None:
        """Detach from the lobby, free the nickname, log, close the channel; once."""
        if self._ended is not None:
            return
        self._ended = reason
        self._stream.stop()
        self.resume_writing()
        self._pump.close()
        if self._stream.link is not None:
            self._stream.link.detach()
            self._stream.link = None
        if self._nickname is not None:
            self._config.registry.unregister(self._nickname, self)
        if self._started is not None:
            log_disconnect(self._login.peer, self._nickname, self._started.elapsed(), reason)
        chan = self._chan
        if chan is not None and not chan.is_closing():
            with contextlib.suppress(OSError):
                chan.exit(status)
        self._done.set()


def bot_subsystems(
    config: SessionConfig, login: Login
) -> dict[str, Callable[[asyncssh.SSHServerChannel[bytes], InputPump], BotSession]]:
    """The subsystems a session of `login` may open: `lovelet` and `lovelet-json`, if the
    server has a lobby to attach bots to."""
    if config.bot_factory is None:
        return {}
    return {name: _opener(config, login, wire) for name, wire in WIRES.items()}


def _opener(
    config: SessionConfig, login: Login, wire: Wire
) -> Callable[[asyncssh.SSHServerChannel[bytes], InputPump], BotSession]:
    return lambda channel, pump: BotSession(config, login, channel, pump, wire)
