"""The paced garbage collector: new garbage goes at a step (every step while steps find much,
ever more rarely while they find little), frozen garbage at a whole one,
which comes once the resident memory per session grew by a quarter (where it cannot be read:
after enough time)."""

from __future__ import annotations

import asyncio
import gc
import itertools
import weakref
from collections.abc import Iterator

import pytest

from server.render.collector import (
    LITTLE,
    YOUNG_EVERY,
    YOUNG_THRESHOLD,
    Collector,
    resident_bytes,
)


class Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


MB = 1024 * 1024
BASE = 1000 * MB  # the process's memory before any session


class World:
    """A clock that moves only when told, the sessions running and resident memory."""

    def __init__(self) -> None:
        self.now = 0.0
        self.live = 0
        self.memory: int | None = BASE

    def sessions(self, live: int, each: int = 2 * MB) -> None:
        """`live` sessions of `each` bytes running."""
        self.live = live
        self.memory = BASE + live * each


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def collector(world: World) -> Iterator[Collector]:
    made = Collector(
        lambda: world.live,
        max_age=60.0,
        clock=lambda: world.now,
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
    collector: Collector, world: World
) -> None:
    for live in (80, 50, 10):  # their memory stays with the process
        world.live = live
        assert collector.step() is False
    world.memory = BASE + 249 * MB  # what they left in cycles, and new allocations
    assert collector.step() is False
    world.memory = BASE + 250 * MB  # a quarter more in all (and per session)
    assert collector.step() is True


def test_a_few_sessions_need_a_floor_of_growth(collector: Collector, world: World) -> None:
    world.sessions(2, each=MB)
    collector.collect_all()  # counted as 64 MB: 32 MB a session
    world.sessions(2, each=30 * MB)  # 60 MB: still counted as 64
    assert collector.step() is False
    world.sessions(2, each=40 * MB)
    assert collector.step() is True


def test_a_steady_server_is_never_stopped_for_a_whole_collection(
    collector: Collector, world: World
) -> None:
    """Memory that does not grow: no whole collection, however long the server runs."""
    world.now = 24 * 3600.0
    assert collector.step() is False


def test_where_memory_cannot_be_read_a_whole_collection_comes_with_age(
    collector: Collector, world: World
) -> None:
    node, node_ref = _cycle()
    collector.step()
    del node
    world.memory = None
    world.now = 59.0
    assert collector.step() is False
    world.now = 60.0
    assert collector.step() is True
    assert node_ref() is None


def test_the_resident_memory_is_read_from_proc_and_follows_allocations() -> None:
    before = resident_bytes()
    assert before is not None and before > 0
    block = bytearray(64 * 1024 * 1024)  # touched pages: 64 MB resident
    block[::4096] = b"x" * len(block[::4096])
    grown = resident_bytes()
    assert grown is not None and grown >= before + 60 * 1024 * 1024
    del block


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
