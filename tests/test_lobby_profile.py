"""Profiles through the lobby on a real SQLite file: a keyed player's rating and its
history, games per edition, favourite cards and latest games; private tables' games for the
player only; guests and unknown names get a sentence instead."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol import BotSpec, CreateTable, Join, Profile, ProfileRequest, Start
from server.lobby import Lobby, LobbySettings
from server.services.clock import LoopClock
from server.store import Store
from tests.lobby_client import Client
from tests.test_lobby import INSTANT, greeted, play_to_the_end

ANN, BOB = "SHA256:ann", "SHA256:bob"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob")):
            opened.claim_nickname(key, name, set())
        yield opened


@pytest.fixture
def lobby(store: Store) -> Lobby:
    return Lobby(LobbySettings(table=INSTANT), random.Random(3), store, clock=LoopClock())


async def profile(client: Client, name: str) -> Profile:
    seen = len(client.messages)
    client.send(ProfileRequest(name))
    return await client.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, Profile)), None)
    )


async def play(host: Client, *others: Client, private: bool = False) -> None:
    """A classic game of `host` and `others`, a bot in any seat left, played to its end."""
    seats = len(others) + 1
    bots = () if others else (BotSpec(1, "easy"),)
    host.send(CreateTable("t", "classic", max(seats, 2), None, bots, private=private))
    await host.wait_for(lambda c: c.state)
    for other in others:
        other.send(Join(host.state.info.code))
        await other.wait_for(lambda c: c.state)
    host.send(Start())
    await play_to_the_end(host, *others)


async def test_a_keyed_players_profile_after_a_rated_game(store: Store, lobby: Lobby) -> None:
    ann, bob = await greeted(lobby, "ann", key=ANN), await greeted(lobby, "bob", key=BOB)
    guest = await greeted(lobby, "gus", guest=True)
    await play(ann, bob)
    [game] = store.games(1)
    seen = await profile(guest, "ann")
    rating = store.rating(ANN)
    assert rating is not None and seen.rating is not None
    assert (seen.name, seen.note, seen.yours) == ("ann", "", False)
    assert seen.rating.games == 1 and seen.history == (seen.rating.rating,)
    assert [(t.edition, t.games) for t in seen.editions] == [("classic", 1)]
    [played] = seen.games
    assert (played.game_id, played.players, played.seat) == (game.id, ("ann", "bob"), 0)
    plays = Counter(e["card"] for e in ann.events if e["kind"] == "play" and e["seat"] == 0)
    favourite = seen.favourites[0]
    assert favourite.count == max(plays.values()) and plays[favourite.card] == favourite.count
    assert (await profile(ann, "ann")).yours


async def test_private_games_are_in_the_players_own_profile_only(lobby: Lobby) -> None:
    ann, bob = await greeted(lobby, "ann", key=ANN), await greeted(lobby, "bob", key=BOB)
    await play(ann, private=True)
    assert len((await profile(ann, "ann")).games) == 1
    theirs = await profile(bob, "ann")
    assert theirs.games == () and [(t.edition, t.games) for t in theirs.editions] == [
        ("classic", 1)
    ]


async def test_guests_and_unknown_names_get_a_sentence(lobby: Lobby) -> None:
    ann = await greeted(lobby, "ann", key=ANN)
    await greeted(lobby, "gus", guest=True)
    guest = await profile(ann, "gus")
    assert guest.note == "gus plays as a guest: guests' games are not kept."
    assert guest.rating is None and guest.games == ()
    nobody = await profile(ann, "nobody")
    assert nobody.note == "Nobody called nobody has games kept here."
    offline = await profile(ann, "bob")  # by the name reserved to bob's key
    assert offline.note == "" and offline.games == ()


async def test_a_server_without_a_database_says_so() -> None:
    lobby = Lobby(LobbySettings(table=INSTANT), clock=LoopClock())
    ann = await greeted(lobby, "ann", key=ANN)
    assert (await profile(ann, "ann")).note == "This server keeps no stats."
