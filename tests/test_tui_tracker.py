"""The card tracker: `t` swaps it with the log; it counts the cards the player has not seen,
and builds nothing while it was never shown."""

from __future__ import annotations

import pytest
from test_tui_support import FakeLink, deliver, new_game, screen_text, served, table_state

from lovelet_tui.widgets import tracker

SIZE = (80, 24)
DECK = ["spy", "handmaid", "guard", "priest", "guard", "baron"]  # Ana: Handmaid, draws Baron


async def test_t_shows_the_unseen_cards_and_they_follow_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []
    cell = tracker._cell
    monkeypatch.setattr(
        tracker, "_cell", lambda card, left: built.append(card.id) or cell(card, left)
    )
    game = new_game("2019", 4, DECK)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        first = table_state(game, 0)
        await deliver(app, pilot, first)
        assert built == [] and "Unseen cards" not in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        shown = screen_text(app)
        assert "Unseen cards (left/total)" in shown and "1 Guard 6/6" in shown
        assert "4 Handmaid 1/2" in shown and "3 Baron 1/2" in shown  # Ana holds one of each
        sent = len(game.events)
        game.act(0, next(c for c in game.pending.choices if c.card == "handmaid"))
        played = game.pending.choices[0]
        game.act(1, played)  # Bo's card, seen by all
        state = table_state(game, 0, since=sent)
        await deliver(app, pilot, state)
        card = app.table.names.cards[played.card] if app.table else None
        assert card is not None and state.view is not None and first.view is not None
        left = state.view.unseen[played.card]
        assert left == first.view.unseen[played.card] - 1
        assert f"{card.value} {card.name} {left}/{card.count}" in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        assert "Unseen cards" not in screen_text(app)
