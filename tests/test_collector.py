"""The paced garbage collector: new garbage goes at each step, frozen garbage at a whole one,
which comes after enough sessions came and went, or the resident memory grew by a quarter
(where it cannot be read: after enough time)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from server.render.collector import Collector, resident_bytes


class Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


class World:
    """A clock that moves only when told, session counts and resident memory."""

    def __init__(self) -> None:
        self.now = 0.0
        self.turnover = 0
        self.live = 100
        self.memory: int | None = 1000


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def collector(world: World) -> Iterator[Collector]:
    made = Collector(
        lambda: world.turnover,
        lambda: world.live,
        max_age=60.0,
        clock=lambda: world.now,
        memory=lambda: world.memory,
    )
    made.collect_all()
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


def test_garbage_frozen_while_alive_waits_for_the_whole_collection(
    collector: Collector, world: World
) -> None:
    node, node_ref = _cycle()
    collector.step()  # frozen while alive
    del node
    collector.step()
    assert node_ref() is not None  # cyclic garbage among frozen objects waits
    world.memory = 1249
    assert collector.step() is False
    world.memory = 1250  # a quarter more than after the last whole collection
    assert collector.step() is True
    assert node_ref() is None


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


def test_a_turnover_of_a_quarter_of_the_sessions_makes_the_next_step_whole(
    collector: Collector, world: World
) -> None:
    node, node_ref = _cycle()
    collector.step()
    del node
    world.turnover = 24  # fewer than a quarter of 100 live sessions
    assert collector.step() is False
    world.turnover = 25
    assert collector.step() is True
    assert node_ref() is None
    world.turnover, world.live = 30, 4  # 5 more: fewer than the minimum of 8
    assert collector.step() is False
