"""Bot API benchmark: N programs on the `lovelet` subsystem against `lovelet serve` in another
process, each at its own table with three easy bots, playing random legal moves.

Usage: python benchmarks/botapi.py [--bots 50] [--games 2]

The server runs as `python -m server.cli serve` with `--table-bot-delay 0`, so every
frame a program waits for is the server's work alone. Each program has its own key and connects from
a loopback address of its own group (127.0.0.2, .3, ..., 4 an address: the server allows 4
logins in progress from one).
Reported: server RSS with N programs greeted in the lobby (MB per bot session), act → next
`table` frame (p50/p99 ms, over every act of every program), games a second and server CPU
per act. On a machine shared with other work these figures are pessimistic.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _quiet  # noqa: F401 (before asyncssh, which warns as it is imported)
import asyncssh
import msgpack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from protocol import PROTOCOL_VERSION  # noqa: E402

PER_ADDRESS = 4  # the server allows 4 logins in progress from one address


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def proc_reading(pid: int) -> tuple[float, float]:
    """The server's RSS in MB and CPU seconds so far, from /proc."""
    rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss / 1e6, cpu


class Program:
    """One bot API client: frames in and out, the latency of each act."""

    def __init__(self, conn: asyncssh.SSHClientConnection) -> None:
        self.conn = conn
        self.latencies: list[float] = []

    async def open(self) -> None:
        self.writer, self.reader, _ = await self.conn.open_session(
            subsystem="lovelet", encoding=None
        )
        self.send({"type": "hello", "version": PROTOCOL_VERSION, "name": "bench"})
        while (await self.receive())["type"] != "lobby":
            pass

    def send(self, message: dict) -> None:
        payload = msgpack.packb(message)
        self.writer.write(struct.pack(">I", len(payload)) + payload)

    async def receive(self) -> dict:
        (size,) = struct.unpack(">I", await self.reader.readexactly(4))
        return msgpack.unpackb(await self.reader.readexactly(size))

    async def play(self, games: int, rng: random.Random) -> None:
        bots = [{"seat": seat, "level": "easy"} for seat in (1, 2, 3)]
        table = {"name": "bench", "edition": "2019", "seats": 4, "timer": None, "bots": bots}
        options = {
            "takeover": False,
            "private": False,
            "hints": None,
            "bot_level": None,
            "bot_delay": None,
        }
        self.send({"type": "create_table", **table, **options})
        self.send({"type": "start"})
        sent_at, continued, played = None, None, 0
        while played < games:
            message = await self.receive()
            if message["type"] != "table":
                continue
            if sent_at is not None and message["events"]:
                self.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            view, info = message["view"], message["info"]
            if view and view["choices"] and view["pending"]["seat"] == info["you"] and not sent_at:
                choice, decision = rng.choice(view["choices"]), view["pending"]["decision"]
                self.send({"type": "act", "choice": choice, "decision": decision})
                sent_at = time.perf_counter()
            if info["status"] == "round_over" and view["round"] != continued:
                self.send({"type": "continue_round"})
                continued = view["round"]
            if info["status"] == "finished":
                played += 1
                if played < games:
                    self.send({"type": "rematch"})
                    continued = None


async def connect(port: int, index: int) -> Program:
    source = f"127.0.0.{2 + index // PER_ADDRESS}"
    key = asyncssh.generate_private_key("ssh-ed25519")
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=f"bot{index}",
        client_keys=[key],
        known_hosts=None,
        local_addr=(source, 0),
    )
    program = Program(conn)
    await program.open()
    return program


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        command = [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--listen",
            f"127.0.0.1:{port}",
        ]
        command += ["--data-dir", data, "--table-bot-delay", "0", "--log-level", "warning"]
        server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE)
        try:
            assert server.stdout is not None and b"listening" in server.stdout.readline()
            rss_before, _ = proc_reading(server.pid)
            gate = asyncio.Semaphore(8)  # logins in flight (from 10 the server drops some)

            async def one(index: int) -> Program:
                async with gate:
                    return await connect(port, index)

            programs = await asyncio.gather(*(one(i) for i in range(args.bots)))
            rss_idle, cpu_start = proc_reading(server.pid)
            started = time.perf_counter()
            await asyncio.gather(
                *(p.play(args.games, random.Random(i)) for i, p in enumerate(programs))
            )
            elapsed = time.perf_counter() - started
            _, cpu_end = proc_reading(server.pid)
            for program in programs:
                program.conn.close()
        finally:
            server.terminate()
            server.wait(30)
    latencies = sorted(ms * 1000 for p in programs for ms in p.latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    per_bot = (rss_idle - rss_before) / args.bots
    print(
        f"{args.bots} bot sessions greeted: server RSS {rss_before:.0f} -> {rss_idle:.0f} MB"
        f" ({per_bot:.2f} MB a session)"
    )
    print(
        f"act -> next table frame: p50 {statistics.median(latencies):.1f} ms,"
        f" p99 {p99:.1f} ms over {len(latencies)} acts"
    )
    games = args.bots * args.games
    print(
        f"{games} games in {elapsed:.1f} s ({games / elapsed:.1f} games/s), server CPU"
        f" {1000 * (cpu_end - cpu_start) / len(latencies):.2f} ms an act (bots' moves included)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--games", type=int, default=2)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
