"""A choice sent keeps the decision on screen until the table's answer redraws it: no
"Sent" in between, which would cost every turn a screen update of its own. Only an answer
slower than `SENT_SHOWN_AFTER` shows "Sent" first."""

from __future__ import annotations

import pytest
from test_tui_support import FakeLink, new_game, screen_text, served, table_state
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from lovelet_tui.screens import table
from protocol import Act, PlayChoice, TableState, encode

SIZE = (80, 24)
HANDMAID_FIRST = ["spy", "handmaid", "guard", "guard", "guard", "guard"]  # Ana: Handmaid, Guard
SENT = "Sent. Waiting for the table"


async def _deliver(app: LoveletApp, pilot: Pilot[None], state: TableState) -> None:
    app.deliver(encode(state))
    await pilot.pause()


def _key(app: LoveletApp, label: str) -> str:
    assert app.table is not None and app.table.staging is not None
    return next(o.key for o in app.table.staging.options if o.label == label)


async def test_the_answer_redraws_the_decision_with_no_sent_in_between() -> None:
    game = new_game("2019", 4, HANDMAID_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _deliver(app, pilot, table_state(game, 0))
        await pilot.press(_key(app, "Handmaid"))
        await pilot.pause()
        assert link.sent[-1] == Act(PlayChoice("handmaid"))
        assert "Play which card?" in screen_text(app) and SENT not in screen_text(app)
        sent = len(game.events)
        game.act(0, game.pending.choices[0])  # the Handmaid, as sent
        await _deliver(app, pilot, table_state(game, 0, since=sent))
        assert app.table is not None and app.table.awaiting is None  # "Sent" will not come
        assert "Waiting for" in screen_text(app) and "Play which card?" not in screen_text(app)


async def test_a_slow_answer_shows_sent_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "SENT_SHOWN_AFTER", 0.0)
    game = new_game("2019", 4, HANDMAID_FIRST)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _deliver(app, pilot, table_state(game, 0))
        await pilot.press(_key(app, "Handmaid"))
        await pilot.pause()
        assert SENT in screen_text(app)
