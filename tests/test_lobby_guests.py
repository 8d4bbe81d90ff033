"""Guests at a table: a one-time rejoin code at sit-down, a reminder when they come back, and
the seat's result credited to the bot once the seat is lost."""

from __future__ import annotations

import re
from pathlib import Path

from protocol import CreateTable, Join, Notice, RejoinSeat, Start
from server.lobby import Lobby, LobbySettings, TableSettings
from server.store import Store
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

SETTINGS = LobbySettings(table=TableSettings(bot_delay=60, grace=120, round_pause=20))
CODE = re.compile(
    r"Your rejoin code: ([A-Z]{4}-[A-Z]{4})\. If you drop, sign in again within 2 minutes"
)


def notices(client: Client) -> list[str]:
    return [m.text for m in client.messages if isinstance(m, Notice)]


def rejoin_code(client: Client) -> str:
    """The latest rejoin code told to `client`."""
    codes = [m.group(1) for text in notices(client) if (m := CODE.match(text))]
    assert codes, notices(client)
    return codes[-1]


def guest(lobby: Lobby, name: str, address: str = "198.51.100.7") -> Client:
    client = Client(lobby, name, key=f"guest:{name}", guest=True, address=address)
    client.hello()
    return client


def game_with_bob(store: Store | None = None) -> tuple[FakeClock, Lobby, Client, Client]:
    """Ana (keyed) hosts, bob (a guest) joins seat 1, the game starts."""
    clock = FakeClock()
    lobby = Lobby(SETTINGS, store=store, clock=clock)
    ana = Client(lobby, "ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 3))
    clock.settle()
    bob = guest(lobby, "bob")
    bob.send(Join(ana.state.info.code))
    ana.send(Start())
    clock.settle()
    return clock, lobby, ana, bob


def test_a_guest_is_told_a_code_and_takes_the_seat_back_with_it() -> None:
    clock, lobby, ana, bob = game_with_bob()
    code = rejoin_code(bob)
    assert not any(CODE.match(text) for text in notices(ana)), "keyed players need none"
    bob.attachment.detach()
    clock.advance(60)
    neighbour = guest(lobby, "cat")  # another guest behind the same address
    back = guest(lobby, "BOB")  # a new guest session: another id, the same name and address
    clock.settle()
    assert notices(neighbour) == []
    assert notices(back) == [
        f"A seat of yours is held at table {ana.state.info.code}: press r and type your"
        " rejoin code to take it back."
    ]
    back.send(RejoinSeat(code.lower().replace("-", " ")))
    clock.settle()
    assert back.state.info.you == 1 and back.state.info.seats[1].name == "bob"
    assert ana.state.info.seats[1].connected and ana.state.info.seats[1].bot is None
    assert rejoin_code(back) != code, "a code works once; the guest gets the next"
    stranger = guest(lobby, "eve", address="203.0.113.9")
    clock.settle()
    assert notices(stranger) == []
    stranger.send(RejoinSeat(code))
    clock.settle()
    assert [e.code for e in stranger.errors()] == ["no_such_seat_code"]
    assert stranger.state is None


def test_a_seat_lost_for_good_is_credited_to_the_bot(tmp_path: Path) -> None:
    with Store.open(tmp_path / "lovelet.db") as store:
        store.claim_nickname("SHA256:ana", "ana", set())  # as the SSH login does
        clock, lobby, ana, bob = game_with_bob(store)
        code = rejoin_code(bob)
        bob.attachment.detach()
        clock.advance(120)
        assert ana.state.info.seats[1].name == "bob (bot)"
        (game,) = store.unfinished_games()
        assert game.seats[1].nickname == "bob (bot)" and game.seats[1].bot_level == "medium"
        late = guest(lobby, "bob")
        late.send(RejoinSeat(code))
        clock.settle()
        assert [e.code for e in late.errors()] == ["no_such_seat_code"]
