"""Invites and private tables in the lobby: `visit` lands in a free seat or watching, private
tables are listed to administrators only, and unknown codes are tries on a budget of the
guesser's own: its key's, or a guest's name's at its address."""

from __future__ import annotations

from protocol import CreateTable, Join, Leave, RejoinSeat, Spectate, Start, Visit
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.board import PRIVATE_ALPHABET
from server.lobby.limits import TryBudget
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

ROOT = "SHA256:root"
SETTINGS = LobbySettings(
    table=TableSettings(bot_delay=60, grace=120, round_pause=20),
    admins=frozenset({ROOT}),
    code_tries=3,
    code_try_seconds=30,
)


def lobby_with(*names: str, address: str = "198.51.100.7") -> tuple[FakeClock, Lobby, list[Client]]:
    """A lobby and one greeted keyed client per name, all from `address`."""
    clock = FakeClock()
    lobby = Lobby(SETTINGS, clock=clock)
    clients = [Client(lobby, name, address=address) for name in names]
    for client in clients:
        client.hello()
    clock.settle()
    return clock, lobby, clients


def guest(lobby: Lobby, name: str, address: str) -> Client:
    client = Client(lobby, name, key=f"guest:{name}", guest=True, address=address)
    client.hello()
    return client


def open_table(clock: FakeClock, host: Client, seats: int = 2, private: bool = False) -> str:
    host.send(CreateTable("t", "2019", seats, private=private))
    clock.settle()
    assert host.state is not None
    return host.state.info.code


def error_codes(client: Client) -> list[str]:
    return [error.code for error in client.errors()]


def test_a_private_table_is_listed_to_administrators_only_and_reached_by_its_code() -> None:
    clock, lobby, (ana, bob) = lobby_with("ana", "bob")
    root = Client(lobby, "root", key=ROOT)
    root.hello()
    code = open_table(clock, ana, seats=3, private=True)
    assert len(code) == 10 and set(code) <= set(PRIVATE_ALPHABET)
    assert ana.state.info.private
    assert bob.lobby.tables == ()
    (listed,) = root.lobby.tables
    assert listed.code == code and listed.private

    bob.send(Visit(code.lower()))
    clock.settle()
    assert bob.state.info.code == code and bob.state.info.you == 1
    root.send(Spectate(code))
    clock.settle()
    assert root.state.info.you is None and "root" in root.state.info.spectators


def test_a_visit_takes_a_free_seat_while_the_table_waits_and_watches_otherwise() -> None:
    clock, lobby, (ana, bob, cat, dan) = lobby_with("ana", "bob", "cat", "dan")
    code = open_table(clock, ana, seats=2)
    bob.send(Visit(code))
    clock.settle()
    assert bob.state.info.you == 1
    cat.send(Visit(code))  # full
    clock.settle()
    assert cat.state.info.you is None and cat.state.info.spectators == ("cat",)

    code = open_table(clock, dan, seats=3)
    dan.send(Start())
    clock.settle()
    eve = guest(lobby, "eve", "203.0.113.9")
    eve.send(Visit(code))  # started, with a (bot's) seat to spare
    clock.settle()
    assert eve.state.info.you is None and eve.state.info.status == "playing"
    assert error_codes(bob) == error_codes(cat) == error_codes(eve) == []


def test_an_unknown_or_closed_code_is_refused_in_one_line_and_leaves_the_player_in_the_lobby() -> (
    None
):
    clock, lobby, (ana, bob) = lobby_with("ana", "bob")
    ana.send(Visit("NOPE"))
    clock.settle()
    (error,) = ana.errors()
    assert error.code == "no_such_table"
    assert error.message == "No open table has the code NOPE: here is the lobby."
    assert ana.state is None and not lobby.tables

    code = open_table(clock, ana, seats=2)
    ana.send(Leave())  # the only one there: the table closes
    bob.send(Visit(code))
    clock.settle()
    assert not lobby.tables
    assert [e.message for e in bob.errors()] == [
        f"No open table has the code {code}: here is the lobby."
    ]
    assert bob.state is None


def test_guessing_codes_is_limited_per_guest_name_and_address_and_changes_nothing() -> None:
    clock, lobby, (ana,) = lobby_with("ana", address="192.0.2.1")
    secret = open_table(clock, ana, seats=4, private=True)
    eve = guest(lobby, "eve", "203.0.113.9")
    for guess in ("AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC"):
        eve.send(Visit(guess))
    eve.send(Join(secret))  # the right code, once the budget is spent
    clock.settle()
    assert error_codes(eve) == ["no_such_table"] * 3 + ["too_many_tries"]
    assert eve.errors()[-1].message == "Too many tries of codes: wait 30 s."
    assert eve.state is None and len(lobby.tables[secret].seating.members()) == 1

    again = guest(lobby, "EVE", "203.0.113.9")  # a new guest session, the same name and address
    again.send(Visit(secret))
    behind_nat = guest(lobby, "cat", "203.0.113.9")  # someone else at that address
    behind_nat.send(Visit(secret))
    clock.settle()
    assert error_codes(again) == ["too_many_tries"] and again.state is None
    assert error_codes(behind_nat) == [] and behind_nat.state.info.you == 1

    public = open_table(clock, other_host(lobby, clock), seats=4)
    eve.send(Join(public))  # a code from the lobby list is no guess
    clock.settle()
    assert eve.state.info.code == public

    clock.advance(10)
    again.send(Visit(secret))
    clock.settle()
    assert again.errors()[-1].message == "Too many tries of codes: wait 20 s."
    clock.advance(20)
    again.send(Visit(secret))
    clock.settle()
    assert again.state.info.code == secret


def other_host(lobby: Lobby, clock: FakeClock) -> Client:
    host = Client(lobby, "hal", address="192.0.2.2")
    host.hello()
    clock.settle()
    return host


def test_wrong_rejoin_codes_spend_the_same_budget_as_table_codes() -> None:
    clock, lobby, (ana,) = lobby_with("ana", address="192.0.2.1")
    secret = open_table(clock, ana, seats=4, private=True)
    eve = guest(lobby, "eve", "203.0.113.9")
    eve.send(RejoinSeat("AAAA-BBBB"))
    eve.send(RejoinSeat("CCCC-DDDD"))
    eve.send(Visit("AAAAAAAAAA"))
    eve.send(Visit(secret))
    eve.send(RejoinSeat("EEEE-FFFF"))
    clock.settle()
    assert (
        error_codes(eve) == ["no_such_seat_code"] * 2 + ["no_such_table"] + ["too_many_tries"] * 2
    )
    assert eve.state is None


def test_a_key_has_its_own_budget_wherever_it_comes_from() -> None:
    clock = FakeClock()
    lobby = Lobby(SETTINGS, clock=clock)
    sessions = [Client(lobby, "mal", key="SHA256:mal", address=f"203.0.113.{n}") for n in (1, 2)]
    for session in sessions:
        session.hello()
    for guess in ("AAAA", "BBBB", "CCCC"):
        sessions[0].send(Visit(guess))
    sessions[1].send(Visit("DDDD"))
    clock.settle()
    assert error_codes(sessions[1]) == ["too_many_tries"]


def test_a_right_code_is_never_refused_for_the_wrong_guesses_of_others() -> None:
    clock, lobby, (ana,) = lobby_with("ana", address="192.0.2.1")
    secret = open_table(clock, ana, seats=4, private=True)
    nat = "203.0.113.9"
    mal = Client(lobby, "mal", key="SHA256:mal", address=nat)
    mal.hello()
    eve = guest(lobby, "eve", nat)
    for guesser in (mal, eve):
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB", "CCCCCCCCCC", secret):
            guesser.send(Visit(guess))
    cat = Client(lobby, "cat", key="SHA256:cat", address=nat)
    cat.hello()
    cat.send(Visit(secret))
    bob = guest(lobby, "bob", nat)
    bob.send(Visit(secret))
    clock.settle()
    for guesser in (mal, eve):
        assert error_codes(guesser) == ["no_such_table"] * 3 + ["too_many_tries"]
    assert error_codes(cat) == [] and cat.state.info.code == secret
    assert error_codes(bob) == [] and bob.state.info.code == secret


def test_administrators_are_not_limited() -> None:
    clock = FakeClock()
    lobby = Lobby(SETTINGS, clock=clock)
    root = Client(lobby, "root", key=ROOT, address="192.0.2.1")
    root.hello()
    for guess in ("AAAA", "BBBB", "CCCC", "DDDD", "EEEE"):
        root.send(Visit(guess))
    clock.settle()
    assert error_codes(root) == ["no_such_table"] * 5


def test_the_try_budget_refills_and_forgets_the_oldest_keys_beyond_its_size() -> None:
    budget = TryBudget(burst=2, refill=10, max_keys=2)
    budget.spend(["a"], 0)
    budget.spend(["a"], 0)
    assert budget.wait(["a"], 0) == 10 and budget.wait(["a"], 5) == 5
    assert budget.wait(["a"], 10) == 0
    budget.spend(["b"], 1)
    budget.spend(["c"], 1)  # "a" was touched longest ago: forgotten, a full budget again
    assert budget.wait(["a"], 1) == 0


def test_a_player_back_in_their_seat_by_key_takes_the_invite_to_it_as_done() -> None:
    clock, lobby, (ana, bob) = lobby_with("ana", "bob")
    code = open_table(clock, ana, seats=2)
    bob.send(Visit(code))
    ana.send(Start())
    clock.settle()
    bob.attachment.detach()
    back = Client(lobby, "bob", address="198.51.100.7")  # the same key, a new session
    back.hello()
    back.send(Visit(code.lower()))  # as `ssh -t host code` sends it once welcomed
    clock.settle()
    assert back.state.info.you == 1 and error_codes(back) == []
