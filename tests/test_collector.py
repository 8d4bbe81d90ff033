"""The paced garbage collector: new garbage goes at each step, frozen garbage at a whole one."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from server.collector import Collector


class Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def collector(clock: Clock) -> Iterator[Collector]:
    made = Collector(max_age=60.0, clock=clock)
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
    collector: Collector, clock: Clock
) -> None:
    node, node_ref = _cycle()
    collector.step()  # frozen while alive
    del node
    collector.step()
    assert node_ref() is not None  # cyclic garbage among frozen objects waits
    clock.now = 60.0
    assert collector.step() is True
    assert node_ref() is None


def test_a_grown_frozen_heap_makes_the_next_step_whole(collector: Collector) -> None:
    node, node_ref = _cycle()
    collector.step()
    del node
    growth = [Node() for _ in range(int(gc.get_freeze_count() * collector.growth) + 1000)]
    collector.step()  # freezes the growth
    assert collector.step() is True
    assert node_ref() is None
    assert growth
