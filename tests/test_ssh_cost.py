"""What a session costs the server, and its fair share: the meter follows every task its app
starts; past its share (and the pool the server lends) its keys wait, the others' do not; a
session held back without rest is told and disconnected."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from sshclient import SSHTerminal
from test_ssh_input import until
from test_ssh_limits import app_of
from test_ssh_server import EchoApp
from textual import events

from server.ssh import SSHLimits, start_ssh_server
from server.ssh.cost import (
    HELD_BACK_PART,
    LANE_RETRY,
    LINGER,
    METER,
    RECOUNT,
    SPENT,
    STALE,
    CostBudget,
    CostMeter,
    CostPool,
    Gate,
    Metered,
    run_metered,
)
from server.ssh.session import CPU_HOG

DEAR = 0.05
"""Seconds of CPU each key costs a DearApp."""


class DearApp(EchoApp):
    """An EchoApp whose every key costs `DEAR` seconds of work in its own task."""

    def on_key(self, event: events.Key) -> None:
        busy(DEAR)
        super().on_key(event)


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


# ---------------------------------------------------------------- the meter


async def test_every_task_started_from_a_metered_one_is_charged_to_its_meter() -> None:
    meter, seen = CostMeter(), []

    async def grandchild() -> None:
        seen.append(METER.get())
        busy(0.01)

    async def child() -> None:
        await asyncio.get_running_loop().create_task(grandchild())
        busy(0.01)

    async def session() -> None:
        task = asyncio.create_task(child())
        assert isinstance(task.get_coro(), Metered)
        await task

    await run_metered(session(), meter)
    outside = asyncio.create_task(grandchild())
    await outside
    assert not isinstance(outside.get_coro(), Metered)
    assert seen == [meter, None]
    assert 0.02 <= meter.total < 1.0  # the grandchild's and the child's, none of the outsider's


class Borrower:
    """Stands for a budget borrowing from a pool."""

    def __init__(self, held_back: bool) -> None:
        self.held_back = held_back


def test_the_pool_is_split_among_its_borrowers_and_those_held_back_share_a_quarter() -> None:
    now = [0.0]
    pool = CostPool(0.2, window=5.0, clock=lambda: now[0])
    light, heavy, saver = Borrower(False), Borrower(True), Borrower(False)
    assert pool.part(light, True) == pytest.approx(0.2)  # alone
    assert pool.part(heavy, True) == pytest.approx(0.2 * HELD_BACK_PART)
    assert pool.part(light, False) == pytest.approx(0.2 * (1 - HELD_BACK_PART))
    assert pool.part(saver, False) == 0.0  # borrows nothing
    heavy.held_back = False
    now[0] += 2 * RECOUNT  # counted again
    assert pool.part(light, False) == pytest.approx(0.1)
    now[0] += 5.1
    assert pool.part(light, False) == 0.0  # borrowed too long ago


def test_a_budget_is_lent_its_part_then_says_when_it_is_persistent() -> None:
    now = [0.0]
    clock = lambda: now[0]  # noqa: E731
    pool, gate = CostPool(0.5, clock=clock), Gate(clock=clock)
    meters = [CostMeter(gate=gate), CostMeter(gate=gate)]
    budgets = [
        CostBudget(m, share=0.1, burst=0.5, pool=pool, cut_off_after=10.0, rest=2.0, clock=clock)
        for m in meters
    ]
    handled(budgets[0], meters[0], 0.75)  # its burst and 0.25 s more: the pool alone lends
    assert budgets[0].overdrawn() == pytest.approx(0.25 / (0.1 + 0.5))
    assert budgets[0].held == 1 and not budgets[0].persistent
    handled(budgets[1], meters[1], 0.75)  # the first, held back lately, gets a quarter now
    assert budgets[1].overdrawn() == pytest.approx(0.25 / (0.1 + 0.5 * (1 - HELD_BACK_PART)))
    for _ in range(12):  # held again and again, never 2 s free
        now[0] += 1.0
        handled(budgets[0], meters[0], 1.0)
        assert budgets[0].overdrawn() > 0
    assert budgets[0].persistent
    now[0] += 100.0  # a long rest: the next hold starts a new streak
    handled(budgets[0], meters[0], 2.0)
    assert budgets[0].overdrawn() > 0 and not budgets[0].persistent


def test_sessions_that_spent_much_of_their_saved_time_have_their_keys_handled_in_turn() -> None:
    gate = Gate()
    meters = [CostMeter(gate=gate), CostMeter(gate=gate)]
    budgets = [CostBudget(m, share=0.1, burst=0.5, pool=None, cut_off_after=60.0) for m in meters]
    for budget, meter in zip(budgets, meters, strict=True):
        handled(budget, meter, 2 * SPENT)
        assert budget.overdrawn() == 0.0  # paid for from what it saved
        assert meter.yields
    budgets[0].input_started()
    assert budgets[1].overdrawn() == LANE_RETRY  # the first one's key goes first
    budgets[0].input_handled()
    assert budgets[1].overdrawn() == 0.0


async def test_a_yielding_sessions_steps_wait_while_another_sessions_key_is_handled() -> None:
    gate = Gate(wait=3600.0)
    light, dear = CostMeter(gate=gate), CostMeter(gate=gate)
    dear.yields = True
    steps: list[int] = []

    async def dear_work() -> None:
        for step in range(3):
            steps.append(step)
            await asyncio.sleep(0)

    light.open_input()
    task = run_metered(dear_work(), dear)
    for _ in range(10):
        await asyncio.sleep(0)
    assert steps == []
    light.close_input()
    await asyncio.wait_for(task, 5)
    assert steps == [0, 1, 2]


async def test_a_yielding_session_waits_at_the_gate_for_a_while_at_most() -> None:
    """A key whose screen never says it was shown stops nobody for good."""
    gate = Gate(wait=0.01)
    light, dear = CostMeter(gate=gate), CostMeter(gate=gate)
    dear.yields = True
    light.open_input()

    async def dear_work() -> int:
        await asyncio.sleep(0)
        return 1

    assert await asyncio.wait_for(run_metered(dear_work(), dear), 5) == 1


def test_only_what_the_sessions_keys_set_off_is_charged_to_its_budget() -> None:
    """Screen updates from the others' play, between its keys, cost the session nothing."""
    meter = CostMeter()
    budget = CostBudget(meter, share=0.01, burst=0.1, pool=None, cut_off_after=60.0)
    meter.charge(5.0)  # updates it was sent
    assert budget.overdrawn() == 0.0
    handled(budget, meter, 0.2)
    assert budget.overdrawn() == pytest.approx(10.0, rel=0.01)
    assert meter.total == pytest.approx(5.2)


def test_what_an_event_sets_off_after_its_first_refresh_is_its_cost_too() -> None:
    """A screen a key opened goes on drawing after the first refresh: charged for `LINGER`
    seconds after it, not later."""
    now = [0.0]
    meter = CostMeter(clock=lambda: now[0])
    budget = CostBudget(meter, share=0.01, burst=0.1, pool=None, cut_off_after=60.0)
    handled(budget, meter, 0.05)
    now[0] += LINGER / 2
    meter.charge(0.15)  # the rest of the screen it opened
    now[0] += LINGER
    meter.charge(5.0)  # updates it was sent later
    assert budget.overdrawn() == pytest.approx(10.0, rel=0.01)


def handled(budget: CostBudget, meter: CostMeter, seconds: float) -> None:
    """One input event that cost `seconds` to handle."""
    budget.input_started()
    meter.charge(seconds)
    budget.input_handled()


# ---------------------------------------------------------------- over real SSH


async def test_a_dear_session_waits_and_the_others_do_not(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = SSHLimits(cpu_share=0.01, cpu_burst=0.5, cpu_pool=0.0, cpu_cut_off=3600)
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, DearApp, limits)
    held = "dear from 127.0.0.1: past its share of the server's time"
    try:
        async with (
            SSHTerminal.connect(service.port, username="dear") as dear,
            SSHTerminal.connect(service.port, username="other") as other,
        ):
            await dear.wait_for_text("keys 0")
            await other.wait_for_text("keys 0")
            await dear.send("k" * 40)  # 2 s of work, 4 times its burst
            await until(lambda: held in caplog.text, "the dear session held back")
            handled = app_of(service, "dear").keys
            assert handled < 30
            before = app_of(service, "other").keys
            await other.send_keys("k")
            await until(lambda: app_of(service, "other").keys > before, "the other's key")
            assert app_of(service, "dear").keys <= handled + 1, "its next key waits 5 s"
            assert not dear.closed
    finally:
        await service.close()


async def test_a_session_held_back_without_rest_is_told_and_disconnected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    limits = SSHLimits(cpu_share=0.05, cpu_burst=0.5, cpu_pool=0.0, cpu_cut_off=0.5)
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, DearApp, limits)
    try:
        async with SSHTerminal.connect(service.port, username="dear") as dear:
            await dear.wait_for_text("keys 0")
            await dear.send("k" * 100)
            assert await dear.wait_closed() == 1
        assert dear.modes_not_restored == []
        assert dear.said_after_restoring(CPU_HOG)
    finally:
        await service.close()
    assert f"from 127.0.0.1: {CPU_HOG}" in caplog.text
    [ended] = [r.fields for r in caplog.records if r.getMessage() == "disconnect"]
    assert ended["cpu_seconds"] >= 2 * DEAR and ended["held"] >= 1


def test_a_key_whose_session_ended_before_its_screen_was_shown_closes_the_gate_no_longer() -> None:
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    gone = CostMeter(gate=gate)
    gone.open_input()  # and never closed: its session ended
    now[0] += STALE + 0.1
    assert gate.closed() is None
