"""A console command run as a real process on a pseudo-terminal, its screen read by pyte.

Usage: `async with PtyTerminal.spawn(["lovelet", "play"]) as term:` then
`await term.wait_for(lambda: "Hand" in term.text, "the table")`, `await term.send_keys("1")`
and `await term.exited()`. Same reading and waiting interface as `sshclient.SSHTerminal`, so
the screen helpers of `e2e_helpers` read it too.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import struct
import sys
import termios
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pyte
from sshclient import DEFAULT_TIMEOUT, KEYS, SYNC_REPLY, FrameStream, asks_for_sync

LOVELET = str(Path(sys.executable).with_name("lovelet"))
"""The `lovelet` console script installed next to this Python (what a user types)."""


def lovelet_lines(lines: Sequence[str]) -> list[str]:
    """The lines lovelet itself printed ("lovelet ...: ..."), without a library's."""
    return [line for line in lines if line.startswith("lovelet")]


class PtyTerminal:
    """One process whose stdin, stdout and stderr are the slave side of a PTY."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.screen = pyte.Screen(*size)
        self._stream = FrameStream(self.screen)
        self.raw = bytearray()
        """Every byte the process wrote, in order."""
        self.closed = False
        self.process: asyncio.subprocess.Process | None = None
        self._master = -1
        self._changed = asyncio.Event()

    @classmethod
    @asynccontextmanager
    async def spawn(
        cls,
        command: Sequence[str],
        *,
        size: tuple[int, int] = (80, 24),
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> AsyncIterator[PtyTerminal]:
        """Start `command` on a new PTY of `size` (columns, lines) with TERM=xterm-256color;
        killed at the end if still running."""
        terminal = cls(size)
        master, slave = pty.openpty()
        columns, lines = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        environment = {**os.environ, "TERM": "xterm-256color", **(env or {})}
        environment.pop("NO_COLOR", None)
        try:
            terminal.process = await asyncio.create_subprocess_exec(
                *command,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=environment,
                cwd=cwd,
                start_new_session=True,
            )
        finally:
            os.close(slave)
        terminal._master = master
        os.set_blocking(master, False)
        loop = asyncio.get_running_loop()
        loop.add_reader(master, terminal._read)
        try:
            yield terminal
        finally:
            loop.remove_reader(master)
            if terminal.process.returncode is None:
                terminal.process.kill()
            await terminal.process.wait()
            os.close(master)

    def _read(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except OSError:  # EIO: every process holding the slave side has closed it
            data = b""
        if data:
            self.raw += data
            self._stream.feed(data)
            if asks_for_sync(self.raw, data):
                os.write(self._master, SYNC_REPLY)
        else:
            self._stream.flush()
            self.closed = True
            asyncio.get_running_loop().remove_reader(self._master)
        self._changed.set()

    # Reading

    @property
    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def wait_for(
        self, predicate: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """Wait until `predicate()` holds after some output; fail with the screen if not."""

        async def until() -> None:
            while not predicate():
                if self.closed:
                    raise AssertionError(f"the process ended waiting for {what}\n{self.output}")
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(until(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}\n{self.text}") from None

    async def exited(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Wait for the process to end and its output to be read; its exit status."""
        assert self.process is not None
        try:
            status = await asyncio.wait_for(self.process.wait(), timeout)
            await self.wait_for(lambda: self.closed, "the end of the output", timeout)
        except TimeoutError:
            raise AssertionError(f"the process is still running\n{self.text}") from None
        return status

    @property
    def output(self) -> str:
        """The screen, then the last of the raw output (a traceback after the app closed)."""
        tail = self.raw[-3000:].decode("utf-8", "replace")
        return f"{self.text}\n--- last output\n{tail}"

    # Writing

    async def send(self, data: str | bytes) -> None:
        """Type raw input."""
        os.write(self._master, data.encode() if isinstance(data, str) else data)

    async def send_keys(self, *keys: str) -> None:
        """Type keys: single characters or names from `sshclient.KEYS`."""
        await self.send("".join(KEYS.get(key, key) for key in keys))
