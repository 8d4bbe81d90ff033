"""Front-ends and the game core as real processes joined through a real redis-server:
`lovelet serve --role core|frontend --broker URL` and `--workers N`, played over real SSH.

Faults are real too: `kill -9` of the core, of Redis and of a front-end. Synchronisation is
on what the processes print and what the players' screens show, never on sleeps.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
from e2e_helpers import GAME_TIMEOUT, answer_yes, create_table, phase, screen_text, wait_text
from ptyterm import lovelet_lines
from redis_helpers import free_port, redis_server
from sshclient import SSHTerminal
from test_ops_process import START_TIMEOUT, ServerProcess, decide, fast_env, game_logs, said

from server.bus.frontend import BACK, NOT_DELIVERED, RESTARTING

SIZE = (100, 40)
LEASE = "2"
"""Seconds of the core's lease: how long a restarted core waits after a `kill -9`."""
SLOW_LEASE = "6"
"""A lease long enough for a key to be sent while no core runs (front-ends notice within a
second: their heartbeat finds no listener)."""
RUNNING = re.compile(r"^lovelet core \w+ is running")
STANDBY = re.compile(r"another core holds the lease: waiting as a standby")


def running(line: str) -> bool:
    """The core says it runs."""
    return RUNNING.match(said(line)) is not None


def waiting(line: str) -> bool:
    """The core says it waits as a standby."""
    return STANDBY.search(said(line)) is not None


def part_env(data_dir: Path, url: str, role: str, **more: str) -> dict[str, str]:
    """One part's settings: fast tables, this broker, a short lease and front-end timeout."""
    settings = {"LOVELET_CORE_LEASE": LEASE, "LOVELET_FRONTEND_TIMEOUT": "3", **more}
    return fast_env(data_dir, LOVELET_ROLE=role, LOVELET_BROKER=url, **settings)


@asynccontextmanager
async def core_process(
    data_dir: Path, url: str, lease: str = LEASE
) -> AsyncIterator[ServerProcess]:
    """`lovelet serve --role core`, once it holds the lease."""
    env = part_env(data_dir, url, "core", LOVELET_CORE_LEASE=lease)
    async with ServerProcess.run(env) as core:
        await core.wait_line(core.stdout, running, "the core running", START_TIMEOUT)
        yield core


@asynccontextmanager
async def frontend_process(data_dir: Path, url: str) -> AsyncIterator[tuple[ServerProcess, int]]:
    """`lovelet serve --role frontend` and the port it listens on."""
    async with ServerProcess.run(part_env(data_dir, url, "frontend")) as frontend:
        _, port = await frontend.listening()
        yield frontend, port


def online(term: SSHTerminal) -> list[str]:
    """The names on the lobby's "Online:" line."""
    line = next((x for x in screen_text(term).splitlines() if "Online: " in x), "")
    return [name.strip() for name in line.split("Online: ", 1)[-1].split(",") if name.strip()]


async def wait_online(term: SSHTerminal, *names: str) -> None:
    await term.wait_for(lambda: set(names) <= set(online(term)), f"{names} online")


async def play_out(term: SSHTerminal, rng: random.Random) -> None:
    """Make every decision at random until the game is over."""
    while True:
        await term.wait_for(lambda: phase(term) is not None, "a decision", GAME_TIMEOUT)
        now = phase(term)
        if now == "over":
            return
        if now == "confirm":
            await answer_yes(term)
        elif now == "next":
            await term.send_keys("n")
            await term.wait_for(lambda: "n: next round" not in screen_text(term), "n taken")
        else:
            await decide(term, rng)


async def sit_together(host: SSHTerminal, guest: SSHTerminal) -> str:
    """`host` opens a four-seat table, `guest` joins it, `host` starts (bots fill the rest)."""
    code = await create_table(host, seats=4)
    await wait_text(guest, code)
    await guest.send_keys("j")
    await wait_text(guest, "Before the game")
    await host.send_keys("g")
    for term in (host, guest):
        await term.wait_for(lambda t=term: "Round 1: " in screen_text(t), "the game started")
    return code


async def test_players_on_two_front_ends_share_the_lobby_and_play_a_game_to_the_end(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        core_process(tmp_path, redis.url),
        frontend_process(tmp_path, redis.url) as (one, port_one),
        frontend_process(tmp_path, redis.url) as (two, port_two),
    ):
        assert port_one != port_two
        assert await one.fingerprint() == await two.fingerprint(), "one host key"
        async with (
            SSHTerminal.connect(port_one, username="ana", size=SIZE) as ana,
            SSHTerminal.connect(port_two, username="bo", size=SIZE) as bo,
        ):
            await wait_online(ana, "ana", "bo")
            await wait_online(bo, "ana", "bo")
            await sit_together(ana, bo)
            await asyncio.gather(play_out(ana, random.Random(1)), play_out(bo, random.Random(2)))
    (game,) = game_logs(tmp_path).values()
    assert game.game.status == "finished" and game.game.winners
    assert [seat.nickname for seat in game.game.seats][:2] == ["ana", "bo"]


async def test_kill_9_of_the_core_mid_round_the_standby_takes_over_and_players_come_back(
    tmp_path: Path,
) -> None:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]
    async with (
        redis_server() as redis,
        core_process(tmp_path, redis.url, SLOW_LEASE) as core,
        frontend_process(tmp_path, redis.url) as (_, port_one),
        frontend_process(tmp_path, redis.url) as (_, port_two),
        SSHTerminal.connect(port_one, username="ana", key=keys[0], size=SIZE) as ana,
        SSHTerminal.connect(port_two, username="bo", key=keys[1], size=SIZE) as bo,
        ServerProcess.run(
            part_env(tmp_path, redis.url, "core", LOVELET_CORE_LEASE=SLOW_LEASE)
        ) as standby,
    ):
        await standby.wait_line(standby.stdout, waiting, "a standby", START_TIMEOUT)
        await wait_online(ana, "ana", "bo")
        code = await sit_together(ana, bo)
        core.process.send_signal(signal.SIGKILL)
        assert await core.exited(10) == -signal.SIGKILL
        for term in (ana, bo):
            await wait_text(term, RESTARTING[:40])
        await ana.send_keys("l", "y")  # leave the table: a frame no core receives
        await wait_text(ana, NOT_DELIVERED[:30])
        await standby.wait_line(standby.stdout, running, "the standby taking over", 20)
        for term in (ana, bo):  # the table rebuilt from the store, each back in their seat
            await wait_text(term, BACK)
            await wait_text(term, f"you are at table {code} again")
            await term.wait_for(lambda t=term: "Round 1: " in screen_text(t), "the game again")
        assert not ana.closed and not bo.closed
    (game,) = game_logs(tmp_path).values()
    assert game.game.status == "playing", "one game, rebuilt, not abandoned"


async def test_kill_9_of_redis_players_are_told_and_come_back(tmp_path: Path) -> None:
    async with (
        redis_server() as redis,
        core_process(tmp_path, redis.url) as core,
        frontend_process(tmp_path, redis.url) as (frontend, port),
        SSHTerminal.connect(port, username="ana", size=SIZE) as ana,
    ):
        await wait_online(ana, "ana")
        await redis.kill()
        await wait_text(ana, RESTARTING[:40])
        await ana.send_keys("i")  # the stats screen asks the core: not delivered
        await wait_text(ana, NOT_DELIVERED[:30])
        await ana.send_keys("escape")
        await redis.start()
        await wait_text(ana, BACK, timeout=20)
        await wait_online(ana, "ana")
        code = await create_table(ana, seats=2)
        assert code
        assert core.process.returncode is None and frontend.process.returncode is None


async def test_a_front_end_killed_mid_game_drops_only_its_players_whose_seats_are_held(
    tmp_path: Path,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with (
        redis_server() as redis,
        core_process(tmp_path, redis.url),
        frontend_process(tmp_path, redis.url) as (_, port_one),
        frontend_process(tmp_path, redis.url) as (two, port_two),
        SSHTerminal.connect(port_one, username="ana", size=SIZE) as ana,
        SSHTerminal.connect(port_two, username="bo", key=key, size=SIZE) as bo,
    ):
        await wait_online(ana, "ana", "bo")
        code = await sit_together(ana, bo)
        two.process.send_signal(signal.SIGKILL)
        assert await two.exited(10) == -signal.SIGKILL
        await bo.wait_for(lambda: bo.closed, "bo's connection dropped")
        await ana.wait_for(lambda: "away" in screen_text(ana), "bo's seat shown away")
        assert not ana.closed
        async with SSHTerminal.connect(port_one, username="bo", key=key, size=SIZE) as back:
            await wait_text(back, f"you are at table {code} again")


async def test_workers_run_a_core_and_front_ends_on_one_port(tmp_path: Path) -> None:
    async with (
        redis_server() as redis,
        ServerProcess.run(fast_env(tmp_path), ["--workers", "2", "--broker", redis.url]) as server,
    ):
        _, port = await server.listening()
        async with (
            SSHTerminal.connect(port, username="ana", size=SIZE) as ana,
            SSHTerminal.connect(port, username="bo", size=SIZE) as bo,
        ):
            await wait_online(ana, "ana", "bo")
            await wait_online(bo, "ana", "bo")
        await server.wait_line(
            server.stdout,
            lambda _: sum("lovelet is listening on" in said(x) for x in server.stdout) == 2,
            "both front-ends listening",
            START_TIMEOUT,
        )
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(60) == 0


async def test_a_role_without_a_broker_is_refused(tmp_path: Path) -> None:
    async with ServerProcess.run(fast_env(tmp_path, LOVELET_ROLE="frontend")) as server:
        assert await server.exited(START_TIMEOUT) == 2
    assert lovelet_lines([said(line) for line in server.stderr]) == [
        "lovelet serve: role frontend needs a broker (--broker redis://HOST:PORT/DB)"
    ]


async def test_kill_9_of_the_workers_supervisor_ends_its_core_and_front_ends(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        ServerProcess.run(fast_env(tmp_path), ["--workers", "1", "--broker", redis.url]) as server,
    ):
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="ana", size=SIZE) as ana:
            await wait_online(ana, "ana")
            server.process.send_signal(signal.SIGKILL)
            await ana.wait_for(lambda: ana.closed, "the orphaned front-end stopping", 30)


async def test_a_front_end_waiting_for_an_unreachable_broker_stops_at_sigterm(
    tmp_path: Path,
) -> None:
    """A front-end started while Redis is down (a restart by `--workers`, say) still stops at
    once when told to, instead of finishing its wait for a core first."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    async with ServerProcess.run(part_env(tmp_path, url, "frontend")) as frontend:
        await frontend.wait_line(
            frontend.stderr, lambda line: "broker unreachable" in line, "a retry", START_TIMEOUT
        )
        frontend.process.send_signal(signal.SIGTERM)
        assert await frontend.exited(10) == 0


async def test_a_standby_core_stops_at_sigterm(tmp_path: Path) -> None:
    async with redis_server() as redis, core_process(tmp_path, redis.url, SLOW_LEASE):
        env = part_env(tmp_path, redis.url, "core", LOVELET_CORE_LEASE=SLOW_LEASE)
        async with ServerProcess.run(env) as standby:
            await standby.wait_line(standby.stdout, waiting, "the standby", START_TIMEOUT)
            standby.process.send_signal(signal.SIGTERM)
            assert await standby.exited(10) == 0
