"""The view crosses from engine to screen as one typed record: the engine's `View` and the
protocol's are twins, and what the table sends decodes to the same fields it was made from."""

from __future__ import annotations

import dataclasses
import random

import pytest
from test_engine_properties import CONFIGS

from protocol import (
    Direction,
    PendingView,
    SeatInfo,
    SeatView,
    TableInfo,
    TableState,
    View,
    choice_to_wire,
    decode,
    encode,
)
from server import engine
from server.engine import Game, choice_to_dict, find_edition
from server.services.views import wire_view

TWINS = [(engine.View, View), (engine.SeatView, SeatView), (engine.PendingView, PendingView)]


@pytest.mark.parametrize(("engine_record", "wire_record"), TWINS, ids=lambda cls: cls.__name__)
def test_the_engine_and_the_protocol_records_have_the_same_fields(
    engine_record: type, wire_record: type
) -> None:
    def names(cls: type) -> list[str]:
        return [field.name for field in dataclasses.fields(cls)]

    table_numbers = (
        ["decision"] if wire_record is PendingView else []
    )  # the table's, not the game's
    assert names(engine_record) + table_numbers == names(wire_record)


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_view_of_a_game_arrives_as_it_was_made(edition_id: str, players: int) -> None:
    rng = random.Random(players)
    game = Game(find_edition(edition_id), players, rng)
    seats = tuple(SeatInfo(f"p{i}", None, True) for i in range(players))
    while not game.game_over:
        if game.round_over:
            game.start_round()
        for seat in [None, *range(players)]:
            made = game.view(seat)
            info = TableInfo("ABCD", "t", edition_id, None, seats, (), "playing", None, seat)
            state = decode(encode(TableState(info, wire_view(made))), direction=Direction.TO_CLIENT)
            assert isinstance(state, TableState) and state.view is not None
            assert_same(made, state.view)
        if not game.game_over and not game.round_over:
            game.act(game.pending.seat, rng.choice(game.pending.choices))


def assert_same(made: engine.View, arrived: View) -> None:
    """Field for field equal; the choices as the one converter maps them."""
    for field in dataclasses.fields(View):
        mine, theirs = getattr(made, field.name), getattr(arrived, field.name)
        if field.name == "choices":
            assert [choice_to_dict(c) for c in mine] == [_engine_map(c) for c in theirs]
        elif field.name == "seats":
            assert list(map(_values, mine)) == list(map(_values, theirs))
        elif field.name == "pending":
            assert _values(mine) == (_values(theirs)[:-1] if theirs else None)
        else:
            assert mine == theirs, field.name


def _values(record: object) -> tuple | None:
    """A record's field values in order (None for no record)."""
    if record is None:
        return None
    return tuple(getattr(record, field.name) for field in dataclasses.fields(record))


def _engine_map(choice: object) -> dict:
    """A wire choice as the engine's map (tuples where the engine has them)."""
    wire = choice_to_wire(choice)  # type: ignore[arg-type]
    return {key: tuple(v) if isinstance(v, list) else v for key, v in wire.items()}
