"""The new-table form's last field: whether late joiners may take a bot's seat (off unless
the host turns it on)."""

from __future__ import annotations

from test_tui_support import form_request

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
