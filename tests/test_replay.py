"""Games played through the lobby on a real SQLite file are rebuilt by the engine from their
seed and action log, event for event; the same game is rated for its two keyed players."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol import BotSpec, CreateTable, Join, Start
from server.engine import Event
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.rebuild import ReplayError, replay, replayed_events
from server.services.clock import LoopClock
from server.store import ActionLog, ActionRecord, EventRecord, SeatRecord, Store
from tests.lobby_client import Client
from tests.test_lobby import play_to_the_end

ANN, BOB = "SHA256:ann", "SHA256:bob"
INSTANT = TableSettings(bot_delay=0, grace=60, round_pause=0)
TABLE_ONLY = {"autoplay"}  # entries the table adds to the log; the engine never emits them


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        opened.claim_nickname(ANN, "ann", set())
        opened.claim_nickname(BOB, "bob", set())
        yield opened


def as_stored(event: Event) -> tuple:
    """An engine event as it reads back from the store (JSON: tuples become lists)."""
    secret = None if event.secret is None else json.loads(json.dumps(event.secret))
    return (event.kind, event.seat, json.loads(json.dumps(event.public)), secret, event.to)


def stored(record: EventRecord) -> tuple:
    return (record.kind, record.seat, record.public, record.secret, record.audience)


async def play_a_game(store: Store, seed: int, edition: str, bots: int) -> int:
    lobby = Lobby(LobbySettings(table=INSTANT), random.Random(seed), store, clock=LoopClock())
    ann = Client(lobby, "ann", key=ANN)
    bob = Client(lobby, "bob", key=BOB)
    ann.hello()
    bob.hello()
    levels = ("easy", "medium")
    specs = tuple(BotSpec(2 + i, levels[i % 2]) for i in range(bots))
    ann.send(CreateTable("ann's", edition, 2 + bots, None, specs))
    await ann.wait_for(lambda c: c.state)
    bob.send(Join(ann.state.info.code))
    await bob.wait_for(lambda c: c.state)
    ann.send(Start())
    await play_to_the_end(ann, bob)
    [game] = store.games(1)
    return game.id


@pytest.mark.parametrize(("seed", "edition", "bots"), [(3, "classic", 0), (5, "2019", 2)])
async def test_a_stored_game_replays_event_for_event(
    store: Store, seed: int, edition: str, bots: int
) -> None:
    game_id = await play_a_game(store, seed, edition, bots)
    log = store.game_log(game_id)
    assert log.game.status == "finished" and len(log.rounds) >= 2
    actions = store.action_log(game_id)
    assert actions.seed is not None and len(actions.actions) > len(log.rounds)
    rebuilt = [as_stored(event) for event in replayed_events(actions)]
    assert rebuilt == [stored(r) for r in log.events if r.kind not in TABLE_ONLY]
    steps = replay(actions)
    assert steps[0].seat is None and steps[0].events[0].kind == "round_start"
    assert [step.seat for step in steps[1:]] == [a.seat for a in actions.actions]


async def test_a_game_between_two_keyed_players_is_rated(store: Store) -> None:
    await play_a_game(store, 3, "classic", 0)
    ann, bob = store.rating(ANN), store.rating(BOB)
    assert ann.games == bob.games == 1 and ann.mu != bob.mu


def test_a_game_without_a_seed_or_with_a_wrong_action_is_refused(store: Store) -> None:
    game_id = store.start_game("classic", [SeatRecord(None, "a"), SeatRecord(None, "b")])
    with pytest.raises(ReplayError, match="without its seed"):
        replay(store.action_log(game_id))
    wrong = ActionLog("classic", 2, 7, [ActionRecord(0, 0, {"type": "redraw", "redraw": True})])
    with pytest.raises(ReplayError, match="action 0 does not apply"):
        replay(wrong)
