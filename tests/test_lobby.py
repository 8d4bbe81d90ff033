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
    Choice,
    CreateTable,
    Hello,
    Join,
    Leave,
    LookChoice,
    Notice,
    PlayChoice,
    Rematch,
    Spectate,
    Start,
    TableState,
    Welcome,
)
from protocol import (
    Lobby as LobbyMessage,
)
from protocol.version import PROTOCOL_VERSION
from server.bots import LEVELS
from server.engine import EDITIONS
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.lobby import REPLACED
from server.services.clock import LoopClock
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

INSTANT = TableSettings(bot_delay=0, grace=60, round_pause=0)


@pytest.fixture
def lobby() -> Lobby:
    return Lobby(LobbySettings(table=INSTANT, motd="be kind"), random.Random(1), clock=LoopClock())


def act_message(choice: Choice) -> Act:
    """The Act message for one of the view's choices."""
    return Act(choice)


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
                client.send(act_message(client.state.view.choices[0]))
            client.continue_if_between_rounds()


async def test_hello_gets_welcome_and_lobby(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    welcome = next(m for m in ana.messages if isinstance(m, Welcome))
    assert (welcome.name, welcome.motd, welcome.guest) == ("ana", "be kind", False)
    assert welcome.timer == 90
    assert ana.lobby.online == ("ana",)


async def test_welcome_offers_the_servers_turn_timer() -> None:
    for timer in (30, None):
        lobby = Lobby(LobbySettings(table=INSTANT, default_timer=timer), clock=LoopClock())
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
    assert state.view.game_over
    assert any(t >= state.view.target for t in state.view.tokens)
    kinds = {event["kind"] for event in ana.events}
    assert {"round_start", "deal", "draw", "play", "round_end", "game_end"} <= kinds
    assert [s.bot for s in state.info.seats] == [None, "easy", "medium", "easy"]


async def test_the_seats_empty_at_the_start_get_the_tables_bot_level(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    bots = (BotSpec(1, "medium"), BotSpec(2, "medium"))
    ana.send(CreateTable("ana's", "classic", 4, None, bots, bot_level="medium"))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    seats = [(s.name, s.bot) for s in ana.state.info.seats[1:]]
    assert seats == [(f"medium bot {n}", "medium") for n in (2, 3, 4)]


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
    waiter.send(act_message(mover.state.view.choices[0]))
    mover.send(act_message(PlayChoice("princess_of_mars")))
    mover.send(act_message(LookChoice(0)))
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


async def test_a_bot_level_the_server_does_not_have_is_refused_and_changes_nothing(
    lobby: Lobby,
) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("t", "2019", 3, bots=(BotSpec(1, "expert"),)))
    await ana.wait_for(lambda c: c.errors())
    assert (
        ana.errors()[-1].code == "no_such_level"
        and "easy, medium, hard" in ana.errors()[-1].message
    )
    assert ana.state is None and not ana.lobby.tables
    ana.send(CreateTable("t", "2019", 3, bot_level="expert"))
    await ana.wait_for(lambda c: len(c.errors()) == 2)
    assert ana.errors()[-1].code == "no_such_level" and ana.state is None
    ana.send(CreateTable("t", "2019", 3))
    await ana.wait_for(lambda c: c.state)
    ana.send(AddBot(1, "expert"))
    await ana.wait_for(lambda c: len(c.errors()) == 3)
    assert ana.errors()[-1].code == "no_such_level"
    assert [seat.bot for seat in ana.state.info.seats] == [None, None, None]


async def test_welcome_carries_the_servers_catalogue(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    catalogue = next(m for m in ana.messages if isinstance(m, Welcome)).catalogue
    assert [e.id for e in catalogue.editions] == list(EDITIONS)
    assert catalogue.bot_levels == LEVELS and catalogue.default_edition == "2019"
    premium = catalogue.edition("premium")
    assert premium is not None and (premium.min_players, premium.max_players) == (5, 8)
    assert [c.id for c in premium.cards if c.out_if_played] == ["princess"]


async def test_one_update_per_step_per_session(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(CreateTable("t", "2019", 2))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.my_turn())
    before = len(ana.messages)
    ana.send(act_message(ana.state.view.choices[0]))
    await ana.wait_for(lambda c: len(c.messages) > before)
    first = ana.messages[before]
    assert isinstance(first, TableState)
    assert first.events[0].KIND == "play"


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
    assert table.seats[0].identity == "SHA256:ana-key" and table.seats[0].member is None
    again = Client(lobby, "ana", key="SHA256:ana-key")
    again.hello()
    await again.wait_for(lambda c: c.state)
    assert again.state.info.you == 0
    assert again.events[0]["kind"] == "round_start", "the full log is replayed"
    assert again.state.view.hand


def test_grace_expiry_gives_the_seat_to_a_bot_and_empty_tables_close() -> None:
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=TableSettings(grace=120)), clock=clock)
    ana, watcher = Client(lobby, "ana"), Client(lobby, "watcher")
    for message in (Hello(PROTOCOL_VERSION, "ana"), CreateTable("t", "classic", 2), Start()):
        ana.send(message)
    watcher.hello()
    clock.settle()
    assert ana.state.info.status == "playing" and watcher.lobby.tables
    ana.attachment.detach()
    clock.advance(119.9)
    assert lobby.tables and watcher.lobby.tables, "the seat is held for the grace period"
    clock.advance(0.1)
    assert not lobby.tables and not watcher.lobby.tables


def test_turn_timer_lets_a_bot_play_and_marks_it() -> None:
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=TableSettings(bot_delay=0.8)), clock=clock)
    ana = Client(lobby, "ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 2, timer=30))
    ana.send(Start())
    clock.settle()
    while not ana.my_turn():
        clock.next()  # stops at the moment ana's turn starts
    clock.advance(29.9)
    assert not any(e["kind"] == "autoplay" for e in ana.events)
    clock.advance(0.1)
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
    assert ana.state.view.round == 1


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
    lobby = Lobby(LobbySettings(table=INSTANT, chat_burst=3, chat_interval=60), clock=LoopClock())
    ana = await greeted(lobby, "ana")
    bo = await greeted(lobby, "bo")
    for n in range(5):
        ana.send(Chat(f"line {n}"))
    await bo.wait_for(lambda c: sum(isinstance(m, ChatLine) for m in c.messages) == 3)
    assert [e.code for e in ana.errors()] == ["chat_rate", "chat_rate"]
    bo.send(Chat("my own budget"))
    await ana.wait_for(lambda c: any(getattr(m, "sender", "") == "bo" for m in c.messages))


def test_idle_sessions_in_the_lobby_are_closed_but_not_at_a_table() -> None:
    closed: list[tuple[str, str]] = []
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=INSTANT, lobby_idle=1800), clock=clock)
    lobby.close_session = lambda session, reason: closed.append((session.name, reason))
    Client(lobby, "idle").hello()
    seated = Client(lobby, "seated")
    seated.hello()
    seated.send(CreateTable("t", "2019", 2))
    clock.advance(1799)
    assert not closed
    clock.advance(1)
    assert closed == [("idle", "Disconnected after 30 minutes idle.")]
    clock.advance(3600)
    assert len(closed) == 1, "a session at a table stays"


def test_a_session_attached_before_the_event_loop_runs_gets_its_timers() -> None:
    closed: list[str] = []
    lobby = Lobby(LobbySettings(table=INSTANT, lobby_idle=0.01), clock=LoopClock())
    client = Client(lobby, "early")  # as `lovelet play` attaches before its app's loop starts

    async def greet_and_idle() -> None:
        idled = asyncio.Event()
        lobby.close_session = lambda session, reason: (closed.append(session.name), idled.set())
        client.hello()
        await client.wait_for(lambda c: c.lobby)
        await asyncio.wait_for(idled.wait(), 5)

    asyncio.run(greet_and_idle())
    assert closed == ["early"]


def test_a_player_back_in_time_makes_their_own_decision() -> None:
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=TableSettings(bot_delay=0.8, round_pause=0)), clock=clock)
    ana = Client(lobby, "ana", key="SHA256:ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 2, None))
    ana.send(Start())
    clock.settle()
    while not ana.my_turn():
        clock.next()  # stops at the moment ana's turn starts
    table = next(iter(lobby.tables.values()))
    step = table.runner.step
    ana.attachment.detach()
    clock.advance(0.5)
    again = Client(lobby, "ana", key="SHA256:ana")
    again.hello()
    clock.advance(60)
    assert again.my_turn()
    assert table.runner.step == step, "the takeover bot must not play once its player is back"


def test_a_second_session_of_a_seated_player_takes_the_seat_and_the_first_is_closed() -> None:
    clock, closed = FakeClock(), []
    lobby = Lobby(LobbySettings(table=TableSettings(bot_delay=0.8)), clock=clock)
    lobby.close_session = lambda session, reason: (closed.append(session), lobby.detach(session))
    ana = Client(lobby, "ana", key="SHA256:ana")
    for message in (Hello(PROTOCOL_VERSION, "ana"), CreateTable("t", "2019", 2), Start()):
        ana.send(message)
    clock.settle()
    again = Client(lobby, "ana-2", key="SHA256:ana")  # the SSH layer's name for a second one
    again.hello()
    clock.settle()
    assert again.state.info.you == 0 and again.state.info.seats[0].name == "ana"
    assert again.state.info.seats[0].connected
    assert [m.text for m in ana.messages if isinstance(m, Notice)] == [REPLACED]
    assert closed == [ana.attachment.session]
    table = next(iter(lobby.tables.values()))
    assert table.seats[0].member is again.attachment.session and table.seats[0].held is None
    frames = len(ana.frames)
    clock.advance(300)
    assert len(ana.frames) == frames, "the old session hears nothing more"
    assert table.seats[0].member is again.attachment.session


async def test_a_program_on_the_bot_api_is_marked_for_a_human_in_the_lobby_and_at_the_table(
    lobby: Lobby,
) -> None:
    robo = await greeted(lobby, "robo", api_bot=True)
    ana = await greeted(lobby, "ana")
    await ana.wait_for(lambda c: c.lobby.online == ("robo", "ana"))
    assert ana.lobby.api_bots == ("robo",)
    robo.send(CreateTable("robo's", "2019", 3, None, (BotSpec(2, "easy"),)))
    await robo.wait_for(lambda c: c.state)
    ana.send(Join(robo.state.info.code))
    await ana.wait_for(lambda c: c.state)
    seats = ana.state.info.seats
    assert [(s.name, s.bot, s.api_bot) for s in seats] == [
        ("robo", None, True),
        ("ana", None, False),
        ("easy bot 3", "easy", False),
    ]
