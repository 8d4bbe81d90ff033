"""The admin command line against a fake link: only administrators get `a`, a typed line
becomes one `admin` message, a line that does not parse is explained and not sent, and the
server's answers show as toasts. The grammar is checked line by line too."""

from __future__ import annotations

import pytest
from test_tui_support import CATALOGUE, FakeLink, burst, screen_text, served

from lovelet_tui.admin_command import AdminSyntaxError, parse_admin
from lovelet_tui.screens.admin import AdminScreen
from protocol import PROTOCOL_VERSION, Admin, ErrorReply, Hello, Notice, Welcome, encode

SIZE = (80, 24)


def welcome(admin: bool) -> bytes:
    return encode(
        Welcome(PROTOCOL_VERSION, "root", "SHA256:root", False, "", admin, catalogue=CATALOGUE)
    )


async def test_a_does_nothing_for_players() -> None:
    link = FakeLink()
    app = served(link, "bob")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(False))
        await pilot.pause()
        assert "Admin" not in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is app.lobby
    assert link.sent == [Hello(PROTOCOL_VERSION, "bob")]


async def test_an_admin_types_a_command_that_is_sent_once() -> None:
    link = FakeLink()
    app = served(link, "root")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(True))
        await pilot.pause()
        assert "a Admin" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AdminScreen)
        assert "ban NAME|KEY|ADDRESS" in screen_text(app)
        await pilot.press(*"ban bob 1d spam", "enter")
        await pilot.pause()
        assert app.screen is app.lobby
    assert link.sent[1:] == [Admin("ban", "bob", 86400, "spam")]


async def test_a_command_typed_in_one_burst_is_sent_whole() -> None:
    link = FakeLink()
    app = served(link, "root")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(True))
        await pilot.press("a")
        await pilot.pause()
        burst(app, *"kick", "space", *"bob", "enter")
        await pilot.pause()
    assert link.sent[1:] == [Admin("kick", "bob", None, None)]


async def test_a_bad_line_is_explained_and_not_sent() -> None:
    link = FakeLink()
    app = served(link, "root")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(welcome(True))
        await pilot.press("a", *"kick", "enter")
        await pilot.pause()
        assert isinstance(app.screen, AdminScreen)
        assert "usage: kick NAME" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.lobby
    assert link.sent == [Hello(PROTOCOL_VERSION, "root")]


async def test_answers_show_as_toasts() -> None:
    app = served(FakeLink(), "root")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.deliver(encode(Notice("Kicked bob.")))
        app.deliver(encode(ErrorReply("no_such_player", "nobody called [b]eve is online")))
        await pilot.pause()
        text = screen_text(app)
    assert "Kicked bob." in text
    assert "Nobody called [b]eve is online." in text  # as a sentence, literally


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kick bob", Admin("kick", "bob")),
        ("  KICK   bob ", Admin("kick", "bob")),
        ("ban bob", Admin("ban", "bob")),
        ("ban bob 30m", Admin("ban", "bob", 1800)),
        ("ban SHA256:abc 2w", Admin("ban", "SHA256:abc", 14 * 86400)),
        (
            "ban 203.0.113.0/24 12h  flooding the lobby",
            Admin("ban", "203.0.113.0/24", 43200, "flooding the lobby"),
        ),
        ("ban bob spam", Admin("ban", "bob", None, "spam")),
        ("unban 3", Admin("unban", "3")),
        ("unban 203.0.113.9", Admin("unban", "203.0.113.9")),
        ("announce Restart at 8 pm", Admin("announce", text="Restart at 8 pm")),
        ("motd Tournament on Friday", Admin("motd", text="Tournament on Friday")),
        ("motd", Admin("motd")),
    ],
)
def test_lines_parse(line: str, message: Admin) -> None:
    assert parse_admin(line) == message


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("", "type a command"),
        ("shutdown now", "unknown command"),
        ("kick", "usage: kick NAME"),
        ("kick bob eve", "usage: kick NAME"),
        ("ban", "usage: ban"),
        ("ban bob 0d", "1 minute to 10 years"),
        ("ban bob 600w", "1 minute to 10 years"),
        ("unban", "usage: unban"),
        ("announce", "usage: announce TEXT"),
        ("announce " + "x" * 251, "at most 250 characters"),
        ("kick " + "b" * 129, "at most 128 characters"),
    ],
)
def test_bad_lines_say_why(line: str, problem: str) -> None:
    with pytest.raises(AdminSyntaxError, match=problem):
        parse_admin(line)
