"""Rule scenarios (tests/scenarios/**/*.toml) and the scenario runner itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.commands.scenarios import (
    ScenarioError,
    parse_scenario,
    run_loaded,
    run_scenario,
    scenario_command,
)

SCENARIO_DIR = Path(__file__).parent / "scenarios"
SCENARIOS = sorted(SCENARIO_DIR.rglob("*.toml"))


@pytest.mark.parametrize(
    "path", SCENARIOS, ids=[str(p.relative_to(SCENARIO_DIR)) for p in SCENARIOS]
)
def test_scenario(path: Path) -> None:
    result = run_scenario(path)
    assert result.passed, result.message


@pytest.mark.parametrize("edition", ["classic", "2019"])
def test_edition_has_scenarios(edition: str) -> None:
    assert len(list((SCENARIO_DIR / edition).glob("*.toml"))) >= 45


# A small valid scenario: seat 0's Guard knocks seat 1 out.
GOOD = """
edition = "classic"
players = 3

[[round]]
start = 0
deck = ["countess", "guard", "priest", "baron", "king", "handmaid",
        "guard", "guard", "guard", "guard", "priest", "baron", "handmaid",
        "prince", "prince", "princess"]

[[round.step]]
seat = 0
play = "guard"
target = 1
guess = "priest"
expect = { eliminated = [1], turn = 2, hands = { "2" = ["baron", "handmaid"] } }
"""


def run_text(text: str):
    return run_loaded(parse_scenario(text, "inline"))


def test_good_scenario_passes() -> None:
    result = run_text(GOOD)
    assert result.passed, result.message


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("eliminated = [1]", "eliminated = [2]", ["step 1", "eliminated", "[2]", "[1]"]),
        ("turn = 2", "turn = 0", ["step 1", "turn"]),
        ('"2" = ["baron", "handmaid"]', '"2" = "baron"', ["hands of seat 2"]),
        ("turn = 2,", 'turn = 2, error = "illegal",', ["expected a rejection"]),
        ('guess = "priest"', 'guess = "guard"', ["rejected"]),
    ],
)
def test_runner_catches_a_wrong_expectation(old: str, new: str, words: list[str]) -> None:
    assert old in GOOD
    result = run_text(GOOD.replace(old, new))
    assert not result.passed
    for word in words:
        assert word in result.message


def test_runner_checks_the_error_text() -> None:
    text = GOOD.replace('guess = "priest"', 'guess = "guard"').replace(
        "eliminated = [1], turn = 2,", 'error = "no such words",'
    )
    result = run_text(text)
    assert not result.passed
    assert "no such words" in result.message


def test_runner_accepts_a_rejected_step_that_changes_nothing() -> None:
    text = GOOD.replace('guess = "priest"', 'guess = "guard"').replace(
        "eliminated = [1], turn = 2,", 'error = "illegal", eliminated = [], turn = 0,'
    )
    text = text.replace('"2" = ["baron", "handmaid"]', '"0" = ["guard", "king"]')
    result = run_text(text)
    assert result.passed, result.message


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('"princess"]', '"guard"]', ["deck", "missing ['princess']", "extra ['guard']"]),
        ('"princess"]', "]", ["deck", "missing ['princess']"]),
        ('"princess"]', '"princess", "princess"]', ["deck", "extra ['princess']"]),
        ('"princess"]', '"princess", "spy"]', ["unknown card 'spy'"]),
    ],
)
def test_runner_rejects_a_deck_that_is_not_the_editions(
    old: str, new: str, words: list[str]
) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(GOOD.replace(old, new))
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize(
    ("old", "new", "word"),
    [
        ("players = 3", "players = 3\ncolour = 1", "colour"),
        ("start = 0", "start = 0\nshuffle = true", "shuffle"),
        ("seat = 0", "seat = 0\ntargte = 1", "targte"),
        ("turn = 2,", "turn = 2, winner = 0,", "winner"),
    ],
)
def test_runner_rejects_unknown_keys(old: str, new: str, word: str) -> None:
    with pytest.raises(ScenarioError, match=f"unknown key.*{word}"):
        parse_scenario(GOOD.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "word"),
    [
        ('edition = "classic"', 'edition = "deluxe"', "edition"),
        ("players = 3", "players = 7", "players"),
        ("seat = 0", "seat = 5", "no seat 5"),
        ('play = "guard"', 'play = "gaurd"', "unknown card"),
        ("target = 1", "target = 1\ntargets = [1]", "not both"),
        ("[[round]]", "tokens = [0, 0]\n[[round]]", "tokens"),
        ("not toml", "not toml", "TOML"),
    ],
)
def test_runner_rejects_malformed_files(old: str, new: str, word: str) -> None:
    text = GOOD.replace(old, new) if old != "not toml" else "edition = "
    with pytest.raises(ScenarioError, match=word):
        parse_scenario(text)


def test_scenario_command_prints_one_line_per_file(tmp_path: Path, capsys) -> None:
    good = tmp_path / "good.toml"
    good.write_text(GOOD)
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("eliminated = [1]", "eliminated = [2]"))
    broken = tmp_path / "broken.toml"
    broken.write_text(GOOD.replace("players = 3", "players = 3\nmystery = 1"))
    assert scenario_command([str(good)]) == 0
    assert scenario_command([str(good), str(bad), str(broken)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"PASS {good}"
    assert lines[1] == f"PASS {good}"
    assert lines[2].startswith(f"FAIL {bad}: round 1, step 1")
    assert lines[3].startswith(f"FAIL {broken}: invalid scenario")
    assert len(lines) == 4


def test_scenario_command_expands_directories(tmp_path: Path, capsys) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.toml").write_text(GOOD)
    (tmp_path / "b.toml").write_text(GOOD)
    assert scenario_command([str(tmp_path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_scenario_command_missing_file(tmp_path: Path, capsys) -> None:
    assert scenario_command([str(tmp_path / "nope.toml")]) == 1
    assert "FAIL" in capsys.readouterr().out
