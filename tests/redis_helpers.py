"""A real `redis-server` for tests: started on a free loopback port, no persistence, killed
after. Tests that need it are never skipped: `.ci/run` installs redis-server."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

READY = b"Ready to accept connections"
START_TIMEOUT = 10.0


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """One redis-server process on 127.0.0.1:`port`; `kill` and `start` it again at will."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: asyncio.subprocess.Process | None = None
        self.output = bytearray()
        self._drainer: asyncio.Future[None] | None = None

    @property
    def url(self) -> str:
        """Its URL, database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        """Start it (again, on the same port) and wait until it accepts connections."""
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed (.ci/run installs it)"
        self.process = await asyncio.create_subprocess_exec(
            binary,
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--save", "",
            "--appendonly", "no",
            "--logfile", "",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        await asyncio.wait_for(self._ready(), START_TIMEOUT)

    async def _ready(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while READY not in self.output:
            line = await self.process.stdout.readline()
            if not line:
                raise AssertionError(f"redis-server exited:\n{self.output.decode()}")
            self.output += line
        self._drainer = asyncio.ensure_future(self._drain(self.process.stdout))

    @staticmethod
    async def _drain(stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    async def kill(self) -> None:
        """SIGKILL: everything it held is gone."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


@asynccontextmanager
async def redis_server() -> AsyncIterator[RedisServer]:
    """A fresh redis-server for one test."""
    server = RedisServer(free_port())
    await server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            await server.kill()
