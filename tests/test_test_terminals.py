"""The test terminals draw whole frames only: an app that asks is told the terminal supports
synchronized output, and an update's bytes reach the pyte screen once the update is whole."""

from __future__ import annotations

import pyte
from ptyterm import LOVELET, PtyTerminal
from sshclient import SYNC_BEGIN, SYNC_END, FrameStream


def test_half_an_update_is_not_drawn_until_its_end_arrives() -> None:
    screen = pyte.Screen(20, 2)
    stream = FrameStream(screen)
    stream.feed(b"old" + SYNC_BEGIN + b"\rne")
    assert screen.display[0].rstrip() == "old"
    stream.feed(b"w" + SYNC_END)
    assert screen.display[0].rstrip() == "new"


async def test_lovelet_play_draws_in_synchronized_updates() -> None:
    async with PtyTerminal.spawn([LOVELET, "play", "--bot-delay", "0"]) as term:
        await term.wait_for(lambda: "Hand" in term.text, "the table", 30)
        assert term.raw.count(SYNC_BEGIN) >= 1
        await term.send_keys("\x11", "y")  # ctrl+q, then yes
        assert await term.exited() == 0, term.output
