"""The table screen's words for where the game stands: the final standings, who hosts and
who is awaited, the seat keys and cursor, the footer's digits, and a refusal that no longer
applies once the player watches instead."""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from pathlib import Path

from test_tui_support import FakeLink, new_game, screen_text, served, table_info, table_state
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from lovelet_tui.widgets import key_bar
from lovelet_tui.widgets.key_bar import KeyBar
from protocol import Countdown, ErrorReply, SeatInfo, TableState, encode
from server.commands.scenarios import load_scenario, play_scenario
from server.engine import Game, find_edition

SIZE = (80, 24)
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
SEATS = (
    SeatInfo("Ana", None, True),
    SeatInfo(None, None, False),
    SeatInfo("Bo", None, True),
    SeatInfo(None, None, False),
)


async def _open(app: LoveletApp, pilot: Pilot[None], state: TableState) -> str:
    app.deliver(encode(state))
    await pilot.pause()
    return screen_text(app)


def _to_game_over(game: Game) -> None:
    while not game.game_over:
        if game.pending is None:
            game.start_round()
        else:
            game.act(game.pending.seat, game.pending.choices[0])


def _waiting(you: int | None, seats: tuple[SeatInfo, ...] = SEATS) -> TableState:
    return TableState(table_info(None, you, seats=seats, status="waiting"))


def _footer(text: str) -> str:
    return text.splitlines()[-1]


async def test_game_over_lists_each_place_with_tokens_and_rounds_won_then_the_keys() -> None:
    game = new_game("classic", 3)
    _to_game_over(game)
    rounds = Counter(s for e in game.events if e.kind == "round_end" for s in e.public["winners"])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, table_state(game, 0, status="finished"))
    order = sorted(range(3), key=lambda s: (game.tokens[s], rounds[s]), reverse=True)
    winner = order[0]
    name = "You" if winner == 0 else ["Ana", "Bo", "Cy"][winner]
    won = rounds[winner]
    line = rf"1st {name} +♥{game.tokens[winner]} +{won} round{'s' if won != 1 else ''}"
    assert re.search(line, text), text
    standings = [row for row in text.splitlines() if re.search(r"\b(1st|2nd|3rd) ", row)]
    assert len(standings) == 3  # a standings line per player
    assert len({row.rindex("♥") for row in standings}) == 1, standings  # in columns
    assert len({row.rindex(" round") for row in standings}) == 1, standings
    assert "r: ready for a rematch · l: leave" in text


async def test_the_host_is_told_to_start_and_the_others_who_starts() -> None:
    info = table_info(None, 0, seats=SEATS, status="waiting")
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, TableState(info))
    assert "You host this table: g starts the game" in text
    assert "Waiting for the host" not in text
    app = served(FakeLink(), "Bo")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, _waiting(2))
    assert "Waiting for Ana (the host) to start" in text


async def test_seat_keys_match_the_table_and_the_cursor_starts_on_your_seat() -> None:
    app = served(FakeLink(), "Bo")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, _waiting(2))
        assert "↑↓ or 1-4: choose a seat" in text and "1-4 Pick" in _footer(text)
        assert "› 3 Bo (you)" in text
        six = (*SEATS, SeatInfo(None, None, False), SeatInfo(None, None, False))
        text = await _open(app, pilot, _waiting(2, six))
        assert "↑↓ or 1-6: choose a seat" in text
    app = served(FakeLink(), "Zed")  # watching: the first empty seat, to sit in
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, _waiting(None))
    assert "› 2 (empty)" in text


async def test_sitting_down_moves_the_cursor_to_the_seat_taken() -> None:
    app = served(FakeLink(), "Zed")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, pilot, _waiting(None))
        seated = (*SEATS[:3], SeatInfo("Zed", None, True))
        text = await _open(app, pilot, _waiting(3, seated))
    assert "› 4 Zed (you)" in text


async def test_the_footer_names_the_digits_that_pick_including_zero() -> None:
    game = new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "priest"])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, table_state(game, 0))
        assert "1-2 Pick" in _footer(text)
        await pilot.press("1", "1")  # Guard on Bo: name a card, keyed by value (Spy is 0)
        await pilot.pause()
        text = screen_text(app)
    assert "Name a card:" in text and "0, 2-9 Pick" in _footer(text)


async def test_a_refusal_is_cleared_when_the_player_switches_to_watching() -> None:
    info = table_info(None, 0, seats=SEATS, status="waiting")
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, pilot, TableState(info))
        app.deliver(encode(ErrorReply("seat_taken", "that seat is taken")))
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["That seat is taken."]
        watching = (SeatInfo(None, None, False), *SEATS[1:])
        await _open(app, pilot, TableState(table_info(None, None, seats=watching)))
        assert not list(app._notifications)  # the toasts shown are those still pending


async def test_help_and_rules_list_every_card_of_the_edition_before_the_game() -> None:
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(100, 50)) as pilot:
        await _open(app, pilot, TableState(table_info(None, 0, edition="ppea", status="waiting")))
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "Princess Princess Ever After" in text
        assert "Oliver the Dragon" in text and "Protection from other cards" in text
        assert "×2" in text and "Celeste the Unicorn" in text
        await pilot.press("r", "right")  # the rules, then the next edition's: classic
        await pilot.pause()
        text = screen_text(app)
    assert "Love Letter Classic (2012)" in text and "Cards" in text
    assert "Countess" in text and "×5" in text  # classic: 5 Guards


def _round_with_a_bonus() -> Game:
    """A 2019 round that seat 0 wins and gains the Spy's token in too (seed found once)."""
    game = Game(find_edition("2019"), players=3, rng=random.Random(2))
    game.start_round()
    while not game.round_over:
        assert game.pending is not None
        game.act(game.pending.seat, game.pending.choices[0])
    return game


async def test_the_round_summary_says_why_each_token_was_given() -> None:
    game = _round_with_a_bonus()
    app = served(FakeLink(), "Bo")
    async with app.run_test(size=SIZE) as pilot:
        text = await _open(app, pilot, table_state(game, 1, status="round_over"))
    assert "Round 1 over" in text and "Ana +2: round win, Spy" in text


async def test_the_footer_made_once_per_state_always_shows_the_keys_of_now() -> None:
    """The key bars keep each keys state's line; at every step of a game, and while typing
    chat, one shows what a line made afresh would."""
    game = new_game("2019", 2)
    game.rng = random.Random(3)
    key_bar.SHARED_LINES.clear()
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        bar = app.screen.query_one(KeyBar)
        sent, refreshes = 0, 0
        while not game.game_over:
            if game.pending is None:
                game.start_round()
            else:
                game.act(game.pending.seat, game.pending.choices[0])
            await _open(app, pilot, table_state(game, 0, since=sent))
            sent = len(game.events)
            bar = app.screen.query_one(KeyBar)
            assert bar.keys == bar._line(app.screen)
            refreshes += 1
            if refreshes == 5:
                await pilot.press("c")  # chat: its keys, then the table's again
                assert "Stop typing" in bar.keys.plain and bar.keys == bar._line(app.screen)
                await pilot.press("escape")
                assert bar.keys == bar._line(app.screen)
        assert len(key_bar.SHARED_LINES) < refreshes / 2


async def test_sessions_in_the_same_keys_state_share_one_footer_line() -> None:
    game = new_game("2019", 2)
    bars = []
    for _ in range(2):
        app = served(FakeLink(), "Ana")
        async with app.run_test(size=SIZE) as pilot:
            await _open(app, pilot, table_state(game, 0))
            bars.append(app.screen.query_one(KeyBar).keys)
    assert bars[0] is bars[1]


async def test_the_round_summary_says_why_a_showdown_was_won() -> None:
    """The showdown's numbers, from its event: a Count's bonus, and the card it beat."""
    path = SCENARIOS / "premium" / "count_adds_one_at_showdown.toml"
    game = play_scenario(load_scenario(path))
    app = served(FakeLink(), "Bo")
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _open(app, pilot, table_state(game, 1, status="round_over"))
    assert "Ana won (Constable 6 + 1 Count = 7" in text and "beats King 6)." in text  # wrapped


async def test_the_header_names_the_edition_as_the_lobby_does_and_keeps_private() -> None:
    """A watcher of a private table, its timer running, three spectators: the header still
    says "private", and the edition by the one name the lobby lists it by, not another."""
    game = new_game("ppea", 4)
    info = dataclasses.replace(
        table_info(game, None), private=True, spectators=("Cy", "Di", "Ed"), timer=90
    )
    state = table_state(game, None)
    app = served(FakeLink(), "Ed")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, pilot, dataclasses.replace(state, info=info))
        quiet = screen_text(app).splitlines()[0]
        clock = Countdown("turn", 60_000, game.pending.seat if game.pending else 0)
        await _open(app, pilot, dataclasses.replace(state, info=info, countdown=clock))
        timed = screen_text(app).splitlines()[0]
    for header in (quiet, timed):
        assert "T1 · Friday game · private · PPEA · " in header, header
    long_name = dataclasses.replace(info, name="A name for a table, quite long")
    app = served(FakeLink(), "Ed")
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, pilot, dataclasses.replace(state, info=long_name, countdown=clock))
        header = screen_text(app).splitlines()[0]
    assert "T1 · A name for a table, quite long · private · PPEA · r1  " in header, header
    assert "…" not in header  # the watchers' count and the timer's setting left out, whole


async def test_game_over_tells_each_rated_players_new_rating_and_change() -> None:
    game = new_game("classic", 3)
    _to_game_over(game)
    state = table_state(game, 0, status="finished")
    seats = list(state.info.seats)
    seats[0] = dataclasses.replace(seats[0], rating=1549, rating_change=49)
    seats[1] = dataclasses.replace(seats[1], rating=1253, rating_change=-247)
    info = dataclasses.replace(state.info, seats=tuple(seats))
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(120, 40)) as pilot:
        text = await _open(app, pilot, dataclasses.replace(state, info=info))
    assert "Ratings: Bo 1253 (-247), you 1549" in text and "(+49)." in text  # by place, wrapped
