"""`lovelet arena` as a user runs it: the console script, with the example bot as its child
process, over msgpack frames and JSON lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOVELET = Path(sys.executable).with_name("lovelet")
BOT = (sys.executable, "examples/random_bot.py", "--stdio")
TIMEOUT = 120.0
"""Seconds a run may take (20 games take about 3 s); a failure, never a sync."""


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        (str(LOVELET), "arena", *args),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.mark.parametrize("wire", [(), ("--json",)], ids=["msgpack", "json"])
def test_the_example_plays_twenty_games_in_the_arena(wire: tuple[str, ...]) -> None:
    result = arena("--games", "20", *wire, "--", *BOT, *wire)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = result.stdout.splitlines()
    share = re.fullmatch(
        r"20 games of 2019, 4 players, against medium bots: won (\d+) \((\S+)%, 95% interval"
        r" (\S+)%-(\S+)%\)",
        first,
    )
    assert share, first
    wins, low, high = int(share[1]), float(share[3]), float(share[4])
    assert 0 <= low <= wins * 5 <= high <= 100
    assert re.fullmatch(r"refused 0 of \d+ frames \(0\.0%\)", second), second


def test_the_table_is_the_one_asked_for() -> None:
    result = arena(
        *("--games", "3", "--against", "easy", "--edition", "classic", "--players", "3"),
        *("--", *BOT),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("3 games of classic, 3 players, against easy bots: won ")


TWICE = """
import os
from protocol.client import Client

client = Client("twice")
os.write(1, client.hello())
while data := os.read(0, 65536):
    for message in client.feed(data):
        if message["type"] == "table" and (decision := client.decision(message)):
            act = client.act(decision, decision.choices[0])
            os.write(1, act + act)  # the second is stale: refused, and changes nothing
        elif message["type"] == "table":
            os.write(1, client.next_round(message))
"""


def test_refusals_are_counted_by_code() -> None:
    result = arena("--games", "2", "--", sys.executable, "-c", TWICE)
    assert result.returncode == 0, result.stderr
    refused = re.fullmatch(
        r"refused (\d+) of (\d+) frames \(\S+%\): stale_decision (\d+)",
        result.stdout.splitlines()[1],
    )
    assert refused and refused[1] == refused[3] and int(refused[2]) > 2 * int(refused[1])


def test_msgpack_to_a_json_arena_is_cut_off_saying_why() -> None:
    result = arena("--games", "2", "--json", "--", *BOT)
    assert result.returncode == 1
    assert "the bot was cut off: malformed: this looks like msgpack" in result.stderr


def test_a_bot_that_exits_early_is_an_error() -> None:
    result = arena("--games", "2", "--", sys.executable, "-c", "pass")
    assert result.returncode == 1
    assert "lovelet arena: the bot exited after 0 games (status 0)" in result.stderr
