"""The medium bot's search: positions dealt from a seat's knowledge, careful playouts, scores."""

from __future__ import annotations

import random

from test_bots import deck_with, seat_log

from server.bots.beliefs import Beliefs, RoundFollower
from server.bots.search import careful_choice, deal_hidden, game_share, search
from server.engine import Game, Keep, Play, Position, find_edition

V2019 = find_edition("2019")


def beliefs_of(game: Game, seat: int) -> tuple[dict, Beliefs]:
    view = game.view(seat)
    return view, RoundFollower().follow(view, seat_log(game, seat))


def priest_saw_a_baron() -> Game:
    """2 players: seat 0 saw seat 1's Baron with a Priest; seat 1 missed with a Guard."""
    top = ["spy", "guard", "guard", "guard", "priest", "baron", "priest", "guard", "guard"]
    game = Game(V2019, 2, random.Random(1))
    game.start_round(deck=deck_with("2019", top), start=0)
    game.act(0, Play("priest", (1,)))
    game.act(1, Play("guard", (0,), "king"))
    return game


def test_dealt_positions_hold_what_the_seat_knows() -> None:
    game = priest_saw_a_baron()
    view, beliefs = beliefs_of(game, 0)
    rng = random.Random(2)
    decks = set()
    for _ in range(30):
        position, weight = deal_hidden(view, beliefs, rng)
        assert weight > 0
        assert position.hands == [view["hand"], ["baron"]]
        assert position.face_up == view["face_up"]
        assert len(position.deck) == view["deck_size"]
        Game.from_position(V2019, position, view["tokens"])  # every card once, a legal decision
        decks.add(tuple(position.deck))
    assert len(decks) > 1


def test_dealt_decks_keep_the_cards_put_under_them() -> None:
    # seat 0 holds the Princess and plays a Chancellor, which draws a Guard and a Spy
    top = ["spy", "guard", "guard", "guard", "princess", "baron", "chancellor", "guard", "spy"]
    game = Game(V2019, 2, random.Random(1))
    game.start_round(deck=deck_with("2019", [*top, "handmaid"]), start=0)
    game.act(0, Play("chancellor"))
    game.act(0, Keep("princess", ("guard", "spy")))  # the Spy goes deepest
    game.act(1, Play("handmaid"))
    view, beliefs = beliefs_of(game, 0)
    for seed in range(10):
        position, _ = deal_hidden(view, beliefs, random.Random(seed))
        assert list(position.deck[-2:]) == ["guard", "spy"]


def test_beliefs_that_do_not_add_up_deal_nothing() -> None:
    game = priest_saw_a_baron()
    view, beliefs = beliefs_of(game, 0)
    beliefs.bottom = ["king"] * view["deck_size"]  # more Kings under the deck than exist
    assert deal_hidden(view, beliefs, random.Random(1)) is None
    assert search(view, beliefs, view["choices"], 5, random.Random(1)) == []


def holding_princess_and_guard() -> Game:
    """2 players: seat 0 holds the only Princess and a Guard; seat 1 a Baron."""
    deck = deck_with("2019", ["countess", "spy", "spy", "king", "princess", "baron", "guard"])
    position = Position(
        hands=[["princess", "guard"], ["baron"]],
        deck=deck[7:],
        set_aside=["countess"],
        face_up=["spy", "spy", "king"],
        discards=[[], []],
        alive=[True, True],
        protected=[False, False],
        turn=0,
    )
    return Game.from_position(V2019, position, [0, 0])


def test_playouts_play_like_the_easy_bot() -> None:
    game = holding_princess_and_guard()
    for seed in range(100):
        choice = careful_choice(game, 0, random.Random(seed))
        assert choice.card == "guard"
        assert choice.guess not in ("princess", "spy", "king")  # every copy in sight


def last_turn(tokens: list[int]) -> Game:
    """2 players, the deck empty: seat 0 holds the Princess and a Guard, seat 1 a Baron."""
    rest = deck_with("2019", ["countess", "spy", "spy", "king", "princess", "guard", "baron"])[7:]
    position = Position(
        hands=[["princess", "guard"], ["baron"]],
        deck=[],
        set_aside=["countess"],
        face_up=["spy", "spy", "king"],
        discards=[rest[:7], rest[7:]],
        alive=[True, True],
        protected=[False, False],
        turn=0,
    )
    return Game.from_position(V2019, position, tokens)


def test_game_share_counts_tokens_and_winners() -> None:
    ahead = Game(V2019, 4, tokens=[3, 0, 0, 0])
    behind = Game(V2019, 4, tokens=[0, 3, 0, 0])
    level = Game(V2019, 4)
    assert game_share(ahead, 0) > game_share(level, 0) > game_share(behind, 0)
    won, caught_up = last_turn([5, 0]), last_turn([0, 5])
    for game in (won, caught_up):
        game.act(0, Play("guard", (1,), "priest"))  # a miss, then the showdown
        assert game.round_winners == [0]
    assert won.game_over and game_share(won, 0) == 1.0
    assert not caught_up.game_over and 0 < game_share(caught_up, 0) < 1


def test_search_prefers_naming_the_card_it_saw() -> None:
    game = priest_saw_a_baron()
    view, beliefs = beliefs_of(game, 0)
    named = [
        {"type": "play", "card": "guard", "targets": (1,), "guess": guess}
        for guess in ("king", "baron")
    ]
    wrong, right = search(view, beliefs, named, 20, random.Random(3))
    assert right > wrong
