"""`lovelet play`: the same app, in-process lobby, seated with bots, no SSH."""

from __future__ import annotations

from textual.pilot import Pilot

from lovelet_tui.app import LoveletApp
from server.local import local_app


async def settle(pilot: Pilot, app: LoveletApp) -> None:
    """Let the lobby's updates reach the app: a bounded number of event-loop rounds."""
    for _ in range(100):
        if app.table is not None and app.table.info is not None:
            return
        await pilot.pause()


async def test_local_mode_seats_you_with_bots_and_starts() -> None:
    app = local_app("2019", 3, "easy", bot_delay=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        info = app.table.info
        assert [seat.bot for seat in info.seats] == [None, "easy", "easy"]
        assert info.you == 0 and info.status == "playing"
        await pilot.press("ctrl+q")
