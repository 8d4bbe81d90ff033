"""The bot ladder over real SSH on 127.0.0.1: a program's games are rated against the server's
bots, who stand on the ladder too, and a table of programs sets its own bot delay."""

from __future__ import annotations

import contextlib
from pathlib import Path

import asyncssh
import pytest
from e2e_helpers import running_server
from test_ssh_botapi import framed, greeted
from test_ssh_botapi_platform import OPTIONS, TWO_SEATS, play_game

from server.lobby import LobbySettings, TableSettings
from server.lobby.seating import Seating
from server.services.rating import BOT_RATINGS

SLOW_BOTS = TableSettings(bot_delay=30, grace=60, round_pause=60)
"""The server's bots wait 30 s a move: a game ends within the tests' waits only if the
table's own `bot_delay` is used."""

ONE_GAME = LobbySettings(leaderboard_min_games=1)


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def create_table(bot_delay: int | None) -> bytes:
    table = {"type": "create_table", **TWO_SEATS, "timer": None, **OPTIONS}
    return framed({**table, "bot_delay": bot_delay}) + framed({"type": "start"})


async def test_a_program_is_rated_on_the_bot_ladder_with_the_servers_bots(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with (
        running_server(tmp_path / "data", SLOW_BOTS, ONE_GAME) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        client = await greeted(server.port, key, stack)
        client.send(create_table(bot_delay=0))
        finished = await play_game(client)
        won = finished["info"]["you"] in finished["view"]["game_winners"]
        client.send(framed({"type": "stats_request"}))
        stats = await client.receive_type("stats")
        assert stats["rating"]["games"] == 1
        ladder = {leader["name"]: leader for leader in stats["bots"]}
        assert set(ladder) == {"robo", "easy bot"}
        assert (ladder["robo"]["games"], ladder["robo"]["wins"]) == (1, int(won))
        easy = BOT_RATINGS["easy"][0]
        moved = ladder["easy bot"]["rating"] - easy
        assert (moved < 0) == won and moved != 0  # the server's bot is rated too
        assert stats["rating"]["rating"] == ladder["robo"]["rating"]
        assert "robo" not in {leader["name"] for leader in stats["leaderboard"]}
        store = server.running.store
        before = store.bot_leaderboard()
        store.recompute_ratings()
        assert store.bot_leaderboard() == before


def test_the_tables_own_bot_delay_holds_only_while_no_human_sits_there() -> None:
    seating = Seating(3)
    seating.programs_delay = 0.0
    seating.seats[0].identity, seating.seats[0].api_bot = "SHA256:program", True
    seating.seats[1].bot_level = "easy"
    assert seating.bot_delay(0.6) == 0.0
    seating.seats[2].identity = "SHA256:person"
    assert seating.bot_delay(0.6) == 0.6
    assert Seating(2).bot_delay(0.6) == 0.6  # none asked for
