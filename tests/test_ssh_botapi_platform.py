"""The bot API as a platform, over real SSH on 127.0.0.1: acts tied to their decision, leaving
and finished tables, errors that guide, and the documented event catalogue."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from e2e_helpers import Server, running_server
from test_ssh_botapi import FAST, MAX_ERRORS, BotClient, bot, framed, greeted, hello

from server.lobby import TableSettings
from server.ops.config import Limits

TWO_SEATS = {"name": "t", "edition": "2019", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
OPTIONS = {"takeover": False, "private": False, "hints": None, "bot_level": None, "bot_delay": None}


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path / "data", FAST) as running:
        yield running


def create_table(timer: int | None = None) -> bytes:
    """`create_table` for a two-seat table with an easy bot at seat 1, then `start`."""
    table = {"type": "create_table", **TWO_SEATS, "timer": timer, **OPTIONS}
    return framed(table) + framed({"type": "start"})


def ours(state: dict[str, Any]) -> bool:
    """Whether `state` waits for a decision of ours."""
    view = state["view"]
    return bool(view and view["choices"] and view["pending"]["seat"] == state["info"]["you"])


async def next_turn(client: BotClient, after: int = -1) -> dict[str, Any]:
    """The next `table` frame with a decision of ours other than `after` pending, or with no
    round being played."""
    while True:
        state = await client.receive_type("table")
        if state["info"]["status"] in ("round_over", "finished"):
            return state
        if ours(state) and state["view"]["pending"]["decision"] != after:
            return state


async def our_turn(client: BotClient) -> dict[str, Any]:
    """The first `table` frame with a decision of ours pending, going on to the next round
    when one ends before it (the bot may knock us out first)."""
    continued = 0
    while not ours(state := await next_turn(client)):
        assert state["info"]["status"] != "finished", "the game ended before our first decision"
        if state["view"]["round"] != continued:
            continued = state["view"]["round"]
            client.send(framed({"type": "continue_round"}))
    return state


def act(state: dict[str, Any], decision: int | None = None) -> bytes:
    """`act` with the first choice of `state`, for `decision` (its own if None)."""
    pending = state["view"]["pending"]["decision"] if decision is None else decision
    return framed({"type": "act", "choice": state["view"]["choices"][0], "decision": pending})


# ---------------------------------------------------------------- no stale moves


async def test_an_act_after_the_timer_played_for_us_is_stale(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await greeted(server.port, key, stack)
        client.send(create_table(timer=1))
        late = await our_turn(client)  # and we let the timer play it
        while not any(
            e["kind"] == "autoplay" for e in (await client.receive_type("table"))["events"]
        ):
            pass
        client.send(act(late))
        error = await client.receive_type("error")
        assert error["code"] == "stale_decision"
        assert str(late["view"]["pending"]["decision"]) in error["message"]


async def test_an_act_after_the_round_ended_is_stale_and_changes_nothing(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await greeted(server.port, key, stack)
        client.send(create_table())
        last: dict[str, Any] | None = None
        state = await next_turn(client)
        while last is None or state["info"]["status"] == "playing":
            if ours(state):
                last = state
                client.send(act(last))
            else:  # the round ended before our first decision
                client.send(framed({"type": "continue_round"}))
            state = await next_turn(client, last["view"]["pending"]["decision"] if last else -1)
        (table,) = server.lobby.tables.values()
        step, log = table.runner.step, len(table.runner.log)
        client.send(act(last) + framed({"type": "stats_request"}))
        assert (await client.receive_type("error"))["code"] == "stale_decision"
        await client.receive_type("stats")
        assert (table.runner.step, len(table.runner.log)) == (step, log)


# ---------------------------------------------------------------- leaving, finished tables


async def play_game(client: BotClient) -> dict[str, Any]:
    """Play our decisions (and read each round's summary) until the game is over."""
    state, answered, continued = await next_turn(client), -1, 0
    while state["info"]["status"] != "finished":
        if state["info"]["status"] == "round_over" and state["view"]["round"] != continued:
            continued = state["view"]["round"]
            client.send(framed({"type": "continue_round"}))
        elif ours(state):
            answered = state["view"]["pending"]["decision"]
            client.send(act(state))
        state = await next_turn(client, answered)
    return state


async def watching(port: int, stack: contextlib.AsyncExitStack) -> BotClient:
    """Another program (its own key and name) in the lobby."""
    other = asyncssh.generate_private_key("ssh-ed25519")
    watcher = await stack.enter_async_context(bot(port, other, "watcher"))
    watcher.send(hello("watcher"))
    assert (await watcher.receive())["type"] == "welcome"
    return watcher


async def gone_from_the_lobby(watcher: BotClient, name: str = "robo") -> None:
    """Wait for a `lobby` frame that no longer lists `name` online."""
    while name in (await watcher.receive_type("lobby"))["online"]:
        pass


async def test_closing_the_channel_after_the_game_leaves_the_table(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        watcher = await watching(server.port, stack)
        async with contextlib.AsyncExitStack() as first:
            client = await greeted(server.port, key, first)
            client.send(create_table())
            finished = await play_game(client)
        await gone_from_the_lobby(watcher)
        again = await greeted(server.port, key, stack)
        assert (await again.receive())["type"] == "lobby"
        again.send(create_table())
        state = await again.receive_type("table")
        assert state["info"]["code"] != finished["info"]["code"] and state["info"]["you"] == 0


async def test_a_game_that_ended_while_away_is_told_and_the_player_is_in_the_lobby(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    no_pause = TableSettings(bot_delay=0, grace=60, round_pause=0)
    async with (
        running_server(tmp_path / "data", no_pause) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        watcher = await watching(server.port, stack)
        async with contextlib.AsyncExitStack() as first:
            client = await greeted(server.port, key, first)
            client.send(create_table())
            code = (await next_turn(client))["info"]["code"]  # then it drops, mid-game
        await gone_from_the_lobby(watcher)
        watcher.send(framed({"type": "spectate", "code": code}))
        while (await watcher.receive_type("table"))["info"]["status"] != "finished":
            pass
        again = await greeted(server.port, key, stack)
        notice, lobby = await again.receive(), await again.receive()
        assert (
            notice["type"] == "notice"
            and f"table {code} ended while you were away" in notice["text"]
        )
        assert lobby["type"] == "lobby"
        assert server.table(code).seats[0].name != "robo"


async def test_a_leave_sent_before_eof_is_handled_however_far_behind_the_server_reads(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        watcher = await watching(server.port, stack)
        async with asyncssh.connect(
            "127.0.0.1", server.port, username="robo", client_keys=[key], known_hosts=None
        ) as conn:
            writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
            client = BotClient(writer, reader)
            client.send(hello())
            client.send(create_table())
            state = await our_turn(client)  # mid-game
            code = state["info"]["code"]
            stale = act(state, decision=0)  # refused as stale, and past the bytes' burst
            client.send(stale * (9000 // len(stale)) + framed({"type": "leave"}))
            writer.write_eof()
            assert await client.closed()
        await gone_from_the_lobby(watcher)
        assert code not in server.lobby.tables  # left by its only human, not held for them


# ---------------------------------------------------------------- limits and errors


async def test_a_client_that_waits_as_rate_limited_says_is_never_cut_off(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    burst = 5
    tight = Limits(bot_frames_per_second=5, bot_frame_burst=burst)
    stats = framed({"type": "stats_request"})
    async with (
        running_server(tmp_path / "data", FAST, limits=tight) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        client = await greeted(server.port, key, stack)
        client.send(stats * burst)  # the burst (hello took one): the last is refused
        refusals, answers = 0, burst
        while refusals < MAX_ERRORS + 2:
            replies = [await replied(client) for _ in range(answers)]
            refused = [r for r in replies if r["type"] == "error"]
            for reply in refused:
                assert reply["code"] == "rate_limited" and 0 < reply["retry_after_ms"] <= 200
            refusals += len(refused)
            if refused:  # as told: not a sync
                await asyncio.sleep(max(r["retry_after_ms"] for r in refused) / 1000)
            client.send(stats * 2)  # a token is back (two on a slow machine)
            answers = 2
        assert server.lobby.sessions


async def replied(client: BotClient) -> dict[str, Any]:
    """The next answer to a stats request: the stats, or a refusal."""
    while (message := await client.receive())["type"] not in ("stats", "error"):
        pass
    return message


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (b'{"type": "hello", "version": 14, "name": "robo"}\n', "looks like JSON"),
        (struct.pack(">I", 8) + b'{"a": 1}', "looks like JSON"),
        (struct.pack(">I", 2) + b"\xc1\xc1", "starts c1 c1"),
    ],
    ids=["json-stream", "json-in-a-frame", "not-msgpack"],
)
async def test_what_is_not_msgpack_is_said_plainly(
    server: Server, key: asyncssh.SSHKey, sent: bytes, said: str
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(bot(server.port, key))
        client.send(sent)
        error = await client.receive_type("error")
        assert error["code"] == "malformed" and said in error["message"], error
