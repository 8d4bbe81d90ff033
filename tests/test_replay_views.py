"""A scripted session on a real SQLite file: every game it stored is replayed through the
protocol, and each step's view and events, for each seat and for a spectator, are what that
receiver was sent while the game was played."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol import (
    BotSpec,
    CreateTable,
    ErrorReply,
    Join,
    Leave,
    Message,
    Replay,
    ReplayRequest,
    Spectate,
    Start,
    TableState,
    View,
)
from server.lobby import Lobby, LobbySettings, TableSettings
from server.services.clock import LoopClock
from server.store import Store
from tests.lobby_client import Client
from tests.test_lobby import play_to_the_end

ANN, BOB = "SHA256:ann", "SHA256:bob"
INSTANT = TableSettings(bot_delay=0, grace=60, round_pause=0)
GAMES = [("classic", 2), ("2019", 4), ("premium", 5), ("ppea", 3)]  # edition, seats


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        opened.claim_nickname(ANN, "ann", set())
        opened.claim_nickname(BOB, "bob", set())
        yield opened


def game_frames(client: Client, start: int, end: int) -> list[TableState]:
    """The table updates among `client`'s messages `start:end` that carried a game."""
    return [m for m in client.messages[start:end] if isinstance(m, TableState) and m.view]


async def play_game(lobby: Lobby, clients: list[Client], edition: str, seats: int) -> list[int]:
    """ann hosts, bob joins, bots fill the other seats, the guest watches; played to the end,
    then everyone leaves. Where each client's messages of this game start."""
    ann, bob, watcher = clients
    starts = [len(c.messages) for c in clients]
    bots = tuple(BotSpec(seat, "medium") for seat in range(2, seats))
    ann.send(CreateTable(f"{edition} game", edition, seats, None, bots))
    await ann.wait_for(lambda c: len(c.messages) > starts[0] and c.state)
    code = ann.state.info.code
    bob.send(Join(code))
    watcher.send(Spectate(code))
    await bob.wait_for(lambda c: c.state and c.state.info.code == code)
    await watcher.wait_for(lambda c: c.state and c.state.info.code == code)
    ann.send(Start())
    await play_to_the_end(ann, bob)
    await watcher.wait_for(lambda c: c.state.info.status == "finished")
    for client in clients:
        client.send(Leave())
    return starts


async def replayed(client: Client, game_id: int, seat: int | None) -> list[Replay]:
    """Every round of the game's replay from `seat`'s view, asked for through the lobby."""
    rounds: list[Replay] = []
    number = 1
    while not rounds or number <= rounds[-1].rounds:
        seen = len(client.messages)
        client.send(ReplayRequest(game_id, seat, number))
        reply = await client.wait_for(lambda c, seen=seen: answer(c.messages[seen:]))
        assert isinstance(reply, Replay), reply
        rounds.append(reply)
        number += 1
    return rounds


def answer(messages: list[Message]) -> Replay | ErrorReply | None:
    """The first replay or error among `messages`."""
    return next((m for m in messages if isinstance(m, Replay | ErrorReply)), None)


def unnumbered(view: View | None) -> View | None:
    """`view` without its decision's id (the table's count; a replay's is the frame's index)."""
    if view is None or view.pending is None:
        return view
    return dataclasses.replace(view, pending=dataclasses.replace(view.pending, decision=0))


def check_against_sent(rounds: list[Replay], sent: list[TableState]) -> None:
    """Each update sent shows the replay's view at the step its events reach, and the
    events sent are the replay's, in order; every step was sent."""
    steps, events, reached = [], [], {}
    for reply in rounds:
        for frame in reply.frames:
            events.extend(frame.events)
            reached[len(events)] = len(steps)
            steps.append(frame.view)
    received: list[dict] = []
    shown = set()
    for state in sent:
        received.extend(state.events)
        step = reached[len(received)]
        assert unnumbered(state.view) == unnumbered(steps[step]), f"step {step}"
        shown.add(step)
    assert received == events
    assert shown == set(range(len(steps)))


async def test_every_stored_game_replays_as_each_receiver_saw_it(store: Store) -> None:
    settings = LobbySettings(table=INSTANT, replay_burst=1000)
    lobby = Lobby(settings, random.Random(11), store, clock=LoopClock())
    clients = [
        Client(lobby, "ann", key=ANN),
        Client(lobby, "bob", key=BOB),
        Client(lobby, "guest", guest=True),
    ]
    for client in clients:
        client.hello()
    starts = [await play_game(lobby, clients, edition, seats) for edition, seats in GAMES]
    starts.append([len(c.messages) for c in clients])
    games = sorted(store.games(10), key=lambda game: game.id)
    assert [game.edition for game in games] == [edition for edition, _ in GAMES]
    # they left each table after its game: the finished game is still theirs (not a bot's)
    assert all([s.identity for s in game.seats[:2]] == [ANN, BOB] for game in games)
    assert len(store.recent_games(ANN)) == len(GAMES)
    for number, game in enumerate(games):
        for index, (client, seat) in enumerate(zip(clients, (0, 1, None), strict=True)):
            sent = game_frames(client, starts[number][index], starts[number + 1][index])
            assert sent[-1].view.game_over
            check_against_sent(await replayed(client, game.id, seat), sent)
