"""Key-flood attack: F guest sessions each write B bytes of `x` while a reference player types.

Usage: python benchmarks/keyflood.py [--flooders 4] [--bytes 262144] [--flood-time 20]
           [--after 10] [--budget 120]
       python benchmarks/keyflood.py --env 2000   (one session sending 2,000 env requests)

The server runs as `python -m server.cli serve` in another process (loopback only), so its CPU
and RSS come from /proc/<pid>. The reference player is a guest with a PTY that opens the lobby
chat and types `a` and backspace in turn; its key → screen latency is the time from sending a
key to its pyte screen showing the changed input line. Each flooder logs in from its own
loopback address, waits for the lobby, writes its bytes at once (the SSH window paces them) and
reads whatever the server sends. Printed, for the quiet baseline, the flood and the seconds
after the flooders leave: the reference player's p50/p99/max latency and key count, the
server's CPU share, its RSS (before, peak, after), and per flooder how many bytes the server
took and whether it was cut off. Every phase is bounded in time (`--budget` overall).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh
import pyte

ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
ESCAPE_RE = re.compile(r"\x1b\[[0-9;?<>=$]*[A-Za-z~]")
KEY_TIMEOUT = 30.0  # seconds a reference key may take to show before it counts as lost
CHAT_ROW = 22  # the chat input's row on an 80x24 lobby screen
EMPTY_CHAT = "Say something (Enter sends, Esc leaves)"  # the empty input's placeholder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`lovelet serve` in a child process, with its CPU time and RSS from /proc."""

    def __init__(self, port: int, data_dir: str, log_path: Path) -> None:
        self.port = port
        self._log = log_path.open("w")
        command = [sys.executable, "-m", "server.cli", "serve"]
        command += ["--listen", f"127.0.0.1:{port}", "--data-dir", data_dir]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self._log, stderr=self._log)

    async def ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                await asyncio.sleep(0.1)
        raise RuntimeError("server did not start")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


class Guest(asyncssh.SSHClient):
    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        return [] if not prompts else None


class Screen(asyncssh.SSHClientSession[bytes]):
    """A client session rendering into pyte (or discarding output when `render` is off)."""

    def __init__(self, render: bool) -> None:
        self.screen = pyte.Screen(80, 24)
        self._stream = pyte.ByteStream(self.screen)
        self._render = render
        self.changed = asyncio.Event()
        self.closed = False
        self.tail = b""

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self._render:
            self._stream.feed(data)
        self.tail = (self.tail + data)[-512:]
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.changed.set()

    def line(self, row: int) -> str:
        return self.screen.display[row].rstrip()

    async def wait(self, predicate: object, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate():  # type: ignore[operator]
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closed:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                return False
        return True


async def open_session(
    port: int, name: str, source: str, render: bool
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel[bytes], Screen]:
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        local_addr=(source, 0),
        username=name,
        client_factory=Guest,
        known_hosts=None,
        agent_path=None,
        config=None,
        password_auth=False,
        public_key_auth=False,
        kbdint_auth=True,
    )
    session = Screen(render)
    chan, _ = await conn.create_session(
        lambda: session, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    return conn, chan, session


@dataclass
class Latencies:
    samples: list[float] = field(default_factory=list)
    lost: int = 0

    def summary(self) -> str:
        if not self.samples:
            return f"no key shown ({self.lost} lost)"
        ordered = sorted(self.samples)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        return (
            f"p50 {statistics.median(ordered) * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms  "
            f"max {ordered[-1] * 1000:7.1f} ms  ({len(ordered)} keys, {self.lost} lost)"
        )


class Reference:
    """The reference player: types `a` then backspace in the lobby chat, timing each echo."""

    def __init__(self, chan: asyncssh.SSHClientChannel[bytes], session: Screen) -> None:
        self._chan = chan
        self._session = session
        self._typed = False

    async def open_chat(self) -> None:
        await self._session.wait(lambda: "Chat" in self._session.line(23), 10)
        self._chan.write(b"c")
        await self._session.wait(lambda: "Send" in self._session.line(23), 10)

    async def press(self) -> float | None:
        key, want = (b"\x7f", EMPTY_CHAT) if self._typed else (b"a", "a")
        started = time.perf_counter()
        self._chan.write(key)
        shown = await self._session.wait(lambda: self._session.line(CHAT_ROW) == want, KEY_TIMEOUT)
        self._typed = not self._typed
        return time.perf_counter() - started if shown else None

    async def type_for(self, seconds: float, pause: float = 0.2) -> Latencies:
        result = Latencies()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self._session.closed:
            latency = await self.press()
            if latency is None:
                result.lost += 1
            else:
                result.samples.append(latency)
            await asyncio.sleep(pause)
        return result


@dataclass
class Flooder:
    conn: asyncssh.SSHClientConnection
    chan: asyncssh.SSHClientChannel[bytes]
    session: Screen
    size: int

    def taken(self) -> int:
        """Bytes the server's window has taken so far."""
        return self.size - self.chan.get_write_buffer_size()

    def verdict(self) -> str:
        text = ESCAPE_RE.sub("", self.session.tail.decode("utf-8", "replace"))
        said = text.strip().splitlines()[-1:] or [""]
        if self.session.closed:
            return f"cut off; said last {said[0].split('  ')[-1].strip()!r}"
        return f"still connected, server took {self.taken() / 1024:.0f} KiB"


class RssWatch:
    def __init__(self, server: Server) -> None:
        self.peak = 0.0
        self._server = server
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self.peak = max(self.peak, self._server.rss_mb())
            await asyncio.sleep(0.25)

    def stop(self) -> None:
        self._task.cancel()


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        server = Server(port, data_dir, Path(data_dir) / "server.log")
        try:
            await server.ready()
            await asyncio.wait_for(attack(server, args), args.budget)
        finally:
            server.stop()
            log = (Path(data_dir) / "server.log").read_text().splitlines()
            notable = [line for line in log if "flood" in line.lower() or "input" in line.lower()]
            print(f"server log lines about input: {len(notable)}; first: {notable[:2]}")


async def env_flood(server: Server, args: argparse.Namespace) -> None:
    """One guest session opened with `--env` variables of 30 KB each (one env request each)."""
    rss_before = server.rss_mb()
    conn = await asyncssh.connect(
        "127.0.0.1",
        server.port,
        username="envflood",
        client_factory=Guest,
        known_hosts=None,
        agent_path=None,
        config=None,
        password_auth=False,
        public_key_auth=False,
        kbdint_auth=True,
    )
    variables = {f"V{index}": "v" * 30_000 for index in range(args.env)}
    session = Screen(render=False)
    try:
        await conn.create_session(
            lambda: session, term_type="xterm", term_size=(80, 24), env=variables, encoding=None
        )
        await session.wait(lambda: session.closed, 10)
    except (asyncssh.Error, OSError) as error:
        print(f"env flood: session refused ({type(error).__name__})")
    rss_during = server.rss_mb()
    cut_off = session.closed
    conn.close()
    await asyncio.sleep(2.0)
    print(
        f"env flood of {args.env} x 30 KB: RSS before {rss_before:.0f} MB, with the session "
        f"{rss_during:.0f} MB, after {server.rss_mb():.0f} MB; cut off: {cut_off}"
    )


async def attack(server: Server, args: argparse.Namespace) -> None:
    if args.env:
        await env_flood(server, args)
        return
    conn, chan, session = await open_session(server.port, "ref", "127.0.0.1", render=True)
    reference = Reference(chan, session)
    await reference.open_chat()
    await asyncio.sleep(1.0)
    print(f"flooders {args.flooders} x {args.bytes / 1024:.0f} KiB of 'x'")
    print(f"quiet      {(await reference.type_for(args.quiet, 0.1)).summary()}")
    rss_before = server.rss_mb()
    flooders = []
    for index in range(args.flooders):
        f_conn, f_chan, f_session = await open_session(
            server.port, f"flood{index}", f"127.0.0.{index + 2}", render=False
        )
        await f_session.wait(lambda s=f_session: b"Quit" in s.tail, 10)
        flooders.append(Flooder(f_conn, f_chan, f_session, args.bytes))
    watch = RssWatch(server)
    cpu, wall = server.cpu_seconds(), time.monotonic()
    for flooder in flooders:
        flooder.chan.write(b"x" * args.bytes)
    during = await reference.type_for(args.flood_time)
    cpu_used = server.cpu_seconds() - cpu
    cpu_share = cpu_used / (time.monotonic() - wall)
    print(f"flood      {during.summary()}  server CPU {cpu_share:.0%} ({cpu_used:.1f} s)")
    for index, flooder in enumerate(flooders):
        print(f"  flood{index}: {flooder.verdict()}")
    for flooder in flooders:
        flooder.conn.close()
    cpu, wall = server.cpu_seconds(), time.monotonic()
    after = await reference.type_for(args.after)
    cpu_share = (server.cpu_seconds() - cpu) / (time.monotonic() - wall)
    print(f"after      {after.summary()}  server CPU {cpu_share:.0%}")
    watch.stop()
    print(
        f"RSS before {rss_before:.0f} MB, peak {watch.peak:.0f} MB, after {server.rss_mb():.0f} MB"
    )
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--bytes", type=int, default=256 * 1024)
    parser.add_argument("--quiet", type=float, default=3.0, help="seconds of baseline typing")
    parser.add_argument("--flood-time", type=float, default=20.0)
    parser.add_argument("--after", type=float, default=10.0)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds for everything")
    parser.add_argument("--env", type=int, default=0, help="instead: N env requests of 30 KB")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
