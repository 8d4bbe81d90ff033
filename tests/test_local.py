"""`lovelet play`: the same app, in-process lobby, seated with bots, no SSH."""

from __future__ import annotations

import time
from pathlib import Path

from test_tui_support import screen_text
from textual.pilot import Pilot

from lovelet_tui.app import LoveletApp
from protocol import ContinueRound
from server.commands.local import local_app
from server.store import Store
from tests.test_lobby import act_message


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


def hard_bot_played(app: LoveletApp) -> bool:
    """Whether the bot at seat 1 has played a card (or the round is over)."""
    view = app.table.view
    return bool(view) and (bool(view.seats[1].discards) or view.round > 1)


async def test_local_mode_hard_bots_play_from_their_worker_processes() -> None:
    # the pool's workers start from inside the running app, which has replaced stderr
    app = local_app("2019", 2, "hard", bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert [seat.bot for seat in app.table.info.seats] == [None, "hard"]
        deadline = time.monotonic() + 60
        while not hard_bot_played(app):
            assert time.monotonic() < deadline, "the hard bot never played"
            if app.table.view and app.table.view.choices:  # ana's turn: play something
                app.send(act_message(app.table.view.choices[0]))  # (keys: a card's steps vary)
            await pilot.pause(0.05)
        await pilot.press("ctrl+q")


async def test_local_games_are_kept_in_the_data_directory(tmp_path: Path) -> None:
    with Store.open(tmp_path / "lovelet.db") as store:
        app = local_app("classic", 2, "easy", bot_delay=0, store=store)
        me = f"local:{app.player_name}"
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            assert store.kept_tables() == []  # no server takes a local game over
            for _ in range(5000):
                table = app.table
                if table.info.status == "finished":
                    break
                if table.view and table.view.choices:
                    app.send(act_message(table.view.choices[0]))
                elif table.info.status == "round_over":
                    app.send(ContinueRound())
                await pilot.pause()
            assert app.table.info.status == "finished"
            await pilot.press("l")
            await pilot.pause()
            await pilot.press("i")
            await pilot.pause()
            assert "This server keeps no stats" not in screen_text(app)
            assert "Love Letter Classic (2012)  1" in screen_text(app)
        [game] = store.games(1)
        assert game.status == "finished" and game.seats[0].identity == me
        assert store.owner_of(app.player_name) is None  # the name stays free for a server
        assert store.player_stats(me)["classic"].games == 1


async def test_a_local_game_left_unfinished_is_abandoned(tmp_path: Path) -> None:
    with Store.open(tmp_path / "lovelet.db") as store:
        app = local_app("2019", 3, "easy", bot_delay=60, store=store)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("ctrl+q", "ctrl+q")
        [game] = store.games(1)
        assert game.status == "abandoned"
