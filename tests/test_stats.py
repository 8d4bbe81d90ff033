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
    RatingInfo,
    Start,
    Stats,
    StatsRequest,
)
from protocol import (
    Lobby as LobbyMessage,
)
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.stats import GUEST_NOTE, NO_STORE_NOTE
from server.services.clock import LoopClock
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
    lobby = Lobby(
        LobbySettings(leaderboard_min_games=2), random.Random(1), store, clock=LoopClock()
    )
    stats = await stats_of(greeted(lobby, "ann", key=ANN))
    assert stats.editions == (EditionTally("2019", 2, 1), EditionTally("classic", 1, 1))
    assert stats.recent == (
        PlayedGame(third, "classic", "2025-06-01T23:20:00+00:00", True, ("ann", "guest")),
        PlayedGame(
            second, "2019", "2025-06-01T22:20:00+00:00", False, ("bob", "ann", "easy bot 3"), 1
        ),
        PlayedGame(first, "2019", "2025-06-01T21:20:00+00:00", True, ("ann", "bob")),
    )
    ann_rating, bob_rating = store.rating(ANN), store.rating(BOB)
    assert ann_rating.games == bob_rating.games == 2  # the game with a guest is not rated
    leaders = [
        LeaderEntry("ann", 3, 2, round(ann_rating.mu), round(ann_rating.sigma)),
        LeaderEntry("bob", 2, 1, round(bob_rating.mu), round(bob_rating.sigma)),
    ]
    assert stats.leaderboard == tuple(sorted(leaders, key=lambda row: -row.rating))
    assert stats.rating == RatingInfo(round(ann_rating.mu), round(ann_rating.sigma), 2)
    assert (stats.note, stats.min_games) == ("", 2)


async def test_the_leaderboard_waits_for_the_minimum_of_rated_games(store: Store) -> None:
    record(store, "2019", [SeatRecord(ANN, "ann"), SeatRecord(BOB, "bob")], [0], 1)
    lobby = Lobby(
        LobbySettings(leaderboard_min_games=2), random.Random(1), store, clock=LoopClock()
    )
    stats = await stats_of(greeted(lobby, "bob", key=BOB))
    assert stats.leaderboard == ()
    assert stats.rating is not None and stats.rating.games == 1


async def test_a_game_played_through_the_lobby_shows_in_the_stats(store: Store) -> None:
    lobby = Lobby(LobbySettings(table=INSTANT), random.Random(3), store, clock=LoopClock())
    ann = greeted(lobby, "ann", key=ANN)
    ann.send(CreateTable("ann's", "classic", 2, None, (BotSpec(1, "easy"),)))
    await ann.wait_for(lambda c: c.state)
    ann.send(Start())
    await play_to_the_end(ann)
    stats = await stats_of(ann)
    won = ann.state.view.tokens[0] >= ann.state.view.target
    assert stats.editions == (EditionTally("classic", 1, int(won)),)
    [game] = stats.recent
    assert (game.edition, game.won, game.players) == ("classic", won, ("ann", "easy bot 2"))
    assert stats.leaderboard == ()  # one keyed human: not rated
    assert stats.rating is None


async def test_a_guest_sees_the_leaderboard_and_a_note(store: Store) -> None:
    record(store, "2019", [SeatRecord(BOB, "bob"), SeatRecord(ANN, "ann")], [1], 1)
    lobby = Lobby(
        LobbySettings(leaderboard_min_games=1), random.Random(1), store, clock=LoopClock()
    )
    stats = await stats_of(greeted(lobby, "guest", key="guest:1", guest=True))
    ann = store.rating(ANN)
    assert stats.leaderboard[0] == LeaderEntry("ann", 1, 1, round(ann.mu), round(ann.sigma))
    assert [row.name for row in stats.leaderboard] == ["ann", "bob"]
    assert (stats.note, stats.rating) == (GUEST_NOTE, None)


async def test_without_a_store_the_lists_are_empty_with_a_note() -> None:
    stats = await stats_of(
        greeted(Lobby(LobbySettings(), random.Random(1), clock=LoopClock()), "ann")
    )
    assert stats == Stats(
        (), (), (), NO_STORE_NOTE, min_games=LobbySettings().leaderboard_min_games
    )


async def test_the_lobby_shows_the_ratings_of_rated_players_online(store: Store) -> None:
    record(store, "2019", [SeatRecord(ANN, "ann"), SeatRecord(BOB, "bob")], [0], 1)
    lobby = Lobby(LobbySettings(), random.Random(1), store, clock=LoopClock())
    ann = greeted(lobby, "ann", key=ANN)
    greeted(lobby, "cat", key="guest:2", guest=True)
    greeted(lobby, "bob", key=BOB)
    latest = await ann.wait_for(
        lambda c: [m for m in c.messages if isinstance(m, LobbyMessage) and len(m.online) == 3]
    )
    expected = {"ann": round(store.rating(ANN).mu), "bob": round(store.rating(BOB).mu)}
    assert {r.name: r.rating for r in latest[-1].ratings} == expected
