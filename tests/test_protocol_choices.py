"""A choice is converted between engine and wire in one place: `server/engine/choices.py`.

The engine's map of a choice (`choice_to_dict`) is the wire's: the protocol accepts every
choice a view offers, and the map of a decoded `act` choice turns back into the engine's.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_engine_properties import CONFIGS

from protocol import choice_from_wire, choice_to_wire
from server.engine import Choice, Game, choice_from_dict, choice_to_dict, find_edition

ROOT = Path(__file__).resolve().parents[1]
CONVERTER = ROOT / "server" / "engine" / "choices.py"
ENGINE_NAMES = {"Play", "Keep", "Look", "Redraw", "choice_to_dict", "choice_from_dict"}
WIRE_NAMES = {"PlayChoice", "KeepChoice", "LookChoice", "RedrawChoice"}
PACKAGES = ("server", "protocol", "lovelet_tui", "benchmarks")


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_offered_choice_crosses_the_wire_and_back(edition_id: str, players: int) -> None:
    offered = set()
    for choice in _offered(edition_id, players, players * 7 + 1):
        wire = choice_from_wire(choice_to_dict(choice))  # what the TUI sends back in `act`
        assert choice_from_dict(choice_to_wire(wire)) == choice  # what the table plays
        offered.add(type(choice).__name__)
    assert "Play" in offered


def _offered(edition_id: str, players: int, seed: int) -> Iterator[Choice]:
    """Every choice offered in one random game."""
    rng = random.Random(seed)
    game = Game(find_edition(edition_id), players, rng)
    while not game.game_over:
        if game.round_over:
            game.start_round()
            continue
        decision = game.pending
        yield from decision.choices
        game.act(decision.seat, rng.choice(decision.choices))


def converters(root: Path = ROOT) -> list[str]:
    """Modules (but the engine's choices) that name both an engine and a wire choice type."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if path == CONVERTER:
                continue
            names = _names(ast.parse(path.read_text(encoding="utf-8")))
            if names & ENGINE_NAMES and names & WIRE_NAMES:
                found.append(path.relative_to(root).as_posix())
    return found


def _names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.rsplit(".", 1)[-1])
    return names


def test_no_other_module_converts_between_engine_and_wire_choices() -> None:
    assert converters() == []


def test_the_scan_finds_a_converter(tmp_path: Path) -> None:
    """The scan fails on a module that builds an engine choice from a wire one."""
    fake = tmp_path / "server"
    fake.mkdir()
    (fake / "seam.py").write_text(
        "from protocol import PlayChoice\nfrom server.engine import Play\n\n"
        "def convert(c: PlayChoice) -> Play:\n    return Play(c.card, c.targets, c.guess)\n"
    )
    assert converters(tmp_path) == ["server/seam.py"]
