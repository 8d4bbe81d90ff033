"""Text snapshots of the table screen, 2, 4 and 8 players at 80×24 and 120×40, compared
with the files in `tests/snapshots/`. After a deliberate layout change, regenerate them with

    LOVELET_SNAPSHOTS=update python3 -m pytest tests/test_tui_snapshots.py

and review the diff (`git diff tests/snapshots`) before committing it.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
from test_tui_support import NAMES, FakeLink, new_game, screen_text, served, table_state

from protocol import Countdown, SeatInfo, encode

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("LOVELET_SNAPSHOTS") == "update"
TABLES = {2: "2019", 4: "2019", 8: "premium"}  # players → edition
LONG = ("Alexandria Smith", "Bartholomew Jone", "Cassiopeia Brown", "Dimitri Petrovic")
CLOCK = re.compile(r"(turn: )\d+ s")  # the seconds left move on while the screen is read


async def _table_text(players: int, size: tuple[int, int]) -> str:
    game = new_game(TABLES[players], players)
    for _ in range(players + 1):  # a turn each and one more: discards, marks and a log
        assert game.pending is not None
        game.act(game.pending.seat, game.pending.choices[-1])
    names = (*LONG, *NAMES[4:]) if players == 8 else NAMES
    seats = [SeatInfo(names[i], "medium" if i == 1 else None, i != 3) for i in range(players)]
    pending = game.pending.seat if game.pending else None
    you = pending if players != 4 else players - 1  # on turn, or waiting for another
    state = table_state(game, you, seats=seats, host=names[0])
    state = dataclasses.replace(state, countdown=Countdown("turn", 45_000, pending))
    app = served(FakeLink(), names[you])
    async with app.run_test(size=size) as pilot:
        app.deliver(encode(state))
        await pilot.pause()
        return CLOCK.sub(r"\1NN s", screen_text(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("players", [2, 4, 8])
async def test_the_table_matches_its_snapshot(players: int, size: tuple[int, int]) -> None:
    text = await _table_text(players, size)
    path = SNAPSHOTS / f"table-{players}p-{size[0]}x{size[1]}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no {path.name}: run with LOVELET_SNAPSHOTS=update to make it"
    assert text == path.read_text(encoding="utf-8"), f"the screen differs from {path.name}"
