"""The table screen against a fake link: hand, choices, staged decisions, round and game end."""

from __future__ import annotations

from test_tui_support import (
    CATALOGUE,
    NAMES,
    FakeLink,
    new_game,
    screen_text,
    served,
    table_info,
    table_state,
)
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from protocol import (
    PROTOCOL_VERSION,
    Act,
    AddBot,
    Chat,
    ChatLine,
    ContinueRound,
    ErrorReply,
    Leave,
    Notice,
    PlayChoice,
    Rematch,
    RemoveBot,
    SeatInfo,
    Sit,
    Stand,
    Start,
    TableState,
    Welcome,
    encode,
)
from server.engine import Game, Play

SIZE = (80, 24)
GUARD_FIRST = ["spy", "guard", "priest", "baron", "handmaid", "priest"]  # Ana: Guard, draws Priest


async def _open(app: LoveletApp, state: TableState, pilot: Pilot[None]) -> None:
    app.deliver(encode(state))
    await pilot.pause()


async def test_your_turn_shows_hand_and_choices() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        text = screen_text(app)
    assert "Guard 1" in text and "Priest 2" in text
    assert "Play which card?" in text
    assert "1  Guard" in text and "2  Priest" in text


async def test_digits_stage_guard_target_guess_and_esc_backs_out() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("1")
        assert "On whom?" in screen_text(app)
        await pilot.press("2")  # Cy
        assert "Name a card:" in screen_text(app)
        await pilot.press("escape")
        assert "On whom?" in screen_text(app)
        await pilot.press("escape", "escape")
        assert "Play which card?" in screen_text(app)
        await pilot.press("1", "1", "3")  # Guard, Bo, Baron (guesses are keyed by value)
        await pilot.pause()
    assert link.sent[-1] == Act(PlayChoice("guard", (1,), "baron"))


def _finish_round(game: Game, *, until_game_over: bool = False) -> None:
    """Play the first legal choice until the round (or the game) is over."""
    while not (game.game_over if until_game_over else game.round_over):
        if game.pending is None:
            game.start_round()
            continue
        game.act(game.pending.seat, game.pending.choices[0])


async def test_the_log_reads_in_sentences_with_private_lines() -> None:
    game = new_game("2019", 3, ["spy", "priest", "king", "baron", "handmaid"])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        since = len(game.events)
        game.act(0, Play("priest", (1,)))
        await _open(app, table_state(game, 0, since), pilot)
        text = screen_text(app)
    assert "Round 1: you to play first" in text
    assert "You were dealt Priest" in text
    assert "You played Priest on Bo" in text
    assert "You saw Bo's hand: King" in text


async def test_round_over_then_continue_sends_continue_round() -> None:
    game = new_game("2019", 4)
    _finish_round(game)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0, status="round_over"), pilot)
        assert f"Round {game.round} over" in screen_text(app)
        assert "n: next round" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert "Waiting for Bo, Cy and Di" in screen_text(app)
        await pilot.press("n")  # once per round
        await pilot.pause()
    assert link.sent[1:] == [ContinueRound()]


async def test_game_over_offers_a_rematch() -> None:
    game = new_game("classic", 3)
    _finish_round(game, until_game_over=True)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0, status="finished"), pilot)
        text = screen_text(app)
        assert "Game over" in text and "won the game" in text
        await pilot.press("n", "r")
        await pilot.pause()
    assert link.sent[1:] == [Rematch()]


async def test_after_a_game_each_player_sees_who_is_ready_and_the_host_may_start_now() -> None:
    game = new_game("classic", 3)
    _finish_round(game, until_game_over=True)
    ready = (SeatInfo("Ana", None, True), SeatInfo("Bo", None, True, ready=True))
    seats = (*ready, SeatInfo("Cy", None, True))
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0, status="finished", seats=seats), pilot)
        text = screen_text(app)
        standings = [line for line in text.splitlines() if "♥" in line and " round" in line]
        assert [line.rstrip().endswith("ready") for line in standings] == [True, False, False]
        assert "r: ready for a rematch" in text and "g: start now, bots for the rest" in text
        await pilot.press("r")
        seats = (SeatInfo("Ana", None, True, ready=True), *seats[1:])
        await _open(app, table_state(game, 0, status="finished", seats=seats), pilot)
        text = screen_text(app)
        assert "Ready. The rematch waits for Cy." in text
        await pilot.press("r", "g")
        await pilot.pause()
    assert link.sent[1:] == [Rematch(), Start()]


async def test_the_last_step_of_a_move_reaches_the_link_before_the_key_handler_returns() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("1", "1")  # Guard, Bo
        sent_before = len(link.sent)
        app.screen.action_pick("3")  # Baron: no trip through any message queue
        assert link.sent[sent_before:] == [Act(PlayChoice("guard", (1,), "baron"))]


async def test_arrows_and_enter_and_a_refused_act_is_offered_again() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("down", "enter")  # Priest
        await pilot.press("down", "down", "enter")  # Di
        await pilot.pause()
        assert "Play which card?" not in screen_text(app)  # the sent step, until the answer
        app.deliver(encode(ErrorReply("illegal_choice", "Not now")))
        await pilot.pause()
        assert "Play which card?" in screen_text(app)
    assert link.sent[-1] == Act(PlayChoice("priest", (3,), None))


async def test_seats_are_managed_before_the_game() -> None:
    seats = (
        SeatInfo("Ana", None, True),
        SeatInfo(None, None, False),
        SeatInfo("easy bot 3", "easy", True),
        SeatInfo("medium bot 4", "medium", True),
    )
    state = TableState(table_info(None, 0, seats=seats, status="waiting"), None, ())
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, state, pilot)
        assert "Before the game" in screen_text(app)
        await pilot.press("2", "b", "s", "down", "b", "down", "b", "g", "u")
        await pilot.pause()
    assert link.sent[1:] == [
        AddBot(1, "easy"),
        Sit(1),
        RemoveBot(2),
        AddBot(2, "medium"),
        RemoveBot(3),
        AddBot(3, "hard"),
        Start(),
        Stand(),
    ]


async def test_only_the_host_manages_bots_and_starts() -> None:
    state = TableState(table_info(None, 1, status="waiting"), None, ())
    link = FakeLink()
    app = served(link, "Bo")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, state, pilot)
        await pilot.press("b", "g")
        await pilot.pause()
        assert "The host starts the game" in screen_text(app)
    assert link.sent[1:] == []


async def test_table_chat_is_literal_and_sent_with_c() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("c", *"gl [i]hf, c u", "enter", "1")  # the digit after Enter picks
        app.deliver(encode(ChatLine("table", "[b]Bo", "[link=x]click[/link]")))
        await pilot.pause()
        text = screen_text(app)
    assert link.sent[1:] == [Chat("gl [i]hf, c u")]
    assert "[b]Bo: [link=x]click[/link]" in text
    assert "On whom?" in text


async def test_a_spectator_sees_no_hand_and_no_choices() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    app = served(FakeLink(), "Zed")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, None), pilot)
        text = screen_text(app)
    assert "You are watching this table." in text
    assert "Waiting for Ana to play a card." in text
    assert "Play which card?" not in text


async def test_leaving_sends_leave_returns_to_the_lobby_and_ignores_late_updates() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("l", "y")  # the game runs: leaving asks first
        await pilot.pause()
        await _open(app, table_state(game, 0), pilot)
        assert "Tables" in screen_text(app) or "No tables yet" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        await _open(app, table_state(game, 0, code="T2"), pilot)
        assert "Play which card?" in screen_text(app)
    assert link.sent[1:] == [Leave()]


async def test_help_at_a_table_shows_its_reference_card() -> None:
    game = new_game("2019", 4, GUARD_FIRST)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
    assert "Love Letter (2019)" in text
    assert "Chancellor" in text and "×2" in text


async def test_seats_show_turn_marks_and_discards() -> None:
    game = new_game("2019", 4, ["spy", "handmaid", "guard", "priest", "baron", "guard"])
    game.act(0, Play("handmaid"))  # Ana is protected
    game.act(1, Play("guard", (2,), "priest"))  # Bo knocks Cy out; Di to play
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0), pilot)
        lines = screen_text(app).splitlines()
    ana, bo, cy, di = (next(line for line in lines if f" {name} " in line) for name in NAMES[:4])
    assert "protected" in ana and "Handmaid" in ana and "▶" not in ana
    assert "Guard" in bo
    assert "out" in cy and "Priest" in cy
    assert "▶" in di
    assert any("Deck" in line and "set aside 1" in line for line in lines)


async def test_the_log_pages_back_and_forth() -> None:
    game = new_game("classic", 3)
    _finish_round(game, until_game_over=True)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0, status="finished"), pilot)
        assert "won the game" in screen_text(app)
        await pilot.press("pageup")
        await pilot.pause()
        text = screen_text(app)
        assert "PgDn for newer lines" in text and "won the game" not in text
        await pilot.press("pagedown")
        await pilot.pause()
        assert "PgDn for newer lines" not in screen_text(app)


async def test_a_sixteen_character_name_keeps_its_you_mark_and_seat_number() -> None:
    game = new_game("2019", 4)
    long_name = "Abcdefghijklmnop"
    seats = [SeatInfo(long_name, None, True), *(SeatInfo(n, None, True) for n in NAMES[1:4])]
    app = served(FakeLink(), long_name)
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, table_state(game, 0, seats=seats, host=long_name), pilot)
        assert f"{long_name} (you)" in screen_text(app)
        waiting = TableState(table_info(None, 0, seats=seats, host=long_name, status="waiting"))
        await _open(app, waiting, pilot)
        assert f"1 {long_name} (you)" in screen_text(app)


async def test_a_notice_at_the_table_stays_in_its_log_and_is_no_toast() -> None:
    """A guest's rejoin code comes at the start of every game: in the log it stays readable,
    and no toast lays out every screen of the table twice."""
    game = new_game("2019", 4, GUARD_FIRST)
    app = served(FakeLink(), "Ana")
    notice = "Your rejoin code: KQXM-TRWA. [b]Keep it[/b]."
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _open(app, TableState(table_info(None, 0, status="waiting")), pilot)
        app.deliver(encode(Notice(notice)))  # the server tells it as the game starts ...
        await _open(app, table_state(game, 0), pilot)  # ... just before the game's whole log
        assert notice in screen_text(app)
        assert not app.screen.query("Toast")  # by its CSS type: the class is private


async def test_a_notice_told_before_the_game_server_restarts_the_table_shows_again() -> None:
    """After a core restart the server welcomes again (the table screen closes) and sends the
    table afresh: the notice told just before ("the game server is back") is in its log."""
    game = new_game("2019", 4, GUARD_FIRST)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _open(app, table_state(game, 0), pilot)
        app.deliver(encode(Notice("The game server is back.")))
        welcome = Welcome(PROTOCOL_VERSION, "Ana", None, True, "", catalogue=CATALOGUE)
        await _open(app, welcome, pilot)
        assert app.table is None
        await _open(app, table_state(game, 0), pilot)
        assert "The game server is back." in screen_text(app)
        assert not app.screen.query("Toast")


async def test_notices_of_a_table_leave_with_it() -> None:
    """Told just before the table opened ("Welcome back") or at it ("Your rejoin code"), a
    notice is gone from the lobby once the table is left; the lobby's own notices stay."""
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.deliver(encode(Notice("Welcome back: you are at table T1 again.")))
        await _open(app, TableState(table_info(None, 0, status="waiting")), pilot)
        app.deliver(encode(Notice("Your rejoin code: KQXM-TRWA.")))
        await pilot.pause()
        await pilot.press("l")  # not playing: leaves at once
        await pilot.pause()
        assert app.screen is app.lobby
        text = screen_text(app)
        assert "Welcome back" not in text and "rejoin code" not in text
        app.deliver(encode(Notice("The game at table T2 ended while you were away: Bo won.")))
        app.deliver(encode(ErrorReply("in_progress", "the game has started: watch it instead")))
        await pilot.pause()
        text = screen_text(app)
    assert "ended while you were away" not in text  # the latest word replaces it
    assert "The game has started: watch it instead." in text
