"""Game.from_position: a hypothetical game from plain data plays on like the game it copies."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import EDITIONS, Game, Position, SetupError, View, find_edition

CONFIGS = [
    (edition.id, players)
    for edition in EDITIONS.values()
    for players in range(edition.min_players, edition.max_players + 1)
]


def position_of(game: Game) -> Position:
    """The position of `game`, read from its state (a test may; bots may not)."""

    def ids(cards: list) -> list[str]:
        return [card.id for card in cards]

    return Position(
        hands=[ids(hand) for hand in game.hands],
        deck=ids(game.deck)[::-1],
        set_aside=ids(game.set_aside),
        face_up=ids(game.face_up),
        discards=[ids(pile) for pile in game.discards],
        alive=list(game.alive),
        protected=list(game.protected),
        turn=game.pending.seat,
        kind=game.pending.kind,
        marked=game.marked,
        jester=game.jester,
    )


def advance(game: Game, rng: random.Random, steps: int) -> None:
    """Random legal choices for up to `steps` steps, stopping at a play or Chancellor decision."""
    for _ in range(steps):
        if game.round_over:
            return
        decision = game.pending
        game.act(decision.seat, rng.choice(decision.choices))
    while not game.round_over and game.pending.kind not in ("play", "chancellor"):
        game.act(game.pending.seat, rng.choice(game.pending.choices))


def without_round(view: View) -> View:
    return dataclasses.replace(view, round=0)


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_a_copied_position_plays_on_like_the_game(
    edition_id: str, players: int, seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    edition = find_edition(edition_id)
    game = Game(edition, players, rng, tokens=[rng.randrange(2) for _ in range(players)])
    game.start_round()
    advance(game, rng, steps)
    if game.round_over:
        return
    copy = Game.from_position(edition, position_of(game), game.tokens, random.Random(seed))
    game.rng = random.Random(seed)  # ties at the end pick the next starter alike
    while not game.round_over:
        assert copy.pending == game.pending
        for seat in range(players):
            assert without_round(copy.view(seat)) == without_round(game.view(seat))
        choice = rng.choice(game.pending.choices)
        game.act(game.pending.seat, choice)
        copy.act(copy.pending.seat, choice)
    assert copy.round_over
    assert (copy.round_winners, copy.tokens, copy.game_over) == (
        game.round_winners,
        game.tokens,
        game.game_over,
    )


def test_a_position_must_hold_every_card_once() -> None:
    game = Game(find_edition("2019"), 3, random.Random(1))
    game.start_round(start=0)
    position = position_of(game)
    with pytest.raises(SetupError, match="every 2019 card once"):
        Game.from_position(game.edition, position._replace(deck=position.deck[1:]), [0, 0, 0])
    moved = [*position.hands]
    moved[1], moved[2] = [*moved[1], *moved[2]], []
    with pytest.raises(SetupError, match="seat 1 cannot hold 2 cards"):
        Game.from_position(game.edition, position._replace(hands=moved), [0, 0, 0])
    with pytest.raises(SetupError, match="seat 5 cannot be deciding"):
        Game.from_position(game.edition, position._replace(turn=5), [0, 0, 0])
