"""The table screen against a fake link: hand, choices, staged decisions, round and game end."""

from __future__ import annotations

from test_tui_support import FakeLink, new_game, screen_text, table_state
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from protocol import Act, PlayChoice, TableState, encode

SIZE = (80, 24)
GUARD_FIRST = ["spy", "guard", "priest", "baron", "handmaid", "priest"]  # Ana: Guard, draws Priest


async def _open(app: LoveletApp, state: TableState, pilot: Pilot[None]) -> None:
    app.deliver(encode(state))
    await pilot.pause()


async def test_your_turn_shows_hand_and_choices() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    app = LoveletApp(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        text = screen_text(app)
    assert "Guard 1" in text and "Priest 2" in text
    assert "Play which card?" in text
    assert "1  Guard" in text and "2  Priest" in text


async def test_digits_stage_guard_target_guess_and_esc_backs_out() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = LoveletApp(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("1")
        assert "On whom?" in screen_text(app)
        await pilot.press("2")  # Cy
        assert "Name a card:" in screen_text(app)
        await pilot.press("escape")
        assert "On whom?" in screen_text(app)
        await pilot.press("escape", "escape")
        assert "Play which card?" in screen_text(app)
        await pilot.press("1", "1", "3")  # Guard, Bo, the third guess (Baron)
        await pilot.pause()
    assert link.sent[-1] == Act(PlayChoice("guard", (1,), "baron"))
