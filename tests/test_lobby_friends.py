"""Friends through the lobby on a real SQLite file: a keyed player marks another by name and
is told where they are (online, at which listed table) as that changes; a private table is
not named; the list outlives the session; guests and unknown names are refused."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol import (
    CreateTable,
    ErrorReply,
    FriendInfo,
    FriendRequest,
    Friends,
    Leave,
    Notice,
    Profile,
    ProfileRequest,
)
from server.lobby import Lobby, LobbySettings
from server.services.clock import LoopClock
from server.store import Store
from tests.lobby_client import Client
from tests.test_lobby import INSTANT, greeted

ANN, BOB, CY = "SHA256:ann", "SHA256:bob", "SHA256:cy"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob"), (CY, "cy")):
            opened.claim_nickname(key, name, set())
        yield opened


@pytest.fixture
def lobby(store: Store) -> Lobby:
    return Lobby(LobbySettings(table=INSTANT), random.Random(3), store, clock=LoopClock())


def friends(client: Client) -> Friends | None:
    """The latest `friends` the client got."""
    return next((m for m in reversed(client.messages) if isinstance(m, Friends)), None)


async def told(client: Client, *expected: FriendInfo) -> None:
    await client.wait_for(lambda c: (got := friends(c)) is not None and got.friends == expected)


async def refused(client: Client, message: FriendRequest) -> ErrorReply:
    seen = len(client.messages)
    client.send(message)
    return await client.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, ErrorReply)), None)
    )


async def test_a_friend_is_followed_from_the_lobby_to_a_table_and_offline(lobby: Lobby) -> None:
    ann, bob = await greeted(lobby, "ann", key=ANN), await greeted(lobby, "bob", key=BOB)
    assert friends(ann) is None  # nobody marked yet: nothing said
    ann.send(FriendRequest("bob"))
    await told(ann, FriendInfo("bob", True))
    assert Notice("bob is one of your friends now.") in ann.messages
    bob.send(CreateTable("bob's", "classic", 2, None, ()))
    await bob.wait_for(lambda c: c.state)
    await told(ann, FriendInfo("bob", True, bob.state.info.code))
    bob.send(Leave())
    await told(ann, FriendInfo("bob", True))
    bob.attachment.detach()
    await told(ann, FriendInfo("bob", False))
    assert friends(bob) is None  # friends are one way


async def test_a_private_table_is_not_named(lobby: Lobby) -> None:
    ann, bob = await greeted(lobby, "ann", key=ANN), await greeted(lobby, "bob", key=BOB)
    ann.send(FriendRequest("bob"))
    await told(ann, FriendInfo("bob", True))
    seen = len(ann.messages)
    bob.send(CreateTable("secret", "classic", 2, None, (), private=True))
    await bob.wait_for(lambda c: c.state)
    await greeted(lobby, "cy", key=CY)  # a change the lobby lists after bob's
    await ann.wait_for(lambda c: "cy" in c.lobby.online)
    assert all(
        m.friends == (FriendInfo("bob", True),)
        for m in ann.messages[seen:]
        if isinstance(m, Friends)
    )


async def test_the_list_is_kept_and_a_profile_says_friend(lobby: Lobby, store: Store) -> None:
    ann = await greeted(lobby, "ann", key=ANN)
    ann.send(FriendRequest("cy"))  # offline: by the name reserved to cy's key
    await told(ann, FriendInfo("cy", False))
    ann.attachment.detach()
    again = await greeted(lobby, "ann", key=ANN)
    await told(again, FriendInfo("cy", False))
    seen = len(again.messages)
    again.send(ProfileRequest("cy"))
    profile = await again.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, Profile)), None)
    )
    assert profile.friend
    again.send(FriendRequest("cy", add=False))
    await told(again)
    assert Notice("cy is no longer one of your friends.") in again.messages
    assert store.friends_of(ANN) == {}


async def test_guests_unknown_names_and_yourself_are_refused(lobby: Lobby) -> None:
    ann = await greeted(lobby, "ann", key=ANN)
    gus = await greeted(lobby, "gus", guest=True)
    assert (await refused(gus, FriendRequest("ann"))).code == "guest"
    guest = await refused(ann, FriendRequest("gus"))
    assert (guest.code, guest.message) == ("guest_friend", "gus plays as a guest, without a key.")
    nobody = await refused(ann, FriendRequest("nobody"))
    assert nobody.message == "Nobody called nobody has a key here."
    assert (await refused(ann, FriendRequest("ann"))).code == "yourself"
