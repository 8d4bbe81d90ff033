"""The lobby's rejoin key against a fake link: only guests get `r`, and the code typed is sent
as one `rejoin_seat` message."""

from __future__ import annotations

from test_tui_support import CATALOGUE, FakeLink, burst, screen_text, served, table_info

from lovelet_tui import LoveletApp
from lovelet_tui.screens.rejoin import RejoinScreen
from lovelet_tui.screens.table import TableScreen
from protocol import PROTOCOL_VERSION, Hello, RejoinSeat, TableState, Welcome, encode

SIZE = (80, 24)


def welcome(guest: bool) -> bytes:
    return encode(
        Welcome(
            PROTOCOL_VERSION, "bob", None if guest else "SHA256:bob", guest, "", catalogue=CATALOGUE
        )
    )


async def test_r_does_nothing_for_keyed_players() -> None:
    link = FakeLink()
    app = served(link, "bob")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(guest=False))
        await pilot.pause()
        assert "Rejoin" not in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is app.lobby
    assert link.sent == [Hello(PROTOCOL_VERSION, "bob")]


async def test_a_guest_types_the_rejoin_code_in_one_burst() -> None:
    link = FakeLink()
    app = served(link, "bob")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(guest=True))
        await pilot.pause()
        assert "r Rejoin" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RejoinScreen)
        burst(app, *"kqxm-trwa", "enter")
        await pilot.pause()
        assert app.screen is app.lobby
    assert link.sent[1:] == [RejoinSeat("kqxm-trwa")]


async def test_a_second_welcome_closes_the_table_screen_without_leaving() -> None:
    """The game server restarted and the session attached to the new one: its welcome
    starts afresh in the lobby (a table it still sits at sends its state next)."""
    link = FakeLink()
    app = LoveletApp(link, "bob")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(guest=True))
        app.deliver(encode(TableState(table_info(None, 0, status="waiting"), None, ())))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        app.deliver(welcome(guest=True))
        await pilot.pause()
        assert app.screen is app.lobby and app.table is None
    assert link.sent == [Hello(PROTOCOL_VERSION, "bob")], "no leave was sent"


async def test_after_a_second_welcome_the_table_left_meanwhile_shows_again() -> None:
    """Left while the game server was away (the leave was not delivered): the new server
    still seats the player there, and its table state is shown, not dropped as late."""
    link = FakeLink()
    app = LoveletApp(link, "bob")
    state = encode(TableState(table_info(None, 0, status="waiting"), None, ()))
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(guest=True))
        app.deliver(state)
        await pilot.pause()
        await pilot.press("l")  # not playing: leaves at once
        await pilot.pause()
        assert app.screen is app.lobby
        app.deliver(welcome(guest=True))
        app.deliver(state)
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
