"""The app and its lobby against a fake link: hello, tables, the new-table form, chat, help,
the too-small message, and frames delivered from another app's task."""

from __future__ import annotations

import re

import pytest
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from test_tui_support import CATALOGUE, FakeLink, burst, screen_text, served
from textual import events

from lovelet_tui import LoveletApp
from lovelet_tui.widgets.cycler import Cycler
from lovelet_tui.widgets.plain_input import FieldInput
from protocol import (
    PROTOCOL_VERSION,
    BotSpec,
    Chat,
    ChatLine,
    CreateTable,
    Hello,
    Join,
    Lobby,
    Notice,
    Spectate,
    TableSummary,
    Welcome,
    encode,
)

SIZE = (80, 24)
LOBBY = Lobby(
    tables=(
        TableSummary("K7Q", "[b]Bo's[/b] table", "2019", 4, 2, "waiting", 0),
        TableSummary("ZZ9", "late night", "premium", 6, 6, "playing", 3),
    ),
    online=("Ana", "[red]Bo"),
)


async def test_hello_is_sent_on_mount() -> None:
    link = FakeLink()
    async with served(link, "Ana").run_test(size=SIZE):
        pass
    assert link.sent[0] == Hello(PROTOCOL_VERSION, "Ana")
    assert link.closed


async def test_a_nameless_app_says_hello_as_guest() -> None:
    link = FakeLink()
    async with served(link).run_test(size=SIZE):
        pass
    assert link.sent[0] == Hello(PROTOCOL_VERSION, "guest")


async def test_lobby_lists_tables_and_names_literally() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", None, True, "Be kind.", catalogue=CATALOGUE))
        )
        app.deliver(encode(LOBBY))
        await pilot.pause()
        text = screen_text(app)
    assert "signed in as Ana (guest)" in text
    assert "Be kind." in text
    assert "K7Q" in text and "[b]Bo's[/b] table" in text and "2/4" in text and "open" in text
    assert "ZZ9" in text and "Premium" in text and "6/6" in text
    assert "Online: Ana, [red]Bo" in text


async def test_programs_on_the_bot_api_are_marked_in_the_online_list() -> None:
    app = LoveletApp(FakeLink(), "Ana")
    lobby = Lobby((), ("Ana", "robo", "[API bot]"), api_bots=("robo",))
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(Welcome(PROTOCOL_VERSION, "Ana", None, True, "", catalogue=CATALOGUE)))
        app.deliver(encode(lobby))
        await pilot.pause()
        text = screen_text(app)
    assert "Online: Ana, robo [API bot], [API bot]" in text


async def test_join_and_watch_the_selected_table() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(LOBBY))
        await pilot.pause()
        await pilot.press("j", "down", "w", "up", "enter")
        await pilot.pause()
    assert link.sent[1:] == [Join("K7Q"), Spectate("ZZ9"), Join("K7Q")]


async def test_the_form_sends_create_table() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await pilot.press(*"Cards")
        await pilot.press("tab", "right")  # edition: 2019 → premium (5–8 seats)
        await pilot.press("tab", "right")  # seats: 5 → 6
        await pilot.press("tab", "right", "right")  # 2 bots
        await pilot.press("tab", "right")  # medium
        await pilot.press("tab", "left")  # 90 s → 1 min per turn
        await pilot.press("enter")
        await pilot.pause()
        assert "Bot level" not in screen_text(app)
    bots = (BotSpec(1, "medium"), BotSpec(2, "medium"))
    assert link.sent[-1] == CreateTable("Cards", "premium", 6, 60, bots, bot_level="medium")


async def test_form_keys_read_in_one_burst_are_taken_in_order() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        burst(app, "tab", "right", "tab", "right", "tab", "right", "right", "shift+tab", "enter")
        await pilot.pause()
        await pilot.pause()
    bots = (BotSpec(1, "easy"), BotSpec(2, "easy"))
    assert link.sent[1:] == [CreateTable("Ana's table", "premium", 6, 90, bots, bot_level="easy")]


async def test_the_form_starts_on_the_servers_turn_timer() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", None, True, timer=45, catalogue=CATALOGUE))
        )
        await pilot.press("n")
        assert "‹ 45 s ›" in screen_text(app)
        await pilot.press("tab", "tab", "tab", "tab", "tab", "right", "enter")
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", None, True, timer=None, catalogue=CATALOGUE))
        )
        await pilot.press("n", "enter")
        await pilot.pause()
    assert [request.timer for request in link.sent[1:]] == [60, None]


async def test_the_form_has_defaults_and_esc_cancels() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(
            encode(Welcome(PROTOCOL_VERSION, "Ana", "SHA256:x", False, catalogue=CATALOGUE))
        )
        await pilot.press("n", "escape", "n", "enter")
        await pilot.pause()
    assert link.sent[1:] == [CreateTable("Ana's table", "2019", 4, 90, (), bot_level="easy")]


async def test_chat_is_typed_after_c_and_shown_literally() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c", *"hi [b]all", "enter")
        await pilot.press("c", *"never mind", "escape", "j")
        app.deliver(encode(ChatLine("lobby", "[red]Bo", "[bold]hello[/] \\[x]")))
        await pilot.pause()
        text = screen_text(app)
    assert link.sent[1:] == [Chat("hi [b]all")]
    assert "[red]Bo: [bold]hello[/] \\[x]" in text


async def test_chat_keys_read_in_one_burst_are_taken_in_order() -> None:
    """Fast typing, or a slow link, delivers keys in one burst: the Chat key opens the input
    for the keys after it, and the keys after Enter act on the lobby again."""
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "c", "h", "c", "enter", "n")
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
    assert link.sent[1:] == [Chat("hc")]
    assert "New table" in text and "Say something" not in text


async def test_the_chat_input_shows_and_drops_control_characters() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert "Say something (Enter sends, Esc leaves)" in screen_text(app)
        assert app.focused is not None
        app.focused.post_message(events.Paste("\x1b[31mred\x1b]0;title\x07 \x9b1m end"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert "Say something" not in screen_text(app)
    assert link.sent[1:] == [Chat("[31mred]0;title 1m end")]


async def test_too_small_terminal_says_so_and_resize_is_live() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert "Terminal too small (need 80×24)" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = screen_text(app)
        assert "too small" not in text and "New table" in text
        await pilot.resize_terminal(80, 23)
        await pilot.pause()
        assert "Terminal too small" in screen_text(app)


async def test_help_opens_with_question_mark() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "Keys" in text and "New table" in text
        assert "Ctrl+T" in text and "Colour, monochrome, 16 colours" in text
        await pilot.press("r")
        await pilot.pause()
        assert "Love Letter Classic (2012)" in screen_text(app)
        await pilot.press("right")
        await pilot.pause()
        assert "Love Letter (2019)" in screen_text(app)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert "Tables" in screen_text(app) or "No tables yet" in screen_text(app)


async def test_bad_frames_and_notices_are_shown() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.deliver(b"\xc1 not msgpack")
        app.deliver(encode(Notice("Server [b]restarting[/b]")))
        await pilot.pause()
        text = screen_text(app)
    assert "Bad message from the server" in text
    assert "Server [b]restarting[/b]" in text


async def test_deliver_from_another_apps_task_reaches_this_app() -> None:
    app, other = served(FakeLink(), "Ana"), served(FakeLink(), "Bo")
    async with app.run_test(size=SIZE) as pilot, other.run_test(size=SIZE) as other_pilot:
        await other_pilot.pause()
        other.call_later(app.deliver, encode(LOBBY))  # runs in the other app's task
        await other_pilot.pause()
        await pilot.pause()
        assert "K7Q" in screen_text(app)
        assert "K7Q" not in screen_text(other)


async def test_a_changed_table_updates_its_row_and_new_tables_keep_the_cursor() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(LOBBY))
        await pilot.pause()
        await pilot.press("down")
        k7q, zz9 = LOBBY.tables
        fuller = TableSummary("K7Q", k7q.name, "2019", 4, 3, "waiting", 1)
        app.deliver(encode(Lobby((fuller, zz9), LOBBY.online)))
        await pilot.pause()
        assert "3/4" in screen_text(app) and "2/4" not in screen_text(app)
        newer = TableSummary("AB2", "newer", "classic", 2, 1, "waiting", 0)
        app.deliver(encode(Lobby((newer, fuller, zz9), LOBBY.online)))
        await pilot.pause()
        assert "newer" in screen_text(app)
        await pilot.press("j")
    assert link.sent[1:] == [Join("ZZ9")]


OPEN_TABLES = Lobby(
    tables=(
        TableSummary("K7QA", "alice", "2019", 4, 2, "waiting", 0),
        TableSummary("ZZ9B", "bo", "premium", 6, 6, "playing", 3),
    ),
    online=("alice", "bo"),
)


def table_rows(app: LoveletApp) -> list[str]:
    """The lobby's table list as shown: the header and one line per table."""
    lines = screen_text(app).splitlines()
    first = next(i for i, line in enumerate(lines) if "Code" in line)
    return [line.rstrip() for line in lines[first : first + 3]]


async def test_columns_fit_tables_already_open_when_the_session_starts() -> None:
    app = served(FakeLink(), "Ana")
    app.deliver(encode(Welcome(PROTOCOL_VERSION, "Ana", None, True, catalogue=CATALOGUE)))
    app.deliver(encode(OPEN_TABLES))  # arrives as the app mounts, as over SSH
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert table_rows(app)[1].split() == ["K7QA", "alice", "2019", "2/4", "open", "0"]
        bo = OPEN_TABLES.tables[1]
        started = TableSummary("K7QA", "alice", "2019", 4, 4, "playing", 12)
        app.deliver(encode(Lobby((started, bo), OPEN_TABLES.online)))
        await pilot.pause()
        assert table_rows(app)[1].split() == ["K7QA", "alice", "2019", "4/4", "playing", "12"]


async def test_closing_an_overlay_leaves_the_lobby_where_it_was() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(OPEN_TABLES))
        await pilot.pause()
        before = table_rows(app)
        assert before[0].startswith(" Code")
        for key in ("question_mark", "i", "n"):
            await pilot.press(key)
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert table_rows(app) == before, key
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert table_rows(app) == before


async def test_help_opened_again_renders_no_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Help's reference text is drawn once per width for every session: opening it again
    renders no Rich table (each open rendered both of its tables at every layout)."""
    renders = [0]
    render = Table.__rich_console__

    def counted(table: Table, console: Console, options: ConsoleOptions) -> RenderResult:
        renders[0] += 1
        return render(table, console, options)

    monkeypatch.setattr(Table, "__rich_console__", counted)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):
            renders[0] = 0
            await pilot.press("question_mark")
            await pilot.pause()
            assert "New table" in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
    assert renders[0] == 0


async def test_help_and_rules_opened_again_are_the_same_screens() -> None:
    """Toggling help or the rules makes no screen to throw away (each would be garbage for a
    whole collection of the server's: issue 34): the same two are shown again, the rules
    from their first edition each time."""
    app = served(FakeLink(), "Ana")
    shown = []
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.press("question_mark")
            await pilot.pause()
            assert "New table" in screen_text(app)
            await pilot.press("r")
            await pilot.pause()
            assert "Love Letter Classic (2012)" in screen_text(app)
            shown.append(app.screen_stack[-2:])
            await pilot.press("right")
            await pilot.pause()
            assert "Love Letter (2019)" in screen_text(app)
            await pilot.press("escape", "escape")
            await pilot.pause()
            assert app.screen is app.lobby
    assert len({tuple(map(id, screens)) for screens in shown}) == 1


async def test_the_form_opened_again_is_the_same_screen_and_starts_afresh() -> None:
    """No form to throw away each time (issue 34), and none of the last one's choices."""
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        await pilot.press("x", "y", "tab", "tab", "right")
        await pilot.pause()
        assert form.query_one("#seats", Cycler).value == 5
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is form
        assert form.query_one("#seats", Cycler).value == 4
        assert form.query_one("#name", FieldInput).value == ""
        assert app.focused is form.query_one("#name", FieldInput)


async def test_help_lists_admin_keys_to_admins_only() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(80, 90)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "New table" in text
        assert "Admin" not in text and "Run" not in text
        await pilot.press("escape")
        app.deliver(
            encode(
                Welcome(PROTOCOL_VERSION, "Ana", "SHA256:x", False, admin=True, catalogue=CATALOGUE)
            )
        )
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
    assert re.search(r"\ba +Admin\b", text) and "Admin command line" in text


async def test_form_fields_stop_at_their_ends() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "tab", "left")  # edition: classic is the first
        await pilot.pause()
        assert "‹ Love Letter Classic (2012) ›" not in screen_text(app)  # no step before it
        assert "Love Letter Classic (2012) ›" in screen_text(app)
        await pilot.press("tab", "tab", "left")  # bots: 0 stays 0
        await pilot.press("shift+tab", "shift+tab", *["right"] * 5)  # edition: ppea is the last
        await pilot.press("tab", "tab", *["right"] * 9)  # bots: 3 at most at 4 seats
        await pilot.press("tab", "tab", *["right"] * 9)  # timer: none is the last
        await pilot.press("enter")
        await pilot.press("n", "tab", "left", "enter")
        await pilot.pause()
    easy = [BotSpec(seat, "easy") for seat in (1, 2, 3)]
    assert link.sent[1:] == [
        CreateTable("Ana's table", "ppea", 4, None, tuple(easy), bot_level="easy"),
        CreateTable("Ana's table", "classic", 4, 90, (), bot_level="easy"),
    ]


async def test_seats_follow_the_edition_unless_picked() -> None:
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "tab", "right", "right", "enter")  # premium (5-8), then ppea
        await pilot.press("n", "tab", "tab", "right", "right")  # 2019 with 6 seats
        await pilot.press("shift+tab", "right", "right", "enter")  # premium, ppea: 6 fits both
        await pilot.press("n", "tab", "tab", "right", "right")  # 6 seats
        await pilot.press("shift+tab", "left", "enter")  # classic: 2-4, so its default
        await pilot.pause()
    assert [(request.edition, request.seats) for request in link.sent[1:]] == [
        ("ppea", 4),
        ("ppea", 6),
        ("classic", 4),
    ]


async def test_app_keys_work_over_the_modal_boxes_too() -> None:
    """Help lists Ctrl+Q and Ctrl+T under "Everywhere": the new-table form and the rejoin box
    (modal screens, which block the app's ordinary bindings) obey them as well."""
    for box in ("n", "r"):
        app = served(FakeLink(), "Ana")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press(box)
            await pilot.pause()
            modal = app.screen
            assert modal.is_modal
            look = app.look
            await pilot.press("ctrl+t")
            await pilot.pause()
            assert app.look != look and app.screen is modal
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert not app.is_running


async def test_the_boxes_with_a_line_to_type_show_enter_in_their_key_bar() -> None:
    """Enter creates the table (or runs the admin line, sends the rejoin code) from the text
    field too, so the key bar says so there as well as on the form's other fields."""
    boxes = {"n": "⏎ Create", "a": "⏎ Run", "r": "⏎ Rejoin"}
    for key, enter in boxes.items():
        app = served(FakeLink(), "Ana")
        async with app.run_test(size=SIZE) as pilot:
            welcome = Welcome(PROTOCOL_VERSION, "Ana", None, True, admin=True, catalogue=CATALOGUE)
            app.deliver(encode(welcome))
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            assert app.screen.is_modal
            key_bar = screen_text(app).splitlines()[-1]
            assert enter in key_bar and "esc Cancel" in key_bar, key_bar
            if key == "n":
                assert "tab Next field" in key_bar
                await pilot.press("tab")  # the edition field: ← and → change it
                await pilot.pause()
                key_bar = screen_text(app).splitlines()[-1]
                assert all(k in key_bar for k in ("← Previous", "→ Next", enter)), key_bar


async def test_look_notices_stay_clear_of_the_lobbys_divider() -> None:
    """Ctrl+T pressed thrice: its notices, a row each, stay inside the chat's rows."""
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        divider = next(i for i, line in enumerate(screen_text(app).splitlines()) if "────" in line)
        await pilot.press("ctrl+t", "ctrl+t", "ctrl+t")
        await pilot.pause()
        lines = screen_text(app).splitlines()
    assert lines[divider].strip() == "─" * 80
    assert sum("Switched to" in line for line in lines) == 3


@pytest.mark.parametrize("admin", [False, True], ids=["guest", "admin"])
async def test_the_footer_keeps_help_at_80_columns(admin: bool) -> None:
    """With tables listed, a guest's (and an admin's) keys are too many for 80 columns: the
    last ones give way to "…", never Help."""
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        welcome = Welcome(PROTOCOL_VERSION, "Ana", None, True, admin=admin, catalogue=CATALOGUE)
        app.deliver(encode(welcome))
        app.deliver(encode(LOBBY))
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1].rstrip()
    assert footer.startswith(" n New table  j Join  w Watch") and footer.endswith("  ? Help")
    assert "…  ^q Quit  ? Help" in footer
