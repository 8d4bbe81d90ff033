"""Joining a started game: with the host's `takeover` setting, a late joiner watches and takes
a bot's seat when the next round starts; without it, joining is refused as before."""

from __future__ import annotations

from pathlib import Path

from protocol import CreateTable, Join, Notice, Sit, Start
from server.lobby import Lobby, LobbySettings, TableSettings
from server.store import Store
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

SETTINGS = LobbySettings(table=TableSettings(bot_delay=0.8, grace=120, round_pause=20))


def started(takeover: bool, store: Store | None = None) -> tuple[FakeClock, Client, Client]:
    """Ana hosts a started 3-seat 2019 game against two bots; eve asks to join."""
    clock = FakeClock()
    lobby = Lobby(SETTINGS, store=store, clock=clock)
    ana, eve = Client(lobby, "ana"), Client(lobby, "eve")
    ana.hello()
    eve.hello()
    ana.send(CreateTable("t", "2019", 3, None, (), takeover))
    ana.send(Start())
    clock.settle()
    eve.send(Join(ana.state.info.code))
    clock.settle()
    return clock, ana, eve


def to_next_round(clock: FakeClock, ana: Client) -> None:
    """Ana plays her first choices until round 2 starts."""
    while ana.state.view.round == 1:
        if ana.my_turn():
            ana.send_choice(0)
        clock.advance(0.8)


def test_without_the_setting_a_started_game_cannot_be_joined() -> None:
    _, _, eve = started(takeover=False)
    assert [e.code for e in eve.errors()] == ["in_progress"]
    assert eve.state is None


def test_a_late_joiner_takes_a_bots_seat_at_the_next_round(tmp_path: Path) -> None:
    with Store.open(tmp_path / "lovelet.db") as store:
        for name in ("ana", "eve"):
            store.claim_nickname(f"SHA256:{name}", name, set())  # as their SSH logins do
        clock, ana, eve = started(takeover=True, store=store)
        assert eve.state.info.you is None and eve.state.info.spectators == ("eve",)
        texts = [m.text for m in eve.messages if isinstance(m, Notice)]
        assert texts == ["You take easy bot 2's seat 2 when the next round starts."]
        tokens_before = None
        while ana.state.info.status != "round_over":
            if ana.my_turn():
                ana.send_choice(0)
            clock.advance(0.8)
            tokens_before = ana.state.view.tokens
        assert eve.state.info.you is None, "the seat changes hands between rounds only"
        to_next_round(clock, ana)
        info = eve.state.info
        assert info.you == 1 and info.seats[1].name == "eve" and info.seats[1].bot is None
        assert info.spectators == () and eve.state.view.tokens == tokens_before
        (game,) = store.unfinished_games()
        assert (game.seats[1].identity, game.seats[1].nickname) == ("SHA256:eve", "eve")


def test_a_spectator_picks_the_bot_seat_to_take() -> None:
    clock, ana, eve = started(takeover=True)
    eve.send(Sit(2))
    clock.settle()
    assert [m.text for m in eve.messages if isinstance(m, Notice)][-1] == (
        "You take easy bot 3's seat 3 when the next round starts."
    )
    eve.send(Sit(0))
    clock.settle()
    assert [e.code for e in eve.errors()] == ["no_bot_seat"]
    to_next_round(clock, ana)
    assert eve.state.info.you == 2
