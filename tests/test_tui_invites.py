"""Invites in the app: the table screen shows the command that brings someone to the table,
an app started with a table code goes there once welcomed, the form makes private tables, and
administrators see private tables marked in the lobby."""

from __future__ import annotations

import dataclasses

from test_tui_support import (
    CATALOGUE,
    FakeLink,
    burst,
    new_game,
    screen_text,
    served,
    table_info,
    table_state,
)

from lovelet_tui import LoveletApp
from protocol import (
    PROTOCOL_VERSION,
    CreateTable,
    ErrorReply,
    Lobby,
    TableState,
    TableSummary,
    Visit,
    Welcome,
    encode,
)

SIZE = (80, 24)
INVITE = "ssh -t -p 2222 play.example.org"
SECRET = "7KQ2M9XW4D"


def welcome(invite: str | None = INVITE, admin: bool = False) -> bytes:
    return encode(
        Welcome(
            PROTOCOL_VERSION,
            "ana",
            "SHA256:ana",
            False,
            "",
            admin,
            invite=invite,
            catalogue=CATALOGUE,
        )
    )


async def test_the_table_screen_shows_the_invite_command_before_the_game_and_to_watchers() -> None:
    app = served(FakeLink(), "ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome())
        info = table_info(None, 0, status="waiting", code=SECRET)
        app.deliver(encode(TableState(dataclasses.replace(info, private=True))))
        await pilot.pause()
        waiting = screen_text(app)
        app.deliver(encode(table_state(new_game("2019", 4), None, code=SECRET)))
        await pilot.pause()
        watching = screen_text(app)
    assert f"Invite: {INVITE} {SECRET}" in waiting
    assert waiting.splitlines()[0].startswith(f" {SECRET} · Friday game · private ·")
    assert f"Watching · invite: {INVITE} {SECRET}" in watching


async def test_without_an_invite_command_the_table_screen_shows_none() -> None:
    app = served(FakeLink(), "ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(invite=None))
        app.deliver(encode(TableState(table_info(None, 0, status="waiting"))))
        await pilot.pause()
        text = screen_text(app)
    assert "Invite" not in text and "ssh" not in text


async def test_an_app_given_a_table_code_visits_it_once_welcomed() -> None:
    link = FakeLink()
    app = LoveletApp(link, "ana", visit="K7QX")  # no welcome until the test sends one
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not any(isinstance(m, Visit) for m in link.sent), "not before the welcome"
        app.deliver(welcome())
        await pilot.pause()
        app.deliver(encode(ErrorReply("no_such_table", "No open table has the code K7QX.")))
        await pilot.pause()
        text = screen_text(app)
    assert [m for m in link.sent if isinstance(m, Visit)] == [Visit("K7QX")]
    assert "No open table has the code K7QX." in text.splitlines()[1]  # the lobby's notice line


async def test_the_form_makes_a_private_table_when_asked() -> None:
    async def created(*keys: str) -> CreateTable:
        link = FakeLink()
        app = served(link, "ana")
        async with app.run_test(size=SIZE) as pilot:
            app.deliver(welcome())
            await pilot.press("n")
            await pilot.pause()
            assert "Private" in screen_text(app) and "listed in the lobby" in screen_text(app)
            burst(app, *keys, "enter")
            await pilot.pause()
        (request,) = [m for m in link.sent if isinstance(m, CreateTable)]
        return request

    assert (await created()).private is False
    assert (await created(*["tab"] * 7, "right")).private is True


async def test_administrators_see_private_tables_marked_with_their_whole_code() -> None:
    app = served(FakeLink(), "root")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(admin=True))
        tables = (
            TableSummary("K7QX", "open one", "2019", 4, 1, "waiting", 0),
            TableSummary(SECRET, "secret", "2019", 4, 1, "waiting", 0, private=True),
        )
        app.deliver(encode(Lobby(tables, ("root",))))
        await pilot.pause()
        text = screen_text(app)
    assert SECRET in text and "secret (private)" in text
    assert "open one (private)" not in text
