"""Profiles against a fake link: `p` in the lobby lists the names online, at a table the
players and watchers (no bots), on the stats screen opens a leader's; the profile asks the
server and draws its answer literally; Enter replays a game, from the player's own seat only
in their own profile."""

from __future__ import annotations

import dataclasses

from test_tui_support import CATALOGUE, FakeLink, screen_text, served, table_info

from lovelet_tui.app import LoveletApp
from lovelet_tui.screens.players import PlayersScreen
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.screens.stats import StatsScreen
from protocol import (
    PROTOCOL_VERSION,
    CardCount,
    EditionTally,
    LeaderEntry,
    Lobby,
    PlayedGame,
    Profile,
    ProfileRequest,
    RatingInfo,
    ReplayRequest,
    SeatInfo,
    Stats,
    TableState,
    Welcome,
    encode,
)

SIZE = (80, 24)
BO = Profile(
    "[b]Bo",
    rating=RatingInfo(1540, 210, 3),
    history=(1500, 1480, 1540),
    editions=(EditionTally("classic", 4, 3),),
    favourites=(CardCount("guard", 7), CardCount("priest", 2)),
    games=(
        PlayedGame(9, "classic", "2025-06-01T20:30:00+00:00", True, ("Ana", "[b]Bo"), 1),
        PlayedGame(7, "classic", "2025-05-30T08:05:00+00:00", False, ("[b]Bo", "Cy"), 0),
    ),
)


def welcomed(link: FakeLink) -> LoveletApp:
    app = served(link, "Ana")
    app.deliver(encode(Welcome(PROTOCOL_VERSION, "Ana", "SHA256:ana", False, catalogue=CATALOGUE)))
    return app


async def test_p_in_the_lobby_lists_who_is_online_and_opens_a_profile() -> None:
    link = FakeLink()
    app = welcomed(link)
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(Lobby((), ("Ana", "[b]Bo"))))
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, PlayersScreen)
        text = screen_text(app)
        assert "Whose profile? (online)" in text and "› Ana" in text and "[b]Bo" in text
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        assert link.sent[-1] == ProfileRequest("[b]Bo")
        assert "Loading [b]Bo's profile…" in screen_text(app)
        app.deliver(encode(BO))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert any(line.strip() == "[b]Bo's profile" for line in lines)
        assert any(line.strip() == "Rating 1540 ± 210 (3 rated games)" for line in lines)
        assert any(line.strip() == "History (last 3 rated games): 1500 ▃▁█ 1540" for line in lines)
        assert any(
            line.split() == ["Love", "Letter", "Classic", "(2012)", "4", "3", "75%"]
            for line in lines
        )
        assert any(line.strip() == "Favourite cards: Guard ×7, Priest ×2" for line in lines)
        assert any(
            "2025-06-01 20:30" in line and "won" in line and "Ana, [b]Bo" in line for line in lines
        )
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert link.sent[-1] == ReplayRequest(7, None, 1)  # another's game: the public view
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is app.lobby


async def test_your_own_profile_replays_from_your_seat() -> None:
    link = FakeLink()
    app = welcomed(link)
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(Lobby((), ("[b]Bo",))))
        await pilot.press("p", "enter")
        app.deliver(encode(dataclasses.replace(BO, yours=True)))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert link.sent[-1] == ReplayRequest(9, 1, 1)


async def test_a_note_instead_of_a_profile_and_an_answer_for_another_name_is_dropped() -> None:
    app = welcomed(FakeLink())
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(Lobby((), ("gus",))))
        await pilot.press("p", "enter")
        app.deliver(encode(BO))  # late: asked for before
        app.deliver(encode(Profile("gus", "gus plays as a guest: guests' games are not kept.")))
        await pilot.pause()
        text = screen_text(app)
    assert "gus plays as a guest: guests' games are not kept." in text
    assert "Rating" not in text and "[b]Bo" not in text


async def test_p_at_a_table_lists_players_and_watchers_but_no_bots() -> None:
    link = FakeLink()
    app = welcomed(link)
    seats = (
        SeatInfo("Ana", None, True),
        SeatInfo("easy bot 2", "easy", True),
        SeatInfo(None, None, False),
    )
    info = dataclasses.replace(
        table_info(None, 0, seats=seats, status="waiting"), spectators=("Cy", "Ana")
    )
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(TableState(info)))
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, PlayersScreen)
        assert app.screen.names == ("Ana", "Cy")
        assert "Whose profile? (at this table)" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.table


async def test_p_on_a_leader_in_stats_opens_their_profile() -> None:
    link = FakeLink()
    app = welcomed(link)
    stats = Stats((), (), (LeaderEntry("[b]Bo", 4, 3, 1540, 210),))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        app.deliver(encode(stats))
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        assert "p Profile" in screen_text(app).splitlines()[-1]
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        assert link.sent[-1] == ProfileRequest("[b]Bo")
