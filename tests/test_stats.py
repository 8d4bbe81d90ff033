"""`stats_request` answered from a real SQLite file: games recorded through the store and one
played to the end through the lobby; guests and a server without a store get a note."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from protocol import (
    BotSpec,
    CreateTable,
    EditionTally,
    LeaderEntry,
    PlayedGame,
    Start,
    Stats,
    StatsRequest,
)
from server.clock import LoopClock
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.stats import GUEST_NOTE, NO_STORE_NOTE
from server.store import SeatRecord, Store
from tests.lobby_client import Client
from tests.test_lobby import play_to_the_end

ANN, BOB = "SHA256:ann", "SHA256:bob"
T0 = datetime(2025, 6, 1, 20, 0, tzinfo=UTC)
INSTANT = TableSettings(bot_delay=0, grace=60, round_pause=0)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        opened.claim_nickname(ANN, "ann", set())
        opened.claim_nickname(BOB, "bob", set())
        yield opened


def record(store: Store, edition: str, seats: list[SeatRecord], winners: list[int], hour: int):
    game_id = store.start_game(edition, seats, T0 + timedelta(hours=hour))
    store.finish_game(game_id, winners, T0 + timedelta(hours=hour, minutes=20))
    return game_id


async def stats_of(client: Client) -> Stats:
    """Ask for the stats and wait for the answer."""
    asked = sum(isinstance(m, Stats) for m in client.messages)
    client.send(StatsRequest())
    answers = await client.wait_for(
        lambda c: [m for m in c.messages if isinstance(m, Stats)][asked:]
    )
    return answers[0]


def greeted(lobby: Lobby, name: str, **identity: object) -> Client:
    client = Client(lobby, name, **identity)
    client.hello()
    return client


async def test_a_keyed_player_gets_their_record_recent_games_and_the_leaderboard(
    store: Store,
) -> None:
    ann, bob = SeatRecord(ANN, "ann"), SeatRecord(BOB, "bob")
    first = record(store, "2019", [ann, bob], [0], 1)
    second = record(store, "2019", [bob, ann, SeatRecord(None, "easy bot 3", "easy")], [0], 2)
    third = record(store, "classic", [ann, SeatRecord(None, "guest")], [0], 3)
    lobby = Lobby(LobbySettings(), random.Random(1), store, clock=LoopClock())
    stats = await stats_of(greeted(lobby, "ann", key=ANN))
    assert stats.editions == (EditionTally("2019", 2, 1), EditionTally("classic", 1, 1))
    assert stats.recent == (
        PlayedGame(third, "classic", "2025-06-01T23:20:00+00:00", True, ("ann", "guest")),
        PlayedGame(
            second, "2019", "2025-06-01T22:20:00+00:00", False, ("bob", "ann", "easy bot 3")
        ),
        PlayedGame(first, "2019", "2025-06-01T21:20:00+00:00", True, ("ann", "bob")),
    )
    assert stats.leaderboard == (LeaderEntry("ann", 3, 2), LeaderEntry("bob", 2, 1))
    assert stats.note == ""


async def test_a_game_played_through_the_lobby_shows_in_the_stats(store: Store) -> None:
    lobby = Lobby(LobbySettings(table=INSTANT), random.Random(3), store, clock=LoopClock())
    ann = greeted(lobby, "ann", key=ANN)
    ann.send(CreateTable("ann's", "classic", 2, None, (BotSpec(1, "easy"),)))
    await ann.wait_for(lambda c: c.state)
    ann.send(Start())
    await play_to_the_end(ann)
    stats = await stats_of(ann)
    won = ann.state.view["tokens"][0] >= ann.state.view["target"]
    assert stats.editions == (EditionTally("classic", 1, int(won)),)
    [game] = stats.recent
    assert (game.edition, game.won, game.players) == ("classic", won, ("ann", "easy bot 2"))
    assert stats.leaderboard == (LeaderEntry("ann", 1, int(won)),)


async def test_a_guest_sees_the_leaderboard_and_a_note(store: Store) -> None:
    record(store, "2019", [SeatRecord(BOB, "bob"), SeatRecord(None, "guest")], [1], 1)
    lobby = Lobby(LobbySettings(), random.Random(1), store, clock=LoopClock())
    stats = await stats_of(greeted(lobby, "guest", key="guest:1", guest=True))
    assert stats == Stats((), (), (LeaderEntry("bob", 1, 0),), GUEST_NOTE)


async def test_without_a_store_the_lists_are_empty_with_a_note() -> None:
    stats = await stats_of(
        greeted(Lobby(LobbySettings(), random.Random(1), clock=LoopClock()), "ann")
    )
    assert stats == Stats((), (), (), NO_STORE_NOTE)
