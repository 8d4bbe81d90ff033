"""The new-table form's last field: whether late joiners may take a bot's seat (off unless
the host turns it on)."""

from __future__ import annotations

from test_tui_support import FakeLink, form_request, screen_text, served

from protocol import CreateTable

SIZE = (80, 24)


async def created(*keys: str) -> CreateTable:
    """The request the form sends after `keys` (from the name field), then Enter."""
    request, form = await form_request(*keys)
    assert "Late joiners" in form and "watch" in form
    return request


async def test_late_joiners_watch_unless_the_host_lets_them_take_a_bots_seat() -> None:
    assert (await created()).takeover is False
    assert (await created(*["tab"] * 6, "right")).takeover is True


async def test_every_label_stands_apart_from_its_value() -> None:
    """The longest label ("Late joiners") keeps a space before the value's arrow, and every
    value (its arrow) starts in the name's column."""
    app = served(FakeLink(), "ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", *["tab"] * 6, "right")
        await pilot.pause()
        lines = screen_text(app).splitlines()
    takeover = next(line for line in lines if "Late joiners" in line)
    assert "Late joiners ‹ take a bot's seat" in takeover
    name = next(line for line in lines if "│ Name " in line)
    assert name.index("ana's table") == takeover.index("‹")  # the arrows' column
