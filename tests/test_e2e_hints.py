"""Over real SSH: a player presses `h` at a decision and the choice panel shows the hard bot's
advice; someone watching the table reads in the log that the player used a hint."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e_helpers import (
    Server,
    create_table,
    phase,
    running_server,
    screen_text,
    wait_log,
    wait_text,
)
from sshclient import SSHTerminal

from server.lobby import TableSettings

QUICK = TableSettings(bot_delay=0.1, grace=60, round_pause=60)
DECISION_TIMEOUT = 30.0


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, QUICK) as running:
        yield running


async def test_h_shows_a_hint_and_the_watchers_log_says_it_was_used(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana") as ana:
        await wait_text(ana, "signed in as ana")
        code = await create_table(ana, seats=2)
        async with SSHTerminal.connect(server.port, username="cy") as cy:
            await wait_text(cy, code)
            await cy.send_keys("w")
            await wait_text(cy, "1 watching")
            await ana.send_keys("g")  # the empty seat gets a bot: hints are allowed
            await until_a_decision(ana)
            assert "h Hint" in screen_text(ana)
            await ana.send_keys("h")
            await ana.wait_for(
                lambda: "Hint: " in screen_text(ana) and "%" in screen_text(ana),
                "the hint and its odds",
                DECISION_TIMEOUT,
            )
            await wait_log(ana, "You used a hint")
            await wait_log(cy, "ana used a hint")
            assert "Hint: " not in screen_text(cy)


async def until_a_decision(player: SSHTerminal) -> None:
    """Wait for the player's decision, going on to the next round when a random deal
    knocks the player out before the first one (a bot's Baron or Guard)."""
    while True:
        await player.wait_for(
            lambda: phase(player) in ("decide", "next"), "a decision", DECISION_TIMEOUT
        )
        if phase(player) == "decide":
            return
        await player.send_keys("n")
        await player.wait_for(lambda: phase(player) != "next", "the next round", DECISION_TIMEOUT)
