"""`lovelet replay GAME_ID` as a real process on a pseudo-terminal: it opens a stored game
from the database, steps through it by keys, and narrates each step as the seat saw it."""

from __future__ import annotations

import asyncio
import random
import subprocess
from pathlib import Path

import pytest
from e2e_helpers import screen_text
from ptyterm import LOVELET, PtyTerminal
from test_tui_support import cards_of

from lovelet_tui.names import Names
from lovelet_tui.narrate import narrate
from server.lobby import Lobby, LobbySettings
from server.lobby.rebuild import round_frames
from server.services.clock import LoopClock
from server.services.views import wire_events
from server.store import Store, database_path
from tests.lobby_client import Client
from tests.test_replay_views import ANN, BOB, INSTANT, play_game

SIZE = (120, 40)
MARK = "› "  # the replay's mark on the lines of the step shown


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose database holds one finished classic game of ann and bob."""
    path = tmp_path_factory.mktemp("data")
    with Store.open(database_path(path)) as store:
        store.claim_nickname(ANN, "ann", set())
        store.claim_nickname(BOB, "bob", set())
        lobby = Lobby(LobbySettings(table=INSTANT), random.Random(7), store, clock=LoopClock())
        clients = [Client(lobby, "ann", key=ANN), Client(lobby, "bob", key=BOB)]
        clients.append(Client(lobby, "guest", guest=True))
        for client in clients:
            client.hello()
        asyncio.run(play_game(lobby, clients, "classic", 2))
        lobby.shut_down()
    return path


def step_lines(data_dir: Path, seat: int | None, round_no: int, step: int) -> list[str]:
    """The narration of one step, as the replay screen should show it."""
    with Store.open(database_path(data_dir)) as store:
        frame = round_frames(store.action_log(1), seat, round_no).frames[step]
    names = Names(("ann", "bob"), seat, cards_of(frame.view.edition))
    return [line.plain for line in narrate(wire_events(frame.events, seat), names)]


def rounds(data_dir: Path) -> int:
    """How many rounds the stored game had."""
    with Store.open(database_path(data_dir)) as store:
        return round_frames(store.action_log(1), None, 1).rounds


def marked(term: PtyTerminal) -> list[str]:
    """The log lines marked as the step shown (their first row)."""
    return [
        line.split(MARK, 1)[1].rstrip() for line in screen_text(term).splitlines() if MARK in line
    ]


def shows(term: PtyTerminal, lines: list[str]) -> bool:
    """Every line of `lines` is on screen, marked (compared on the part that fits a row)."""
    shown = marked(term)
    return len(shown) == len(lines) and all(
        line.startswith(row.split("  ")[0][:40]) for row, line in zip(shown, lines, strict=True)
    )


async def test_replay_steps_through_a_seat_view_by_keys(data_dir: Path) -> None:
    command = [LOVELET, "replay", "1", "--seat", "1", "--data-dir", str(data_dir)]
    async with PtyTerminal.spawn(command, size=SIZE) as term:
        await term.wait_for(lambda: "step 1 of" in screen_text(term), "the first step")
        assert "Replay of game 1" in screen_text(term)
        assert "round 1 of" in screen_text(term)
        deal = step_lines(data_dir, 0, 1, 0)
        assert any(line.startswith("You were dealt") for line in deal)
        await term.wait_for(lambda: shows(term, deal), f"the deal {deal}")
        for step in (1, 2):
            await term.send_keys("right")
            await term.wait_for(lambda s=step: f"step {s + 1} of" in screen_text(term), "→")
            expected = step_lines(data_dir, 0, 1, step)
            await term.wait_for(lambda e=expected: shows(term, e), f"step {step + 1}: {expected}")
        await term.send_keys("left")
        await term.wait_for(lambda: "step 2 of" in screen_text(term), "← one step back")
        await term.send_keys("pagedown")
        await term.wait_for(lambda: "round 2 of" in screen_text(term), "PgDn: round 2")
        assert "step 1 of" in screen_text(term)
        await term.wait_for(lambda: shows(term, step_lines(data_dir, 0, 2, 0)), "round 2's deal")
        await term.send_keys("end")
        await term.wait_for(lambda: "The end of the game." in screen_text(term), "End")
        last = step_lines(data_dir, 0, rounds(data_dir), -1)
        assert last[-1].startswith("Game over: ")
        await term.wait_for(lambda: shows(term, last), f"the last step: {last}")
        await term.send_keys("home")
        await term.wait_for(lambda: "round 1 of" in screen_text(term), "Home")
        await term.send_keys("v")
        await term.wait_for(lambda: "The public view" in screen_text(term), "v: the public view")
        await term.wait_for(lambda: shows(term, step_lines(data_dir, None, 1, 0)), "public deal")
        assert "You were dealt" not in screen_text(term)
        await term.send_keys("escape")
        assert await term.exited() == 0


async def test_replay_public_view_hides_every_hand(data_dir: Path) -> None:
    command = [LOVELET, "replay", "1", "--public", "--data-dir", str(data_dir)]
    async with PtyTerminal.spawn(command, size=SIZE) as term:
        await term.wait_for(lambda: "The public view" in screen_text(term), "the public view")
        await term.send_keys("right")
        await term.wait_for(lambda: "step 2 of" in screen_text(term), "a step on")
        await term.wait_for(lambda: shows(term, step_lines(data_dir, None, 1, 1)), "its narration")
        await term.send_keys("end")
        await term.wait_for(lambda: "The end of the game." in screen_text(term), "the end")
        text = screen_text(term)
        assert "You " not in text and "no one's hand is shown" in text
        assert "Switch view" not in text  # no seat of its own to switch to
        await term.send_keys("escape")
        assert await term.exited() == 0


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["99"], "there is no finished game 99"),
        (["1", "--seat", "3"], "game 1 has no seat 3"),
        (["x"], "expected a game id"),
        (["1", "--seat", "9"], "expected a seat number from 1 to 8"),
    ],
)
def test_replay_refuses_what_it_cannot_open(data_dir: Path, args: list[str], error: str) -> None:
    result = subprocess.run(
        [LOVELET, "replay", *args, "--data-dir", str(data_dir)], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert error in result.stderr
