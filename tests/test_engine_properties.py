"""Properties of random legal play in every edition and player count."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import EDITIONS, Game, IllegalAction, Play, SeatView, find_edition

CONFIGS = [
    (edition.id, players)
    for edition in EDITIONS.values()
    for players in range(edition.min_players, edition.max_players + 1)
]
MAX_STEPS = 5_000


def all_cards(game: Game) -> Counter:
    """Every card of the round, wherever it lies."""
    cards = Counter(c.id for c in game.deck + game.set_aside + game.face_up)
    for seat in range(game.players):
        cards.update(c.id for c in game.hands[seat] + game.discards[seat])
    return cards


def check_invariants(game: Game) -> None:
    """What must hold between any two actions."""
    assert all_cards(game) == Counter(game.edition.deck_ids())
    if game.round_over:
        assert game.pending is None
        return
    decision = game.pending
    assert decision is not None, "a round in progress always has exactly one pending decision"
    assert game.alive[decision.seat], "a knocked-out player never decides"
    assert decision.choices, "a pending decision always offers a choice"
    for seat in range(game.players):
        if not game.alive[seat]:
            assert not game.hands[seat]


def play_game(edition_id: str, players: int, seed: int, check: bool = True) -> Game:
    """A whole game of uniformly random legal choices."""
    rng = random.Random(seed)
    game = Game(find_edition(edition_id), players, rng)
    for _ in range(MAX_STEPS):
        if game.game_over:
            return game
        if game.round_over:
            game.start_round()
        else:
            decision = game.pending
            game.act(decision.seat, rng.choice(decision.choices))
        if check:
            check_invariants(game)
    raise AssertionError("the game did not terminate")


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_games_keep_invariants(edition_id: str, players: int, seed: int) -> None:
    game = play_game(edition_id, players, seed)
    assert game.game_winners
    assert all(game.tokens[s] >= game.target for s in game.game_winners)
    assert all(game.tokens[s] < game.target for s in set(range(players)) - set(game.game_winners))


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_token_has_a_reason(edition_id: str, players: int) -> None:
    game = play_game(edition_id, players, seed=players + 7, check=False)
    tally = Counter()
    for event in game.events:
        shown = event.for_seat(None)
        if event.kind == "token":
            assert shown["reason"] in ("bishop", "constable")
            tally[event.seat] += 1
        elif event.kind == "round_end":
            for seat, reasons in shown["awards"].items():
                assert len(reasons) == shown["gains"][seat]
                assert reasons.count("round") == (int(seat) in shown["winners"])
                tally[int(seat)] += len(reasons)
    assert [tally[seat] for seat in range(players)] == game.tokens


def resample_hidden(game: Game, seat: int | None, rng: random.Random) -> None:
    """Re-deal every card `seat` cannot see among the places it cannot see into."""
    hidden_places = [game.deck, game.set_aside]
    if not game.shown_down:
        hidden_places += [game.hands[s] for s in range(game.players) if s != seat]
    pool = [card for place in hidden_places for card in place]
    rng.shuffle(pool)
    for place in hidden_places:
        size = len(place)
        place[:] = pool[:size]
        del pool[:size]


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_views_do_not_depend_on_hidden_cards(
    edition_id: str, players: int, seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    game = Game(find_edition(edition_id), players, rng)
    game.start_round()
    for _ in range(steps):
        if game.round_over:
            break
        decision = game.pending
        game.act(decision.seat, rng.choice(decision.choices))
    for seat in [None, *range(players)]:
        if game.pending is not None and game.pending.kind != "play":
            continue  # sub-decisions hold stashed cards; checked at play decisions
        before = game.view(seat)
        resample_hidden(game, seat, rng)
        assert game.view(seat) == before


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_after_a_showdown_no_hand_shown_counts_as_unseen(edition_id: str, players: int) -> None:
    rng = random.Random(players)
    for _ in range(50):
        game = Game(find_edition(edition_id), players, rng)
        game.start_round()
        while not game.round_over:
            game.act(game.pending.seat, rng.choice(game.pending.choices))
        if game.shown_down:
            break
    assert game.shown_down
    for seat in [None, *range(players)]:
        hidden = Counter(c.id for c in game.deck + game.set_aside)  # the deck is empty
        assert Counter({k: v for k, v in game.view(seat).unseen.items() if v}) == hidden


def test_illegal_actions_leave_the_state_unchanged() -> None:
    rng = random.Random(5)
    game = Game(find_edition("2019"), 3, rng)
    game.start_round()
    decision = game.pending
    snapshot = [game.view(s) for s in range(3)], len(game.events)
    bad = [
        ((decision.seat + 1) % 3, decision.choices[0], "not_your_turn"),
        (decision.seat, Play("nonexistent"), "illegal_choice"),
        (decision.seat, Play(game.hands[decision.seat][0].id, (decision.seat,), "guard"), None),
    ]
    for seat, choice, code in bad:
        with pytest.raises(IllegalAction) as caught:
            game.act(seat, choice)
        if code:
            assert caught.value.code == code
        assert ([game.view(s) for s in range(3)], len(game.events)) == snapshot


def test_a_seed_reproduces_a_whole_game() -> None:
    first = play_game("premium", 6, seed=42, check=False)
    second = play_game("premium", 6, seed=42, check=False)
    assert [e.for_seat(None) for e in first.events] == [e.for_seat(None) for e in second.events]
    assert first.tokens == second.tokens


def test_views_are_frozen_records_and_hide_other_hands() -> None:
    game = Game(find_edition("classic"), 4, random.Random(3))
    game.start_round(start=0)
    view = game.view(1)
    assert view.hand == tuple(c.id for c in game.hands[1])
    assert view.choices == ()
    assert game.view(0).choices == game.pending.choices
    assert game.view(None).hand == ()
    assert "hand" not in {field.name for field in dataclasses.fields(SeatView)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.round = 2  # type: ignore[misc]


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_play_randomly_plays_as_a_loop_of_act_picking_alike(edition_id: str, players: int) -> None:
    """`Game.play_randomly` makes the choices a caller's loop would, index by index."""
    edition = find_edition(edition_id)
    by_engine, by_caller = (Game(edition, players, random.Random(7)) for _ in range(2))
    for _ in range(6):
        if by_caller.game_over:
            break
        by_engine.start_round()
        by_engine.play_randomly(by_engine.rng)
        by_caller.start_round()
        while not by_caller.round_over:
            seat, _, choices = by_caller.pending
            by_caller.act(seat, choices[int(by_caller.rng.random() * len(choices))])
        assert by_engine.events == by_caller.events
    assert by_engine.game_over == by_caller.game_over
    assert by_engine.tokens == by_caller.tokens
