"""Rows widgets: what they show after changes, that unchanged rows keep their rendering, and
that their own drawing gives the cells Textual's would."""

from __future__ import annotations

from rich.color import ColorSystem
from rich.console import Console
from rich.text import Text
from test_tui_support import FakeLink, cards_of, new_game, screen_text, served, table_state
from textual import events
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget

from lovelet_tui.names import Names
from lovelet_tui.widgets.hand import HandView
from lovelet_tui.widgets.log_view import LogView
from lovelet_tui.widgets.rows import Rows, wrap_rows
from protocol import encode


class Lines(Rows):
    """Shows `self.lines` as they are."""

    DEFAULT_CSS = "Lines { height: 4; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[Text] = []

    def build_rows(self, width: int, height: int) -> list[Text]:
        return self.lines

    def show(self, *rows: Text) -> None:
        self.lines = list(rows)
        self.redraw()


class RowsApp(App[None]):
    CSS = "Lines.alert { background: red; }"

    def compose(self) -> ComposeResult:
        yield Lines()
        yield LogView(id="log")


def _screen_rows(app: App[None]) -> list[str]:
    return [row.rstrip() for row in screen_text(app).splitlines()]


def _rendered(widget: Rows) -> list[bool]:
    """Which rows hold a kept rendering (False: renders anew at the next paint)."""
    return [strip is not None for strip in widget._lines]


async def test_only_changed_rows_render_anew_and_the_screen_shows_every_change() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("alpha"), Text("beta"), Text("gamma"))
        await pilot.pause()
        assert _rendered(lines) == [True, True, True]
        lines.show(Text("alpha"), Text("BETA", style="bold"), Text("gamma"))
        assert _rendered(lines) == [True, False, True]
        await pilot.pause()
        assert _screen_rows(app)[:3] == ["alpha", "BETA", "gamma"]
        lines.show(Text("alpha"))
        await pilot.pause()
        assert _screen_rows(app)[:3] == ["alpha", "", ""]


async def test_a_rows_own_style_is_drawn() -> None:
    """Rich renders a text's base style only along its spans: a row styled as a whole
    (the table header, a notice, "no cards") keeps it."""
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("plain"), Text("bold", style="bold"))
        await pilot.pause()
        assert app.screen.get_style_at(0, 1).bold and not app.screen.get_style_at(0, 0).bold


async def test_a_class_that_changes_the_style_redraws_every_row() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("alpha"))
        await pilot.pause()
        before = lines.render_lines(lines.outer_size.region)[0]
        lines.add_class("alert")
        await pilot.pause()
        after = lines.render_lines(lines.outer_size.region)[0]
        assert [segment.text for segment in after] == [segment.text for segment in before]
        assert all(segment.style.bgcolor.name == "#ff0000" for segment in after)
        assert not any(segment.style.bgcolor.name == "#ff0000" for segment in before)


async def test_a_long_row_is_cut_with_an_ellipsis_and_a_resize_redraws() -> None:
    app = RowsApp()
    async with app.run_test(size=(20, 12)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("a row much longer than the screen"))
        await pilot.pause()
        assert _screen_rows(app)[0] == "a row much longer t…"
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        assert _screen_rows(app)[0] == "a row much longer than the screen"


async def test_the_log_fills_down_then_jumps_half_a_view_up_keeping_renderings() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:  # the log has 8 rows
        log = app.query_one(LogView)
        log.write(*(Text(f"line {n}") for n in range(20)))
        await pilot.pause()
        assert _screen_rows(app)[4:12] == [f"line {n}" for n in range(12, 20)]
        log.write(Text("line 20"))
        assert _rendered(log) == [True] * 4 + [False]  # the newest half moved up, one new
        await pilot.pause()
        assert _screen_rows(app)[4:12] == [f"line {n}" for n in range(16, 21)] + [""] * 3
        log.write(Text("line 21"), Text("line 22"))
        assert _rendered(log) == [True] * 5 + [False] * 2  # written below: nothing moves
        await pilot.pause()
        assert _screen_rows(app)[4:12] == [f"line {n}" for n in range(16, 23)] + [""]
        log.write(Text("line 23"), Text("line 24"))
        await pilot.pause()
        assert _screen_rows(app)[4:12] == [f"line {n}" for n in range(19, 25)] + [""] * 2


async def test_a_resized_log_shows_as_many_of_the_newest_rows_as_fit() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        log = app.query_one(LogView)
        log.write(*(Text(f"line {n}") for n in range(20)))
        log.write(Text("line 20"))
        await pilot.pause()
        await pilot.resize_terminal(40, 14)
        await pilot.pause()
        assert _screen_rows(app)[4:14] == [f"line {n}" for n in range(11, 21)]


async def test_every_table_widget_draws_the_cells_textual_would_draw() -> None:
    game = new_game("2019", 4)
    for _ in range(6):
        seat, _, choices = game.pending
        game.act(seat, choices[0])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(80, 24)) as pilot:
        app.deliver(encode(table_state(game, 0)))
        await pilot.pause()
        shown = [widget for widget in app.screen.query(Rows) if widget.display]
        assert len(shown) >= 5
        for widget in shown:
            whole = widget.outer_size.region
            for region in (whole, whole.shrink((0, 2, 0, 3))):  # all of it, and a cut
                ours = [_cells(line) for line in widget.render_lines(region)]
                textuals = [_cells(line) for line in Widget.render_lines(widget, region)]
                assert ours == textuals, (widget, region)


def _cells(line: Strip) -> list[tuple[str, object]]:
    """What each cell shows: its character and style (a blank shows only its background)."""
    return [
        (char, segment.style.bgcolor if char == " " and segment.style else segment.style)
        for segment in line
        for char in segment.text
    ]


async def test_a_row_another_session_drew_alike_is_reused_and_a_restyled_one_is_not() -> None:
    drawn: list[Strip] = []
    for alert, colors in (
        (False, None),
        (False, None),
        (True, None),
        (False, ColorSystem.EIGHT_BIT),
    ):
        app = RowsApp()
        if colors is not None:
            app.console._color_system = colors  # as the SSH driver sets it for its session
        async with app.run_test(size=(40, 12)) as pilot:
            lines = app.query_one(Lines)
            lines.set_class(alert, "alert")
            lines.show(Text("drawn once for every session", style="bold"))
            await pilot.pause()
            drawn.append(lines.render_lines(lines.outer_size.region)[0])
    first, again, restyled, fewer_colors = drawn
    assert again is first
    assert restyled is not first and fewer_colors is not first
    assert [segment.text for segment in restyled] == [segment.text for segment in first]
    assert all(segment.style.bgcolor.name == "#ff0000" for segment in restyled)


async def test_a_changed_row_is_painted_without_a_message_to_its_widget_or_its_screen() -> None:
    app = RowsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("alpha"))
        await pilot.pause()
        handled: list[object] = []
        lines.message_signal.subscribe(app, handled.append, immediate=True)
        app.screen.message_signal.subscribe(app, handled.append, immediate=True)
        painted: list[object] = []  # each screen update sent to the terminal
        app._display = lambda screen, update: painted.append(update)  # type: ignore[method-assign]
        lines.show(Text("omega"), Text("psi"))
        await pilot.pause()
        assert _screen_rows(app)[:2] == ["omega", "psi"] and len(painted) == 1
        assert [m for m in handled if not isinstance(m, events.Callback)] == []  # the pilot's


class HandApp(App[None]):
    def compose(self) -> ComposeResult:
        yield HandView()
        yield LogView(id="log")


async def test_the_hand_keeps_its_height_through_a_game_and_a_note_shrinks_it() -> None:
    """A hand grows to fit wrapped card texts and does not shrink back while cards are shown:
    each change of height is a layout of the whole screen, and a hand changes every turn."""
    names = Names(("Ana", "Bo"), 0, cards_of("2019"))
    app = HandApp()
    async with app.run_test(size=(44, 16)) as pilot:
        hand = app.query_one(HandView)
        hand.show(["countess", "chancellor"], names)
        await pilot.pause()
        grown = hand.size.height
        assert grown > 3
        hand.show(["guard"], names)
        await pilot.pause()
        assert hand.size.height == grown
        hand.show([], names)  # knocked out: "no cards" until the next round
        await pilot.pause()
        assert hand.size.height == grown
        hand.show_note("You are watching this table.")
        await pilot.pause()
        assert hand.size.height == 3


async def test_two_sessions_logging_one_line_share_its_wrapped_rows() -> None:
    """A line the screens at a table all log is wrapped once for every session; the rows
    differ for another width or another look, and a caller's list is its own."""
    line = Text.assemble(("Bo", "bold"), " plays the Baron against Cy and compares hands")
    logged: list[list[Text]] = []
    for size in ((40, 12), (40, 12), (30, 12)):
        async with RowsApp().run_test(size=size) as pilot:
            log = pilot.app.query_one(LogView)
            log.write(line)
            await pilot.pause()
            logged.append(log.build_rows(*log.content_size))
    first, again, narrower = logged
    assert len(first) == 2 and all(a is b for a, b in zip(first, again, strict=True))
    assert [row.plain for row in narrower] != [row.plain for row in first]
    first.append(Text("mine"))
    assert len(wrap_rows(line, 40, Console())) == 2
    restyled = line.copy()
    restyled.stylize("red")
    assert wrap_rows(restyled, 40, Console())[0] is not again[0]


class FramedApp(App[None]):
    CSS = "Lines { height: 4; padding: 0 1; } Lines.framed { border: solid red; }"

    def compose(self) -> ComposeResult:
        yield Lines()


async def test_a_border_a_class_gives_is_drawn_around_rows_cut_to_the_narrower_width() -> None:
    app = FramedApp()
    async with app.run_test(size=(16, 6)) as pilot:
        lines = app.query_one(Lines)
        lines.show(Text("alpha beta gamma"))
        await pilot.pause()
        assert _screen_rows(app)[0] == " alpha beta ga…"
        lines.add_class("framed")
        await pilot.pause()
        lines.show(Text("alpha beta gamma"), Text("delta"))
        await pilot.pause()
        assert _screen_rows(app)[:4] == [
            "┌──────────────┐",
            "│ alpha beta … │",
            "│ delta        │",
            "└──────────────┘",
        ]
