"""What an ended session held comes back (issue 34): nothing keeps its app's rendered lines,
and the server's paced collector frees what it left in cycles once enough sessions ended,
without anyone asking for a whole collection."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from e2e_helpers import Server, running_server, wait_text
from sshclient import SSHTerminal
from test_tui_support import FakeLink, served
from textual.widget import Widget

from lovelet_tui.widgets.prerendered import rendered
from server.lobby import TableSettings
from server.render.collector import ENDED
from server.services.clock import LoopClock
from server.ssh import compat

QUIET = TableSettings(bot_delay=60, grace=60, round_pause=60)
"""Nothing happens on its own during a test."""


@pytest.fixture
def patched() -> Iterator[None]:
    """The server's patches, as `lovelet serve` installs them."""
    compat.install_patches()
    yield
    compat.uninstall_patches()


@pytest.mark.usefixtures("patched")
async def test_an_ended_apps_widgets_and_what_they_rendered_are_freed_by_a_collection() -> None:
    refs = await asyncio.create_task(a_session())  # its own context, as a server session's
    gc.collect()
    assert all(ref() is None for ref in refs)


async def a_session() -> list[weakref.ref[object]]:
    """An app that opens help and closes it, then ends; weak references to the app, every
    widget it showed, and what each rendered."""
    app = served(FakeLink(), "ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        widgets = list(app.screen.query(Widget))  # help's
        await pilot.press("escape")
        await pilot.pause()
        widgets += app.screen.query(Widget)  # the lobby's
        refs: list[weakref.ref[object]] = [weakref.ref(widget) for widget in widgets]
        refs += [weakref.ref(widget._styles_cache) for widget in widgets]
    return [*refs, weakref.ref(app)]


class Screenful:
    """Stands for what a session holds (its app, a screen)."""

    def text(self) -> str:
        return "reference text"


def test_text_rendered_once_for_everyone_keeps_nothing_of_the_screen_that_asked() -> None:
    screen = Screenful()
    assert rendered(("test", "keeps nothing"), 40, screen.text).plain == "reference text"
    gone = weakref.ref(screen)
    del screen
    gc.collect()
    assert gone() is None


SHOWN: contextvars.ContextVar[Screenful] = contextvars.ContextVar("shown")
"""Stands for Textual's `active_app`, which each session's code runs with."""


async def test_a_lobby_timer_keeps_nothing_of_the_session_that_set_it() -> None:
    clock = LoopClock()
    timers = []

    def in_a_session() -> None:
        SHOWN.set(Screenful())
        timers.append(clock.call_later(1800, print))  # a lobby idle timer

    session = contextvars.copy_context()
    session.run(in_a_session)
    gone = weakref.ref(session[SHOWN])
    timers[0].cancel()  # the session ended; the handle stays with the loop until its time
    del session
    gc.collect()
    assert gone() is None


# ---------------------------------------------------------------- over SSH


class Collections:
    """Counts the server's whole collections as they come, and lets a test wait for one."""

    def __init__(self, server: Server) -> None:
        self.done = asyncio.Event()
        collector = server.running.collector
        collect_all = collector.collect_all

        def counted(reason: str = "start") -> None:
            collect_all(reason)
            self.done.set()

        collector.collect_all = counted  # type: ignore[method-assign]

    async def until(self, test: Callable[[], bool], timeout: float = 20.0) -> None:
        """Wait for whole collections until `test()` holds after one."""
        async with asyncio.timeout(timeout):
            while not test():
                self.done.clear()
                await self.done.wait()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, QUIET) as running:
        yield running


async def test_the_collector_frees_what_sessions_that_ended_left(server: Server) -> None:
    """Sessions come and go, one at a time: what they leave in cycles is frozen by the paced
    collector, and only a whole collection frees it; one comes as soon as `ENDED` of them
    are still in memory, so fewer ever stay for long."""
    collections = Collections(server)
    ended: list[weakref.ref[object]] = []
    for number in range(ENDED + 4):
        ended.append(await come_and_go(server, f"guest{number}"))

    def staying() -> int:
        return sum(1 for ref in ended if ref() is not None)

    await collections.until(lambda: staying() < ENDED)


async def come_and_go(server: Server, name: str) -> weakref.ref[object]:
    """A guest signs in and leaves; a weak reference to the app their session ran."""
    async with SSHTerminal.connect(server.port, username=name) as term:
        await wait_text(term, f"signed in as {name}")
        session = server.service.sessions.get(name)
        assert session is not None and session.app is not None
        return weakref.ref(session.app)
