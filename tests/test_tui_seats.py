"""The seat rows: what your effects showed you stays on that player's row until it is stale,
and 8 seats with long names and every mark fit 80 columns in whole words."""

from __future__ import annotations

import dataclasses
import re

from test_tui_support import FakeLink, new_game, screen_text, served, table_info, table_state
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from lovelet_tui.seen import Sightings
from protocol import SeatInfo, TableState, encode
from protocol import events as ev
from server.engine import Game, Play

SIZE = (80, 24)
LONG_NAMES = (
    "Alexandria Smith",
    "Bartholomew Jone",
    "Cassiopeia Brown",
    "Dimitri Petrovic",
    "Evangeline Moore",
    "Ferdinand Wright",
    "Guinevere Clarke",
    "Hieronymus Black",
)


async def _show(app: LoveletApp, pilot: Pilot[None], state: TableState) -> str:
    app.deliver(encode(state))
    await pilot.pause()
    return screen_text(app)


def _row(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if f" {name} " in line)


async def test_a_priest_look_stays_on_the_row_ages_and_goes_stale_on_a_discard() -> None:
    deck = ["spy", "priest", "king", "guard", "guard", "baron", "guard", "priest", "handmaid"]
    game = new_game("2019", 4, [*deck, "prince"])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(100, 30)) as pilot:
        await _show(app, pilot, table_state(game, 0))
        since = len(game.events)
        game.act(0, Play("priest", (1,)))
        text = await _show(app, pilot, table_state(game, 0, since))
        assert "holds King — seen just now" in _row(text, "Bo")
        since = len(game.events)
        game.act(1, Play("guard", (2,), "baron"))  # Bo keeps the King
        game.act(2, Play("priest", (3,)))
        text = await _show(app, pilot, table_state(game, 0, since))
        assert "holds King — seen 2 turns ago" in _row(text, "Bo")
        since = len(game.events)
        game.act(3, Play("handmaid"))
        game.act(0, Play("prince", (1,)))  # Bo discards the King
        text = await _show(app, pilot, table_state(game, 0, since))
    assert "holds" not in _row(text, "Bo")


async def test_a_king_swap_shows_what_you_gave_and_a_new_round_forgets_it() -> None:
    game = new_game("2019", 4, ["spy", "king", "priest", "guard", "guard", "baron"])
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=(100, 30)) as pilot:
        await _show(app, pilot, table_state(game, 0))
        since = len(game.events)
        game.act(0, Play("king", (1,)))
        text = await _show(app, pilot, table_state(game, 0, since))
        assert "holds Baron — seen just now" in _row(text, "Bo")
        since = len(game.events)
        while not game.round_over:
            game.act(game.pending.seat, game.pending.choices[0])
        game.start_round()
        text = await _show(app, pilot, table_state(game, 0, since))
    assert "holds" not in "\n".join(text.splitlines()[1:5])


def test_sightings_of_a_baron_tie_and_a_swap_between_others() -> None:
    seen = Sightings()
    seen.read([ev.Play(seat=0, card="baron", targets=(2,), guess=None)], 0)
    tie = ev.Compare(seat=0, target=2, loser=None, cards={"0": "guard", "2": "guard"})
    seen.read([tie], 0)
    assert seen.held[2].card == "guard" and seen.turns_ago(2) == 0
    seen.read([ev.Swap(seat=1, seats=(2, 3))], 0)  # a Cardinal, not yours
    assert seen.turns_ago(2) is None


def _premium_with_every_mark(names: tuple[str, ...]) -> tuple[Game, list[SeatInfo]]:
    """8 seats: Hal bet on by a Jester, Gus marked by a Sycophant, Cy protected, Ana out,
    Dimitri a program on the bot API."""
    first = ["guard", "jester", "sycophant", "handmaid", "guard", "guard", "guard", "guard"]
    game = new_game("premium", 8, [*first, "guard", "bishop", "guard", "priest", "guard"])
    game.act(0, Play("jester", (7,)))
    game.act(1, Play("sycophant", (6,)))
    game.act(2, Play("handmaid"))
    seats = [SeatInfo(name, None, i != 5, api_bot=i == 3) for i, name in enumerate(names)]
    return game, seats


async def test_eight_long_names_with_every_mark_fit_80_columns_in_whole_words() -> None:
    game, seats = _premium_with_every_mark(LONG_NAMES)
    app = served(FakeLink(), LONG_NAMES[4])
    async with app.run_test(size=SIZE) as pilot:
        state = table_state(game, 4, seats=seats, host=LONG_NAMES[0], edition="premium")
        text = await _show(app, pilot, state)
    lines = text.splitlines()
    header, rows = lines[0], lines[1:9]
    assert "Premium" in header and "round 1" in header and "…" not in header
    for name, row in zip(LONG_NAMES, rows, strict=True):
        assert name in row and "…" not in row, row
        assert re.search(rf"{name}(?: \(you\))?  +♥\d", row), row  # two cells at least
    assert re.search(r"♥0 +jest", _row(text, LONG_NAMES[7]))
    assert re.search(r"♥0 +mark", _row(text, LONG_NAMES[6]))
    assert re.search(r"♥0 +prot", _row(text, LONG_NAMES[2]))
    assert re.search(r"♥0 +away", _row(text, LONG_NAMES[5]))
    assert re.search(r"♥0 +(?:API bot|api)\b", _row(text, LONG_NAMES[3]))
    hand = " ".join(line.strip() for line in lines[10:14])
    for card in game.hands[4]:
        assert card.text in re.sub(r"\s+", " ", hand), hand  # whole, wrapped, never cut


async def test_a_program_on_the_bot_api_is_marked_at_a_waiting_table() -> None:
    seats = (SeatInfo("Ana", None, True), SeatInfo("robo", None, True, api_bot=True))
    app = LoveletApp(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        state = TableState(table_info(None, 0, players=2, status="waiting", seats=seats), None, ())
        text = await _show(app, pilot, state)
    assert "API bot" in _row(text, "robo") and "API bot" not in _row(text, "Ana (you)")


async def test_the_deck_line_shortens_in_whole_words_at_80_columns() -> None:
    """Three long cards face up: "7 to win" instead of "7 tokens to win", never "7 tokens to …"."""
    game = new_game("classic", 2)
    state = table_state(game, 0)
    assert state.view is not None
    view = dataclasses.replace(state.view, face_up=("handmaid", "handmaid", "countess"))
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(dataclasses.replace(state, view=view)))
        await pilot.pause()
        deck = next(line for line in screen_text(app).splitlines() if "Deck " in line)
    assert deck.rstrip().endswith("face up: Handmaid, Handmaid and Countess · 7 to win"), deck


async def test_long_face_up_cards_are_counted_rather_than_cut() -> None:
    game = new_game("ppea", 2)
    state = table_state(game, 0)
    assert state.view is not None
    face_up = ("princess_sadie", "claire", "celeste")
    view = dataclasses.replace(state.view, face_up=face_up)
    app = served(FakeLink(), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(dataclasses.replace(state, view=view)))
        await pilot.pause()
        deck = next(line for line in screen_text(app).splitlines() if "Deck " in line)
    assert deck.rstrip().endswith("set aside 1 · 3 face up · 6 tokens to win"), deck
