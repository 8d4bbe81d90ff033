"""Who may replay what, through the lobby on a real SQLite file: the public view of any
finished public game, a seat's view only for the keyed player who sat there; private games
only for their players; bad ids and too many requests get a clear error and nothing else."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest

from protocol import (
    BotSpec,
    CreateTable,
    ErrorReply,
    GamesRequest,
    PlayerGames,
    Replay,
    ReplayRequest,
    Start,
    Stats,
    StatsRequest,
)
from protocol import events as ev
from server.engine import Game, choice_to_dict, find_edition
from server.lobby import Lobby, LobbySettings, TableSettings
from server.services.clock import LoopClock
from server.store import SeatRecord, Store
from tests.lobby_client import Client
from tests.test_lobby import play_to_the_end

ANN, BOB, CY = "SHA256:ann", "SHA256:bob", "SHA256:cy"


def record_game(store: Store, seats: list[SeatRecord], *, private: bool = False) -> int:
    """A classic game for two played by the engine (first legal choices) and stored as the
    table stores one: seed, each action, the winners."""
    seed = 5
    game_id = store.start_game("classic", seats, seed=seed, private=private)
    game = Game(find_edition("classic"), 2, random.Random(seed))
    seq = 0
    while not game.game_over:
        if game.round_over:
            game.start_round()
        seat, choice = game.pending.seat, game.pending.choices[0]
        game.act(seat, choice)
        store.record_action(game_id, seq, seat, choice_to_dict(choice))
        seq += 1
    store.finish_game(game_id, game.game_winners)
    return game_id


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        for key, name in ((ANN, "ann"), (BOB, "bob"), (CY, "cy")):
            opened.claim_nickname(key, name, set())
        yield opened


@pytest.fixture
def lobby(store: Store) -> Lobby:
    return Lobby(LobbySettings(replay_burst=5), random.Random(1), store, clock=LoopClock())


def greeted(lobby: Lobby, name: str, key: str | None = None) -> Client:
    client = Client(lobby, name, key=key, guest=key is None)
    client.hello()
    return client


async def ask(client: Client, request: ReplayRequest | bytes) -> Replay | ErrorReply:
    seen = len(client.messages)
    if isinstance(request, bytes):
        client.attachment.receive(request)
    else:
        client.send(request)
    return await client.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, Replay | ErrorReply)), None)
    )


ANN_BOB = [SeatRecord(ANN, "ann"), SeatRecord(BOB, "bob")]


async def test_players_see_their_own_seat_and_everyone_the_public_view(
    store: Store, lobby: Lobby
) -> None:
    game_id = record_game(store, ANN_BOB)
    ann, bob, guest = greeted(lobby, "ann", ANN), greeted(lobby, "bob", BOB), greeted(lobby, "g")
    mine = await ask(ann, ReplayRequest(game_id, 0))
    assert isinstance(mine, Replay) and mine.seat == 0 and mine.round == 1
    assert [seat.name for seat in mine.seats] == ["ann", "bob"]
    assert mine.frames[0].actor is None and mine.frames[0].view.hand
    assert all(frame.view.viewer == 0 for frame in mine.frames)
    for client in (bob, guest):
        refused = await ask(client, ReplayRequest(game_id, 0))
        assert isinstance(refused, ErrorReply) and refused.code == "not_your_seat"
        public = await ask(client, ReplayRequest(game_id, None, 2))
        assert isinstance(public, Replay) and public.round == 2
        assert all(frame.view.hand == () for frame in public.frames)
        deals = [e for f in public.frames for e in f.events if isinstance(e, ev.Deal)]
        assert deals and all(deal.card is None for deal in deals)


async def test_unknown_unfinished_and_private_games_are_not_found(
    store: Store, lobby: Lobby
) -> None:
    private = record_game(store, ANN_BOB, private=True)
    unfinished = store.start_game("classic", ANN_BOB, seed=1)
    cy, ann = greeted(lobby, "cy", CY), greeted(lobby, "ann", ANN)
    for game_id in (private, unfinished, 999):
        refused = await ask(cy, ReplayRequest(game_id))
        assert isinstance(refused, ErrorReply) and refused.code == "no_such_game"
        assert refused.message == f"there is no finished game {game_id}"
    assert isinstance(await ask(ann, ReplayRequest(private)), Replay)
    assert isinstance(await ask(ann, ReplayRequest(private, 0)), Replay)
    beyond = await ask(ann, ReplayRequest(private, None, 1000))
    assert isinstance(beyond, ErrorReply) and beyond.code == "no_replay"


async def test_the_latest_public_games_are_listed_in_stats(store: Store, lobby: Lobby) -> None:
    public = record_game(store, ANN_BOB)
    record_game(store, ANN_BOB, private=True)
    store.start_game("classic", ANN_BOB, seed=1)
    guest = greeted(lobby, "g")
    guest.send(StatsRequest())
    stats = await guest.wait_for(lambda c: next((m for m in c.messages if isinstance(m, Stats)), 0))
    assert [game.game_id for game in stats.latest] == [public]
    assert stats.latest[0].players == ("ann", "bob")


async def test_bad_requests_get_an_error_and_too_many_are_refused(
    store: Store, lobby: Lobby
) -> None:
    game_id = record_game(store, ANN_BOB)
    ann = greeted(lobby, "ann", ANN)
    for bad in (0, -1, 2**63, "1"):
        frame = msgpack.packb({"type": "replay_request", "game_id": bad, "seat": None, "round": 1})
        refused = await ask(ann, frame)
        assert isinstance(refused, ErrorReply) and refused.code == "bad_field", bad
    answers = [await ask(ann, ReplayRequest(game_id)) for _ in range(6)]
    assert all(isinstance(answer, Replay) for answer in answers[:5])
    assert isinstance(answers[5], ErrorReply) and answers[5].code == "too_fast"


async def test_a_server_without_a_database_says_so() -> None:
    lobby = Lobby(LobbySettings(), random.Random(1), None, clock=LoopClock())
    refused = await ask(greeted(lobby, "ann", ANN), ReplayRequest(1))
    assert isinstance(refused, ErrorReply) and refused.code == "no_store"


async def test_a_leaders_public_games_are_listed_by_name(store: Store, lobby: Lobby) -> None:
    public = record_game(store, ANN_BOB)
    record_game(store, ANN_BOB, private=True)
    record_game(store, [SeatRecord(CY, "cy"), SeatRecord(None, "easy bot 2", "easy")])
    guest = greeted(lobby, "g")
    seen = len(guest.messages)
    guest.send(GamesRequest("ANN"))
    games = await guest.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, PlayerGames)), None)
    )
    assert [game.game_id for game in games.games] == [public]
    seen = len(guest.messages)
    guest.send(GamesRequest("nobody"))
    refused = await guest.wait_for(
        lambda c: next((m for m in c.messages[seen:] if isinstance(m, ErrorReply)), None)
    )
    assert refused.code == "no_such_player" and refused.message == "no player is called nobody"


async def test_a_game_at_a_private_table_is_replayed_only_by_its_players(store: Store) -> None:
    settings = LobbySettings(table=TableSettings(bot_delay=0, round_pause=0))
    lobby = Lobby(settings, random.Random(2), store, clock=LoopClock())
    ann, cy = greeted(lobby, "ann", ANN), greeted(lobby, "cy", CY)
    await ann.wait_for(lambda c: c.lobby)
    ann.send(CreateTable("secret", "classic", 2, None, (BotSpec(1, "easy"),), private=True))
    await ann.wait_for(lambda c: c.state)
    ann.send(Start())
    await play_to_the_end(ann)
    [game] = store.games(1)
    assert game.status == "finished" and game.private
    refused = await ask(cy, ReplayRequest(game.id))
    assert isinstance(refused, ErrorReply) and refused.code == "no_such_game"
    assert isinstance(await ask(ann, ReplayRequest(game.id)), Replay)
