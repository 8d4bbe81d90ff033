"""Searching bots decide in worker processes, one per core, so the event loop never waits on
their thinking: a table hands over the seat's view and this round's log, and is called back
on its loop with the choice."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import cache, partial
from typing import Any

from ..bots.advice import Advice, advise
from ..bots.base import make_bot
from ..bots.hard import Budget, HardBot
from ..engine import View

logger = logging.getLogger(__name__)

WORKER_NICENESS = 5  # workers run at this much lower priority than the server
WALL_LIMIT = 0.16  # seconds from hand-over after which a search stops, however little it did


class BotPool:
    """Worker processes for searching bots. A decision searches for its budget of CPU time,
    but stops `WALL_LIMIT` after the table handed it over (waiting for a free worker counts),
    so a busy machine makes the bots weaker rather than slower. Workers run at a lower
    priority than the server, whose sessions come first."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._executor: ProcessPoolExecutor | None = None

    def decide(
        self,
        level: str,
        view: View,
        log: list[dict],
        seed: int,
        seconds: float,
        deliver: Callable[[dict | None], object],
    ) -> None:
        """Decide for this view and the seat's whole visible log in a worker; `deliver(choice)`
        runs on this thread's event loop when it is back (None if the worker failed). Without
        a running loop, the bot decides here and now."""
        budget = Budget(seconds=seconds, until=time.monotonic() + WALL_LIMIT)
        self._run(decide, (level, view, round_log(log), seed, budget), deliver)

    def advise(
        self,
        view: View,
        log: list[dict],
        names: list[str],
        seed: int,
        seconds: float,
        deliver: Callable[[Advice | None], object],
    ) -> None:
        """A hint: what the hard bot would do at this view, and why, worked out in a worker
        within the same budget as its decisions; delivered like `decide`'s choice."""
        budget = Budget(seconds=seconds, until=time.monotonic() + WALL_LIMIT)
        self._run(advise_seat, (view, round_log(log), names, seed, budget), deliver)

    def _run(self, work: Callable[..., Any], args: tuple, deliver: Callable[[Any], object]) -> None:
        """`work(*args)` in a worker (here, without a running loop), then `deliver(result)`
        on this thread's loop (None if the worker failed)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            deliver(work(*args))
            return
        try:
            executor = self._start()
            future = executor.submit(work, *args)
        except Exception:  # e.g. a worker died: medium decides, the next decision starts afresh
            logger.exception("bot pool unavailable")
            self.close()
            loop.call_soon(deliver, None)
            return
        future.add_done_callback(partial(self._hand_back, executor, loop, deliver))

    def _hand_back(
        self,
        executor: ProcessPoolExecutor,
        loop: asyncio.AbstractEventLoop,
        deliver: Callable[[Any], object],
        done: Future,
    ) -> None:
        """In the pool's thread: pass a finished decision to `deliver` on `loop`. A failure is
        logged unless its workers were stopped on purpose meanwhile."""
        failed = done.cancelled() or done.exception() is not None
        if failed and not done.cancelled() and executor is self._executor:
            logger.error("bot search failed", exc_info=done.exception())
        choice = None if failed else done.result()
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(deliver, choice)

    def warm(self) -> None:
        """Start every worker now, if an event loop runs (a worker takes a second or more to
        start), so that the first decisions need not wait for them."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._executor is None:
            try:
                executor = self._start()
                for _ in range(self.workers):
                    executor.submit(_ready)
            except Exception:  # decisions will say so again, and fall back on medium
                logger.exception("bot pool unavailable")
                self.close()

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            context = multiprocessing.get_context("spawn")  # no copy of the server's state
            # multiprocessing's resource tracker is handed stderr, which a Textual app may
            # have replaced by something with no file descriptor
            with contextlib.redirect_stderr(sys.__stderr__ or sys.stderr):
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=context, initializer=_step_aside
                )
        return self._executor

    def close(self) -> None:
        """Stop the workers (a later decision starts them again)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def kill(self) -> None:
        """Kill the workers at once, whatever they are doing: for a process that exits, which
        would otherwise wait for each worker to take its turn to stop (seconds when they are
        starved, still starting or busy). A later decision starts them again."""
        executor, self._executor = self._executor, None
        if executor is not None:
            kill_workers(executor)


def kill_workers(executor: ProcessPoolExecutor) -> None:
    """`executor.kill_workers()` of Python 3.14, done as it does it on older versions (which
    lack it): shut down without waiting, then SIGKILL each worker still alive. Its private
    `_processes` is read as 3.14 reads it; tests/test_ops_process.py fails if it moves."""
    if hasattr(executor, "kill_workers"):
        executor.kill_workers()
        return
    processes = list((executor._processes or {}).values())  # before shutdown forgets them
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(ProcessLookupError, ValueError):  # gone, or closed
            if process.is_alive():
                process.kill()


def _step_aside() -> None:
    """In a new worker: give way to the server's own process when the cores are busy."""
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)


def _ready() -> None:
    """Nothing: a worker's first task, to start it."""


def round_log(log: list[dict]) -> list[dict]:
    """The part of a seat's log a bot reads: from this round's start (the whole log if none)."""
    for index in range(len(log) - 1, -1, -1):
        if log[index]["kind"] == "round_start":
            return log[index:]
    return log


def decide(level: str, view: View, log: list[dict], seed: int, budget: Budget) -> dict:
    """In a worker: a fresh bot of `level` decides (the hard bot within `budget`)."""
    bot = HardBot(budget) if level == "hard" else make_bot(level)
    return bot.choose(view, log, random.Random(seed))


def advise_seat(view: View, log: list[dict], names: list[str], seed: int, budget: Budget) -> Advice:
    """In a worker: the hard bot's hint for the seat of `view` (see `bots.advice.advise`)."""
    return advise(view, log, names, random.Random(seed), budget)


@cache
def shared_pool() -> BotPool:
    """The process's one pool, started at its first decision and stopped at exit."""
    pool = BotPool()
    atexit.register(pool.close)
    return pool
