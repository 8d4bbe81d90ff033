"""Helpers for end-to-end tests: the real server on loopback, and reading its screens.

Everything here synchronises on what the pyte screen shows (`SSHTerminal.wait_for`), never
on sleeps. The server's own table state is read only to check what the screens show.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import random
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from sshclient import SSHTerminal

from lovelet_tui.staging import PROMPTS
from server.commands.serve import RunningServer, start
from server.engine import Play
from server.lobby import Lobby, LobbySettings, Table, TableSettings
from server.ops.config import Config
from server.ssh import SSHService

GAME_TIMEOUT = 45.0
"""Seconds a whole game may take before a test gives up."""
FIRST_PROMPTS = frozenset(PROMPTS[step] for step in ("card", "keep", "seat", "redraw"))
"""Prompts of a decision's first step: Esc has nothing to undo there."""
PANEL_MIN_COLUMN = 30
"""The choice panel sits right of the log; prompts further left are log text."""
PANEL_WIDTH = 36
"""Columns of the choice panel at the right edge of the table screen."""
CONFIRM = "y: yes · any other key: no"
"""The panel's line under a question about something that cannot be undone."""

SCROLLBAR_GLYPHS = " ▁▂▃▄▅▆▇█"
"""What a vertical scrollbar's column shows in text: blanks, and the thumb's ends."""
OPTION = re.compile(r"^ (\d)  (\S.*)$")
"""One numbered row of the choice panel, from the prompt's column."""
_HAND = re.compile(r"^ (?:Hand |     ) (\S.*?) (\d+)(?:  |$)")
_SEATS = re.compile(r"^ (?:▶|›| ) (?:\d )?(\S.*?)\s{2,}(?:.*?)♥(\d+)")


@dataclass(frozen=True, slots=True)
class Server:
    """The real server (`server.commands.serve.start`: store, lobby, SSH) on 127.0.0.1."""

    running: RunningServer

    @property
    def port(self) -> int:
        """The port actually bound."""
        return self.running.service.port

    @property
    def service(self) -> SSHService:
        """The SSH service."""
        return self.running.service

    @property
    def lobby(self) -> Lobby:
        """The lobby every session is attached to."""
        return self.running.lobby

    def table(self, code: str) -> Table:
        """The server's table with that code."""
        return self.lobby.tables[code]


@asynccontextmanager
async def running_server(
    data_dir: Path, table: TableSettings, lobby: LobbySettings | None = None, **config: Any
) -> AsyncIterator[Server]:
    """`lovelet serve` in-process on a free port; stopped (without a grace period) after.

    `lobby` replaces the lobby's settings but the tables'; `config` sets `Config` fields
    (the web front-end is off unless `web_listen` is given)."""
    settings = dataclasses.replace(lobby or LobbySettings(), table=table)
    config = {"web_listen": None, **config}
    with contextlib.redirect_stdout(io.StringIO()):  # where to connect: not news to a test
        running = await start(Config(listen="127.0.0.1:0", data_dir=data_dir, **config), settings)
    gc.unfreeze()  # `start` freezes start-up objects for a long-lived server; not in tests
    try:
        yield Server(running)
    finally:
        await running.stop(grace=0)


# ---------------------------------------------------------------- reading the screen

_rendered: WeakKeyDictionary[SSHTerminal, tuple[tuple[int, int, int], list[str]]] = (
    WeakKeyDictionary()
)


def screen_lines(term: SSHTerminal) -> list[str]:
    """`term.screen.display`, rendered once per chunk of output (pyte renders slowly)."""
    version = (len(term.raw), term.screen.columns, term.screen.lines)
    cached = _rendered.get(term)
    if cached is None or cached[0] != version:
        cached = _rendered[term] = (version, term.screen.display)
    return cached[1]


def screen_text(term: SSHTerminal) -> str:
    """The screen as lines of text, like `term.text`, from the cache."""
    return "\n".join(line.rstrip() for line in screen_lines(term))


async def wait_text(term: SSHTerminal, text: str, timeout: float = 10.0) -> None:
    """Wait until `text` is on the screen."""
    await term.wait_for(lambda: text in screen_text(term), repr(text), timeout)


@dataclass(frozen=True, slots=True)
class Option:
    """One numbered option of the choice panel."""

    key: str
    label: str


@dataclass(frozen=True, slots=True)
class Panel:
    """The step of a decision the choice panel shows."""

    prompt: str
    options: tuple[Option, ...]


def read_panel(term: SSHTerminal) -> Panel | None:
    """The prompt and options in the choice panel, or None when there is no decision."""
    lines = screen_lines(term)
    for row, line in enumerate(lines):
        for prompt in PROMPTS.values():
            column = line.find(prompt, PANEL_MIN_COLUMN)
            options = _options(lines[row + 1 :], column) if column >= 0 else []
            if options:
                return Panel(prompt, tuple(options))
    return None


def _options(lines: Sequence[str], column: int) -> list[Option]:
    options: list[Option] = []
    for line in lines:
        match = OPTION.match(line[column:].rstrip())
        if match is None:
            break
        options.append(Option(match[1], match[2]))
    return options


def hand_rows(term: SSHTerminal) -> range:
    """The rows of the hand: 3, or up to 5 when card texts wrap under their names."""
    lines = screen_lines(term)
    top = next((i for i, line in enumerate(lines) if line.startswith(" Hand  ")), None)
    if top is None:
        return range(0)
    end, width = top + 3, term.screen.columns - PANEL_WIDTH - 1
    while end < min(top + 5, len(lines)) and lines[end].startswith(" " * 7):
        if not lines[end][:width].strip():
            break  # a log row left blank, not a wrapped card text
        end += 1
    return range(top, end)


def read_hand(term: SSHTerminal) -> list[str]:
    """Card names on the hand rows, in order."""
    lines = screen_lines(term)
    cards = []
    for row in hand_rows(term):
        match = _HAND.match(lines[row])
        if match:
            cards.append(match[1])
    return cards


def read_tokens(term: SSHTerminal) -> dict[str, int]:
    """Tokens per seat name on the seat rows (" (you)" removed)."""
    tokens = {}
    for line in screen_lines(term)[1:8]:
        match = _SEATS.match(line)
        if match:
            tokens[match[1].removesuffix(" (you)")] = int(match[2])
    return tokens


def header_code(term: SSHTerminal) -> str:
    """The table code at the start of the table screen's header."""
    return screen_lines(term)[0].split("·")[0].strip()


def log_lines(term: SSHTerminal) -> list[str]:
    """The log pane's visible lines: below the hand, left of the panel, without the scrollbar
    (its column is the log's last, and holds text when the log fits)."""
    lines = screen_lines(term)
    top = hand_rows(term).stop or 3
    width = term.screen.columns - PANEL_WIDTH
    return [line[:width].rstrip(SCROLLBAR_GLYPHS) for line in lines[top:-1]]


def log_text(term: SSHTerminal) -> str:
    """The visible log as one line: wrapped sentences joined again."""
    return " ".join(line for line in log_lines(term) if line)


async def wait_log(term: SSHTerminal, sentence: str) -> None:
    """Wait until the visible log holds `sentence` (maybe wrapped over lines)."""
    await term.wait_for(lambda: sentence in log_text(term), repr(sentence))


# ---------------------------------------------------------------- doing things with keys


async def create_table(term: SSHTerminal, seats: int, name: str = "") -> str:
    """Fill in the new-table form (2019 edition) with keys; return the new table's code."""
    await term.send_keys("n")
    await wait_text(term, "Turn timer")
    if name:
        await term.send(name)
        await wait_text(term, name[-10:])
    await term.send_keys("tab", "tab")
    step = "left" if seats < 4 else "right"
    await term.send_keys(*[step] * abs(seats - 4))
    await term.wait_for(
        lambda: re.search(rf"Seats\s+‹? *{seats}\b", screen_text(term)) is not None, "seats"
    )
    await term.send_keys("enter")
    await wait_text(term, "Before the game")
    return header_code(term)


@dataclass
class Player:
    """One human at a table: their terminal, the seat they hold and what they did."""

    term: SSHTerminal
    seat: int
    decisions: int = 0
    first_step: Panel | None = None  # the first step of the decision being staged
    backed_out: int = 0
    rounds_continued: int = 0


GAME_OVER = re.compile(r"r: ready for a rematch|Ready\. The rematch waits for")
"""The table's panel at game over, before and after the player said ready."""


def phase(term: SSHTerminal) -> str | None:
    """What the player must do now: "decide", "confirm" (a yes/no, e.g. playing the
    Princess), "next" (round summary), "over", or None."""
    text = screen_text(term)
    if GAME_OVER.search(text):
        return "over"
    if CONFIRM in text:
        return "confirm"
    if "n: next round" in text:
        return "next"
    return "decide" if read_panel(term) is not None else None


async def answer_yes(term: SSHTerminal) -> None:
    """If the panel asks a yes/no question (playing the Princess), answer `y`."""
    if CONFIRM in screen_text(term):
        await term.send_keys("y")
        await term.wait_for(lambda: CONFIRM not in screen_text(term), "the yes taken")


async def play_to_game_over(
    player: Player, table: Table, rng: random.Random, *, back_out_once: bool = True
) -> None:
    """Play from the screen with digits until "game over"; check every decision's hand
    against the server. With `back_out_once`, the first later step is left with Esc once.

    After each key the loop waits for the panel to react (or the table to move on), so a
    frame that updates only the footer is never taken for a new decision.
    """
    term = player.term
    while True:
        await term.wait_for(lambda: phase(term) is not None, "a decision", GAME_TIMEOUT)
        now = phase(term)
        if now == "over":
            return
        if now == "confirm":
            await answer_yes(term)
            continue
        if now == "next":
            player.rounds_continued += 1
            await term.send_keys("n")
            await term.wait_for(lambda: "n: next round" not in screen_text(term), "n taken")
            continue
        await check_decision(player, table)
        panel, table_line = await whole_panel(player, table), read_table_line(term)
        if panel.prompt in FIRST_PROMPTS:
            player.first_step = panel
        elif back_out_once and not player.backed_out:
            await back_out(player)
            continue
        player.decisions += 1
        await term.send_keys(pick(panel, player, table, rng).key)
        await term.wait_for(
            lambda p=panel, t=table_line: read_panel(term) != p or read_table_line(term) != t,
            "the key taken",
        )


async def whole_panel(player: Player, table: Table) -> Panel:
    """The panel once all of it arrived: a first step offers each card of the hand that the
    server allows (rows can come in a later write than the prompt)."""
    game, term = table.game, player.term
    assert game is not None and game.pending is not None
    cards = {choice.card for choice in game.pending.choices if isinstance(choice, Play)}

    def whole() -> bool:
        panel = read_panel(term)
        if panel is None or panel.prompt != PROMPTS["card"]:
            return panel is not None
        return len(panel.options) == len(cards)

    await term.wait_for(whole, f"the whole panel ({len(cards)} cards)")
    panel = read_panel(term)
    assert panel is not None
    return panel


def read_table_line(term: SSHTerminal) -> str:
    """The header and the deck line: they change with every turn of the game."""
    lines = screen_lines(term)
    return lines[0] + next((line for line in lines if line.startswith("   Deck ")), "")


def pick(panel: Panel, player: Player, table: Table, rng: random.Random) -> Option:
    """A random option; until Esc was tried, preferably a card that asks for a target."""
    if player.backed_out or panel.prompt != PROMPTS["card"]:
        return rng.choice(panel.options)
    game = table.game
    assert game is not None and game.pending is not None
    names = {card.id: card.name for card in game.edition.cards}
    targeting = {
        names[choice.card]
        for choice in game.pending.choices
        if isinstance(choice, Play) and choice.targets
    }
    return rng.choice([o for o in panel.options if o.label in targeting] or panel.options)


async def check_decision(player: Player, table: Table) -> None:
    """The server waits for this player's decision, and the screen shows its hand.

    The prompt's rows may arrive before the hand's rows of the same frame (a frame can come
    in several SSH packets), so the hand is waited for, not read at once.
    """
    game = table.game
    assert game is not None and game.pending is not None
    screen = screen_text(player.term)
    assert game.pending.seat == player.seat, f"a prompt while another seat decides\n{screen}"
    held = [card.name for card in game.hands[player.seat]]
    await player.term.wait_for(lambda: read_hand(player.term) == held, f"the hand {held}")


async def back_out(player: Player) -> None:
    """Esc from a later step: the first step comes back with the same options."""
    term = player.term
    await term.send_keys("escape")
    await term.wait_for(
        lambda: read_panel(term) == player.first_step, "the first step again after Esc"
    )
    player.backed_out += 1


def said(names: Sequence[str], seats: Sequence[int], you: int) -> str:
    """How the log names `seats` for the player at `you`: "you", "ana and you"..."""
    words = ["you" if seat == you else names[seat] for seat in seats]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
