"""Bots decide from a seat's view and visible log only, always legally, and medium beats easy."""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import json
import math
import random
import textwrap
from collections import Counter

import pytest

from server.bots import Budget, EasyBot, HardBot, MediumBot, make_bot
from server.bots.beliefs import _HANDLERS, Beliefs
from server.bots.cards import CAREFUL, MEDIUM, OPPONENTS, card_book, medium_plays
from server.engine import (
    EDITIONS,
    Choice,
    Game,
    Play,
    Redraw,
    Role,
    SeatView,
    View,
    find_edition,
)
from server.engine.event_catalogue import EVENTS

CONFIGS = [
    (edition.id, players)
    for edition in EDITIONS.values()
    for players in range(edition.min_players, edition.max_players + 1)
]


def seat_log(game: Game, seat: int) -> list[dict]:
    """The seat's whole visible log, as a table hands it to a bot."""
    return [event.for_seat(seat) for event in game.events]


def deck_with(edition_id: str, top: list[str]) -> list[str]:
    """A full deck (ids, top first) starting with `top`, the other cards after it."""
    rest = Counter(find_edition(edition_id).deck_ids())
    rest.subtract(top)
    return top + sorted(rest.elements())


def play_out(game: Game, bots: list, rng: random.Random, check=None) -> None:
    """Play the game to its end; `check(game, seat, view, log, choice)` sees every decision."""
    while not game.game_over:
        if game.round_over:
            game.start_round()
            continue
        seat = game.pending.seat
        view, log = game.view(seat), seat_log(game, seat)
        choice = bots[seat].choose(view, log, rng)
        assert choice in view.choices
        if check is not None:
            check(game, seat, view, log, choice)
        game.act(seat, choice)


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_level_chooses_legally_in_whole_games(edition_id: str, players: int) -> None:
    rng = random.Random(f"{edition_id}/{players}")
    for first in ("easy", "medium"):
        other = "medium" if first == "easy" else "easy"
        bots = [make_bot(first if seat % 2 == 0 else other) for seat in range(players)]
        game = Game(find_edition(edition_id), players, rng)
        play_out(game, bots, rng)
        assert game.game_winners


def test_make_bot_knows_three_levels() -> None:
    assert make_bot("easy").level == "easy"
    assert make_bot("medium").level == "medium"
    assert make_bot("hard").level == "hard"
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("expert")


def bot_of(level: str):
    """A bot of `level`; the hard one searching a fixed number of positions, so that what it
    decides depends on its view, log and random stream alone, not on the clock."""
    return HardBot(Budget(seconds=math.inf, deals=6)) if level == "hard" else make_bot(level)


@pytest.mark.parametrize(("edition_id", "players"), [("2019", 4), ("premium", 6), ("ppea", 2)])
def test_easy_never_discards_its_princess_by_choice(edition_id: str, players: int) -> None:
    book = card_book(edition_id)

    def discards_princess(choice: Choice, view: View) -> bool:
        if not isinstance(choice, Play):
            return isinstance(choice, Redraw) and choice.redraw and princess_in(view.hand)
        kept = list(view.hand)
        kept.remove(choice.card)
        if book.has(choice.card, Role.PRINCE) and view.viewer in choice.targets:
            return princess_in(kept)
        return book.has(choice.card, Role.PRINCESS)

    def princess_in(cards: list[str]) -> bool:
        return any(book.has(card, Role.PRINCESS) for card in cards)

    def check(game: Game, seat: int, view: View, log: list[dict], choice: dict) -> None:
        if discards_princess(choice, view):
            assert all(discards_princess(other, view) for other in view.choices)

    rng = random.Random(3)
    for _ in range(5):
        game = Game(find_edition(edition_id), players, rng)
        play_out(game, [EasyBot() for _ in range(players)], rng, check)


def test_easy_keeps_the_princess_when_it_has_another_card() -> None:
    game = Game(find_edition("2019"), 2, random.Random(1))
    top = ["spy", "guard", "guard", "guard", "princess", "baron", "handmaid"]
    game.start_round(deck=deck_with("2019", top), start=0)
    view = game.view(0)
    assert sorted(view.hand) == ["handmaid", "princess"]
    for seed in range(50):
        choice = EasyBot().choose(view, seat_log(game, 0), random.Random(seed))
        assert choice.card == "handmaid"


def test_medium_uses_what_a_priest_showed_it() -> None:
    # 2 players: set aside, 3 face up, seat 0's card, seat 1's card, then the draws.
    top = ["spy", "guard", "guard", "guard", "priest", "baron", "priest", "guard", "guard"]
    game = Game(find_edition("2019"), 2, random.Random(1))
    game.start_round(deck=deck_with("2019", top), start=0)
    medium, rng = MediumBot(), random.Random(2)
    first = medium.choose(game.view(0), seat_log(game, 0), rng)
    assert first.card == "priest"
    game.act(0, first)
    game.act(1, Play("guard", (0,), "king"))  # a miss; seat 1 keeps the Baron the Priest showed
    view = game.view(0)
    assert sorted(view.hand) == ["guard", "priest"]
    choice = medium.choose(view, seat_log(game, 0), rng)
    assert choice == Play("guard", (1,), "baron")
    scores = medium.scores(view, seat_log(game, 0))
    assert len(scores) == len(view.choices)
    assert view.choices[scores.index(max(scores))] == choice
    assert sorted(scores)[-2] < max(scores)


def test_medium_beats_easy_clearly() -> None:
    rng = random.Random(7)
    games, wins = 60, 0.0
    for number in range(games):
        medium_seat = number % 4
        bots = [MediumBot() if seat == medium_seat else EasyBot() for seat in range(4)]
        game = Game(find_edition("2019"), 4, rng)
        play_out(game, bots, rng)
        if medium_seat in game.game_winners:
            wins += 1 / len(game.game_winners)
    assert wins / games > 0.4  # a fair share is 0.25


def test_a_bot_taking_over_mid_round_decides_like_one_that_followed_it() -> None:
    rng = random.Random(11)
    followed = MediumBot()
    compared = 0

    def check(game: Game, seat: int, view: View, log: list[dict], choice: dict) -> None:
        nonlocal compared
        if seat == 0 and len(view.choices) > 1:
            state = random.getstate()
            fresh = MediumBot().choose(view, log, random.Random(compared))
            again = followed.choose(view, log, random.Random(compared))
            random.setstate(state)
            assert fresh == again
            compared += 1

    game = Game(find_edition("2019"), 4, rng)
    play_out(game, [followed, EasyBot(), MediumBot(), EasyBot()], rng, check)
    assert compared > 10


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_bots_decide_from_plain_data_that_holds_no_other_hand(level: str) -> None:
    rng = random.Random(5)
    game = Game(find_edition("premium"), 6, rng)
    bots = [bot_of(level) for _ in range(6)]
    for _ in range(40):
        if game.round_over:
            break
        seat = game.pending.seat
        # what a remote seat receives: its view, other hands only as sizes; a JSON-like log
        view, log = game.view(seat), json.loads(json.dumps(seat_log(game, seat)))
        assert "hand" not in {field.name for field in dataclasses.fields(SeatView)}
        assert all("card" not in e for e in log if e["kind"] == "deal" and e["seat"] != seat)
        choice = bots[seat].choose(view, log, rng)
        assert choice in view.choices
        game.act(seat, choice)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_hidden_cards_do_not_change_a_decision(level: str) -> None:
    # Two rounds that look the same to seat 0: seat 1's and seat 2's cards are swapped.
    top = ["spy", "guard", "priest", "baron", "guard", "chancellor"]
    swapped = ["spy", "guard", "baron", "priest", "guard", "chancellor"]
    choices = []
    for deck_top in (top, swapped):
        game = Game(find_edition("2019"), 4, random.Random(1))
        game.start_round(deck=deck_with("2019", deck_top), start=0)
        view, log = game.view(0), seat_log(game, 0)
        choices.append(bot_of(level).choose(copy.deepcopy(view), log, random.Random(4)))
    assert choices[0] == choices[1]


def test_every_kind_of_decision_is_answered_legally() -> None:
    kinds: Counter = Counter()

    def check(game: Game, seat: int, view: View, log: list[dict], choice: dict) -> None:
        kinds[view.pending.kind] += 1

    rng = random.Random(2)
    for edition_id, players in [("2019", 4)] + [("premium", 5)] * 8:
        game = Game(find_edition(edition_id), players, rng)
        bots = [make_bot("medium" if seat % 2 else "easy") for seat in range(players)]
        play_out(game, bots, rng, check)
        if "bishop_redraw" in kinds:
            break
    assert set(kinds) == {"play", "chancellor", "cardinal_look", "bishop_redraw"}


def test_medium_chancellor_keeps_the_princess() -> None:
    # 2 players: seat 0 holds the Princess, draws a Chancellor, which draws a Guard and a Spy
    top = ["spy", "guard", "guard", "guard", "princess", "baron", "chancellor", "guard", "spy"]
    game = Game(find_edition("2019"), 2, random.Random(1))
    game.start_round(deck=deck_with("2019", top), start=0)
    medium, rng = MediumBot(), random.Random(3)
    game.act(0, medium.choose(game.view(0), seat_log(game, 0), rng))
    view = game.view(0)
    assert view.pending.kind == "chancellor"
    assert sorted(view.hand) == ["guard", "princess", "spy"]
    assert medium.choose(view, seat_log(game, 0), rng).keep == "princess"


def test_beliefs_read_only_fields_the_event_catalogue_lists() -> None:
    """Each handler of an event kind reads only that kind's catalogued fields (an AST scan of
    `event["x"]` and `event.get("x")`)."""
    for kind, handler in _HANDLERS.items():
        listed = {"kind", "seat", *(f.name for f in EVENTS[kind].fields)}
        tree = ast.parse(textwrap.dedent(inspect.getsource(handler)))
        read = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and _is_event(node.value):
                read.add(ast.literal_eval(node.slice))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "get" and _is_event(node.func.value):
                    read.add(ast.literal_eval(node.args[0]))
            elif isinstance(node, ast.Compare) and any(_is_event(c) for c in node.comparators):
                read.add(ast.literal_eval(node.left))
        assert read, f"{kind}: no field read found (the scan is broken)"
        assert read <= listed, f"{kind} reads {read - listed}, not in the catalogue"


def _is_event(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "event"


def test_the_medium_model_reads_a_baron_played_from_baron_and_guard_as_rare() -> None:
    """Medium almost never plays a Baron beside a Guard, so a seat modelled as medium that
    drew and played a Baron most likely kept the Baron or a high card, seldom a Guard; the
    careful model finds a Guard far likelier."""
    guard_odds = {}
    for opponents in OPPONENTS:
        beliefs = Beliefs(card_book("2019", opponents), 0, 4, [], 11)
        beliefs.hand = ["priest"]
        beliefs.apply({"kind": "draw", "seat": 1})
        beliefs.apply({"kind": "play", "seat": 1, "card": "baron"})
        guard_odds[opponents] = beliefs.distribution(1, beliefs.pool())["guard"]
    assert guard_odds[MEDIUM] < 0.5 * guard_odds[CAREFUL]


@pytest.mark.parametrize("edition_id", sorted(EDITIONS))
def test_medium_plays_are_measured_for_every_edition(edition_id: str) -> None:
    """The shipped shares cover each edition at every count of others in the round."""
    shares = medium_plays(edition_id)
    edition = find_edition(edition_id)
    counts = {others for others, _, _ in shares}
    assert counts == set(range(1, edition.max_players))  # others still in the round
    assert all(0.0 <= share <= 1.0 for share in shares.values())
