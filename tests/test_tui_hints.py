"""Hints in the app (Pilot, fake link): `h` asks for one only at the receiver's decision at a
table that allows them, the answer shows above the choices until the decision changes, and the
new-table form sets whether the table allows them; `t` in the lobby starts the tutorial, whose
guide shows above the log."""

from __future__ import annotations

import dataclasses

from test_tui_support import (
    CATALOGUE,
    FakeLink,
    form_request,
    new_game,
    screen_text,
    served,
    table_state,
)

from protocol import (
    PROTOCOL_VERSION,
    CreateTable,
    Hint,
    HintRequest,
    PlayChoice,
    TableState,
    Tutorial,
    Welcome,
    encode,
)
from server.engine import Play

SIZE = (80, 24)
FIRST = ["countess", "guard", "priest", "baron", "handmaid", "prince"]  # Ana: Guard, Prince
HINT = Hint(
    PlayChoice("guard", (1,), "priest"),
    "Guard on Bo naming Priest: Bo played Priest and kept a card; 41% to hit",
    "next best: Prince on Bo, 30%",
)


def hinted(state: TableState, hints: bool = True) -> TableState:
    return dataclasses.replace(state, info=dataclasses.replace(state.info, hints=hints))


async def test_h_asks_for_a_hint_and_the_answer_shows_above_the_choices() -> None:
    game = new_game("2019", 4, FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(hinted(table_state(game, 0))))
        await pilot.pause()
        assert "Hint" in screen_text(app)  # offered in the key bar
        await pilot.press("h")
        await pilot.pause()
        assert link.sent[1:] == [HintRequest()]
        app.deliver(encode(HINT))
        await pilot.pause()
        text = screen_text(app)
        assert "Hint: Guard on Bo naming" in text and "Next best: Prince on Bo" in text
        game.act(0, Play("guard", (1,), "priest"))  # the decision moves on ...
        app.deliver(encode(hinted(table_state(game, 0, since=len(game.events)))))
        await pilot.pause()
        assert "Hint: Guard" not in screen_text(app)  # ... and the hint with it


async def test_no_h_where_hints_are_off_or_it_is_not_your_decision() -> None:
    game = new_game("2019", 4, FIRST)
    for state in (table_state(game, 0), hinted(table_state(game, 1))):
        link = FakeLink()
        app = served(link, "Ana")
        async with app.run_test(size=SIZE) as pilot:
            app.deliver(encode(state))
            await pilot.pause()
            assert "h Hint" not in screen_text(app)
            await pilot.press("h")
            await pilot.pause()
        assert HintRequest() not in link.sent


async def created(*keys: str) -> CreateTable:
    """The request the new-table form sends after `keys` (from the name field), then Enter."""
    request, form = await form_request(*keys)
    assert "Hints" in form and "with bots" in form
    return request


async def test_the_form_leaves_hints_to_the_bots_unless_the_host_says() -> None:
    assert (await created()).hints is None
    assert (await created(*["tab"] * 8, "right")).hints is True
    assert (await created(*["tab"] * 8, "right", "right")).hints is False


async def test_t_in_the_lobby_asks_for_the_tutorial_and_its_guide_shows_above_the_log() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", "SHA256:ana", False, "", catalogue=CATALOGUE))
        )
        await pilot.pause()
        assert "t Tutorial" in screen_text(app)
        await pilot.press("t")
        await pilot.pause()
        assert link.sent[-1] == Tutorial()
        game = new_game("classic", 3, ["handmaid", "guard", "princess", "guard", "priest"])
        guide = "Welcome! You hold a Guard (1) and a Priest (2). Play the Guard on Bo."
        app.deliver(encode(dataclasses.replace(table_state(game, 0), guide=guide)))
        await pilot.pause()
        assert "Welcome! You hold a Guard (1)" in screen_text(app)
        app.deliver(encode(table_state(game, 0, since=len(game.events))))  # no guide now
        await pilot.pause()
        assert "Welcome!" not in screen_text(app)
