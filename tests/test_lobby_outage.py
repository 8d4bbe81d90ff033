"""Turn timers across outages, at the lobby (server/lobby/outage.py): a real SQLite file and
a clock the test moves. The same with real processes, redis-server and SSH players:
tests/test_outage_process.py."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol import CreateTable, Join, RejoinSeat, Start
from server.lobby.outage import TimerKeeper, pause_clocks, resume_clocks
from server.store import Store
from tests.lobby_client import Client
from tests.test_lobby_guests import guest, rejoin_code
from tests.test_lobby_resume import KEYS, Server, open_table, play_until

TIMER = 30


@pytest.fixture
def path(tmp_path: Path) -> Iterator[Path]:
    """A database whose players have keys (a rebuilt seat is a key's to take back)."""
    path = tmp_path / "lovelet.db"
    with Store.open(path) as store:
        for name in KEYS:
            store.claim_nickname(f"SHA256:{name}", name, set())
    yield path


def left(player: Client) -> float:
    """Seconds on the turn countdown the player was last sent."""
    countdown = player.state.countdown
    assert countdown is not None and countdown.kind == "turn"
    return countdown.remaining_ms / 1000


def timed_out(player: Client) -> bool:
    return any(e["kind"] == "autoplay" and e["reason"] == "timeout" for e in player.events)


def test_a_paused_clock_lets_no_bot_play_and_goes_on_with_the_time_left(path: Path) -> None:
    server = Server(path, seed=2)
    ana, bob = open_table(server, "2019", humans=2, timer=TIMER)
    play_until(server, [ana, bob], bob.my_turn, random.Random(2))
    server.clock.advance(25)
    pause_clocks(server.lobby)
    server.clock.advance(300)  # an outage much longer than the timer
    assert bob.my_turn() and not timed_out(bob)
    resume_clocks(server.lobby)
    server.clock.advance(4.5)
    assert bob.my_turn() and not timed_out(bob)
    server.clock.advance(1)
    assert timed_out(bob)


def test_a_player_attached_again_on_the_same_decision_keeps_the_time_left(path: Path) -> None:
    """As a front-end's sessions do after an outage: each detached and attached again."""
    server = Server(path, seed=2)
    ana, bob = open_table(server, "2019", humans=2, timer=TIMER)
    play_until(server, [ana, bob], bob.my_turn, random.Random(2))
    server.clock.advance(20)
    bob.attachment.detach()
    bob = server.player("bob")
    assert bob.my_turn() and left(bob) == TIMER - 20


def test_a_new_core_goes_on_with_the_time_the_last_one_kept(path: Path) -> None:
    before = Server(path, seed=2)
    keeper = TimerKeeper(before.lobby)
    keeper.start()
    ana, bob = open_table(before, "2019", humans=2, timer=TIMER)
    play_until(before, [ana, bob], bob.my_turn, random.Random(2))
    before.clock.advance(25)

    after = before.restart(path)  # kill -9: the keeper's last write was at most 1 s ago
    assert after.resumed.tables
    bob = after.player("bob")
    assert TIMER - 25 <= left(bob) <= TIMER - 24
    after.clock.advance(TIMER - 24)
    assert timed_out(bob)


def test_a_guests_turn_starts_afresh_on_a_new_core(path: Path) -> None:
    """A guest is not taken back to the seat by the front-end (their key is none): they type
    their rejoin code, so the time the last core kept would run out meanwhile."""
    before = Server(path, seed=2)
    keeper = TimerKeeper(before.lobby)
    keeper.start()
    ana = before.player("ana")
    ana.send(CreateTable("t", "2019", 2, TIMER))
    before.clock.settle()
    bob = guest(before.lobby, "bob")
    bob.send(Join(ana.state.info.code))
    ana.send(Start())
    play_until(before, [ana, bob], bob.my_turn, random.Random(2))
    code = rejoin_code(bob)
    before.clock.advance(25)

    after = before.restart(path)
    back = guest(after.lobby, "bob")
    back.send(RejoinSeat(code))
    after.clock.settle()
    assert back.my_turn() and left(back) == TIMER


def test_kept_timers_are_used_once(path: Path) -> None:
    before = Server(path, seed=2)
    keeper = TimerKeeper(before.lobby)
    keeper.start()
    ana, bob = open_table(before, "2019", humans=2, timer=TIMER)
    play_until(before, [ana, bob], bob.my_turn, random.Random(2))
    before.clock.advance(25)
    after = before.restart(path)
    again = after.restart(path)  # a later start without a keeper: the timer starts afresh
    assert again.resumed.tables
    bob = again.player("bob")
    assert left(bob) == TIMER
