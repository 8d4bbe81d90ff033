"""A partial update with the server's patch renders only the lines it repaints, and its chops
(what is sent) are the ones Textual's own `_render_chops` gives."""

from __future__ import annotations

import random

import pyte
import pytest
from test_tui_support import FakeLink, deliver, new_game, served, table_state
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from lovelet_tui.widgets.backdrop import Backdrop
from lovelet_tui.widgets.rows import Rows
from server.render import chops
from server.ssh import compat

SIZE = (80, 24)


def _box(lines: set[int]) -> Region:
    """The crop Textual gives `_render_chops`: the whole width of the repainted lines."""
    return Region(0, min(lines), SIZE[0], max(lines) - min(lines) + 1)


def _same_chops_for_any_lines(compositor: Compositor) -> None:
    picks = random.Random(16)
    sets = [{y} for y in range(SIZE[1])] + [set(range(SIZE[1]))]
    sets += [set(picks.sample(range(SIZE[1]), picks.randint(2, 8))) for _ in range(40)]
    for lines in sets:
        ours = chops.render_repainted_lines(compositor, _box(lines), lines.__contains__)
        theirs = compat._render_chops(compositor, _box(lines), lines.__contains__)
        assert ours == theirs, sorted(lines)


async def test_any_repainted_lines_give_textuals_chops() -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        app.notify("A toast over the log")  # a layer over other widgets
        await pilot.pause()
        _same_chops_for_any_lines(app.screen._compositor)


async def test_a_scrolled_screen_gives_textuals_chops() -> None:
    """Widgets cut by a scrolled container render the band of their visible part."""
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.press("pagedown", "down", "down")
        await pilot.pause()
        assert app.screen.query_one("#main").scroll_y > 0
        _same_chops_for_any_lines(app.screen._compositor)


async def test_one_repainted_line_renders_that_line_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        rendered: list[int] = []
        whole_line = Rows._whole_line
        monkeypatch.setattr(
            Rows, "_whole_line", lambda self, y: rendered.append(y) or whole_line(self, y)
        )
        compositor = app.screen._compositor
        lines = {1, 20}  # a seat and a row low in the log: the box holds nearly every widget
        chops.render_repainted_lines(compositor, _box(lines), lines.__contains__)
        ours = len(rendered)
        rendered.clear()
        compat._render_chops(compositor, _box(lines), lines.__contains__)
        assert ours <= 6 < len(rendered)


async def test_widgets_covered_by_those_in_front_render_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table screen and its body are covered by their panes: a repaint asks neither."""
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        asked: list[str] = []
        render_lines = Backdrop.render_lines
        monkeypatch.setattr(
            Backdrop,
            "render_lines",
            lambda self, crop: asked.append(type(self).__name__) or render_lines(self, crop),
        )
        compositor = app.screen._compositor
        for lines in [{y} for y in range(SIZE[1])] + [set(range(SIZE[1]))]:
            chops.render_repainted_lines(compositor, _box(lines), lines.__contains__)
        assert asked == []
        compat._render_chops(compositor, _box({12}), {12}.__contains__)
        assert asked == ["BackdropRow", "TableScreen"]  # Textual's asks both


def _drawn(output: str) -> list[list[pyte.screens.Char]]:
    """Every cell, with its colours and attributes, after `output` on a blank terminal."""
    screen = pyte.Screen(*SIZE)
    pyte.Stream(screen).feed(output)
    return [[screen.buffer[y][x] for x in range(SIZE[0])] for y in range(SIZE[1])]


async def test_an_update_draws_what_textuals_draws_with_no_move_for_an_empty_piece() -> None:
    game = new_game("2019", 4)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        compositor = app.screen._compositor
        regions = [region for region, _ in compositor.visible_widgets.values()]
        picks = random.Random(16)
        sets = [[region] for region in regions]
        sets += [picks.sample(regions, picks.randint(2, 5)) for _ in range(40)]
        for _ in range(40):  # boxes cutting across widgets: a span ends inside a piece
            x, y = picks.randrange(SIZE[0] - 1), picks.randrange(SIZE[1] - 1)
            width, height = picks.randint(1, SIZE[0] - x), picks.randint(1, SIZE[1] - y)
            sets.append([Region(x, y, width, height)])
        ends = [cut_set[1:] for cut_set in compositor.cuts]
        saved = 0
        for dirty in sets:
            spans = list(Compositor._regions_to_spans(dirty))
            lines = {y for y, _, _ in spans}
            crop = Region.from_union(dirty).intersection(Region(0, 0, *SIZE))
            update = ChopsUpdate(
                compat._render_chops(compositor, crop, lines.__contains__), spans, ends
            )
            ours = chops.render_segments(update, app.console)
            theirs = compat._render_segments(update, app.console)
            assert _drawn(ours) == _drawn(theirs), dirty
            assert ours.count("\x1b[") <= theirs.count("\x1b[")
            saved += len(theirs) - len(ours)
        assert saved > 0  # the log's span ends where the choices start
