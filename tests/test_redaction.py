"""The redaction guarantee: no frame carries a card its receiver may not know at that moment.

Games run through the real lobby and table runtime. Every seat is played either by a table bot
or by an in-process client choosing at random from the choices it is sent; a spectator watches
every table. Each frame's bytes are unpacked in the receiver's sink and every field it carries
is checked against the true state. The first game at each table also decodes each frame as a
client would (validation costs a third of the test's time and is the protocol tests' subject).
"""

from __future__ import annotations

import asyncio
import random
from itertools import cycle

import msgpack
import pytest

from protocol import (
    AddBot,
    CreateTable,
    Direction,
    Hello,
    Rematch,
    Sit,
    Spectate,
    Stand,
    Start,
    TableState,
    decode,
    encode,
    from_wire,
)
from protocol.registry import VIEW
from protocol.version import PROTOCOL_VERSION
from server.engine import EDITIONS, Game
from server.engine.event_catalogue import check_event as catalogue_check
from server.lobby import Identity, Lobby, LobbySettings, TableSettings
from server.services.clock import LoopClock
from server.services.views import wire_view

GAMES = 1000
CONFIGS = [(e.id, n) for e in EDITIONS.values() for n in range(e.min_players, e.max_players + 1)]
TABLE_KEYS = {"type", "info", "view", "events", "countdown", "guide"}
SEAT_KEYS = {"alive", "protected", "discards", "hand_size", "tokens"}


class Leak(AssertionError):
    """A frame told its receiver something it may not know."""


def check_frame(state: dict, game: Game | None, seat: int | None) -> None:
    """Raise Leak if this table update (as sent: a map) shows `seat` (None: a spectator) too
    much."""
    if set(state) != TABLE_KEYS:
        raise Leak(f"seat {seat} was sent unexpected table fields {set(state) ^ TABLE_KEYS}")
    if state["guide"] is not None:
        raise Leak(f"seat {seat} was sent a tutorial's guide at a table that is no tutorial")
    for event in state["events"]:
        check_event(event, seat)
    if state["view"] is not None and game is not None:
        check_view(state["view"], game, seat)


def check_event(event: dict, seat: int | None) -> None:
    """Raise Leak unless `event` is exactly as the event catalogue lists its kind, its private
    fields present if and only if `seat` may see them."""
    wrong = catalogue_check(event, seat)
    if wrong is not None:
        raise Leak(f"seat {seat} was sent {event}: {wrong}")


def check_view(view: dict, game: Game, seat: int | None) -> None:
    truth = [c.id for c in game.hands[seat]] if seat is not None else []
    if view["hand"] != truth:
        raise Leak(f"seat {seat} was sent hand {view['hand']}, holds {truth}")
    for index, shown in enumerate(view["seats"]):
        if set(shown) != SEAT_KEYS:
            raise Leak(f"seat {seat} was sent extra seat fields {set(shown) - SEAT_KEYS}")
        if shown["discards"] != [c.id for c in game.discards[index]]:
            raise Leak(f"seat {seat} was sent wrong discards for seat {index}")
    if view["face_up"] != [c.id for c in game.face_up]:
        raise Leak(f"seat {seat} was sent face-up cards that are not face up")
    deciding = game.pending is not None and game.pending.seat == seat
    if view["choices"] and not deciding:
        raise Leak(f"seat {seat} was sent another seat's choices")


class Receiver:
    """A seat's or spectator's client: checks every frame, and plays at random when asked."""

    def __init__(self, lobby: Lobby, name: str, rng: random.Random, play: bool) -> None:
        self.rng, self.play = rng, play
        self.frames = 0
        self.validate = True
        """Decode every frame as a client does, too (valid messages, not only no leak)."""
        self.errors: list[str] = []
        self.attachment = lobby.attach(Identity(f"SHA256:{name}", name), self._on_frame)
        self.finished = asyncio.Event()

    def send(self, message: object) -> None:
        self.attachment.receive(encode(message))

    def _on_frame(self, frame: bytes) -> None:
        if self.validate:
            decode(frame, direction=Direction.TO_CLIENT)
        state = msgpack.unpackb(frame)
        if state["type"] != TableState.TYPE:
            return
        self.frames += 1
        info = state["info"]
        if info["status"] == "finished":
            self.finished.set()
        table = self.attachment.session.table
        check_frame(state, table.game if table else None, info["you"])
        view = state["view"]
        if self.play and view and view["choices"]:
            choice = self.rng.choice(view["choices"])
            decision = (view.get("pending") or {}).get("decision")
            wire = {"type": "act", "choice": choice, "decision": decision}
            act = from_wire(wire, Direction.TO_SERVER)
            asyncio.get_running_loop().call_soon(self.send, act)


async def run_table(lobby: Lobby, edition: str, players: int, games: int, rng: random.Random):
    """Play `games` games at one table; return how many frames were checked."""
    host = Receiver(lobby, f"host-{edition}-{players}", rng, play=False)
    host.send(Hello(PROTOCOL_VERSION, "host"))
    host.send(CreateTable("redaction", edition, players))
    table = host.attachment.session.table
    host.send(Stand())  # the host watches; seats are filled below
    humans = []
    levels = cycle([None, "easy", "medium"])  # seat 0 is always a client
    for seat in range(players):
        level = next(levels)
        if level is None:
            human = Receiver(lobby, f"p{seat}-{edition}-{players}", rng, play=True)
            human.send(Hello(PROTOCOL_VERSION, "p"))
            human.send(Spectate(table.code))
            human.send(Sit(seat))
            humans.append(human)
        else:
            host.send(AddBot(seat, level))
    for game in range(games):
        host.finished.clear()  # the host stood up: it is the table's spectator
        if game == 0:
            host.send(Start())
        else:  # a rematch starts once every human at the table says ready
            for human in humans:
                human.send(Rematch())
        await asyncio.wait_for(host.finished.wait(), 60)
        for receiver in [host, *humans]:
            receiver.validate = False
    return sum(r.frames for r in [host, *humans])


TABLES_PER_CONFIG = 2
"""Tables (each its own test) for each edition and player count: short tests, which the two
workers share evenly (a whole edition in one test made one worker run alone at the end)."""
PER_TABLE = -(-GAMES // (len(CONFIGS) * TABLES_PER_CONFIG))
"""Games at each table: at least GAMES in all, over every edition and player count."""
TABLES = [(e, n, t) for e, n in CONFIGS for t in range(TABLES_PER_CONFIG)]


@pytest.mark.parametrize(("edition", "players", "table"), TABLES)
async def test_no_frame_leaks_across_a_thousand_games(
    edition: str, players: int, table: int
) -> None:
    """One table's share of the thousand games."""
    lobby = Lobby(
        LobbySettings(table=TableSettings(bot_delay=0, grace=60, round_pause=0)), clock=LoopClock()
    )
    rng = random.Random(f"2024-{edition}-{players}-{table}")
    frames = await run_table(lobby, edition, players, PER_TABLE, rng)
    assert frames > PER_TABLE * 20


def test_the_editions_play_a_thousand_games_in_all() -> None:
    assert len(TABLES) * PER_TABLE >= GAMES


def sent_view(game: Game, seat: int) -> dict:
    """The wire map of the view the table sends `seat` now."""
    return VIEW.dump(wire_view(game.view(seat)))


def test_the_checker_catches_a_leak() -> None:
    game = Game(EDITIONS["2019"], 3, random.Random(1))
    game.start_round(start=0)
    leaky_view = sent_view(game, 1)
    leaky_view["hand"] = [c.id for c in game.hands[0]]  # seat 0's hand sent to seat 1
    with pytest.raises(Leak):
        check_view(leaky_view, game, 1)
    private = next(e for e in game.events if e.kind == "draw")
    with pytest.raises(Leak):
        check_event({**private.public, "kind": "draw", "seat": 0, **private.secret}, 1)
    with pytest.raises(Leak):
        check_event({"kind": "protected", "seat": 0, "card": "king"}, 2)
    check_event(private.for_seat(0), 0)
    check_view(sent_view(game, 1), game, 1)
    frame = {"type": "table", "info": {}, "view": sent_view(game, 1), "events": [], "guide": None}
    frame["countdown"] = None
    check_frame(frame, game, 1)
    with pytest.raises(Leak):
        check_frame({**frame, "guide": "Bo holds the Princess"}, game, 1)
    with pytest.raises(Leak):
        check_frame({**frame, "view": leaky_view}, game, 1)
    with pytest.raises(Leak):
        check_frame({**frame, "hands": [c.id for c in game.hands[0]]}, game, 1)
