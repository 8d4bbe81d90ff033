"""The stats screen against a fake link: `i` asks the server, the answer is drawn literally,
a guest's note and an empty leaderboard read well, Esc goes back to the lobby."""

from __future__ import annotations

from test_tui_support import CATALOGUE, FakeLink, screen_text, served

from lovelet_tui.screens.stats import StatsScreen
from protocol import (
    PROTOCOL_VERSION,
    EditionTally,
    LeaderEntry,
    Lobby,
    OnlineRating,
    PlayedGame,
    RatingInfo,
    Stats,
    StatsRequest,
    Welcome,
    encode,
)

SIZE = (80, 24)
STATS = Stats(
    editions=(EditionTally("2019", 4, 3), EditionTally("classic", 2, 0)),
    recent=(
        PlayedGame(9, "2019", "2025-06-01T20:30:00+00:00", True, ("Ana", "[b]Bo")),
        PlayedGame(7, "classic", "2025-05-30T08:05:00+00:00", False, ("Cy", "Ana")),
    ),
    leaderboard=(LeaderEntry("[red]Cy", 9, 7, 1712, 180), LeaderEntry("Ana", 6, 3, 1540, 210)),
    rating=RatingInfo(1540, 210, 5),
)


async def test_i_asks_for_stats_and_shows_them_literally() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", "SHA256:ana", False, catalogue=CATALOGUE))
        )
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        assert "Loading stats…" in screen_text(app)
        assert link.sent[-1] == StatsRequest()
        app.deliver(encode(STATS))
        await pilot.pause()
        lines = screen_text(app).splitlines()
    assert any(line.split() == ["Love", "Letter", "(2019)", "4", "3", "75%"] for line in lines)
    assert any(
        line.split() == ["Love", "Letter", "Classic", "(2012)", "2", "0", "0%"] for line in lines
    )
    assert any(
        "2025-06-01 20:30" in line and "won" in line and "Ana, [b]Bo" in line for line in lines
    )
    assert any("2025-05-30 08:05" in line and "lost" in line for line in lines)
    assert any(line.strip() == "Rating 1540 ± 210 (5 rated games)" for line in lines)
    header = next(line.split() for line in lines if line.split()[:2] == ["#", "Player"])
    assert header == ["#", "Player", "Rating", "±", "Wins", "Games"]
    assert any(line.split() == ["1", "[red]Cy", "1712", "180", "7", "9"] for line in lines)
    assert any(line.split() == ["2", "Ana", "1540", "210", "3", "6"] for line in lines)


async def test_a_guest_reads_the_note_and_esc_goes_back() -> None:
    app = served(FakeLink(), "guest")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        app.deliver(encode(Stats((), (), (), "Guests' games are not kept.", min_games=3)))
        await pilot.pause()
        text = screen_text(app)
        assert "Guests' games are not kept." in text
        assert "Nobody has 3 rated games yet: a rated game is one between two players with" in text
        assert "Rating " not in text
        assert "Recent games" not in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.lobby


async def test_stats_key_is_in_the_key_bar_and_help() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "i Stats" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert any(line.split()[-2:] == ["i", "Stats"] for line in screen_text(app).splitlines())


async def test_stats_opened_again_are_the_same_screen_asking_afresh() -> None:
    """No screen to throw away each time (issue 34), and the figures asked for again."""
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        await pilot.pause()
        first = app.screen
        app.deliver(encode(STATS))
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        asked = link.sent.count(StatsRequest())
        await pilot.press("i")
        await pilot.pause()
        assert app.screen is first and link.sent.count(StatsRequest()) == asked + 1


async def test_a_late_answer_after_closing_is_dropped() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i", "escape")
        app.deliver(encode(STATS))
        await pilot.pause()
        assert app.screen is app.lobby
        assert "Leaderboard" not in screen_text(app)


async def test_the_lobby_shows_ratings_beside_rated_names() -> None:
    app = served(FakeLink(), "Ana")
    lobby = Lobby((), ("Ana", "[red]Bo", "guest-3"), (OnlineRating("[red]Bo", 1620),))
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(lobby))
        await pilot.pause()
        assert "Online: Ana, [red]Bo (1620), guest-3" in screen_text(app)


async def test_your_rating_says_how_many_more_games_list_you() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        app.deliver(encode(Stats((), (), (), rating=RatingInfo(1549, 410, 1), min_games=3)))
        await pilot.pause()
        text = screen_text(app)
    assert "Rating 1549 ± 410 (1 rated game; 2 more to be on the leaderboard)" in text
