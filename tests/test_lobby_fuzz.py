"""Hostile frames into a running lobby: a clear error to the sender, and nothing else changes."""

from __future__ import annotations

import random

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import (
    Act,
    CreateTable,
    Direction,
    ErrorReply,
    PlayChoice,
    ProtocolError,
    Start,
    decode,
    encode,
)
from server.lobby import Lobby, LobbySettings, TableSettings
from server.services.clock import LoopClock
from tests.lobby_client import Client

VALID_FRAMES = [
    msgpack.packb({"type": "chat", "text": "hello"}),
    msgpack.packb({"type": "join", "code": "ABCD"}),
    msgpack.packb({"type": "act", "choice": {"type": "play", "card": "guard", "targets": [1]}}),
    msgpack.packb({"type": "create_table", "name": "x", "edition": "2019", "seats": 4}),
]


def snapshot(lobby: Lobby) -> object:
    """Everything a frame could change: tables, their games as spectators see them, sessions."""
    return (
        len(lobby.sessions),
        [
            (t.summary(), t.game.view(None) if t.game else None, len(t.runner.log))
            for t in lobby.tables.values()
        ],
    )


def mutate(frame: bytes, data: st.DataObject) -> bytes:
    """Flip, cut or insert bytes of a valid frame."""
    raw = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4))):
        how = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
        if how == "flip" and raw:
            raw[at] ^= 1 << data.draw(st.integers(0, 7))
        elif how == "cut":
            del raw[at:]
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    return bytes(raw)


async def running_lobby() -> tuple[Lobby, Client]:
    lobby = Lobby(
        LobbySettings(table=TableSettings(bot_delay=60, round_pause=60)), clock=LoopClock()
    )
    ana = Client(lobby, "ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 3))
    ana.send(Start())
    await ana.wait_for(lambda c: c.state and c.state.info.status == "playing")
    return lobby, ana


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
async def test_invalid_frames_get_an_error_and_change_nothing(data: st.DataObject) -> None:
    lobby, ana = await running_lobby()
    other = Client(lobby, "bo")
    other.hello()
    await other.wait_for(lambda c: c.lobby)
    if data.draw(st.booleans()):
        frame = data.draw(st.binary(max_size=256))
    else:
        frame = mutate(data.draw(st.sampled_from(VALID_FRAMES)), data)
    try:
        decode(frame, direction=Direction.TO_SERVER)
    except ProtocolError:
        pass
    else:
        return  # still a valid message: handled like any other
    before, sent_to_other = snapshot(lobby), len(other.frames)
    ana.attachment.receive(frame)
    assert snapshot(lobby) == before
    assert len(other.frames) == sent_to_other
    assert isinstance(ana.messages[-1], ErrorReply)


async def test_frames_larger_than_the_limit_are_refused() -> None:
    lobby, ana = await running_lobby()
    before = snapshot(lobby)
    ana.attachment.receive(msgpack.packb({"type": "chat", "text": "x" * 100_000}))
    assert snapshot(lobby) == before
    assert ana.messages[-1].code in ("too_large", "too_long")


async def test_valid_but_illegal_requests_change_nothing() -> None:
    lobby, ana = await running_lobby()
    rng = random.Random(4)
    before = snapshot(lobby)
    for _ in range(50):
        card, target = rng.choice(["guard", "king", "spy"]), rng.randrange(3)
        choice = PlayChoice(card, (target,), rng.choice([None, "priest"]))
        if choice in ana.state.view.choices:
            continue
        ana.attachment.receive(encode(Act(choice)))
    assert snapshot(lobby) == before
    assert all(isinstance(m, ErrorReply) for m in ana.messages[-10:])
