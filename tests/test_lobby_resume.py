"""Tables rebuilt after a restart, at the lobby: a real SQLite file, a lobby that stops
without a word (as on kill -9), and a new lobby on the same file that rebuilds its tables."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from protocol import (
    Choice,
    CreateTable,
    Join,
    Notice,
    PlayChoice,
    RejoinSeat,
    Spectate,
    Start,
    View,
)
from server.engine import EDITIONS
from server.lobby import Lobby, LobbySettings, TableSettings, resume_tables
from server.lobby.rebuild import replayed_events
from server.store import Store
from tests.fake_clock import FakeClock
from tests.lobby_client import Client
from tests.test_lobby_guests import guest, rejoin_code

SETTINGS = LobbySettings(table=TableSettings(bot_delay=1, grace=120, round_pause=20))
KEYS = ("ana", "bob", "cy", "di", "ed")


class Server:
    """One life of the server: a store on the file, a lobby, its clock."""

    def __init__(self, path: Path, seed: int = 0) -> None:
        self.store = Store.open(path)
        self.clock = FakeClock()
        self.lobby = Lobby(SETTINGS, random.Random(seed), self.store, clock=self.clock)

    def player(self, name: str) -> Client:
        client = Client(self.lobby, name)
        client.hello()
        self.clock.settle()
        return client

    def restart(self, path: Path) -> Server:
        """kill -9: nothing is said or saved; a new server opens the same file."""
        self.store.close()
        after = Server(path)
        after.resumed = resume_tables(after.lobby)
        after.clock.settle()
        return after


@pytest.fixture
def path(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "lovelet.db"
    with Store.open(path) as store:
        for name in KEYS:
            store.claim_nickname(f"SHA256:{name}", name, set())  # as the SSH login does
    yield path


def open_table(
    server: Server,
    edition: str,
    humans: int,
    bots: int = 0,
    timer: int | None = None,
    private: bool = False,
) -> list[Client]:
    """Keyed players in the first seats (ana hosts), easy bots after, the game started."""
    ana = server.player("ana")
    ana.send(CreateTable("the table", edition, humans + bots, timer, private=private))
    server.clock.settle()
    others = [server.player(name) for name in KEYS[1:humans]]
    for other in others:
        other.send(Join(ana.state.info.code))
    ana.send(Start())
    server.clock.settle()
    return [ana, *others]


Prefer = Callable[[Sequence[Choice]], int | None]


def play_until(
    server: Server,
    players: list[Client],
    done: Callable[[], bool],
    rng: random.Random,
    prefer: Prefer = lambda choices: None,
) -> None:
    """Legal choices from whoever decides (the one `prefer` picks, else at random; bots play
    as the clock moves) until `done`."""
    for _ in range(2000):
        server.clock.settle()
        if done():
            return
        deciding = [p for p in players if p.my_turn()]
        if deciding:
            choices = deciding[0].state.view.choices
            picked = prefer(choices)
            deciding[0].send_choice(rng.randrange(len(choices)) if picked is None else picked)
        elif any(p.state.info.status == "round_over" for p in players):
            for p in players:
                p.continue_if_between_rounds()
        else:
            server.clock.next()
    raise AssertionError("the awaited state never came")


def pending_kind(player: Client) -> str | None:
    view = player.state.view
    return view.pending.kind if view and view.pending else None


def seen(player: Client) -> tuple[View | None, list[dict]]:
    """What a player has on screen: their view and the whole log received."""
    return player.state.view, list(player.events)


def test_a_killed_servers_table_comes_back_with_hands_log_deck_and_tokens(path: Path) -> None:
    before = Server(path, seed=3)
    ana, bob = open_table(before, "2019", humans=2, bots=1)
    code = ana.state.info.code
    rng = random.Random(5)
    play_until(before, [ana, bob], lambda: ana.state.view.round >= 2 and ana.my_turn(), rng)
    ana_saw, bob_saw = seen(ana), seen(bob)
    assert ana_saw[0].deck_size > 0 and sum(ana_saw[0].tokens) > 0

    after = before.restart(path)
    assert after.resumed.tables == (code,) and after.resumed.failed == ()
    watcher = after.player("eve")
    watcher.send(Spectate(code))
    after.clock.settle()
    assert watcher.state.info.status == "playing"
    assert [s.connected for s in watcher.state.info.seats] == [False, False, True]
    ana, bob = after.player("ana"), after.player("bob")
    assert seen(ana) == ana_saw and seen(bob) == bob_saw
    assert ana.state.info.code == code and ana.state.info.name == "the table"
    assert ana.state.info.you == 0 and ana.state.info.host == "ana"
    assert any(
        m.text.startswith("Welcome back: you are at table")
        for m in ana.messages
        if isinstance(m, Notice)
    )

    play_until(after, [ana, bob], lambda: ana.state.info.status == "finished", rng)
    (game,) = after.store.games()
    assert game.status == "finished" and tuple(game.winners) == ana.state.view.game_winners
    log = after.store.game_log(game.id)
    stored = [e for e in log.events if e.kind != "autoplay"]
    assert [(e.kind, e.seat) for e in stored] == [
        (e.kind, e.seat) for e in replayed_events(after.store.action_log(game.id))
    ]
    assert [e.seq for e in log.events] == list(range(len(log.events)))
    assert after.store.player_stats("SHA256:ana")["2019"].games == 1
    assert after.store.kept_tables() == []


def test_a_private_table_stays_private_under_its_long_code(path: Path) -> None:
    before = Server(path, seed=11)
    (ana,) = open_table(before, "2019", humans=1, bots=1, private=True)
    code = ana.state.info.code
    after = before.restart(path)
    eve = after.player("eve")
    assert after.resumed.tables == (code,) and eve.lobby.tables == ()
    ana = after.player("ana")
    assert ana.state.info.code == code and ana.state.info.private


def test_a_tables_own_bot_delay_survives_a_restart(path: Path) -> None:
    before = Server(path, seed=12)
    ana = before.player("ana")
    ana.send(CreateTable("programs' table", "2019", 2, None, bot_delay=250))
    before.clock.settle()
    code = ana.state.info.code
    ana.send(Start())
    before.clock.settle()
    after = before.restart(path)
    assert after.resumed.tables == (code,)
    assert after.lobby.board.tables[code].seating.programs_delay == 0.25


def test_nobody_decides_for_an_awaited_player_until_the_grace_is_over(path: Path) -> None:
    before = Server(path, seed=1)
    ana, bob = open_table(before, "classic", humans=2)
    play_until(before, [ana, bob], ana.my_turn, random.Random(1))
    log_length = len(ana.events)

    after = before.restart(path)
    after.clock.advance(119)
    ana = after.player("ana")
    assert ana.my_turn() and len(ana.events) == log_length, "no bot played for ana"
    after.clock.advance(2)
    assert ana.state.info.seats[1].name == "bob (bot)", "bob's grace ran out"
    assert ana.state.info.seats[0].connected and ana.my_turn()


def test_a_table_nobody_comes_back_to_closes_after_the_grace(path: Path) -> None:
    before = Server(path, seed=10)
    open_table(before, "2019", humans=2, bots=1)
    after = before.restart(path)
    assert len(after.lobby.tables) == 1
    after.clock.advance(121)
    assert after.lobby.tables == {}
    assert [game.status for game in after.store.games()] == ["abandoned"]


def test_the_turn_timer_starts_afresh_for_the_pending_decision(path: Path) -> None:
    before = Server(path, seed=2)
    ana, bob = open_table(before, "2019", humans=2, timer=30)
    play_until(before, [ana, bob], bob.my_turn, random.Random(2))
    before.clock.advance(25)

    after = before.restart(path)
    bob = after.player("bob")
    assert bob.state.countdown.kind == "turn" and bob.state.countdown.seat == 1
    assert bob.state.countdown.remaining_ms == 30_000
    after.clock.advance(29)
    assert bob.my_turn()
    after.clock.advance(2)
    assert any(e["kind"] == "autoplay" and e["reason"] == "timeout" for e in bob.events)


@pytest.mark.parametrize(
    ("edition", "kind", "humans"),
    [("2019", "chancellor", 2), ("premium", "bishop_redraw", 5)],
)
def test_a_restart_keeps_a_pending_chancellor_or_bishop_decision(
    path: Path, edition: str, kind: str, humans: int
) -> None:
    before = Server(path, seed=4)
    players = open_table(before, edition, humans=humans)
    (table,) = before.lobby.tables.values()

    def good_guess(choices: Sequence[Choice]) -> int | None:
        """A Bishop naming its target's card: the target then decides whether to redraw."""
        hands = table.game.hands
        for index, choice in enumerate(choices):
            if (
                isinstance(choice, PlayChoice)
                and choice.card == "bishop"
                and choice.targets
                and hands[choice.targets[0]][0].value == choice.guess
            ):
                return index
        return None

    done = lambda: any(pending_kind(p) == kind for p in players)  # noqa: E731
    play_until(before, players, done, random.Random(4), good_guess)
    deciding = players[0].state.view.pending.seat
    saw = [seen(p) for p in players]

    after = before.restart(path)
    players = [after.player(name) for name in KEYS[:humans]]
    assert [seen(p) for p in players] == saw
    assert players[deciding].my_turn() and pending_kind(players[deciding]) == kind
    players[deciding].send_choice(0)
    after.clock.settle()
    assert pending_kind(players[deciding]) != kind or players[deciding].state.view.round > 1


def test_a_guest_takes_the_seat_back_with_the_code_told_before_the_restart(path: Path) -> None:
    before = Server(path)
    ana = before.player("ana")
    ana.send(CreateTable("t", "2019", 3))
    before.clock.settle()
    bob = guest(before.lobby, "bob")
    bob.send(Join(ana.state.info.code))
    ana.send(Start())
    before.clock.settle()
    code, bob_saw = rejoin_code(bob), seen(bob)

    after = before.restart(path)
    back = guest(after.lobby, "bob")  # a new guest id, the same name and address
    after.clock.settle()
    assert [m.text for m in back.messages if isinstance(m, Notice)] == [
        f"A seat of yours is held at table {ana.state.info.code}: press r and type your"
        " rejoin code to take it back."
    ]
    back.send(RejoinSeat(code))
    after.clock.settle()
    assert back.state.info.you == 1 and seen(back) == bob_saw
    assert rejoin_code(back) != code
    assert after.store.kept_tables()[0].guests[1].rejoin == rejoin_code(back)


def test_a_restart_between_rounds_gives_the_whole_pause(path: Path) -> None:
    before = Server(path, seed=6)
    ana, bob = open_table(before, "classic", humans=2)
    rng = random.Random(6)
    play_until(before, [ana, bob], lambda: ana.state.info.status == "round_over", rng)
    before.clock.advance(15)

    after = before.restart(path)
    ana = after.player("ana")
    assert ana.state.info.status == "round_over"
    assert ana.state.countdown.kind == "pause" and ana.state.countdown.remaining_ms == 20_000
    after.clock.advance(21)
    assert ana.state.info.status == "playing" and ana.state.view.round == 2


def test_a_graceful_stop_keeps_the_table_and_a_finished_game_keeps_none(path: Path) -> None:
    before = Server(path, seed=7)
    ana, bob = open_table(before, "classic", humans=2)
    before.lobby.shut_down(keep=True)
    assert [kept.table.code for kept in before.store.kept_tables()] == [ana.state.info.code]
    after = before.restart(path)
    ana, bob = after.player("ana"), after.player("bob")
    play_until(after, [ana, bob], lambda: ana.state.info.status == "finished", random.Random(7))
    assert after.store.kept_tables() == []
    after.lobby.shut_down(keep=True)
    assert after.restart(path).resumed.tables == ()


def test_a_game_that_does_not_rebuild_is_abandoned_and_the_others_come_back(path: Path) -> None:
    before = Server(path, seed=8)
    first = open_table(before, "classic", humans=1, bots=1)[0].state.info.code
    before.lobby = Lobby(SETTINGS, random.Random(9), before.store, clock=before.clock)
    second = open_table(before, "2019", humans=1, bots=1)[0].state.info.code
    before.store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET seed = '1' WHERE id = 1")
    conn.execute("UPDATE game_events SET kind = 'nonsense' WHERE game_id = 1 AND seq = 0")
    conn.commit()
    conn.close()
    before.store = Store.open(path)

    after = before.restart(path)
    assert after.resumed.tables == (second,) and after.resumed.failed == (1,)
    assert first != second and after.store.game_log(1).game.status == "abandoned"


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_edition_rebuilds_mid_round(path: Path, edition: str) -> None:
    players = EDITIONS[edition].min_players
    before = Server(path, seed=len(edition))
    clients = open_table(before, edition, humans=players)
    rng = random.Random(len(edition))
    steps = iter(range(12))
    play_until(before, clients, lambda: next(steps, None) is None, rng)
    saw = [seen(c) for c in clients]
    after = before.restart(path)
    assert [seen(after.player(name)) for name in KEYS[:players]] == saw
