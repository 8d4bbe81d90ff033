"""The turn timer and the pause between rounds, as the table screen shows them: to everyone
at the table, prominently to the player on turn, redrawn once a second while it runs, and
never ticking when no timer runs, in the lobby or after leaving."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Callable

import pytest
from test_tui_support import FakeLink, new_game, screen_text, served, table_state
from textual.pilot import Pilot

from lovelet_tui.screens.table import TableScreen
from protocol import Countdown, TableFits, TableState, encode
from server.engine import Game

SIZE = (80, 24)


def _running_clocks() -> list[asyncio.Task[object]]:
    """The countdown's redraw timers still pending, in every app of this process."""
    return [t for t in asyncio.all_tasks() if t.get_name() == "countdown" and not t.done()]


async def _until(pilot: Pilot[None], done: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def _shown(pattern: str, text: str) -> int:
    """The seconds `pattern` (with one `(\\d+)`) shows in `text`; fails if it is not there."""
    match = re.search(pattern, text)
    assert match is not None, f"{pattern!r} not on the screen:\n{text}"
    return int(match[1])


def _state(game: Game, seat: int | None, countdown: Countdown | None, **info: object) -> TableState:
    return dataclasses.replace(table_state(game, seat, **info), countdown=countdown)


async def test_the_player_on_turn_sees_the_time_left_counting_down() -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(_state(game, 0, Countdown("turn", 12_900, 0))))
        await pilot.pause()
        text = screen_text(app)
        first = _shown(r"Your turn: (\d+) s left", text)
        assert first in (12, 13) and _shown(r"your turn: (\d+) s", text.splitlines()[0]) == first
        await _until(pilot, lambda: f"Your turn: {first - 1} s left" in screen_text(app))
        assert "Play which card?" in screen_text(app)


async def test_the_others_see_whose_turn_it_is_and_the_time_left() -> None:
    game = new_game("2019", 4)
    for seat in (1, None):  # a player waiting, a spectator
        app = served(FakeLink(), "Bo" if seat else "Zed")
        async with app.run_test(size=SIZE) as pilot:
            app.deliver(encode(_state(game, seat, Countdown("turn", 40_900, 0))))
            await pilot.pause()
            text = screen_text(app)
        assert _shown(r"Ana's turn: (\d+) s", text.splitlines()[0]) in (40, 41)
        assert "Your turn" not in text and "Waiting for Ana to play a card." in text


async def test_the_last_ten_seconds_warn_the_player_on_turn() -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(_state(game, 0, Countdown("turn", 11_900, 0))))
        await pilot.pause()
        assert _shown(r"Your turn: (\d+) s left", screen_text(app)) in (11, 12)
        await _until(pilot, lambda: "Hurry: 10 s left!" in screen_text(app), timeout=4.0)


async def test_the_pause_between_rounds_counts_down_for_everyone() -> None:
    game = new_game("2019", 4)
    while not game.round_over:
        game.act(game.pending.seat, game.pending.choices[0])
    for seat, name in ((0, "Ana"), (None, "Zed")):
        app = served(FakeLink(), name)
        async with app.run_test(size=SIZE) as pilot:
            state = _state(game, seat, Countdown("pause", 15_900, None), status="round_over")
            app.deliver(encode(state))
            await pilot.pause()
            text = screen_text(app)
        assert _shown(r"next round in (\d+) s", text.splitlines()[0]) in (15, 16)
        assert _shown(r"Next round in (\d+) s", text) in (15, 16)


async def test_the_clock_redraws_once_a_second_and_stops_at_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown: list[int] = []
    draw = TableScreen._draw_clock

    def counting(screen: TableScreen, countdown: Countdown | None, seconds: int) -> None:
        shown.append(seconds)
        draw(screen, countdown, seconds)

    monkeypatch.setattr(TableScreen, "_draw_clock", counting)  # every draw, from the first
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(_state(game, 0, Countdown("turn", 2_500, 0))))
        await _until(pilot, lambda: "Hurry: 0 s left!" in screen_text(app), timeout=10)
        await _until(pilot, lambda: not _running_clocks())
    # one redraw per second shown (3 or 2 at first, then 1 and 0), none after 0
    assert shown[-1] == 0 and shown == list(range(shown[0], -1, -1)) and len(shown) <= 4, shown


async def test_no_clock_ticks_without_a_timer_in_the_lobby_or_after_leaving() -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        assert not _running_clocks()  # the lobby
        app.deliver(encode(_state(game, 0, Countdown("turn", 30_000, 0))))
        await pilot.pause()
        assert len(_running_clocks()) == 1
        app.deliver(encode(_state(game, 0, None)))  # timers off, or the decision was made
        await pilot.pause()
        assert not _running_clocks() and "Your turn:" not in screen_text(app)
        app.deliver(encode(_state(game, 0, Countdown("turn", 30_000, 0))))
        await pilot.pause()
        await pilot.press("question_mark")  # help over the table: nothing ticks below it
        await pilot.pause()
        assert not _running_clocks()
        app.deliver(encode(_state(game, 0, Countdown("turn", 20_000, 0))))  # nor on news
        await pilot.pause()
        assert not _running_clocks()
        await pilot.press("escape")
        await pilot.pause()
        assert len(_running_clocks()) == 1
        await pilot.press("l", "y")
        await pilot.pause()
        assert not _running_clocks()


async def test_a_held_turn_shows_how_long_the_table_waits_and_marks_the_seat() -> None:
    """Ana's terminal is too small to show the table: the others see how long the table
    waits for her, counting down, and her seat marked."""
    game = new_game("2019", 4)
    assert game.pending is not None and game.pending.seat == 0
    state = _state(game, 1, Countdown("held", 42_000, 0))
    seats = list(state.info.seats)
    seats[0] = dataclasses.replace(seats[0], small=True)
    state = dataclasses.replace(state, info=dataclasses.replace(state.info, seats=tuple(seats)))
    app = served(FakeLink(), "Bo")
    async with app.run_test(size=(120, 40)) as pilot:
        app.deliver(encode(state))
        await pilot.pause()
        text = screen_text(app)
        first = _shown(r"waiting for Ana: (\d+) s", text.splitlines()[0])
        assert first in (41, 42)
        assert "screen too small" in next(line for line in text.splitlines() if "Ana " in line)
        await _until(pilot, lambda: f"waiting for Ana: {first - 1} s" in screen_text(app))


async def test_at_a_table_the_app_tells_the_server_when_the_terminal_cannot_show_it() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.resize_terminal(60, 20)  # in the lobby: nothing to tell
        await pilot.pause()
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert not [m for m in link.sent if isinstance(m, TableFits)]
        app.deliver(encode(table_state(new_game("2019", 4), 0)))
        await pilot.pause()
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.resize_terminal(70, 22)  # still too small: said once
        await pilot.pause()
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
    assert [m for m in link.sent if isinstance(m, TableFits)] == [
        TableFits(False),
        TableFits(True),
    ]
