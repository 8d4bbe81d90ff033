"""The Redis hop alone: a frame from a session to the game core and the core's answer back,
through a real redis-server, compared with the same lobby in process.

Usage: python benchmarks/bus.py [--frames 200]

Starts a redis-server on a free loopback port (no persistence), the core (`start_core`:
store in a temporary directory, lobby, lease) and one `FrontEnd` in this process, logs a
guest in and times `stats_request` → `stats` (the core answers it alone, from the store):
the cost the broker adds to every key a player presses, without SSH or drawing. The same
request is then timed against an in-process `Lobby`. Prints p50/p99 of both and the
difference. Under other load on the machine the figures are pessimistic.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import secrets
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from protocol import PROTOCOL_VERSION, Direction, Hello, Stats, StatsRequest, decode, encode
from server.bus.frontend import FrontEnd
from server.commands.cluster import start_core
from server.lobby import Identity, Lobby
from server.ops.config import Config
from server.services.clock import LoopClock
from server.store import Store

READY = b"Ready to accept connections"


class Probe:
    """One session's sink: counts `stats` answers and wakes whoever waits for one."""

    def __init__(self) -> None:
        self.answers = 0
        self.arrived = asyncio.Event()

    def deliver(self, frame: bytes) -> None:
        if isinstance(decode(frame, direction=Direction.TO_CLIENT), Stats):
            self.answers += 1
            self.arrived.set()


async def round_trips(attachment, probe: Probe, frames: int) -> list[float]:
    """Milliseconds from each request sent to its answer delivered."""
    attachment.receive(encode(Hello(PROTOCOL_VERSION, "ana")))
    times = []
    for _ in range(frames):
        probe.arrived.clear()
        started = time.perf_counter()
        attachment.receive(encode(StatsRequest()))
        await probe.arrived.wait()
        times.append(1000 * (time.perf_counter() - started))
    return sorted(times)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def through_redis(data_dir: Path, frames: int) -> list[float]:
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert redis.stdout is not None
        while READY not in redis.stdout.readline():
            pass
        url = f"redis://127.0.0.1:{port}/0"
        with contextlib.redirect_stdout(io.StringIO()):
            core = await start_core(Config(data_dir=data_dir, broker=url))
        front = FrontEnd(url)
        front.start()
        await front.core_found.wait()
        admission = await front.admit(None, "127.0.0.1", "ana", {})
        probe = Probe()
        who = Identity(f"guest:{secrets.token_hex(8)}", admission.name, True, "127.0.0.1")
        times = await round_trips(front.attach(who, probe.deliver), probe, frames)
        await front.stop()
        await core.stop(0)
        return times
    finally:
        redis.kill()
        redis.wait()


async def in_process(data_dir: Path, frames: int) -> list[float]:
    store = Store.open(data_dir / "lovelet.db")
    lobby = Lobby(store=store, clock=LoopClock())
    probe = Probe()
    who = Identity(f"guest:{secrets.token_hex(8)}", "ana", True, "127.0.0.1")
    times = await round_trips(lobby.attach(who, probe.deliver), probe, frames)
    store.close()
    return times


def line(label: str, times: list[float]) -> str:
    p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
    return f"{label}: p50 {p50:.2f} ms, p99 {p99:.2f} ms ({len(times)} round trips)"


async def run(frames: int) -> None:
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        redis = await through_redis(Path(one), frames)
        local = await in_process(Path(two), frames)
    print(line("through Redis (front-end → core → front-end)", redis))
    print(line("in process (lovelet serve)", local))
    added = redis[len(redis) // 2] - local[len(local) // 2]
    print(f"the Redis hop adds {added:.2f} ms to the p50 of a key's answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=200, help="round trips timed (200)")
    asyncio.run(run(parser.parse_args().frames))


if __name__ == "__main__":
    main()
