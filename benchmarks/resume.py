"""Restart resume: the cost of storing each action before it is sent, and tables rebuilt per second.

Usage: python benchmarks/resume.py [--tables 500] [--actions 40] [--edition 2019]

Builds a fresh SQLite file in a temporary directory holding `--tables` unfinished games, each
written as a table writes it: the game and its kept table in one transaction, then after every
accepted action one transaction with the action and the log entries it caused (what must be
committed before the frames showing it are sent; timed). Each game stops after `--actions`
random legal actions, mid-round or between rounds. Then a new lobby on the same file rebuilds
every table (`resume_tables`: read, replay with the engine, seat, hold), timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.engine import Game, find_edition
from server.lobby import Lobby, resume_tables
from server.store import GameRecorder, SeatRecord, Store, TableRecord


class IdleClock:
    """A lobby clock whose timers never fire: the rebuild only schedules them."""

    class _Timer:
        def cancel(self) -> None:
            """Nothing was going to happen."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> _Timer:
        return self._Timer()

    def call_soon(self, callback: Callable[..., object], *args: Any) -> _Timer:
        return self._Timer()


def store_game(
    store: Store, index: int, edition: str, actions: int, rng: random.Random
) -> list[float]:
    """One unfinished game written as its table writes it; the seconds each action's write took."""
    seats = [SeatRecord(f"SHA256:p{index}a", "ana"), SeatRecord(f"SHA256:p{index}b", "bo")]
    seats += [SeatRecord(None, f"easy bot {n + 1}", "easy") for n in range(2, 4)]
    seed = rng.getrandbits(64)
    table = TableRecord(f"T{index:04d}", f"table {index}", {"timer": 90, "takeover": False}, 0)
    recorder = GameRecorder.start(store, edition, seats, seed, table)
    game = Game(find_edition(edition), len(seats), random.Random(seed))
    game.start_round()
    recorder.sync(game.events)
    timings = []
    for _ in range(actions):
        if game.round_over:
            if game.game_over:
                break
            game.start_round()
            recorder.sync(game.events)
        decision = game.pending
        choice = rng.choice(decision.choices)
        game.act(decision.seat, choice)
        started = time.perf_counter()
        recorder.action(decision.seat, choice)
        recorder.sync(game.events)
        timings.append(time.perf_counter() - started)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--actions", type=int, default=40)
    parser.add_argument("--edition", default="2019")
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lovelet.db"
        writes: list[float] = []
        with Store.open(path) as store:
            for index in range(args.tables):
                for suffix, name in (("a", "ana"), ("b", "bo")):
                    store.claim_nickname(f"SHA256:p{index}{suffix}", f"{name}{index}", set())
                writes += store_game(store, index, args.edition, args.actions, rng)
        with Store.open(path) as store:
            started = time.perf_counter()
            kept = store.kept_tables()
            reading = time.perf_counter() - started
        with Store.open(path) as store:
            lobby = Lobby(store=store, clock=IdleClock())
            started = time.perf_counter()
            resumed = resume_tables(lobby)
            rebuild = time.perf_counter() - started
    writes.sort()
    p99 = writes[int(len(writes) * 0.99)]
    print(
        f"per action, written before it is sent (action + its log entries, one transaction): "
        f"median {statistics.median(writes) * 1e6:.0f} µs, p99 {p99 * 1e6:.0f} µs "
        f"over {len(writes)} actions"
    )
    tables = len(resumed.tables)
    print(
        f"rebuild: {tables} tables of {args.edition} ({len(resumed.failed)} failed, "
        f"{len(kept)} kept) in {rebuild:.2f} s: {tables / rebuild:.0f} tables/s "
        f"(reading the store alone: {reading:.2f} s)"
    )


if __name__ == "__main__":
    main()
