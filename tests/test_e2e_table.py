"""The table screen as a remote player sees it over real SSH (pyte): the turn timer counts
down on every screen at the table, and each second's redraw is a few bytes, not a screen."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e_helpers import Server, create_table, running_server, screen_lines, wait_text
from sshclient import SSHTerminal

from server.lobby import TableSettings

FAST = TableSettings(bot_delay=0, grace=60, round_pause=60)
TURN = re.compile(r"(your|\S+'s) turn: (?:(\d+):(\d\d)|(\d+) s)$")  # at the header's right


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, FAST) as running:
        yield running


def clock(term: SSHTerminal) -> tuple[str, int] | None:
    """Whose turn the header shows and the seconds left, if a turn timer runs."""
    match = TURN.search(screen_lines(term)[0].rstrip())
    if match is None:
        return None
    seconds = int(match[4]) if match[4] else int(match[2]) * 60 + int(match[3])
    return match[1], seconds


async def test_every_player_at_the_table_sees_the_turn_timer_count_down(server: Server) -> None:
    async with (
        SSHTerminal.connect(server.port, username="ana", size=(80, 24)) as ana,
        SSHTerminal.connect(server.port, username="bob", size=(80, 24)) as bob,
    ):
        await wait_text(ana, "signed in as ana")
        await wait_text(bob, "signed in as bob")
        code = await create_table(ana, seats=3)  # the form's timer: the server's, 90 s
        await wait_text(bob, code)
        await bob.send_keys("j")
        await wait_text(ana, "bob")
        await ana.send_keys("g")  # the empty seat gets a bot, which plays at once
        await ana.wait_for(lambda: clock(ana) is not None, "the turn timer on ana's screen")
        await bob.wait_for(lambda: clock(bob) is not None, "the turn timer on bob's screen")
        whose, first = clock(ana) or ("", 0)
        on_turn, waiting = (ana, bob) if whose == "your" else (bob, ana)
        assert first > 80 and "Your turn: " in "\n".join(screen_lines(on_turn))
        assert clock(waiting) is not None and clock(waiting)[0] != "your"  # type: ignore[index]
        ticks = [await tick_bytes(waiting) for _ in range(3)]
        # One line (159 bytes seen); a tick may share its second with another frame (a bot's
        # play, a notice), so the smallest of three is the tick alone.
        assert min(ticks) < 400, f"each tick sent a screen to a player waiting: {ticks}"
        await on_turn.wait_for(lambda: clock(on_turn)[1] < first, "the clock moving on")  # type: ignore[index]


async def tick_bytes(term: SSHTerminal) -> int:
    """The bytes the screen received while its clock went down by one second."""
    seconds = clock(term)[1]  # type: ignore[index]
    before = len(term.raw)
    await term.wait_for(lambda: clock(term)[1] < seconds, "one second less")  # type: ignore[index]
    return len(term.raw) - before


async def test_a_player_who_cannot_see_the_table_has_their_timer_held_and_the_others_told(
    server: Server,
) -> None:
    async with (
        SSHTerminal.connect(server.port, username="ana", size=(80, 24)) as ana,
        SSHTerminal.connect(server.port, username="bob", size=(80, 24)) as bob,
    ):
        await wait_text(ana, "signed in as ana")
        await wait_text(bob, "signed in as bob")
        code = await create_table(ana, seats=2)
        await wait_text(bob, code)
        await bob.send_keys("j")
        await wait_text(ana, "bob")
        await ana.send_keys("g")
        await ana.wait_for(lambda: clock(ana) is not None, "the turn timer on ana's screen")
        on_turn, waiting, name = (ana, bob, "ana") if clock(ana)[0] == "your" else (bob, ana, "bob")  # type: ignore[index]
        await on_turn.resize(60, 20)
        await wait_text(on_turn, "Terminal too small")
        await wait_text(waiting, f"{name}'s terminal is too small to show the")  # wrapped
        held_clock = f"waiting for {name}: "
        await waiting.wait_for(lambda: held_clock in screen_lines(waiting)[0], "the held clock")
        row = next(line for line in screen_lines(waiting) if f" {name} " in line)
        assert "screen too small" in row
        runner = server.table(code).runner
        held = runner.countdown()
        assert held is not None and held.kind == "held"
        await waiting.send_keys("c")  # a chat line there and back: time passes meanwhile
        await waiting.send("still there?\r")
        await wait_text(waiting, "still there?")
        still = runner.countdown()
        assert still is not None and still.kind == "held"  # no turn timer runs meanwhile
        await on_turn.resize(80, 24)
        await wait_text(waiting, f"{name} sees the table again.")
        again = runner.countdown()
        assert again is not None and again.kind == "turn" and again.remaining_ms > 80_000
        await waiting.wait_for(lambda: held_clock not in screen_lines(waiting)[0], "the clock")
