"""A browser player for the tests: Debian's Chromium driven by Playwright (no browser
download), on the page of a real `lovelet serve`.

`BrowserTerminal` reads the screen from the page's xterm.js buffer (`window.lovelet.term`)
and types with real key presses, and it has what the e2e helpers read from an
`SSHTerminal` (`screen`, `raw`, `send_keys`, `send`, `wait_for`), so `create_table`,
`read_panel`, `phase` and the like work on it unchanged.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
POLL = 0.05
"""Seconds between two reads of the page's screen while waiting for a condition."""
DEFAULT_TIMEOUT = 15.0
KEYS = {
    "escape": "Escape",
    "enter": "Enter",
    "tab": "Tab",
    "backspace": "Backspace",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "right": "ArrowRight",
    "left": "ArrowLeft",
}
"""The e2e helpers' key names as Playwright presses them."""
READ_SCREEN = """() => {
    const term = window.lovelet && window.lovelet.term;
    if (!term) return null;
    const buffer = term.buffer.active;
    const lines = [];
    for (let row = 0; row < term.rows; row++) {
        const line = buffer.getLine(buffer.viewportY + row);
        lines.push(line ? line.translateToString(false) : "");
    }
    return {cols: term.cols, rows: term.rows, lines};
}"""


@dataclass
class Screen:
    """The terminal's screen as the e2e helpers read a pyte screen."""

    columns: int = 0
    lines: int = 0
    display: list[str] = field(default_factory=list)


def need_chromium() -> None:
    """Skip where the system has no Chromium; fail in CI, whose `.ci/run` installs Debian's."""
    if shutil.which(CHROMIUM) is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium: .ci/run should have installed it")
        pytest.skip("no chromium on this machine (apt-get install chromium)")


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """The system's Chromium, headless."""
    need_chromium()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            await browser.close()


class BrowserTerminal:
    """One page of the server's web front-end, playing as a guest."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.screen = Screen()
        self.raw = bytearray()
        """Grows by a byte whenever the screen read differs (the helpers' cache key)."""
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        browser: Browser,
        url: str,
        name: str | None,
        size: tuple[int, int] = (1280, 800),
        **device: Any,
    ) -> AsyncIterator[BrowserTerminal]:
        """Open `url` in a new window of `size` pixels (on a `device`: `has_touch=True`...)
        and join as `name` (None: the page is signed in, and asks for no name)."""
        viewport = {"width": size[0], "height": size[1]}
        context = await browser.new_context(viewport=viewport, **device)  # type: ignore[arg-type]
        try:
            terminal = cls(await context.new_page())
            await terminal.page.goto(url)
            if name is not None:
                await terminal.page.fill("#name", name)
                await terminal.page.press("#name", "Enter")
            # the app's first frame: the WebSocket is open (keys typed before are dropped)
            await terminal.wait_for(lambda: terminal.text.strip() != "", "the app's first frame")
            yield terminal
        finally:
            await context.close()

    async def refresh(self) -> None:
        """Read the screen from the page's xterm.js buffer."""
        read = await self.page.evaluate(READ_SCREEN)
        if read is None:
            return
        if read["lines"] != self.screen.display:
            self.raw.append(0)
        self.screen = Screen(read["cols"], read["rows"], read["lines"])

    @property
    def text(self) -> str:
        """The screen as lines of text (as last read)."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def wait_for(
        self, predicate: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """Read the screen until `predicate` holds, up to `timeout` seconds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            await self.refresh()
            if predicate():
                return
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what}\n{self.text}")
            await asyncio.sleep(POLL)

    async def wait_for_text(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until `text` is on the screen."""
        await self.wait_for(lambda: text in self.text, repr(text), timeout)

    async def send_keys(self, *keys: str) -> None:
        """Press each key (the e2e helpers' names, or one character) in the page."""
        for key in keys:
            await self.page.keyboard.press(KEYS.get(key, key))

    async def send(self, text: str) -> None:
        """Type `text`."""
        await self.page.keyboard.type(text)

    async def closed(self) -> dict[str, object] | None:
        """How the page's WebSocket closed ({code, reason}), or None while it is open."""
        return await self.page.evaluate("() => window.lovelet.closed")
