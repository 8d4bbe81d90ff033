"""The paced garbage collector: new garbage goes at a step (every step while steps find much,
ever more rarely while they find little), frozen garbage at a whole one, which comes once
enough ended sessions are still in memory, or Python's memory per session grew by a quarter
(where it cannot be read: after enough time)."""

from __future__ import annotations

import asyncio
import gc
import itertools
import weakref
from collections.abc import Iterator

import pytest

from server.render.collector import (
    ENDED,
    FLOOR,
    FREEZE_WAIT,
    LITTLE,
    YOUNG_BUDGET,
    YOUNG_EVERY,
    YOUNG_THRESHOLD,
    Collector,
    Leftovers,
    allocated_blocks,
)


class Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


MB = FLOOR // 64  # memory is counted in blocks; here a "megabyte" is a 64th of FLOOR
BASE = 1000 * MB  # the process's memory before any session


class World:
    """A clock that moves only when told, the sessions running, Python's memory and the
    sessions that ended."""

    def __init__(self) -> None:
        self.now = 0.0
        self.live = 0
        self.memory: int | None = BASE
        self.leftovers = Leftovers()
        self.collection_takes = 0.0  # seconds a collection of what is new takes
        self._timer = 0.0

    def timer(self) -> float:
        """Read before and after a collection of what is new: `collection_takes` apart."""
        self._timer += self.collection_takes
        return self._timer

    def sessions(self, live: int, each: int = 2 * MB) -> None:
        """`live` sessions of `each` blocks running."""
        self.live = live
        self.memory = BASE + live * each


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def collector(world: World) -> Iterator[Collector]:
    made = Collector(
        lambda: world.live,
        leftovers=world.leftovers,
        max_age=60.0,
        clock=lambda: world.now,
        timer=world.timer,
        memory=lambda: world.memory,
    )
    made.collect_all()  # the process before any session: the base
    world.sessions(100)
    made.collect_all()  # 2 MB a session
    yield made
    made.stop()
    assert gc.get_freeze_count() == 0


def test_a_step_collects_new_cyclic_garbage_and_freezes_the_survivors(
    collector: Collector,
) -> None:
    garbage, garbage_ref = _cycle()
    kept, kept_ref = _cycle()
    del garbage
    frozen = gc.get_freeze_count()
    assert collector.step() is False
    assert garbage_ref() is None
    assert kept_ref() is kept
    assert gc.get_freeze_count() > frozen


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """The interpreter's own collections paused: only the collector's steps collect."""
    gc.disable()
    yield
    gc.enable()


def _garbage_cycles(objects: int) -> list[weakref.ref[Node]]:
    """Cycles of at least `objects` tracked objects (two nodes each), already unreachable;
    weak references to them."""
    refs = []
    for _ in range(objects // 2 + 1):
        refs.append(_cycle()[1])
    return refs


@pytest.mark.usefixtures("no_automatic_collection")
def test_while_steps_find_little_garbage_they_collect_ever_more_rarely(
    collector: Collector,
) -> None:
    collections = []
    for _ in range(4 * YOUNG_EVERY):
        ref = _cycle()[1]
        collector.step()
        collections.append(ref() is None)  # collected at this step, or frozen unwalked
    assert collections[:8] == [True, False, True, False, False, False, True, False]
    gaps = [i for i, collected in enumerate(collections) if collected]
    assert max(b - a for a, b in itertools.pairwise(gaps)) == YOUNG_EVERY


@pytest.mark.usefixtures("no_automatic_collection")
def test_a_step_that_finds_much_garbage_collects_at_every_step_again(
    collector: Collector,
) -> None:
    collector.step()  # found little: the next collection is two steps on
    frozen = _garbage_cycles(LITTLE)
    collector.step()  # frozen unwalked
    assert all(ref() is not None for ref in frozen)
    _garbage_cycles(LITTLE)
    collector.step()  # collected: much garbage
    refs = _garbage_cycles(1)
    collector.step()
    assert all(ref() is None for ref in refs)


@pytest.mark.usefixtures("no_automatic_collection")
def test_while_steps_find_much_garbage_cheaply_what_is_alive_is_not_frozen_yet(
    collector: Collector,
) -> None:
    """A screen open at one step and closed before the next goes at the next, also at a step
    that happens to find little among steps that find much."""
    frozen = gc.get_freeze_count()
    closed = []
    for number in range(FREEZE_WAIT):
        screen, screen_ref = _cycle()  # open at this step
        if number % 3 == 0:
            _garbage_cycles(LITTLE)  # the screens closed since the last step
        collector.step()
        closed.append(screen_ref)
        del screen
    assert gc.get_freeze_count() == frozen  # the freeze waited
    assert all(ref() is None for ref in closed[:-1])


@pytest.mark.usefixtures("no_automatic_collection")
def test_the_freeze_waits_a_bounded_number_of_steps(collector: Collector) -> None:
    frozen_at = []
    for number in range(2 * FREEZE_WAIT + 2):
        _garbage_cycles(LITTLE)
        frozen = gc.get_freeze_count()
        kept = _cycle()[0]
        collector.step()
        if gc.get_freeze_count() > frozen:
            frozen_at.append(number)
        del kept
    assert frozen_at == [FREEZE_WAIT, 2 * FREEZE_WAIT + 1]


@pytest.mark.usefixtures("no_automatic_collection")
def test_a_collection_of_what_is_new_that_costs_much_freezes_at_once(
    collector: Collector, world: World
) -> None:
    """With many sessions, walking a few steps' new objects would cost more than what
    waiting saves."""
    world.collection_takes = YOUNG_BUDGET
    screen, screen_ref = _cycle()
    _garbage_cycles(LITTLE)
    collector.step()
    del screen
    collector.step()
    assert screen_ref() is not None  # frozen while alive: waits for a whole collection


def test_garbage_frozen_while_alive_waits_for_the_whole_collection(
    collector: Collector, world: World
) -> None:
    node, node_ref = _cycle()
    collector.step()  # frozen while alive
    del node
    collector.step()
    assert node_ref() is not None  # cyclic garbage among frozen objects waits
    world.memory = BASE + 249 * MB
    assert collector.step() is False
    world.memory = BASE + 250 * MB  # a quarter more a session than after the last whole one
    assert collector.step() is True
    assert node_ref() is None


def test_sessions_arriving_grow_memory_without_a_whole_collection(
    collector: Collector, world: World
) -> None:
    for live in (150, 300, 1000):
        world.sessions(live, each=2 * MB + MB // 4)  # each a little more than the first ones
        assert collector.step() is False


def test_sessions_leaving_set_off_no_whole_collection_until_memory_grows(
    collector: Collector, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    for live in (80, 50, 10):  # their memory stays with the process
        world.live = live
        assert collector.step() is False
    world.memory = BASE + 249 * MB  # what they left in cycles, and new allocations
    assert collector.step() is False
    world.memory = BASE + 250 * MB  # a quarter more in all (and per session)
    with caplog.at_level("INFO", "server.render.collector"):
        assert collector.step() is True
    assert caplog.messages[-1].endswith("; set off by memory grown")


def test_a_few_sessions_need_a_floor_of_growth(collector: Collector, world: World) -> None:
    world.sessions(2, each=MB)
    collector.collect_all()  # counted as 64 MB: 32 MB a session
    world.sessions(2, each=30 * MB)  # 60 MB: still counted as 64
    assert collector.step() is False
    world.sessions(2, each=41 * MB)  # 82 MB: a quarter over 64
    assert collector.step() is True


def test_a_steady_server_is_never_stopped_for_a_whole_collection(
    collector: Collector, world: World
) -> None:
    """Memory that does not grow: no whole collection, however long the server runs."""
    world.now = 24 * 3600.0
    assert collector.step() is False


def test_where_memory_cannot_be_read_a_whole_collection_comes_with_age(
    collector: Collector, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    node, node_ref = _cycle()
    collector.step()
    del node
    world.memory = None
    world.now = 59.0
    assert collector.step() is False
    world.now = 60.0
    with caplog.at_level("INFO", "server.render.collector"):
        assert collector.step() is True
    assert node_ref() is None
    assert caplog.messages[-1].endswith("; set off by age")


def test_the_memory_read_follows_allocations_and_comes_back_once_they_are_freed() -> None:
    """What the resident memory does not: freed blocks stay with the process."""
    before = allocated_blocks()
    assert before is not None and before > 0
    garbage = [_cycle()[0] for _ in range(50_000)]  # 100,000 objects in cycles
    grown = allocated_blocks()
    assert grown is not None and grown >= before + 100_000
    del garbage
    gc.collect()
    after = allocated_blocks()
    assert after is not None and after < before + 10_000


def _ended_sessions(world: World, count: int) -> list[weakref.ref[Node]]:
    """`count` sessions ended, each leaving cyclic garbage already frozen."""
    refs = []
    for _ in range(count):
        app, ref = _cycle()
        world.leftovers.add(app)
        refs.append(ref)
    gc.freeze()
    return refs


def test_sessions_that_ended_set_off_a_whole_collection(
    collector: Collector, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    world.sessions(0)
    left = _ended_sessions(world, ENDED - 1)
    assert collector.step() is False
    assert all(ref() is not None for ref in left)  # frozen: waits for a whole collection
    left += _ended_sessions(world, 1)
    with caplog.at_level("INFO", "server.render.collector"):
        assert collector.step() is True
    assert all(ref() is None for ref in left)
    assert caplog.messages[-1].endswith("; set off by ended sessions")


def test_with_more_sessions_running_more_may_end_before_a_whole_collection(
    collector: Collector, world: World
) -> None:
    world.live = 100  # a quarter: 25
    _ended_sessions(world, 24)
    assert collector.step() is False
    _ended_sessions(world, 1)
    assert collector.step() is True


def test_an_ended_session_still_held_is_waited_for_at_two_whole_collections_at_most(
    collector: Collector, world: World
) -> None:
    """Its connection may still be closing at the first; at the second, something alive
    holds it: no whole collection comes for it again."""
    world.sessions(0)
    held = [_cycle()[0] for _ in range(ENDED)]
    for app in held:
        world.leftovers.add(app)
    assert collector.step() is True
    assert len(world.leftovers) == ENDED  # still in memory: counted until the next one
    assert collector.step() is True
    assert len(world.leftovers) == 0
    assert collector.step() is False


def test_an_ended_session_freed_after_a_whole_collection_is_no_longer_counted(
    collector: Collector, world: World
) -> None:
    world.sessions(0)
    closing = [_cycle()[0] for _ in range(ENDED)]
    for app in closing:
        world.leftovers.add(app)
    assert collector.step() is True
    del closing, app  # their connections closed: garbage now
    gc.unfreeze()
    gc.collect()
    assert len(world.leftovers) == 0


async def test_a_step_that_fails_stops_no_later_step(world: World) -> None:
    """The loop logs the failure; the next step comes as before."""
    calls = 0
    stepped_after = asyncio.Event()

    def live() -> int:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("a failing step")
        if calls >= 6:
            stepped_after.set()
        return 1

    made = Collector(live, period=0.001, memory=lambda: BASE)
    made.start()
    try:
        await asyncio.wait_for(stepped_after.wait(), 5)
    finally:
        made.stop()


async def test_while_stepping_the_interpreter_collects_young_objects_more_rarely(
    world: World,
) -> None:
    before = gc.get_threshold()
    made = Collector(lambda: world.live, memory=lambda: world.memory)
    made.start()
    try:
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    finally:
        made.stop()
    assert gc.get_threshold() == before
