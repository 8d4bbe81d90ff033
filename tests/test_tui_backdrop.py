"""Backdrops: a screen or container behind other widgets renders its own lines once, and anew
when its styles change."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from lovelet_tui.widgets.backdrop import Backdrop, BackdropRow


class Back(Screen[None], Backdrop):
    def compose(self) -> ComposeResult:
        yield Static("top", id="top")
        with BackdropRow(id="row"):
            yield Static("left")


class BackApp(App[None]):
    CSS = "#top { height: 1; } #row { height: 3; }"

    def on_mount(self) -> None:
        self.push_screen(Back())


def _own_lines(widget: Widget) -> list:
    """What Textual's own path renders for `widget` now."""
    return Widget.render_lines(widget, Region(0, 0, *widget.size))


async def test_a_backdrop_keeps_its_lines_while_the_widgets_on_it_change() -> None:
    app = BackApp()
    async with app.run_test(size=(30, 8)) as pilot:
        screen, row = app.screen, app.screen.query_one(BackdropRow)
        kept = screen._kept, row._kept
        assert None not in kept  # drawn once
        app.screen.query_one("#top", Static).update("changed")
        await pilot.pause()
        assert screen._kept is kept[0] and row._kept is kept[1]


async def test_a_backdrop_renders_anew_in_a_new_theme() -> None:
    app = BackApp()
    async with app.run_test(size=(30, 8)) as pilot:
        screen, row = app.screen, app.screen.query_one(BackdropRow)
        before = screen.render_lines(Region(0, 0, *screen.size))
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        for widget in (screen, row):
            assert widget.render_lines(Region(0, 0, *widget.size)) == _own_lines(widget)
        assert screen.render_lines(Region(0, 0, *screen.size)) != before


async def test_a_band_of_lines_is_cut_from_the_kept_lines() -> None:
    """A partial update asks for the repainted lines alone (`server.render.chops`): any band
    and column span comes from the one whole rendering, as Textual would draw it."""
    app = BackApp()
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        screen = app.screen
        kept = screen._kept
        for band in (Region(0, 2, 30, 3), Region(0, 7, 30, 1), Region(4, 1, 10, 5)):
            assert screen.render_lines(band) == Widget.render_lines(screen, band)
        assert screen._kept is kept
