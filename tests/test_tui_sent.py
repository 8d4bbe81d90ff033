"""A choice sent keeps the decision on screen until the table's answer redraws it: no
"Sent" in between, which would cost every turn a screen update of its own. Only an answer
slower than `SENT_SHOWN_AFTER` shows "Sent" first."""

from __future__ import annotations

import pytest
from test_tui_support import (
    FakeLink,
    deliver,
    new_game,
    option_key,
    screen_text,
    served,
    table_state,
)

from lovelet_tui.screens import table
from protocol import Act, PlayChoice

SIZE = (80, 24)
HANDMAID_FIRST = ["spy", "handmaid", "guard", "guard", "guard", "guard"]  # Ana: Handmaid, Guard
SENT = "Sent. Waiting for the table"


async def test_the_answer_redraws_the_decision_with_no_sent_in_between() -> None:
    game = new_game("2019", 4, HANDMAID_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        await pilot.press(option_key(app, "Handmaid"))
        await pilot.pause()
        assert link.sent[-1] == Act(PlayChoice("handmaid"))
        assert "Play which card?" in screen_text(app) and SENT not in screen_text(app)
        sent = len(game.events)
        game.act(0, game.pending.choices[0])  # the Handmaid, as sent
        await deliver(app, pilot, table_state(game, 0, since=sent))
        assert app.table is not None and app.table.awaiting is None  # "Sent" will not come
        assert "Waiting for" in screen_text(app) and "Play which card?" not in screen_text(app)


async def test_a_slow_answer_shows_sent_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "SENT_SHOWN_AFTER", 0.0)
    game = new_game("2019", 4, HANDMAID_FIRST)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        await pilot.press(option_key(app, "Handmaid"))
        await pilot.pause()
        assert SENT in screen_text(app)
