"""The table log pages back and forth without losing or repeating a row."""

from __future__ import annotations

import itertools
import re

from rich.text import Text
from test_tui_support import screen_text
from textual.app import App, ComposeResult

from lovelet_tui.widgets.log_view import LogView

HEIGHT = 20


class LogApp(App[None]):
    CSS = f"LogView {{ height: {HEIGHT}; }}"

    def compose(self) -> ComposeResult:
        yield LogView()


def _rows_shown(app: App[None]) -> list[int]:
    return [int(n) for n in re.findall(r"^row (\d+)", screen_text(app), re.MULTILINE)]


async def _pages_back(rows: int, presses: int) -> list[list[int]]:
    app = LogApp()
    async with app.run_test(size=(60, HEIGHT + 4)) as pilot:
        log = app.query_one(LogView)
        log.write(*(Text(f"row {n}") for n in range(1, rows + 1)))
        await pilot.pause()
        pages = [_rows_shown(app)]
        for _ in range(presses):
            log.page(-1)
            await pilot.pause()
            pages.append(_rows_shown(app))
    return pages


async def test_each_page_back_ends_just_above_the_one_before() -> None:
    pages = await _pages_back(60, 3)
    for newer, older in itertools.pairwise(pages):
        if older[0] > 1:
            assert older[-1] == newer[0] - 1, (newer, older)
    assert pages[-1] == list(range(1, HEIGHT))  # the oldest page: full, from row 1


async def test_paging_past_the_top_keeps_the_oldest_page_full() -> None:
    pages = await _pages_back(60, 8)
    assert pages[-1] == pages[-2] == list(range(1, HEIGHT))


async def test_wrapped_lines_page_by_rows() -> None:
    app = LogApp()
    async with app.run_test(size=(30, HEIGHT + 4)) as pilot:
        log = app.query_one(LogView)
        log.write(*(Text(f"row {n} " + "word " * 8) for n in range(1, 31)))  # two rows each
        await pilot.pause()
        seen = [_rows_shown(app)]
        for _ in range(3):
            log.page(-1)
            await pilot.pause()
            seen.append(_rows_shown(app))
    numbers = sorted({n for page in seen for n in page})
    assert numbers == list(range(numbers[0], 31))  # no line skipped between pages
