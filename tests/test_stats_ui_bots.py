"""The stats screen shows the bot ladder (programs on the bot API and the server's bots) below
the leaderboard, as the server sends it."""

from __future__ import annotations

from test_tui_support import CATALOGUE, FakeLink, screen_text, served

from protocol import PROTOCOL_VERSION, LeaderEntry, Stats, Welcome, encode

LADDER = (LeaderEntry("robo", 12, 5, 1610, 90), LeaderEntry("medium bot", 40, 11, 1502, 60))


async def test_the_bot_ladder_is_below_the_leaderboard() -> None:
    app = served(FakeLink(), "robo")
    async with app.run_test(size=(80, 24)) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "robo", "SHA256:robo", False, catalogue=CATALOGUE))
        )
        await pilot.press("i")
        app.deliver(encode(Stats((), (), (), "", bots=LADDER)))
        await pilot.pause()
        lines = screen_text(app).splitlines()
    titles = [line.strip() for line in lines]
    assert titles.index("Bot ladder") > titles.index("Leaderboard")
    assert any(line.split() == ["1", "robo", "1610", "90", "5", "12"] for line in lines)
    assert any(line.split() == ["2", "medium", "bot", "1502", "60", "11", "40"] for line in lines)
