"""Memory under session churn (issue 34): does what ended sessions held come back?

Usage: python benchmarks/churn.py [--sessions 900] [--every 100] [--toggles 300]
           [--help-open SECONDS] [--soak SECONDS [--rate 0.5] [--stay 10]]
           [--env NAME=VALUE ...]

Starts `lovelet serve` (default configuration but the cost budget, fresh data directory) on a
free loopback port and reads its RSS from /proc. The cost budget is lifted
(`limits.cpu_share` 1): it would hold back and cut off the session that toggles help, and this
measures memory, not that. Each session is a guest over real SSH with a PTY and a pyte
screen: it logs in, waits for the lobby, opens help (`?`) and closes it (Esc), then either
opens a new table and leaves it (`n`, Enter, `l`) or says a line in the lobby chat (`c`),
turn about, and disconnects. Guests come from 127.0.0.10 to 127.0.0.249 in turn.

Rows, in order, each after the server went quiet (RSS in MB, then over the start):
- `--sessions N`: N sessions one after another, a row every `--every`;
- `--toggles T`: one session opens and closes help T times, a row with it open and one after
  it left (0: no such row); `--help-open S` keeps help open S seconds each time (past the
  paced collector's step of 0.25 s, a closed help screen is frozen garbage);
- `--soak S`: sessions arriving at `--rate` a second, each staying `--stay` seconds, for S
  seconds; a row each minute (RSS read as it is, not after quiet) and one at the end.
The load average goes with every row; the last line counts the server's whole garbage
collections (from its log) and their mean and longest length. `--env` passes variables to
the server (for experiments such as MALLOC_ARENA_MAX=2 or LOVELET_ settings).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import _quiet  # noqa: F401 (before asyncssh, which warns as it is imported)
import asyncssh
from abuse import Term, login, whole_collections
from sessions import ROOT, ServerProcess, free_port, say, settle, wait_listening

STEP_DEADLINE = 15.0  # seconds a session waits for any one screen
LOBBY, HELP, CHAT, TABLE = "signed in as", "Everywhere", "Say something", "Before the game"
MINUTE = 60.0
NO_BUDGET = {"LOVELET_LIMITS_CPU_SHARE": "1"}


def spawn(data_dir: Path, extra: dict[str, str]) -> ServerProcess:
    """`lovelet serve` on a free loopback port: the default configuration (none of the
    caller's LOVELET_ variables) but the cost budget, and `extra` in its environment."""
    port = free_port()
    log = data_dir.parent / "server.log"
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOVELET_")}
    env |= {"PYTHONPATH": str(ROOT), **NO_BUDGET, **extra}
    command = [sys.executable, "-m", "server.cli", "serve"]
    command += ["--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir)]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    return ServerProcess(process, port, log, data_dir.parent / "gc.unused")


def sources() -> Iterator[str]:
    """Loopback source addresses in turn (the server caps sessions and logins per address)."""
    return itertools.cycle(f"127.0.0.{last}" for last in range(10, 250))


def load() -> str:
    """The load average over 1, 5 and 15 minutes."""
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


class Row:
    """Prints one line per reading, RSS over the server's start."""

    def __init__(self, start: float) -> None:
        self.start = start
        print(f"{'what':<34} {'RSS MB':>7} {'over start':>10}  load 1/5/15")
        self.print("server started", start)

    def print(self, what: str, rss: float) -> None:
        """One row, flushed at once."""
        print(f"{what:<34} {rss:>7.0f} {rss - self.start:>+10.0f}  {load()}", flush=True)


async def visit(port: int, number: int, source: str, stay: float = 0.0) -> None:
    """One session: lobby, help and back, a table or the chat, `stay` seconds, gone."""
    term = await login(port, f"churn{number}", source, timeout=STEP_DEADLINE)
    try:
        await toggle_help(term)
        if number % 2:
            await step(term, b"c", CHAT)
            await step(term, f"hi {number}\r".encode(), f"hi {number}")
        else:
            await step(term, b"n", "Turn timer")
            await step(term, b"\r", TABLE)
            await step(term, b"l", LOBBY, gone=TABLE)
        if stay:
            await asyncio.sleep(stay)
    finally:
        term.close()


async def toggle_help(term: Term, open_for: float = 0.0) -> None:
    """`?` until help shows, `open_for` seconds, then Esc until the lobby is back."""
    await step(term, b"?", HELP)
    if open_for:
        await asyncio.sleep(open_for)
    await step(term, b"\x1b", LOBBY, gone=HELP)


async def step(term: Term, keys: bytes, shown: str, gone: str | None = None) -> None:
    """Send `keys` and wait until `shown` is on the screen (and `gone` no longer is)."""
    term.write(keys)
    if not await term.wait_for(
        lambda: shown in term.text() and (gone is None or gone not in term.text()),
        STEP_DEADLINE,
    ):
        raise TimeoutError(f"{shown!r} never showed after {keys!r}")


async def one_after_another(server: ServerProcess, rows: Row, total: int, every: int) -> None:
    """`total` sessions, one at a time; a row every `every` once the server is quiet."""
    failed = 0
    address = sources()
    for number in range(1, total + 1):
        try:
            await visit(server.port, number, next(address))
        except (OSError, asyncssh.Error, TimeoutError) as error:
            failed += 1
            say(f"session {number} failed: {error}")
        if number % every == 0:
            rows.print(f"{number} sessions came and went", await settle(server, limit=60))
    if failed:
        print(f"  {failed} of {total} sessions failed")


async def help_toggles(server: ServerProcess, rows: Row, toggles: int, open_for: float) -> None:
    """One session opens and closes help `toggles` times, then leaves."""
    term = await login(server.port, "toggler", "127.0.0.5", timeout=STEP_DEADLINE)
    try:
        rows.print("toggler in the lobby", await settle(server))
        for _ in range(toggles):
            await toggle_help(term, open_for)
        rows.print(f"after {toggles} help toggles, still on", await settle(server))
    finally:
        term.close()
    rows.print("toggler gone", await settle(server, limit=60))


async def soak(server: ServerProcess, rows: Row, seconds: float, rate: float, stay: float) -> None:
    """Sessions arriving at `rate` a second for `seconds`, each staying `stay` seconds."""
    started = time.monotonic()
    address = sources()
    visits: set[asyncio.Task[None]] = set()
    outcome: Counter[str] = Counter()
    next_row = started + MINUTE

    def ended(task: asyncio.Task[None]) -> None:
        visits.discard(task)
        error = None if task.cancelled() else task.exception()
        outcome["ok" if error is None else f"{type(error).__name__}: {str(error)[:50]}"] += 1

    for number in itertools.count(1):
        now = time.monotonic()
        if now - started >= seconds:
            break
        if now >= next_row:
            minute = round((now - started) / MINUTE)
            rows.print(f"soak minute {minute}, {len(visits)} open", server.rss_mb())
            next_row += MINUTE
        task = asyncio.create_task(visit(server.port, number, next(address), stay))
        visits.add(task)
        task.add_done_callback(ended)
        await asyncio.sleep(max(0.0, started + number / rate - time.monotonic()))
    with contextlib.suppress(Exception):
        await asyncio.gather(*visits, return_exceptions=True)
    rows.print(f"soak over ({outcome.pop('ok', 0)} sessions ok)", server.rss_mb())
    rows.print("soak over, quiet", await settle(server, limit=60))
    for failure, count in outcome.most_common():
        print(f"  {count} sessions failed: {failure}")


async def run(args: argparse.Namespace) -> None:
    """A fresh server, then each part asked for, in order."""
    with tempfile.TemporaryDirectory(prefix="lovelet-churn-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        server = spawn(data, dict(item.split("=", 1) for item in args.env))
        try:
            await wait_listening(server)
            rows = Row(await settle(server))
            if args.sessions:
                await one_after_another(server, rows, args.sessions, args.every)
            if args.toggles:
                await help_toggles(server, rows, args.toggles, args.help_open)
            if args.soak:
                await soak(server, rows, args.soak, args.rate, args.stay)
        finally:
            server.stop()
            print(whole_collections(server.log.read_text(errors="replace")))


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, say what runs, run it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=900, help="one after another (0: none)")
    parser.add_argument("--every", type=int, default=100, help="sessions between rows")
    parser.add_argument("--toggles", type=int, default=300, help="help toggles of one session")
    parser.add_argument("--help-open", type=float, default=0.0, help="seconds help stays open")
    parser.add_argument("--soak", type=float, default=0.0, help="seconds of steady churn")
    parser.add_argument("--rate", type=float, default=0.5, help="soak: sessions a second")
    parser.add_argument("--stay", type=float, default=10.0, help="soak: seconds each stays")
    parser.add_argument("--env", nargs="*", default=[], help="NAME=VALUE for the server")
    args = parser.parse_args(argv)
    print(f"$ python benchmarks/churn.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
