"""Tables of hard bots in one lobby: how long the event loop pauses, how long decisions take.

Usage: python benchmarks/hard_tables.py [--tables 5 10 20] [--duration 30] [--delay 0.8]
                                        [--budget 150] [--workers N]
Runs a lobby in this process (no SSH) with N tables of 4 hard bots, 2019 rules, each watched
by one spectator session that receives and encodes every update, as players' sessions do;
a finished game makes way for a new table; garbage is collected by the server's paced
collector, as in `lovelet serve`. The bots think in the bot pool's worker processes
(one per core unless --workers). Reported per N: the loop's longest pause and its 99th
percentile (a 5 ms sleep measured against the clock; on a loaded machine this includes waits
for a core), the longest CPU time the loop's thread itself spent between two ticks (its own
work: what the bots and tables make it do), hard decisions per second, their wall
time from hand-over to choice (median, p99; a search stops 160 ms after hand-over).
Targets: loop pause <= 10 ms; decision p99 <= 200 ms wall. Other load on the machine shows
in the last line (load average).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import time

from protocol import AddBot, BotSpec, CreateTable, Hello, Stand, Start, encode
from protocol.version import PROTOCOL_VERSION
from server.lobby import Identity, Lobby, LobbySettings, TableSettings
from server.lobby.table import Close
from server.render.collector import Collector
from server.services import bot_pool
from server.services.clock import LoopClock

TICK = 0.005  # seconds the loop monitor sleeps


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile of `values` (0 for none)."""
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)] if ordered else 0.0


class Timings:
    """Every hard decision's wall time, from the shared pool."""

    def __init__(self, pool: bot_pool.BotPool) -> None:
        self.walls: list[float] = []
        self._decide = pool.decide
        pool.decide = self.decide  # type: ignore[method-assign]

    def decide(self, level, view, log, seed, seconds, deliver):
        """The pool's decide, timed from hand-over to delivery."""
        started = time.perf_counter()

        def timed(choice: dict | None) -> None:
            self.walls.append(time.perf_counter() - started)
            deliver(choice)

        self._decide(level, view, log, seed, seconds, timed)


def open_table(lobby: Lobby, number: int) -> None:
    """A table of 4 hard bots, started, watched by its host's session."""
    identity = Identity(f"SHA256:host{number}", f"host{number}")
    attachment = lobby.attach(identity, lambda frame: None)
    bots = tuple(BotSpec(seat, "hard") for seat in range(1, 4))
    for message in (
        Hello(PROTOCOL_VERSION, "bench"),
        CreateTable(f"hard {number}", "2019", 4, None, bots),
        Stand(),
        AddBot(0, "hard"),
        Start(),
    ):
        attachment.receive(encode(message))


async def run(
    tables: int, duration: float, settings: TableSettings, until: float = math.inf
) -> dict:
    """Play `tables` tables for `duration` seconds (or `until` that many decisions); the
    loop's pauses and decision times."""
    lobby = Lobby(LobbySettings(table=settings), random.Random(tables), clock=LoopClock())
    timings = Timings(bot_pool.shared_pool())
    collector = Collector(lambda: tables)  # garbage collected as `lovelet serve` does
    collector.start()
    for number in range(tables):
        open_table(lobby, number)
    opened = tables
    pauses: list[float] = []
    works: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < duration and len(timings.walls) < until:
        before, cpu = time.perf_counter(), time.thread_time()
        await asyncio.sleep(TICK)
        pauses.append(time.perf_counter() - before - TICK)
        works.append(time.thread_time() - cpu)
        finished = [t for t in lobby.tables.values() if t.runner.status == "finished"]
        for table in finished:
            table.submit(None, Close())
            open_table(lobby, opened)
            opened += 1
    for table in list(lobby.tables.values()):
        table.submit(None, Close())
    collector.stop()
    bot_pool.shared_pool().decide = timings._decide  # type: ignore[method-assign]
    return {
        "pause_max": max(pauses),
        "pause_p99": percentile(pauses, 0.99),
        "work_max": max(works),
        "decisions": len(timings.walls) / duration,
        "wall_median": percentile(timings.walls, 0.5),
        "wall_p99": percentile(timings.walls, 0.99),
        "games": opened - tables,
    }


async def warm_up(settings: TableSettings) -> None:
    """Start the pool's workers before measuring (a spawn takes a second or more)."""
    await run(1, 120.0, settings, until=4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--delay", type=float, default=0.8, help="table.bot_delay, seconds")
    parser.add_argument("--budget", type=float, default=150, help="CPU ms a decision")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    if args.workers:
        bot_pool.shared_pool().workers = args.workers
    settings = TableSettings(bot_delay=args.delay, round_pause=1.0, bot_budget=args.budget / 1000)
    asyncio.run(warm_up(settings))
    for tables in args.tables:
        result = asyncio.run(run(tables, args.duration, settings))
        print(
            f"{tables} tables of 4 hard bots ({bot_pool.shared_pool().workers} workers): loop "
            f"pause longest {1000 * result['pause_max']:.1f} ms, p99 "
            f"{1000 * result['pause_p99']:.1f} ms (loop's own work between ticks at most "
            f"{1000 * result['work_max']:.1f} ms of CPU); {result['decisions']:.1f} decisions/s, "
            f"wall median {1000 * result['wall_median']:.0f} ms, p99 "
            f"{1000 * result['wall_p99']:.0f} ms; {result['games']} games finished"
        )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
