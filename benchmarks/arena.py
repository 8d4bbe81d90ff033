"""Arena benchmark: `lovelet arena`'s throughput, the example bot against the server's bots.

Usage: python benchmarks/arena.py [--games 100] [--against medium] [--players 4] [--json]

Runs the arena in this process (as `lovelet arena` does) with `examples/random_bot.py --stdio`
as its child. Reported: games a second (wall clock, the child running beside it) and the
arena's own CPU a game (lobby, tables, the server's bots, frames both ways: its one core),
then the child's CPU a game.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from server.commands.arena import ArenaOptions, run_arena  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--against", default="medium")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    wire = ("--json",) if args.json else ()
    bot = (sys.executable, str(ROOT / "examples" / "random_bot.py"), "--stdio", *wire)
    options = ArenaOptions(bot, args.games, args.against, "2019", args.players, args.json)
    wall, cpu = time.perf_counter(), time.process_time()
    tally = asyncio.run(run_arena(options))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(tally.report(options))
    print(
        f"{tally.games / wall:.1f} games/s wall clock; arena CPU {cpu / tally.games * 1000:.1f}"
        f" ms a game ({tally.games / cpu:.1f} games per CPU second);"
        f" the bot's CPU {(child.ru_utime + child.ru_stime) / tally.games * 1000:.1f} ms a game"
    )


if __name__ == "__main__":
    main()
