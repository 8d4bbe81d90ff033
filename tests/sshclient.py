"""An SSH client with a PTY whose output is rendered by pyte, for end-to-end tests.

Usage: `async with SSHTerminal.connect(port, username="alice", key=key) as term:` then
`await term.wait_for_text("hello alice")` and `await term.send_keys("q")`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

import asyncssh
import pyte

DEFAULT_TIMEOUT = 10.0

KEYS = {
    "escape": "\x1b",
    "enter": "\r",
    "tab": "\t",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "ctrl+c": "\x03",
    "ctrl+t": "\x14",
}


APP_MODES = {1049: "alternate screen", 2004: "bracketed paste", 1000: "mouse", 1006: "SGR mouse"}
"""Private modes a full-screen app turns on and must turn off before it leaves."""
NORMAL_MODES = {25: "cursor shown", 7: "line wrap"}
"""Private modes a shell expects on."""

SYNC_QUERY = b"\x1b[?2026$p"
"""An app asking whether the terminal supports synchronized output (DEC private mode 2026)."""
SYNC_REPLY = b"\x1b[?2026;2$y"
"""The answer of a terminal that supports it (mode known, now reset), as tmux, kitty or
WezTerm give."""
SYNC_BEGIN = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"


class FrameStream:
    """Feeds a pyte screen as a terminal with synchronized output draws: the bytes of an
    update (between SYNC_BEGIN and SYNC_END) reach the screen only once the update is whole,
    so a test never reads a half-drawn frame, however its bytes were split on the way."""

    def __init__(self, screen: pyte.Screen) -> None:
        self._stream = pyte.ByteStream(screen)
        self._held = bytearray()

    def feed(self, data: bytes) -> None:
        """Take `data`; draw everything up to the start of an update still being received."""
        held = self._held
        held += data
        begin = held.rfind(SYNC_BEGIN)
        ready = len(held) if begin < 0 or held.rfind(SYNC_END) > begin else begin
        if ready:
            self._stream.feed(bytes(held[:ready]))
            del held[:ready]

    def flush(self) -> None:
        """The output ended: draw whatever is held."""
        self._stream.feed(bytes(self._held))
        self._held.clear()


def asks_for_sync(raw: bytearray, data: bytes) -> bool:
    """`data`, just appended to `raw`, completes the app's synchronized-output query."""
    tail = raw[-(len(data) + len(SYNC_QUERY) - 1) :]
    return SYNC_QUERY in tail


class LoginRefused(Exception):
    """The server closed the connection before login; `banner` holds what it said."""

    def __init__(self, banner: str) -> None:
        super().__init__(banner or "connection refused without a message")
        self.banner = banner


class _GuestClient(asyncssh.SSHClient):
    """Answers keyboard-interactive auth with no prompts; records the auth banner."""

    def __init__(self) -> None:
        self.banner = ""

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banner += msg

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        return [] if not prompts else None


class _TermSession(asyncssh.SSHClientSession[bytes]):
    def __init__(self, terminal: SSHTerminal) -> None:
        self._terminal = terminal

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self._terminal._received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._terminal._received(b"")


class SSHTerminal:
    """One SSH session with a PTY, its screen emulated by pyte."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.screen = pyte.Screen(*size)
        self._stream = FrameStream(self.screen)
        self.raw = bytearray()
        """Every byte received, in order."""
        self.closed = False
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.banner = ""
        self.answers_sent = 0
        """Terminal answers sent to the app's queries (each is input the server counts)."""
        self._changed = asyncio.Event()

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        port: int,
        *,
        username: str = "tester",
        key: asyncssh.SSHKey | None = None,
        size: tuple[int, int] = (80, 24),
        term: str = "xterm-256color",
        pty: bool = True,
        host: str = "127.0.0.1",
        window: int = 2 * 1024 * 1024,
        env: Mapping[str, str] | None = None,
        source: str | None = None,
    ) -> AsyncIterator[SSHTerminal]:
        """Log in with `key`, or as a guest (keyboard-interactive) when `key` is None.

        Raises LoginRefused if the server refuses the connection. `window` is the SSH
        receive window: make it small to play a slow client with `pause_reading()`. `env` is
        sent as environment requests (as OpenSSH's SendEnv/SetEnv do). `source` is the local
        address to connect from (loopback has all of 127/8).
        """
        terminal = cls(size)
        client = _GuestClient()
        try:
            conn = await cls._login(host, port, username, key, client, source)
        except (asyncssh.DisconnectError, ConnectionError) as error:
            raise LoginRefused(client.banner) from error
        terminal.conn = conn
        terminal.banner = client.banner
        try:
            terminal.chan, _ = await conn.create_session(
                lambda: _TermSession(terminal),
                term_type=term if pty else None,
                term_size=size if pty else None,
                request_pty=pty,
                encoding=None,
                window=window,
                env=env or (),
            )
            yield terminal
        finally:
            conn.close()
            await conn.wait_closed()

    @staticmethod
    async def _login(
        host: str,
        port: int,
        username: str,
        key: asyncssh.SSHKey | None,
        client: _GuestClient,
        source: str | None = None,
    ) -> asyncssh.SSHClientConnection:
        return await asyncssh.connect(
            host,
            port,
            username=username,
            local_addr=(source, 0) if source else None,
            client_keys=[key] if key is not None else None,
            client_factory=lambda: client,
            known_hosts=None,
            agent_path=None,
            config=None,
            password_auth=False,
            kbdint_auth=key is None,
            public_key_auth=key is not None,
        )

    def _received(self, data: bytes) -> None:
        if data:
            self.raw += data
            self._stream.feed(data)
            if asks_for_sync(self.raw, data) and self.chan is not None:
                self.chan.write(SYNC_REPLY)
                self.answers_sent += 1
        else:
            self._stream.flush()
            self.closed = True
        self._changed.set()

    # Reading

    @property
    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    @property
    def modes_not_restored(self) -> list[str]:
        """What the server left the terminal in that a shell would not expect (empty: none)."""
        modes = self.screen.mode
        left_on = [name for mode, name in APP_MODES.items() if mode << 5 in modes]
        left_off = [f"no {name}" for mode, name in NORMAL_MODES.items() if mode << 5 not in modes]
        return left_on + left_off

    def said_after_restoring(self, message: str) -> bool:
        """`message` came after the last escape sequence the server sent (the terminal was
        restored first, then the reason given)."""
        text = self.raw_text
        return message in text and text.rindex("\x1b") < text.rindex(message)

    @property
    def raw_text(self) -> str:
        """Everything received, decoded."""
        return self.raw.decode("utf-8", "replace")

    async def wait_for(
        self, predicate: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """Wait until `predicate()` holds after some output; fail with the screen if not."""

        async def until() -> None:
            while not predicate():
                if self.closed:
                    raise AssertionError(f"session closed waiting for {what}\n{self.text}")
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(until(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}\n{self.text}") from None

    async def wait_for_text(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until `text` is on the screen."""
        await self.wait_for(lambda: text in self.text, repr(text), timeout)

    async def wait_for_raw(self, data: bytes, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until `data` appears in the raw output."""
        await self.wait_for(lambda: data in self.raw, repr(data), timeout)

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Wait for the server to close the session; return its exit status."""
        assert self.chan is not None
        await asyncio.wait_for(self.chan.wait_closed(), timeout)
        return self.chan.get_exit_status()

    # Writing

    async def send(self, data: str | bytes) -> None:
        """Send raw input."""
        assert self.chan is not None
        self.chan.write(data.encode() if isinstance(data, str) else data)

    async def send_keys(self, *keys: str) -> None:
        """Send keys: single characters or names from KEYS (`escape`, `enter`, `up`...)."""
        await self.send("".join(KEYS.get(key, key) for key in keys))

    def pause_reading(self) -> None:
        """Stop reading output (a stalled client); the server's sends back up."""
        assert self.chan is not None
        self.chan.pause_reading()

    def resume_reading(self) -> None:
        """Read output again."""
        assert self.chan is not None
        self.chan.resume_reading()

    async def resize(self, width: int, height: int) -> None:
        """Change the terminal size (the server sees a window-change request)."""
        assert self.chan is not None
        self.screen.resize(height, width)
        self.chan.change_terminal_size(width, height)
