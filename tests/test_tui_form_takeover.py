"""The new-table form's last field: whether late joiners may take a bot's seat (off unless
the host turns it on)."""

from __future__ import annotations

from test_tui_support import CATALOGUE, FakeLink, burst, screen_text, served

from protocol import PROTOCOL_VERSION, CreateTable, Welcome, encode

SIZE = (80, 24)


async def created(*keys: str) -> CreateTable:
    """The request the form sends after `keys` (from the name field), then Enter."""
    link = FakeLink()
    app = served(link, "ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "ana", "SHA256:ana", False, "", catalogue=CATALOGUE))
        )
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert "Late joiners" in screen_text(app) and "watch" in screen_text(app)
        burst(app, *keys, "enter")
        await pilot.pause()
    (request,) = [m for m in link.sent if isinstance(m, CreateTable)]
    return request


async def test_late_joiners_watch_unless_the_host_lets_them_take_a_bots_seat() -> None:
    assert (await created()).takeover is False
    assert (await created(*["tab"] * 6, "right")).takeover is True
