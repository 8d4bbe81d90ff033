"""Session start alone: server CPU from an SSH login to a drawn lobby, one session at a time.

Usage: python benchmarks/session_start.py [--logins 20] [--workers N [--broker URL]]

Starts `lovelet serve` as benchmarks/sessions.py does (with `--workers`, a core, N
front-ends and a redis-server of ours unless `--broker`), logs one guest in and out to
warm up, measures the server's idle CPU rate, then `--logins` times: one guest connects
(SSH handshake, guest login, its Textual app started, the lobby drawn: "signed in as" on
screen), the server is left until its CPU is quiet, and the session closes again before the
next, so no other session's lobby is redrawn. Server CPU is user + system time from /proc,
summed over every serving process (and that redis-server), less the idle rate over the same
time. Prints the median, min and max CPU per session start (target ≤ 50 ms), the wall time
to the drawn lobby, and the CPU to close a session. Under other load on the machine CPU
figures rise a little (caches, contention) and wall times a lot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from sessions import (
    Player,
    ServerProcess,
    connect,
    cpu_pressure,
    say,
    settle,
    spawn_server,
    wait_listening,
    warm_up,
)

QUIET = 0.5  # seconds of (near) zero server CPU that end one measurement


async def idle_rate(server: ServerProcess, seconds: float = 3.0) -> float:
    """The server's CPU seconds per second with no session (heartbeats, timers)."""
    before, started = server.cpu_seconds(), time.monotonic()
    await asyncio.sleep(seconds)
    return (server.cpu_seconds() - before) / (time.monotonic() - started)


async def measured(server: ServerProcess, rate: float, step) -> tuple[float, float]:
    """Run `step` and wait for quiet: (server CPU s less the idle rate, wall s of `step`)."""
    cpu, started = server.cpu_seconds(), time.monotonic()
    await step()
    wall = time.monotonic() - started
    await settle(server, QUIET)
    spent = server.cpu_seconds() - cpu
    return spent - rate * (time.monotonic() - started), wall


async def one_session(server: ServerProcess, index: int, rate: float) -> tuple[float, ...]:
    """One guest in to the drawn lobby, then out: (start CPU, start wall, close CPU)."""
    player = Player(index, 1.0, False)
    start_cpu, wall = await measured(server, rate, lambda: connect(server.port, player))
    assert player.conn is not None

    async def close() -> None:
        player.conn.close()
        await player.conn.wait_closed()

    close_cpu, _ = await measured(server, rate, close)
    return start_cpu, wall, close_cpu


def summary(label: str, values: list[float]) -> str:
    """Median, min and max in ms."""
    ms = [1000 * v for v in values]
    return (
        f"{label}: median {statistics.median(ms):.0f} ms, min {min(ms):.0f} ms, "
        f"max {max(ms):.0f} ms"
    )


async def run(args: argparse.Namespace) -> None:
    """Warm up, measure the idle rate, then each session start alone."""
    with tempfile.TemporaryDirectory(prefix="lovelet-start-") as tmp:
        server = spawn_server(Path(tmp), 4, workers=args.workers, broker=args.broker)
        try:
            await wait_listening(server)
            await warm_up(server.port, 1.0)
            await settle(server)
            rate = await idle_rate(server)
            say(f"server up (pid {server.pid}), idle CPU {100 * rate:.1f}% of a core")
            results = [await one_session(server, i, rate) for i in range(args.logins)]
        finally:
            server.stop()
    starts, walls, closes = zip(*results, strict=True)
    print(f"{args.logins} session starts alone, workers {args.workers}")
    print(summary("server CPU, login to a drawn lobby (target ≤ 50 ms)", list(starts)))
    print(summary("  wall time, connect to a drawn lobby", list(walls)))
    print(summary("server CPU to close a session", list(closes)))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load}; {cpu_pressure()}")


def main() -> None:
    """Flags, then the run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", type=int, default=20, help="sessions started, one at a time")
    parser.add_argument(
        "--workers", type=int, default=0, help="SSH front-ends plus a core (0: one process)"
    )
    parser.add_argument(
        "--broker", default="", help="Redis URL for --workers (default: start a redis-server)"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
