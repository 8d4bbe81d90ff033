"""`lovelet admin announce TEXT` from a shell, as an operator runs it, against a real
`lovelet serve`: one process, a core with two front-ends joined through a real
redis-server, and `--workers 2`. Players are real SSH clients; their screens are read with
pyte. Synchronisation is on what the processes print and what the screens show.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

from e2e_helpers import create_table, wait_text
from redis_helpers import redis_server
from sshclient import SSHTerminal
from test_operate_process import admin
from test_ops_process import ServerProcess, fast_env
from test_scaling_process import SIZE, core_process, frontend_process, wait_online

SENT = "Maintenance at 06:00 \u202eUTC\x1b[2J, back by 06:10"
"""With a bidi override and an escape sequence that would clear a terminal's screen."""
SHOWN = "Maintenance at 06:00 UTC[2J, back by 06:10"


async def announce(data_dir: Path, text: str = SENT) -> subprocess.CompletedProcess[str]:
    """`lovelet admin --data-dir DATA_DIR announce TEXT`, off the event loop."""
    return await asyncio.to_thread(admin, data_dir, "announce", text)


async def test_an_announcement_from_a_shell_reaches_players_in_the_lobby_and_at_a_table(
    tmp_path: Path,
) -> None:
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        async with (
            SSHTerminal.connect(port, username="ana", size=SIZE) as ana,
            SSHTerminal.connect(port, username="bob", size=SIZE) as bob,
        ):
            await wait_online(ana, "ana", "bob")
            await create_table(bob, seats=2)
            told = await announce(tmp_path)
            assert told.returncode == 0, told.stderr
            assert told.stdout == f"Announced to 2 players: {SHOWN}\n"
            await wait_text(ana, SHOWN)
            await wait_text(bob, SHOWN)
        logged = await server.event("announced")
        assert logged["players"] == 2
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(20) == 0
    assert not (tmp_path / "control.sock").exists(), "the socket goes with the server"


async def test_without_a_running_server_the_operator_is_told_so(tmp_path: Path) -> None:
    told = await announce(tmp_path)
    assert told.returncode == 1
    assert "no server is running on" in told.stderr, told.stderr
    empty = await announce(tmp_path, "\x1b\u202e ")
    assert empty.returncode == 2 and "nothing to announce" in empty.stderr, empty.stderr


async def test_scaled_the_core_tells_the_players_of_every_front_end(tmp_path: Path) -> None:
    async with (
        redis_server() as redis,
        core_process(tmp_path / "core", redis.url) as core,
        frontend_process(tmp_path / "fe1", redis.url) as (_, port1),
        frontend_process(tmp_path / "fe2", redis.url) as (_, port2),
        SSHTerminal.connect(port1, username="ana", size=SIZE) as ana,
        SSHTerminal.connect(port2, username="bob", size=SIZE) as bob,
    ):
        await wait_online(ana, "ana", "bob")
        await wait_online(bob, "ana", "bob")
        told = await announce(tmp_path / "core")
        assert told.returncode == 0, told.stderr
        assert told.stdout.startswith("Announced to 2 players:"), told.stdout
        await wait_text(ana, SHOWN)
        await wait_text(bob, SHOWN)
        assert (await core.event("announced"))["role"] == "core"


async def test_under_workers_the_announcement_goes_through_the_core(tmp_path: Path) -> None:
    async with (
        redis_server() as redis,
        ServerProcess.run(fast_env(tmp_path), ["--workers", "2", "--broker", redis.url]) as server,
    ):
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="ana", size=SIZE) as ana:
            await wait_online(ana, "ana")
            told = await announce(tmp_path)
            assert told.returncode == 0, told.stderr
            await wait_text(ana, SHOWN)
        assert (await server.event("announced"))["role"] == "core"
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(60) == 0
