"""Timers at a table on a fake clock: the countdown each frame carries, and what a bot did
for a player who ran out of time or dropped."""

from __future__ import annotations

from protocol import Countdown, CreateTable, Spectate, Start, TableFits
from server.lobby import Lobby, LobbySettings, TableSettings
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

SLOW = TableSettings(bot_delay=0.8, grace=120, round_pause=20)


def table_with_ana(timer: int | None, settings: TableSettings = SLOW) -> tuple[FakeClock, Client]:
    """Ana alone against a bot at a 2019 table with `timer`, the game started."""
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=settings), clock=clock)
    ana = Client(lobby, "ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 2, timer=timer))
    ana.send(Start())
    clock.settle()
    return clock, ana


def ana_to_decide(clock: FakeClock, ana: Client) -> None:
    """Let the bot play until ana decides, stopping at the moment her turn starts."""
    while not ana.my_turn():
        clock.next()


def watcher(clock: FakeClock, ana: Client) -> Client:
    """A spectator arrives: every member gets a fresh frame."""
    eve = Client(ana.attachment._lobby, "eve")
    eve.hello()
    eve.send(Spectate(ana.state.info.code))
    clock.settle()
    return eve


def test_each_frame_carries_the_time_left_on_the_turn_timer() -> None:
    clock, ana = table_with_ana(timer=30)
    ana_to_decide(clock, ana)
    assert ana.state.countdown == Countdown("turn", 30_000, 0)
    clock.advance(12.5)
    eve = watcher(clock, ana)
    assert ana.state.countdown == eve.state.countdown == Countdown("turn", 17_500, 0)


def test_no_countdown_without_a_timer_nor_while_a_bot_thinks() -> None:
    clock, ana = table_with_ana(timer=None)
    ana_to_decide(clock, ana)
    assert ana.state.countdown is None
    clock, ana = table_with_ana(timer=30)
    states = [m for m in ana.messages if hasattr(m, "countdown")]
    bots_turns = [s for s in states if s.view and not s.view.choices and s.info.status == "playing"]
    assert all(s.countdown is None for s in bots_turns)


def test_the_pause_between_rounds_is_counted_down() -> None:
    clock, ana = table_with_ana(timer=None)
    while ana.state.info.status != "round_over":  # checked after each step, hers or the bot's
        if ana.my_turn():
            ana.send_choice(0)
            clock.settle()
        else:
            clock.next()
    assert ana.state.countdown == Countdown("pause", 20_000, None)
    pause = ana.state.countdown
    clock.advance(pause.remaining_ms / 1000 - 0.01)
    assert ana.state.info.status == "round_over"
    clock.advance(0.01)
    assert ana.state.info.status == "playing" and ana.state.countdown is None


def test_a_timed_out_turn_says_which_card_the_bot_played_and_why() -> None:
    clock, ana = table_with_ana(timer=30)
    ana_to_decide(clock, ana)
    clock.advance(30)
    kinds = [e["kind"] for e in ana.events]
    at = kinds.index("autoplay")
    autoplay, play = ana.events[at], ana.events[at + 1]
    assert (autoplay["seat"], autoplay["reason"], autoplay["decision"]) == (0, "timeout", "play")
    assert play["kind"] == "play" and autoplay["card"] == play["card"]


def test_a_dropped_players_turn_says_the_bot_played_because_they_left() -> None:
    clock, ana = table_with_ana(timer=None)
    ana_to_decide(clock, ana)
    eve = watcher(clock, ana)
    ana.attachment.detach()
    clock.advance(0.8)
    autoplay = next(e for e in eve.events if e["kind"] == "autoplay")
    assert (autoplay["seat"], autoplay["reason"]) == (0, "disconnected")
    assert autoplay["card"] == eve.events[eve.events.index(autoplay) + 1]["card"]


def test_a_new_session_of_the_player_on_turn_keeps_the_time_left() -> None:
    clock = FakeClock()
    lobby = Lobby(LobbySettings(table=SLOW), clock=clock)
    ana = Client(lobby, "ana", key="SHA256:ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 2, timer=30))
    ana.send(Start())
    clock.settle()
    ana_to_decide(clock, ana)
    clock.advance(20)
    again = Client(lobby, "ana", key="SHA256:ana")
    again.hello()
    clock.settle()
    assert again.my_turn()
    assert again.state.countdown == Countdown("turn", 10_000, 0)


def test_the_timer_waits_for_a_player_who_cannot_see_the_table_up_to_a_whole_turn() -> None:
    clock, ana = table_with_ana(timer=30)
    ana_to_decide(clock, ana)
    clock.advance(10)
    ana.send(TableFits(False))  # her terminal shrank below 80x24
    clock.settle()
    assert ana.state.countdown == Countdown("held", 30_000, 0)  # the table waits a turn
    assert ana.state.info.seats[0].small
    clock.advance(29.9)  # held: her 20 s do not run
    assert ana.my_turn() and ana.state.countdown == Countdown("held", 30_000, 0)
    clock.advance(0.1)  # held as long as a whole turn: her timer runs again
    assert ana.state.countdown == Countdown("turn", 20_000, 0)
    clock.advance(19.9)
    assert ana.my_turn() and not timed_out(ana)
    clock.advance(0.1)
    assert timed_out(ana)  # a bot decided for her (a Chancellor it played may ask her again)


def timed_out(player: Client) -> bool:
    """Whether a bot has decided for `player` because their time ran out."""
    return any(e["kind"] == "autoplay" and e["reason"] == "timeout" for e in player.events)


def test_a_player_who_sees_the_table_again_has_the_time_they_had_left() -> None:
    clock, ana = table_with_ana(timer=30)
    ana_to_decide(clock, ana)
    clock.advance(10)
    ana.send(TableFits(False))
    clock.settle()
    clock.advance(15)
    ana.send(TableFits(True))
    clock.settle()
    assert ana.state.countdown == Countdown("turn", 20_000, 0)
    assert not ana.state.info.seats[0].small
    ana.send(TableFits(False))  # too small again: the table waits what is left of a turn
    clock.settle()
    assert ana.state.countdown == Countdown("held", 15_000, 0)
