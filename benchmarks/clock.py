"""Cost of the turn timer on the table screen: CPU per session per second while it counts down.

Usage: python benchmarks/clock.py [--sessions 50] [--seconds 10]

Runs N apps headless in this process (Textual's compositor renders each frame; no SSH), all
showing one 8-seat premium table whose turn belongs to seat 0, which half of them hold and
half watch. Measures this process's CPU time over `--seconds` while a countdown runs, and
again with the same screens and no countdown, and prints both and the difference per
session per tick. Run it under `nice` on a shared machine; another load shows in the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time

from lovelet_tui import LoveletApp
from protocol import Countdown, SeatInfo, TableInfo, TableState, encode
from server.engine import Game, find_edition
from server.services.views import wire_view


class NoLink:
    """Drops what the app sends."""

    def send(self, frame: bytes) -> None:
        """Nothing to send to."""

    def close(self) -> None:
        """Nothing to close."""


def table_state(you: int | None, countdown: Countdown | None) -> TableState:
    """Seat 0 to play at an 8-seat premium table, after a round of plays."""
    rng = random.Random(5)
    game = Game(find_edition("premium"), 8, rng)
    game.start_round(start=1)
    while game.pending is not None and game.pending.seat != 0:
        game.act(game.pending.seat, rng.choice(game.pending.choices))
    seats = tuple(SeatInfo(f"player{i}", None, True) for i in range(8))
    info = TableInfo("ABCD", "bench", "premium", "player0", seats, (), "playing", 90, you)
    return TableState(info, wire_view(game.view(you)), tuple(game.log(you)), countdown)


async def cpu_over(seconds: float) -> float:
    """This process's CPU seconds while the loop runs for `seconds`."""
    start = time.process_time()
    await asyncio.sleep(seconds)
    return time.process_time() - start


async def settle(limit: float = 30.0) -> None:
    """Wait until the apps are idle: a second with under 5 ms of CPU (or `limit` seconds)."""
    deadline = time.monotonic() + limit
    while await cpu_over(1.0) > 0.005 and time.monotonic() < deadline:
        pass


async def measure(sessions: int, seconds: float) -> tuple[float, float]:
    """CPU seconds over `seconds` with no countdown, then with a countdown running."""
    apps = [LoveletApp(NoLink(), f"player{i % 2}") for i in range(sessions)]
    async with contextlib.AsyncExitStack() as stack:
        for app in apps:
            await stack.enter_async_context(app.run_test(size=(80, 24)))
        figures = []
        for countdown in (None, Countdown("turn", 3_600_000, 0)):
            for index, app in enumerate(apps):
                app.deliver(encode(table_state(0 if index % 2 == 0 else None, countdown)))
            await settle() if countdown is None else await asyncio.sleep(3.0)
            figures.append(await cpu_over(seconds))
    return figures[1], figures[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    ticking, idle = asyncio.run(measure(args.sessions, args.seconds))
    per_second = 1000 / args.seconds
    print(f"{args.sessions} table screens, {args.seconds:.0f} s each way")
    print(f"countdown running: {ticking * per_second:.1f} ms CPU per second")
    print(f"no countdown:      {idle * per_second:.1f} ms CPU per second")
    extra = (ticking - idle) * per_second / args.sessions
    print(f"the countdown's cost: {extra:.2f} ms CPU per session per tick (one tick a second)")


if __name__ == "__main__":
    main()
