"""The lost `leave`, over real SSH on 127.0.0.1: a `leave` written just before the client drops
the connection is handled, however far behind the server reads."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
from e2e_helpers import Server, running_server
from test_ssh_botapi import FAST, BotClient, framed, hello
from test_ssh_botapi_platform import create_table, next_turn, watching

GUARD = {"type": "play", "card": "guard", "targets": [1], "guess": "priest"}


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path / "data", FAST) as running:
        yield running


@pytest.mark.parametrize("behind", [0, 6000], ids=["reading", "behind"])
async def test_a_leave_written_just_before_the_connection_drops_is_handled(
    server: Server, key: asyncssh.SSHKey, behind: int
) -> None:
    """Had the leave been lost, the seat would have been held for robo (a bot playing it) and
    the game's result would be robo's."""
    async with contextlib.AsyncExitStack() as stack:
        watcher = await watching(server.port, stack)
        conn = await asyncssh.connect(
            "127.0.0.1", server.port, username="robo", client_keys=[key], known_hosts=None
        )
        writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
        client = BotClient(writer, reader)
        client.send(hello())
        client.send(create_table())
        state = await next_turn(client)  # mid-game: a dropped connection would hold the seat
        code = state["info"]["code"]
        stale = framed({"type": "act", "choice": GUARD, "decision": 0})  # refused: stale
        client.send(stale * (behind // len(stale)) + framed({"type": "leave"}))
        conn.close()  # at once: no EOF, no waiting for the answers
        await gone(watcher, code)  # the game played on by the bots to its end
    (game,) = server.running.store.games()
    assert game.seats[0].identity is None  # robo left: the seat was a bot's, not held for it


async def gone(watcher: BotClient, code: str) -> None:
    """Wait for a `lobby` frame listing table `code`, then for one listing neither it nor
    robo online."""
    while code not in {table["code"] for table in (await watcher.receive_type("lobby"))["tables"]}:
        pass
    while True:
        lobby = await watcher.receive_type("lobby")
        tables = {table["code"] for table in lobby["tables"]}
        if "robo" not in lobby["online"] and code not in tables:
            return
