"""Freeing a dead screen's reference cycles without a whole collection: what nothing outside
holds goes by reference counting, and nothing held from outside is touched."""

from __future__ import annotations

import gc
import types
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from textual.app import App, ComposeResult
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Label

from server.render import teardown
from server.render.teardown import free_cycles
from server.ssh import compat


class Node:
    """An object that can sit in a reference cycle."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.others: list[object] = []


@pytest.fixture(autouse=True)
def _no_collector() -> Iterator[None]:
    """Only reference counting frees anything during a test."""
    gc.collect()
    gc.disable()
    yield
    gc.unfreeze()
    gc.enable()
    compat.uninstall_patches()


def _cycle() -> Node:
    first, second = Node("first"), Node("second")
    first.others.append(second)
    second.others.append(first)
    first.others.append(lambda: second)  # a closure: a cell in the cycle too
    return first


def test_a_cycle_nothing_else_holds_is_freed_by_reference_counting() -> None:
    root = _cycle()
    second = weakref.ref(root.others[0])
    held = weakref.ref(root)
    del root
    freed = free_cycles(held)
    assert held() is None and second() is None
    assert freed.cleared >= 2 and freed.survivors == 0


def test_what_is_held_from_outside_is_untouched() -> None:
    root = _cycle()
    outside = root.others[0]  # the second node, held by this test
    held = weakref.ref(root)
    del root
    freed = free_cycles(held)
    assert freed.cleared == 0
    assert isinstance(outside, Node) and outside.name == "second"
    first = outside.others[0]
    assert isinstance(first, Node) and first.name == "first" and len(first.others) == 2


def test_a_reference_from_an_outside_closure_holds() -> None:
    root = _cycle()
    keep = (lambda node: lambda: node)(root.others[0])
    held = weakref.ref(root)
    del root
    assert free_cycles(held).cleared == 0
    assert keep().name == "second"


def _closure() -> types.FunctionType:
    kept = ["alive"]
    return lambda: kept  # type: ignore[return-value]


def test_a_live_function_behind_a_proxy_keeps_its_closure() -> None:
    live = _closure()
    root = _cycle()
    root.others.append(weakref.proxy(live))
    held = weakref.ref(root)
    del root
    free_cycles(held)
    assert held() is None and live() == ["alive"]


def test_a_closure_shared_with_a_live_function_stays_whole() -> None:
    doomed = _closure()
    alike = types.FunctionType(
        doomed.__code__, doomed.__globals__, "alike", None, doomed.__closure__
    )
    live = types.FunctionType(
        doomed.__code__, doomed.__globals__, "live", None, (doomed.__closure__ or ())[0:1]
    )
    root = _cycle()
    root.others.extend([doomed, alike])
    held = weakref.ref(root)
    del root, doomed, alike
    free_cycles(held)
    assert held() is None and live() == ["alive"]


def test_a_dead_proxy_in_the_walk_is_no_error() -> None:
    gone = Node("gone")
    root = _cycle()
    root.others.append(weakref.proxy(gone))
    del gone
    held = weakref.ref(root)
    del root
    assert free_cycles(held).cleared >= 2 and held() is None


def test_a_dict_shared_with_a_live_object_stays_whole() -> None:
    live = Node("live")
    sharer = Node()
    sharer.__dict__ = live.__dict__  # one dict for both, as some libraries do
    root = _cycle()
    root.others.append(sharer)
    held = weakref.ref(root)
    del root, sharer
    free_cycles(held)
    assert held() is None and live.name == "live"


def test_a_finalizer_sees_what_it_refers_to_whole() -> None:
    seen: list[list[object]] = []

    class Finalized(Node):
        def __del__(self) -> None:
            seen.append(list(self.others))

    root = _cycle()
    last = Finalized("last")
    last.others.append(root)
    root.others.append(last)
    held = weakref.ref(root)
    del root, last
    assert free_cycles(held).cleared == 0  # left to the collector, which finalizes first
    gc.collect()
    assert seen and seen[0] and held() is None


def test_past_the_limit_nothing_is_freed() -> None:
    root = _cycle()
    root.others.extend(Node(str(n)) for n in range(50))
    held = weakref.ref(root)
    del root
    assert free_cycles(held, limit=20).cleared == 0
    assert held() is not None


@pytest.mark.parametrize("installed", [True, False])
def test_a_cleared_lru_cache_frees_its_values_by_reference_counting(installed: bool) -> None:
    if installed:
        compat.install_patches()
    cache: LRUCache[int, Node] = LRUCache(8)
    value = Node("cached")
    held = weakref.ref(value)
    for key in range(3):
        cache[key] = value if key == 1 else Node()
    del value
    cache.clear()
    assert (held() is None) is installed  # otherwise its ring of entries waits for a collection
    cache[5] = Node("after")
    assert cache.get(5) is not None and len(cache) == 1


class Form(Screen[None]):
    """A screen with a few widgets, their styles, bindings and caches: full of cycles."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Name")
            yield Input(placeholder="your name")


class Host(App[None]):
    pass


@asynccontextmanager
async def form_shown(installed: bool) -> AsyncIterator[tuple[Host, Pilot[None]]]:
    """An app showing a `Form`, with the server's patches or without; what it built so far
    frozen, as the server's paced collector does with what lives on."""
    if installed:
        compat.install_patches()
    app = Host()
    async with app.run_test() as pilot:
        await app.push_screen(Form())
        await pilot.pause()
        gc.collect()
        gc.freeze()
        yield app, pilot


async def free_what_is_due(pilot: Pilot[None]) -> None:
    """Let the app finish its messages, run a step of the paced collector (what is new, not
    what is frozen), then free what is due."""
    await pilot.pause()
    await pilot.pause()
    gc.collect()
    teardown.free_due(now=float("inf"))


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("installed", [True, False])
async def test_a_dismissed_screen_is_freed_once_due(installed: bool) -> None:
    async with form_shown(installed) as (app, pilot):
        form = weakref.ref(app.screen)
        app.pop_screen()
        await free_what_is_due(pilot)
        # Freed without a whole collection when installed; otherwise it waits for one.
        assert (form() is None) is installed
        await app.push_screen(Form())  # the app goes on as before
        await pilot.pause()
        assert app.screen.query_one(Label).render().plain == "Name"


def test_freeing_stops_at_its_budget_and_goes_on_at_the_next() -> None:
    roots = [_cycle() for _ in range(3)]
    held = [weakref.ref(root) for root in roots]
    for root in roots:
        teardown.later(root)
    del roots, root
    assert teardown.free_due(now=float("inf"), budget=0.0) == []
    assert all(ref() is not None for ref in held)
    assert len(teardown.free_due(now=float("inf"))) == 3
    assert all(ref() is None for ref in held)


def test_a_long_queue_drops_its_oldest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(teardown, "MAX_DUE", 2)
    roots = [_cycle() for _ in range(3)]
    held = [weakref.ref(root) for root in roots]
    for root in roots:
        teardown.later(root)
    del roots, root
    assert len(teardown.free_due(now=float("inf"))) == 2
    assert held[0]() is not None and held[1]() is None and held[2]() is None
