"""Friends against a fake link: the lobby's friends line, `f` lists them and Enter joins a
friend's table; `f` on a profile marks a player as a friend (or no longer), for players with
a key only."""

from __future__ import annotations

from test_tui_support import CATALOGUE, FakeLink, screen_text, served

from lovelet_tui.app import LoveletApp
from lovelet_tui.screens.friends import FriendsScreen
from lovelet_tui.screens.profile import ProfileScreen
from protocol import (
    PROTOCOL_VERSION,
    FriendInfo,
    FriendRequest,
    Friends,
    Lobby,
    Profile,
    ProfileRequest,
    Visit,
    Welcome,
    encode,
)

SIZE = (80, 24)
FRIENDS = Friends(
    (FriendInfo("[b]bob", True, "K7QX"), FriendInfo("cy", True), FriendInfo("dan", False))
)


def welcome(app: LoveletApp, *, guest: bool = False) -> None:
    key = None if guest else "SHA256:ana"
    app.deliver(encode(Welcome(PROTOCOL_VERSION, "Ana", key, guest, catalogue=CATALOGUE)))
    app.deliver(encode(Lobby((), ("Ana", "[b]bob", "cy"))))


async def test_the_lobby_says_where_friends_are_and_enter_joins_one() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        welcome(app)
        await pilot.pause()
        assert "Friends (f)" not in screen_text(app)  # none yet: no line
        app.deliver(encode(FRIENDS))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert "Friends (f): [b]bob at table K7QX · cy online · dan offline" in [
            line.strip() for line in lines
        ]
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FriendsScreen)
        text = screen_text(app)
        assert "› [b]bob  at table K7QX" in text and "dan     offline" in text
        assert "⏎ Join their table" in text
        await pilot.press("enter")
        await pilot.pause()
        assert link.sent[-1] == Visit("K7QX")
        assert app.screen is app.lobby


async def test_enter_needs_a_table_and_p_opens_a_friends_profile() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        welcome(app)
        app.deliver(encode(FRIENDS))
        await pilot.press("f", "down")
        await pilot.pause()
        assert "Join their table" not in screen_text(app)
        sent = len(link.sent)
        await pilot.press("enter")
        await pilot.pause()
        assert len(link.sent) == sent and isinstance(app.screen, FriendsScreen)
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ProfileScreen)
        assert link.sent[-1] == ProfileRequest("cy")


async def test_f_on_a_profile_marks_a_friend_and_then_unmarks() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        welcome(app)
        await pilot.press("p", "down", "enter")
        app.deliver(encode(Profile("[b]bob")))
        await pilot.pause()
        assert "f Add friend" in screen_text(app).splitlines()[-1]
        await pilot.press("f")
        await pilot.pause()
        assert link.sent[-2:] == [FriendRequest("[b]bob"), ProfileRequest("[b]bob")]
        app.deliver(encode(Profile("[b]bob", friend=True)))
        await pilot.pause()
        text = screen_text(app)
        assert "[b]bob's profile · your friend" in text
        assert "f Remove friend" in text.splitlines()[-1]
        await pilot.press("f")
        await pilot.pause()
        assert link.sent[-2] == FriendRequest("[b]bob", add=False)


async def test_a_guest_is_offered_no_friends() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        welcome(app, guest=True)
        await pilot.press("f")
        await pilot.pause()
        assert app.screen is app.lobby
        await pilot.press("p", "down", "enter")
        app.deliver(encode(Profile("[b]bob")))
        await pilot.pause()
        assert "Add friend" not in screen_text(app)
        sent = len(link.sent)
        await pilot.press("f")
        await pilot.pause()
        assert len(link.sent) == sent
