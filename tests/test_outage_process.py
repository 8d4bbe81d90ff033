"""Turn timers across outages with real processes: a core and a front-end joined through a
real redis-server, a player on real SSH whose screen is read with pyte. Redis stopped for
longer than both `frontend_timeout` and the turn timer, and the core killed with SIGKILL
and started again: the timer is paused meanwhile, no bot plays for the player, and the
countdown goes on where it was. Synchronisation is on what the processes print and what
the screen shows, never on sleeps.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
from e2e_helpers import create_table, screen_text, wait_text
from redis_helpers import redis_server
from sshclient import SSHTerminal
from test_operate_process import retries_at_most
from test_ops_process import START_TIMEOUT, ServerProcess
from test_scaling_process import LEASE, SIZE, frontend_process, part_env, running, wait_online

from server.bus.frontend import BACK, RESTARTING

YOUR_TURN = re.compile(r"your turn: (\d+) s\b")
TIMED_OUT = "Time ran out"
"""How the log tells a decision a bot made for a player whose timer ran out."""
SHORT = 12
"""A turn timer shorter than the Redis outage: without the pause, a bot would play."""
LONG = 30
"""A turn timer long enough to tell "where it was" from "from full" after a core restart."""
STALE = 8
"""Seconds of outage at least, so that the app's own countdown cannot pass for the core's."""
RETRIES = 6
"""Retries at the broker's longest backoff: 0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 6 × 2 s ≥ 15 s
of outage, longer than SHORT and than the 3 s `frontend_timeout`."""


@asynccontextmanager
async def timed_core(data_dir: Path, url: str, timer: int) -> AsyncIterator[ServerProcess]:
    """`lovelet serve --role core` offering `timer` seconds a decision, once it runs."""
    env = part_env(data_dir, url, "core", LOVELET_TABLE_TURN_TIMER=str(timer))
    async with ServerProcess.run(env) as core:
        await core.wait_line(core.stdout, running, "the core running", START_TIMEOUT)
        yield core


def turn_left(term: SSHTerminal) -> int | None:
    """The seconds the header says the player has left, on their turn."""
    match = YOUR_TURN.search(screen_text(term))
    return int(match[1]) if match else None


async def my_turn_with_at_most(term: SSHTerminal, seconds: int) -> int:
    """Wait for the player's turn with at most `seconds` left; the seconds shown."""
    await term.wait_for(
        lambda: (left := turn_left(term)) is not None and left <= seconds,
        f"the player's turn with at most {seconds} s left",
        timeout=60,
    )
    left = turn_left(term)
    assert left is not None
    return left


async def alone_with_a_bot(term: SSHTerminal) -> None:
    """A two-seat table: the player starts it, a bot takes the other seat."""
    await wait_online(term, "ana")
    await create_table(term, seats=2)
    await term.send_keys("g")
    await term.wait_for(lambda: "Round 1: " in screen_text(term), "the game started")


async def back_with(term: SSHTerminal, before: int) -> int:
    """After an outage longer than `STALE` seconds: the game server is back and the turn is
    the player's again; the seconds shown once the core sent the table afresh. (The app
    counts down by itself meanwhile: what it shows before that is at most `before - STALE`.)
    """
    await wait_text(term, BACK, timeout=30)
    await term.wait_for(
        lambda: (left := turn_left(term)) is not None and left > before - STALE,
        "the turn again, with its time",
        timeout=20,
    )
    left = turn_left(term)
    assert left is not None
    return left


async def test_redis_stopped_longer_than_the_timer_pauses_it_and_no_bot_plays(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        timed_core(tmp_path / "core", redis.url, SHORT) as core,
        frontend_process(tmp_path / "frontend", redis.url) as (_, port),
        SSHTerminal.connect(port, username="ana", size=SIZE) as ana,
    ):
        await alone_with_a_bot(ana)
        before = await my_turn_with_at_most(ana, SHORT)
        await redis.kill()
        await wait_text(ana, RESTARTING[:40])
        await core.wait_line(
            core.stderr, lambda _: retries_at_most(core.stderr) >= RETRIES, "a long outage", 60
        )
        await redis.start()
        after = await back_with(ana, before)
        assert after <= before + 1, (before, after)
        assert TIMED_OUT not in screen_text(ana)
        assert not ana.closed


async def test_a_core_killed_and_started_again_goes_on_with_the_time_left(
    tmp_path: Path,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")  # a rebuilt seat is a key's to take
    async with (
        redis_server() as redis,
        timed_core(tmp_path / "core", redis.url, LONG) as core,
        frontend_process(tmp_path / "frontend", redis.url) as (_, port),
        SSHTerminal.connect(port, username="ana", key=key, size=SIZE) as ana,
    ):
        await alone_with_a_bot(ana)
        before = await my_turn_with_at_most(ana, LONG - 8)
        core.process.kill()
        await core.exited(10)
        await wait_text(ana, RESTARTING[:40])
        await ana.wait_for(
            lambda: (turn_left(ana) or 0) <= before - STALE, "the outage to last", timeout=30
        )
        async with timed_core(tmp_path / "core", redis.url, LONG):  # once the lease expired
            after = await back_with(ana, before)
            assert after <= before + 1, (before, after, LEASE)
            assert TIMED_OUT not in screen_text(ana)
