"""The bot API as a platform, over real SSH on 127.0.0.1: acts tied to their decision, leaving
and finished tables, errors that guide, and the documented event catalogue."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from e2e_helpers import Server, running_server
from test_ssh_botapi import FAST, BotClient, framed, greeted

TWO_SEATS = {"name": "t", "edition": "2019", "seats": 2, "bots": [{"seat": 1, "level": "easy"}]}
OPTIONS = {"takeover": False, "private": False, "hints": None, "bot_level": None}


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
        late = await next_turn(client)  # and we let the timer play it
        assert ours(late)
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
        last = state = await next_turn(client)
        while state["info"]["status"] == "playing":
            last = state
            client.send(act(last))
            state = await next_turn(client, last["view"]["pending"]["decision"])
        (table,) = server.lobby.tables.values()
        step, log = table.runner.step, len(table.runner.log)
        client.send(act(last) + framed({"type": "stats_request"}))
        assert (await client.receive_type("error"))["code"] == "stale_decision"
        await client.receive_type("stats")
        assert (table.runner.step, len(table.runner.log)) == (step, log)
