"""The lobby and tables through in-process sessions that send and receive real frames."""

from __future__ import annotations

import asyncio
import random

import msgpack
import pytest

from protocol import (
    Act,
    AddBot,
    BotSpec,
    Chat,
    ChatLine,
    CreateTable,
    Direction,
    Join,
    Leave,
    Rematch,
    Spectate,
    Start,
    TableState,
    Welcome,
    from_wire,
)
from protocol import (
    Lobby as LobbyMessage,
)
from server.lobby import Lobby, LobbySettings, Session, TableSettings
from tests.lobby_client import Client

INSTANT = TableSettings(bot_delay=0, grace=60, round_pause=0)


@pytest.fixture
def lobby() -> Lobby:
    return Lobby(LobbySettings(table=INSTANT, motd="be kind"), random.Random(1))


def act_message(choice: dict) -> Act:
    """The Act message for one of the view's choice dicts."""
    return from_wire({"type": "act", "choice": choice}, Direction.TO_SERVER)


async def greeted(lobby: Lobby, name: str, **kwargs) -> Client:
    client = Client(lobby, name, **kwargs)
    client.hello()
    await client.wait_for(lambda c: c.lobby)
    return client


async def play_to_the_end(*clients: Client) -> None:
    """Each client takes its first legal choice and continues after rounds until game over."""

    def actionable(client: Client) -> bool:
        return client.my_turn() or client.state.info.status in ("round_over", "finished")

    while not all(c.finished() for c in clients):
        await clients[0].wait_for(lambda _: any(actionable(c) for c in clients))
        for client in clients:
            if client.my_turn():
                client.send(act_message(client.state.view["choices"][0]))
            client.continue_if_between_rounds()


async def test_hello_gets_welcome_and_lobby(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    welcome = next(m for m in ana.messages if isinstance(m, Welcome))
    assert (welcome.name, welcome.motd, welcome.guest) == ("ana", "be kind", False)
    assert welcome.timer == 90
    assert ana.lobby.online == ("ana",)


async def test_welcome_offers_the_servers_turn_timer() -> None:
    for timer in (30, None):
        lobby = Lobby(LobbySettings(table=INSTANT, default_timer=timer))
        ana = await greeted(lobby, "ana")
        assert next(m for m in ana.messages if isinstance(m, Welcome)).timer == timer


async def test_messages_before_hello_are_refused(lobby: Lobby) -> None:
    ana = Client(lobby, "ana")
    ana.send(CreateTable("t", "2019", 4))
    await ana.wait_for(lambda c: c.errors())
    assert ana.errors()[0].code == "hello_first"
    assert not lobby.tables


async def test_a_human_plays_a_whole_game_against_bots(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("ana's", "2019", 4, None, (BotSpec(1, "easy"), BotSpec(2, "medium"))))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())  # seat 3 is filled by an easy bot
    await play_to_the_end(ana)
    state = ana.state
    assert state.view["game_over"]
    assert any(t >= state.view["target"] for t in state.view["tokens"])
    kinds = {event["kind"] for event in ana.events}
    assert {"round_start", "deal", "draw", "play", "round_end", "game_end"} <= kinds
    assert [s.bot for s in state.info.seats] == [None, "easy", "medium", "easy"]


async def test_illegal_and_out_of_turn_actions_are_refused_and_change_nothing(
    lobby: Lobby,
) -> None:
    ana = await greeted(lobby, "ana")
    bo = await greeted(lobby, "bo")
    ana.send(CreateTable("t", "classic", 2))
    await ana.wait_for(lambda c: c.state)
    bo.send(Join(ana.state.info.code))
    await bo.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.my_turn() or bo.my_turn())
    mover, waiter = (ana, bo) if ana.my_turn() else (bo, ana)
    frames_before = (len(mover.frames), len(waiter.frames))
    waiter.send(act_message(mover.state.view["choices"][0]))
    mover.send(
        act_message({"type": "play", "card": "princess_of_mars", "targets": [], "guess": None})
    )
    mover.send(act_message({"type": "look", "seat": 0}))
    mover.attachment.receive(b"\xc1garbage")
    await mover.wait_for(lambda c: len(c.errors()) == 3)
    assert [e.code for e in waiter.errors()] == ["not_your_turn"]
    assert [e.code for e in mover.errors()] == ["illegal_choice", "illegal_choice", "malformed"]
    assert (len(mover.frames), len(waiter.frames)) == (frames_before[0] + 3, frames_before[1] + 1)


async def test_table_updates_reach_members_and_the_list_reaches_the_lobby(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    idle = await greeted(lobby, "idle")
    ana.send(CreateTable("t", "2019", 3))
    await idle.wait_for(lambda c: c.lobby and c.lobby.tables)
    assert idle.state is None
    summary = idle.lobby.tables[0]
    assert (summary.edition, summary.seats, summary.taken) == ("2019", 3, 1)
    lobby_updates = sum(isinstance(m, LobbyMessage) for m in ana.messages)
    ana.send(AddBot(1, "easy"))
    await ana.wait_for(lambda c: c.state.info.seats[1].bot == "easy")
    assert sum(isinstance(m, LobbyMessage) for m in ana.messages) == lobby_updates


async def test_one_update_per_step_per_session(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("t", "2019", 2))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.my_turn())
    before = len(ana.messages)
    ana.send(act_message(ana.state.view["choices"][0]))
    await ana.wait_for(lambda c: len(c.messages) > before)
    first = ana.messages[before]
    assert isinstance(first, TableState)
    assert first.events[0]["kind"] == "play"


async def test_spectators_and_chat(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    eve = await greeted(lobby, "eve")
    ana.send(CreateTable("t", "premium", 5))
    await ana.wait_for(lambda c: c.state)
    eve.send(Spectate(ana.state.info.code))
    await eve.wait_for(lambda c: c.state)
    hostile = msgpack.packb({"type": "chat", "text": "hi \x1b[31mred\x1b]8;;x\x07"})
    ana.attachment.receive(hostile)
    await ana.wait_for(lambda c: c.errors())
    assert ana.errors()[0].code == "bad_field"
    ana.send(Chat("  [b]there[/b]\u202e  "))
    line = await eve.wait_for(lambda c: next((m for m in c.messages if isinstance(m, ChatLine)), 0))
    assert (line.scope, line.sender, line.text) == ("table", "ana", "[b]there[/b]")
    assert sum(isinstance(m, ChatLine) for m in eve.messages) == 1
    assert eve.state.info.spectators == ("eve",)
    assert eve.state.info.you is None


async def test_disconnect_holds_the_seat_and_reconnect_gets_it_back(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana", key="SHA256:ana-key")
    ana.send(CreateTable("t", "2019", 3))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    code = ana.state.info.code
    ana.attachment.detach()
    table = lobby.tables[code]
    assert table.seats[0].identity == "SHA256:ana-key" and table.seats[0].session is None
    again = Client(lobby, "ana", key="SHA256:ana-key")
    again.hello()
    await again.wait_for(lambda c: c.state)
    assert again.state.info.you == 0
    assert again.events[0]["kind"] == "round_start", "the full log is replayed"
    assert again.state.view["hand"]


async def test_grace_expiry_gives_the_seat_to_a_bot_and_empty_tables_close() -> None:
    lobby = Lobby(LobbySettings(table=TableSettings(bot_delay=0, grace=0, round_pause=0)))
    ana = await greeted(lobby, "ana")
    watcher = await greeted(lobby, "watcher")
    ana.send(CreateTable("t", "classic", 2))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    ana.attachment.detach()
    await watcher.wait_for(lambda c: not c.lobby.tables)
    assert not lobby.tables


async def test_turn_timer_lets_a_bot_play_and_marks_it(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("t", "2019", 2, timer=1))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: any(e["kind"] == "autoplay" for e in c.events))
    autoplay = next(e for e in ana.events if e["kind"] == "autoplay")
    assert (autoplay["seat"], autoplay["reason"]) == (0, "timeout")


async def test_rematch_after_game_over(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("t", "classic", 2))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await play_to_the_end(ana)
    ana.events.clear()
    ana.send(Rematch())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    assert ana.events[0]["kind"] == "round_start"
    assert ana.state.view["round"] == 1


async def test_leave_mid_game_hands_the_seat_to_a_bot(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    bo = await greeted(lobby, "bo")
    ana.send(CreateTable("t", "2019", 2))
    await ana.wait_for(lambda c: c.state)
    bo.send(Join(ana.state.info.code))
    await bo.wait_for(lambda c: c.state)
    ana.send(Start())
    await bo.wait_for(lambda c: c.state.info.status == "playing")
    ana.send(Leave())
    await ana.wait_for(lambda c: isinstance(c.messages[-1], LobbyMessage))
    await bo.wait_for(lambda c: c.state.info.seats[0].bot == "medium")
    await play_to_the_end(bo)
    assert bo.finished()


async def test_chat_is_rate_limited_per_session() -> None:
    lobby = Lobby(LobbySettings(table=INSTANT, chat_burst=3, chat_interval=60))
    ana = await greeted(lobby, "ana")
    bo = await greeted(lobby, "bo")
    for n in range(5):
        ana.send(Chat(f"line {n}"))
    await bo.wait_for(lambda c: sum(isinstance(m, ChatLine) for m in c.messages) == 3)
    assert [e.code for e in ana.errors()] == ["chat_rate", "chat_rate"]
    bo.send(Chat("my own budget"))
    await ana.wait_for(lambda c: any(getattr(m, "sender", "") == "bo" for m in c.messages))


async def test_idle_sessions_in_the_lobby_are_closed_but_not_at_a_table() -> None:
    closed: list[tuple[str, str]] = []
    first_close = asyncio.Event()

    def close(session: Session, reason: str) -> None:
        closed.append((session.name, reason))
        first_close.set()

    lobby = Lobby(LobbySettings(table=INSTANT, lobby_idle=0.05))
    lobby.close_session = close
    await greeted(lobby, "idle")
    seated = await greeted(lobby, "seated")
    seated.send(CreateTable("t", "2019", 2))
    await seated.wait_for(lambda c: c.state)
    await asyncio.wait_for(first_close.wait(), 5)
    assert closed[0][0] == "idle" and "idle" in closed[0][1]
    assert all(name != "seated" for name, _ in closed)


async def test_a_player_back_in_time_makes_their_own_decision() -> None:
    lobby = Lobby(LobbySettings(table=TableSettings(bot_delay=0.3, grace=60, round_pause=0)))
    ana = await greeted(lobby, "ana", key="SHA256:ana")
    ana.send(CreateTable("t", "2019", 2, None))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.my_turn(), timeout=10)
    table = next(iter(lobby.tables.values()))
    step = table.step
    ana.attachment.detach()
    again = Client(lobby, "ana", key="SHA256:ana")
    again.hello()
    await again.wait_for(lambda c: c.my_turn())
    bot_played = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.call_later(0.6, bot_played.set)  # twice the bot's delay: it would have acted by then
    await bot_played.wait()
    assert table.step == step, "the takeover bot must not play once its player is back"
