"""The golden playthroughs in tests/golden/ still describe the engine's games step by step.

After an intended change to the engine, regenerate them with `.venv/bin/python tests/golden.py`
and review the diff (`git diff tests/golden`) before committing it.
"""

from __future__ import annotations

import difflib

import pytest
from golden import GAMES, GOLDEN, path_of, playthrough

DIFF_LINES = 40
"""Lines of the diff shown when a playthrough changed."""


@pytest.mark.parametrize(("edition", "players", "seed"), GAMES)
def test_a_seeded_game_plays_as_recorded(edition: str, players: int, seed: int) -> None:
    path = path_of(edition, players, seed)
    recorded = path.read_text(encoding="utf-8")
    played = playthrough(edition, players, seed)
    if played != recorded:
        diff = difflib.unified_diff(
            recorded.splitlines(), played.splitlines(), str(path), "played now", lineterm=""
        )
        shown = "\n".join(line[:200] for line in list(diff)[:DIFF_LINES])
        pytest.fail(f"{path.name} changed (regenerate: .venv/bin/python tests/golden.py)\n{shown}")


def test_every_recorded_playthrough_is_one_of_the_games() -> None:
    expected = {path_of(*game).name for game in GAMES}
    assert {path.name for path in GOLDEN.iterdir()} == expected
