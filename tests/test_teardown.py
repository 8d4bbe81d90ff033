"""Freeing a dead screen's reference cycles without a whole collection: what nothing outside
holds goes by reference counting, and nothing held from outside is touched."""

from __future__ import annotations

import gc
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


def test_an_object_with_a_finalizer_keeps_its_attributes() -> None:
    seen: list[str] = []

    class Finalized(Node):
        def __del__(self) -> None:
            seen.append(self.name)

    root = Node("root")
    last = Finalized("last")
    root.others.append(last)
    last.others.append(root)
    held = weakref.ref(root)
    del root, last
    free_cycles(held)
    assert seen == ["last"] and held() is None


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


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("installed", [True, False])
async def test_a_restyle_frees_the_virtual_nodes_it_replaced(installed: bool) -> None:
    async with form_shown(installed) as (app, pilot):
        field = app.screen.query_one(Input)
        name = sorted(field.COMPONENT_CLASSES)[0]
        virtual = weakref.ref(field.get_component_styles(name).node)  # styles a component
        field.add_class("-restyled")
        await free_what_is_due(pilot)
        assert (virtual() is None) is installed
        assert field.get_component_styles(name).node is not None  # its new one, alive
        field.remove_class("-restyled")
        await pilot.pause()
