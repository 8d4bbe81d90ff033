"""The broker path in one test process: a real redis-server, the real core (`start_core`:
store, lobby, lease) and real `FrontEnd`s, with clients that decode every frame the apps
would get. The SSH processes on top of this are in test_scaling_process.py."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from redis_helpers import RedisServer, redis_server

from protocol import (
    PROTOCOL_VERSION,
    BotSpec,
    Chat,
    ClientMessage,
    CreateTable,
    Direction,
    ErrorReply,
    Hello,
    Lobby,
    Notice,
    ServerMessage,
    Start,
    TableState,
    Welcome,
    decode,
    encode,
)
from server.bus.broker import connect
from server.bus.core import NameBook
from server.bus.envelope import CORE_CHANNEL, LEASE_KEY, Kind, pack_batch
from server.bus.frontend import BACK, NOT_DELIVERED, RESTARTING, FrontEnd, RemoteAttachment
from server.commands.cluster import RunningCore, start_core
from server.lobby import Identity, LobbySettings, TableSettings
from server.ops.config import Config
from server.render.collector import YOUNG_THRESHOLD

TIMEOUT = 10.0
INSTANT = LobbySettings(table=TableSettings(bot_delay=0, round_pause=0, grace=60))


class Client:
    """What an app would receive, decoded; `send` as the app would."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.messages: list[ServerMessage] = []
        self.attachment: RemoteAttachment | None = None
        self._changed = asyncio.Event()

    def deliver(self, frame: bytes) -> None:
        self.messages.append(decode(frame, direction=Direction.TO_CLIENT))
        self._changed.set()

    def send(self, message: ClientMessage) -> None:
        assert self.attachment is not None
        self.attachment.receive(encode(message))

    async def wait_for(
        self, matches: Callable[[ServerMessage], bool], what: str, since: int = 0
    ) -> ServerMessage:
        """The first message from index `since` on that `matches`, waiting for it."""

        async def until() -> ServerMessage:
            while True:
                found = next((m for m in self.messages[since:] if matches(m)), None)
                if found is not None:
                    return found
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(until(), TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"{self.name}: no {what} in {self.messages[since:]}") from None


@asynccontextmanager
async def core(data_dir: Path, url: str, **settings: float) -> AsyncIterator[RunningCore]:
    config = Config(data_dir=data_dir, broker=url, core_lease=2.0, **settings)  # type: ignore[arg-type]
    with contextlib.redirect_stdout(io.StringIO()):
        running = await start_core(config, INSTANT)
    try:
        yield running
    finally:
        await running.stop(0)


@asynccontextmanager
async def frontend(url: str) -> AsyncIterator[FrontEnd]:
    front = FrontEnd(url)
    front.start()
    await asyncio.wait_for(front.core_found.wait(), TIMEOUT)
    try:
        yield front
    finally:
        await front.stop()


async def login(front: FrontEnd, name: str) -> Client:
    """A guest logs in on `front` (admitted by the core), says hello, reaches the lobby."""
    client = Client(name)
    admission = await front.admit(None, "127.0.0.1", name, {})
    assert admission.refusal is None, admission.refusal
    identity = Identity(f"guest:{secrets.token_hex(8)}", admission.name, True, "127.0.0.1")
    client.attachment = front.attach(identity, client.deliver, admission.notice)
    client.send(Hello(PROTOCOL_VERSION, name))
    await client.wait_for(lambda m: isinstance(m, Welcome), "welcome")
    return client


def online_with(*names: str) -> Callable[[ServerMessage], bool]:
    return lambda m: isinstance(m, Lobby) and set(names) <= set(m.online)


def test_the_name_book_holds_no_two_names_that_look_alike() -> None:
    book = NameBook()
    assert book.claim("victim", "key:victim", ("one", "s1")) == "victim"
    assert book.claim("vıctım", "key:other", ("two", "s2")) == "vıctım-2"  # dotless ı
    book.release("victim", ("one", "s1"))
    assert book.claim("VICTIM", None, ("two", "s3")) == "VICTIM"


async def test_players_on_two_front_ends_share_one_lobby_and_unique_names(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        core(tmp_path, redis.url),
        frontend(redis.url) as one,
        frontend(redis.url) as two,
    ):
        ana = await login(one, "ana")
        other = await login(two, "ana")
        assert other.attachment is not None
        assert other.attachment.identity.name == "ana-2", "names are unique across front-ends"
        notice = await other.wait_for(lambda m: isinstance(m, Notice), "why ana-2")
        assert "Someone called ana is playing" in notice.text  # type: ignore[union-attr]
        await ana.wait_for(online_with("ana", "ana-2"), "both online")
        ana.send(CreateTable("mine", "2019", 2))
        state = await ana.wait_for(lambda m: isinstance(m, TableState), "the table")
        code = state.info.code  # type: ignore[union-attr]
        await other.wait_for(
            lambda m: isinstance(m, Lobby) and any(t.code == code for t in m.tables),
            "ana's table in the lobby list on the other front-end",
        )


async def test_while_no_core_runs_frames_are_not_delivered_and_a_new_core_welcomes_back(
    tmp_path: Path,
) -> None:
    async with redis_server() as redis, frontend_after_core(tmp_path, redis) as (one, running):
        ana = await login(one, "ana")
        await running.stop(0)
        await ana.wait_for(lambda m: isinstance(m, Notice) and m.text == RESTARTING, "restart")
        seen = len(ana.messages)
        ana.send(Chat("hello?"))
        refused = await ana.wait_for(lambda m: isinstance(m, ErrorReply), "refusal", seen)
        assert refused == ErrorReply("not_delivered", NOT_DELIVERED)
        async with core(tmp_path, redis.url):
            await ana.wait_for(lambda m: isinstance(m, Welcome), "welcome again", seen)
            await ana.wait_for(lambda m: isinstance(m, Notice) and m.text == BACK, "back", seen)
            await ana.wait_for(online_with("ana"), "the lobby again", seen)


@asynccontextmanager
async def frontend_after_core(
    data_dir: Path, redis: RedisServer
) -> AsyncIterator[tuple[FrontEnd, RunningCore]]:
    """A front-end attached to a core that the test may stop (stopped at the end if not)."""
    config = Config(data_dir=data_dir, broker=redis.url, core_lease=2.0)
    with contextlib.redirect_stdout(io.StringIO()):
        running = await start_core(config, INSTANT)
    async with frontend(redis.url) as front:
        try:
            yield front, running
        finally:
            await running.stop(0)


async def test_a_silent_front_end_drops_its_players_and_holds_their_seats(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        core(tmp_path, redis.url, frontend_timeout=1.0) as c,
        frontend(redis.url) as one,
    ):
        dying = FrontEnd(redis.url)
        dying.start()
        await asyncio.wait_for(dying.core_found.wait(), TIMEOUT)
        ana = await login(one, "ana")
        bo = await login(dying, "bo")
        bo.send(CreateTable("bo's", "2019", 2, bots=(BotSpec(1, "easy"),)))
        await bo.wait_for(lambda m: isinstance(m, TableState), "bo's table")
        seen = len(bo.messages)
        bo.send(Start())
        await bo.wait_for(
            lambda m: isinstance(m, TableState) and m.view is not None, "the game", seen
        )
        await ana.wait_for(online_with("ana", "bo"), "bo online")
        seen = len(ana.messages)
        await dying.broker.close()  # as if killed: no goodbye, no more heartbeats
        assert dying._beats is not None
        dying._beats.cancel()
        await ana.wait_for(
            lambda m: isinstance(m, Lobby) and "bo" not in m.online, "bo dropped", seen
        )
        (table,) = c.lobby.tables.values()
        assert table.seating.seats[0].held is not None, "bo's seat is held for the grace"


async def test_redis_restarting_tells_players_and_they_come_back_to_their_seats(
    tmp_path: Path,
) -> None:
    async with (
        redis_server() as redis,
        core(tmp_path, redis.url, frontend_timeout=1.0),  # ana counts as dropped meanwhile
        frontend(redis.url) as one,
    ):
        ana = await login(one, "ana")
        ana.send(CreateTable("ana's", "2019", 2, bots=(BotSpec(1, "easy"),)))
        first = await ana.wait_for(lambda m: isinstance(m, TableState), "the table")
        seen = len(ana.messages)
        ana.send(Start())  # a seat in a running game is held when its player drops
        await ana.wait_for(
            lambda m: isinstance(m, TableState) and m.view is not None, "the game", seen
        )
        await redis.kill()
        await ana.wait_for(lambda m: isinstance(m, Notice) and m.text == RESTARTING, "restart")
        seen = len(ana.messages)
        ana.send(Chat("anyone?"))
        await ana.wait_for(lambda m: isinstance(m, ErrorReply), "not delivered", seen)
        await redis.start()
        await ana.wait_for(lambda m: isinstance(m, Welcome), "welcome again", seen)
        again = await ana.wait_for(lambda m: isinstance(m, TableState), "the seat again", seen)
        assert again.info.code == first.info.code  # type: ignore[union-attr]
        assert again.info.you == 0, "the guest has their seat back"  # type: ignore[union-attr]


async def test_the_core_paces_its_collections_like_a_front_end(tmp_path: Path) -> None:
    """Its whole collections would stop every table at once (85-266 ms at 1,000 players)."""
    before = gc.get_threshold()
    async with redis_server() as redis, core(tmp_path, redis.url):
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


async def test_a_core_whose_lease_another_core_took_stops(tmp_path: Path) -> None:
    async with redis_server() as redis, core(tmp_path, redis.url) as running:
        client = connect(redis.url)
        try:
            await client.set(LEASE_KEY, "another core")
            await asyncio.wait_for(running.lost.wait(), TIMEOUT)
            assert await client.get(LEASE_KEY) == b"another core", "left to the other core"
        finally:
            await client.aclose()


async def test_garbage_on_the_core_channel_is_logged_and_changes_nothing(tmp_path: Path) -> None:
    async with redis_server() as redis, core(tmp_path, redis.url), frontend(redis.url) as one:
        client = connect(redis.url)
        try:
            assert await client.publish(CORE_CHANNEL, b"\xc1 not msgpack") == 1
            bad = pack_batch([(99,), (Kind.FRAME,), (Kind.DETACH, "x", "y", "z")])
            assert await client.publish(CORE_CHANNEL, bad) == 1
        finally:
            await client.aclose()
        ana = await login(one, "ana")
        await ana.wait_for(online_with("ana"), "the lobby")
