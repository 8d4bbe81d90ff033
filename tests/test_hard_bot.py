"""The hard bot: legal in every edition, bounded by its budget, deciding from its seat alone,
and a table of hard bots plays to the end without waiting on their search."""

from __future__ import annotations

import asyncio
import math
import os
import random
import signal
import time
from pathlib import Path

import pytest

from protocol import BotSpec, CreateTable, Start
from server.bots import LEVELS, Budget, HardBot, make_bot
from server.bots.hard import MIN_DEALS, _opponent_beliefs, best_choice, calibrated, deal_hidden
from server.bots.medium import MediumBot, estimates
from server.engine import EDITIONS, Game, find_edition
from server.lobby import Lobby, LobbySettings, TableSettings
from server.services.catalogue import catalogue
from server.services.clock import LoopClock
from tests.fake_clock import FakeClock
from tests.lobby_client import Client
from tests.test_bots import seat_log
from tests.test_lobby import act_message, play_to_the_end

CONFIGS = [
    (edition.id, players)
    for edition in EDITIONS.values()
    for players in range(edition.min_players, edition.max_players + 1)
]
TINY = Budget(seconds=math.inf, deals=2)  # a search bounded by positions alone: deterministic


def decisions(edition_id: str, players: int, rng: random.Random, rounds: int = 1):
    """Every decision of `rounds` rounds: (game, seat, view, log), the game before acting."""
    game = Game(find_edition(edition_id), players, rng)
    for _ in range(rounds):
        if game.game_over:
            break
        game.start_round()
        while not game.round_over:
            seat = game.pending.seat
            yield game, seat, game.view(seat), seat_log(game, seat)


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_hard_chooses_legally_in_every_edition_and_player_count(
    edition_id: str, players: int
) -> None:
    rng = random.Random(f"hard/{edition_id}/{players}")
    bots = [HardBot(TINY) for _ in range(players)]
    searched = 0
    for game, seat, view, log in decisions(edition_id, players, rng, rounds=2):
        choice = bots[seat].choose(view, log, rng)
        assert choice in view.choices
        searched += bots[seat].deals > 0
        game.act(seat, choice)
    assert searched > 0


def test_the_search_stops_at_its_bound_of_positions() -> None:
    rng = random.Random(3)
    counts = set()
    for deals in (1, 5):
        bot = HardBot(Budget(seconds=math.inf, deals=deals))
        for game, seat, view, log in decisions("2019", 4, random.Random(3), rounds=3):
            choice = bot.choose(view, log, rng)
            counts.add((deals, bot.deals))
            game.act(seat, choice)
    assert counts <= {(1, 0), (1, 1), (5, 0), (5, 5)}
    assert (1, 1) in counts and (5, 5) in counts


def test_the_search_stops_at_its_cpu_budget() -> None:
    # Without a bound on positions only the clock can stop it; the margin is generous
    bot = HardBot(Budget(seconds=0.02))
    rng = random.Random(4)
    longest = 0.0
    for game, seat, view, log in decisions("2019", 4, random.Random(4), rounds=2):
        started = time.process_time()
        choice = bot.choose(view, log, rng)
        longest = max(longest, time.process_time() - started)
        game.act(seat, choice)
    assert longest < 0.5


def test_dealt_positions_hold_what_the_seat_sees_and_believes() -> None:
    rng = random.Random(6)
    for game, seat, view, log in decisions("2019", 4, rng, rounds=3):
        bot = HardBot(TINY)
        beliefs = bot._medium.beliefs(view, log)
        if view.pending.kind == "play":
            position, weight = deal_hidden(view, beliefs, rng)
            assert tuple(position.hands[seat]) == view.hand
            assert len(position.deck) == view.deck_size
            assert weight > 0
            for other, info in enumerate(view.seats):
                assert len(position.hands[other]) == (2 if other == seat else int(info.alive))
        game.act(seat, bot.choose(view, log, rng))


def test_every_level_is_in_the_one_registry_and_the_catalogue() -> None:
    assert LEVELS == catalogue().bot_levels == ("easy", "medium", "hard")
    assert [make_bot(level).level for level in LEVELS] == list(LEVELS)


async def test_a_table_of_hard_bots_plays_to_the_end_over_the_lobby() -> None:
    # the bots think in worker processes; their choices come back to the loop
    settings = TableSettings(bot_delay=0, grace=60, round_pause=0, bot_budget=0.005)
    lobby = Lobby(LobbySettings(table=settings), random.Random(1), clock=LoopClock())
    ana = Client(lobby, "ana")
    ana.hello()
    await ana.wait_for(lambda c: c.lobby)
    bots = tuple(BotSpec(seat, "hard") for seat in (1, 2, 3))
    ana.send(CreateTable("ana's", "2019", 4, None, bots))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await asyncio.wait_for(play_to_the_end(ana), 120)
    assert ana.state.view.game_over
    assert [seat.bot for seat in ana.state.info.seats] == [None, "hard", "hard", "hard"]


def test_a_choice_back_after_the_game_moved_on_is_dropped_and_a_failed_one_is_mediums() -> None:
    clock = FakeClock()
    settings = TableSettings(bot_delay=0.8, bot_budget=0.005)
    lobby = Lobby(LobbySettings(table=settings), random.Random(2), clock=clock)
    ana = Client(lobby, "ana")
    ana.hello()
    ana.send(CreateTable("t", "2019", 2, None, (BotSpec(1, "hard"),)))
    ana.send(Start())
    clock.settle()
    runner = ana.attachment.session.table.runner
    while runner.game.pending.seat != 1:
        ana.send(act_message(ana.state.view.choices[0]))
        clock.settle()
    step, game = runner.step, runner.game
    view, log = game.view(1), runner.turns.seat_log(1)
    turns = runner.turns
    turns._decided(step - 1, 1, None, view, log, view.choices[0])  # a search of an older step
    assert runner.step == step
    turns._decided(step, 1, None, view, log, None)  # the worker failed: medium decides
    assert runner.step > step


def pool_workers() -> list[int]:
    """Process ids of this process's spawned multiprocessing children: the bot pool's."""
    children: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        children += [int(pid) for pid in (task / "children").read_text().split()]
    return [pid for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]


async def test_a_hung_worker_does_not_stall_the_table_past_the_deadline() -> None:
    settings = TableSettings(bot_delay=0, bot_budget=0.005, bot_deadline=0.5)
    lobby = Lobby(LobbySettings(table=settings), random.Random(3), clock=LoopClock())
    ana = Client(lobby, "ana")
    ana.hello()
    await ana.wait_for(lambda c: c.lobby)
    ana.send(CreateTable("t", "2019", 2, None, (BotSpec(1, "hard"),)))
    await ana.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.my_turn(), 30)
    discards = len(ana.state.view.seats[1].discards)
    workers = pool_workers()
    assert workers, "the pool started no worker"
    for pid in workers:  # every worker hangs from now on
        os.kill(pid, signal.SIGSTOP)
    try:
        ana.send(act_message(ana.state.view.choices[0]))
        await ana.wait_for(lambda c: c.my_turn() or c.state.info.status != "playing", 10)
        assert ana.state.info.status == "playing"
        assert len(ana.state.view.seats[1].discards) == discards + 1  # the bot played
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)


def test_a_forced_choice_is_valued_by_its_estimate_not_as_a_lost_round() -> None:
    # the playouts' value at the seat's next turn: a forced Countess once counted as 0
    forced = 0
    for game, seat, view, log in decisions("2019", 4, random.Random(7), rounds=30):
        if view.pending.kind == "play" and len(view.choices) == 1:
            beliefs = MediumBot().beliefs(view, log)
            value, choice = best_choice(view, beliefs)
            assert choice == view.choices[0]
            assert value == pytest.approx(estimates(view, beliefs, look_ahead=False)[0])
            forced += value > 0
        game.act(seat, view.choices[0])
    assert forced > 0


def test_with_too_few_positions_searched_hard_plays_mediums_choice() -> None:
    bot = HardBot(Budget(seconds=math.inf, deals=MIN_DEALS - 1))
    rng = random.Random(8)
    searched = 0
    for game, seat, view, log in decisions("2019", 4, random.Random(8), rounds=6):
        choice = bot.choose(view, log, rng)
        scores = estimates(view, bot._medium.beliefs(view, log))
        assert scores[view.choices.index(choice)] == max(scores)
        searched += bot.deals > 0
        game.act(seat, choice)
    assert searched > 0


def test_the_calibrated_round_odds_rise_with_the_estimate_and_stay_odds() -> None:
    for alive in range(2, 9):
        odds = [calibrated(estimate / 10, alive) for estimate in range(-5, 16)]
        assert odds == sorted(odds)
        assert 0 < odds[0] < odds[-1] < 1


def test_hard_reads_the_others_plays_as_medium_makes_them() -> None:
    """Hard's beliefs weigh a play by how often medium makes it, so somewhere in a round they
    part from medium's own (careful) beliefs; in a playout the others believe as medium does."""
    rng = random.Random(8)
    parted = 0
    for game, seat, view, log in decisions("2019", 4, rng, rounds=2):
        hard = HardBot(TINY)
        ranking = hard.rank(view, log, rng)
        careful = MediumBot().beliefs(view, log)
        parted += ranking.beliefs.weights != careful.weights
        opponents = _opponent_beliefs(view, ranking.beliefs)
        assert all(theirs is None or not theirs.book.model for theirs in opponents)
        game.act(seat, ranking.best)
    assert parted > 0
