"""`lovelet arena`: a bot program as a child process against the server's bots, no SSH.

The child speaks the bot API (docs/bot-api.md) on its stdin and stdout, in msgpack frames or
JSON lines, through the same `BotStream` and lobby attach as over SSH (only the transport
differs; the request rate is not limited). After its `welcome` the arena seats it at a table
of its own with the server's bots, which play at once, and starts the game; when the game is
over it leaves for the next one; after the last, its stdin is closed. A round's end waits for
the bot's `continue_round`, or `ROUND_PAUSE` seconds.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack

from protocol import BotSpec, CreateTable, Leave, Start, encode

from ..lobby import Lobby, LobbySettings, TableSettings
from ..services.clock import LoopClock
from ..ssh.botapi import JSON_LINES, MSGPACK, BotLink, BotStream
from ..ssh.info import SessionInfo
from ..ssh.limits import SSHLimits
from .glue import ssh_bot_factory

NAME = "bot"
ROUND_PAUSE = 1.0
Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True, slots=True)
class ArenaOptions:
    """What `lovelet arena` was asked to run."""

    command: tuple[str, ...]
    games: int = 20
    against: str = "medium"
    edition: str = "2019"
    players: int = 4
    json: bool = False


@dataclass(slots=True)
class Tally:
    """What the bot did: games played and won, frames sent, refusals by error code."""

    games: int = 0
    wins: int = 0
    frames: int = 0
    refusals: Counter[str] = field(default_factory=Counter)

    def interval(self) -> tuple[float, float]:
        """The Wilson score 95% interval of the win share."""
        if self.games == 0:
            return (0.0, 1.0)
        n, share = self.games, self.wins / self.games
        centre = (share + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        half = Z95 * math.sqrt(share * (1 - share) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def report(self, options: ArenaOptions) -> str:
        """Two lines for people: the win share with its interval, then the refusals."""
        low, high = self.interval()
        share = self.wins / self.games if self.games else 0.0
        refused = sum(self.refusals.values())
        codes = ", ".join(f"{code} {n}" for code, n in self.refusals.most_common())
        return (
            f"{self.games} games of {options.edition}, {options.players} players, against"
            f" {options.against} bots: won {self.wins} ({share:.1%}, 95% interval"
            f" {low:.1%}-{high:.1%})\n"
            f"refused {refused} of {self.frames} frames"
            f" ({refused / max(1, self.frames):.1%}){': ' + codes if codes else ''}"
        )


class ArenaError(Exception):
    """The bot could not play the games asked for (it exited, or was cut off)."""


class _Counted:
    """The lobby's attachment, counting the frames the bot sends."""

    def __init__(self, link: BotLink, tally: Tally) -> None:
        self._link, self._tally = link, tally

    def receive(self, frame: bytes) -> None:
        self._tally.frames += 1
        self._link.receive(frame)

    def detach(self) -> None:
        self._link.detach()


class Arena:
    """One bot program playing `options.games` games at tables of the arena's lobby."""

    def __init__(self, options: ArenaOptions, process: asyncio.subprocess.Process) -> None:
        self.options = options
        self.tally = Tally()
        self._process = process
        table = TableSettings(bot_delay=0, round_pause=ROUND_PAUSE, grace=0)
        self._lobby = Lobby(LobbySettings(table=table), clock=LoopClock())
        wire = JSON_LINES if options.json else MSGPACK
        self._stream = BotStream(wire, SSHLimits(), self._write, self._cut_off, rate_limited=False)
        self._link: BotLink | None = None
        self._finished: set[str] = set()
        self._failure: str | None = None

    def attach(self) -> None:
        """Attach the bot to the lobby as the bot API does, as an API bot."""
        info = SessionInfo(NAME, "arena", "127.0.0.1", "", (0, 0), api_bot=True)
        link = ssh_bot_factory(self._lobby)(info, self._to_bot)
        self._stream.link = self._link = _Counted(link, self.tally)

    def feed(self, data: bytes) -> None:
        """Bytes from the bot's stdout."""
        self._stream.feed(data)

    def end(self) -> None:
        """The bot's stdout is closed: detach it, close the lobby."""
        self._stream.stop()
        if self._link is not None:
            self._link.detach()
            self._link = None
        self._lobby.shut_down(keep=False)

    def failure(self) -> str | None:
        """Why the games were not all played, if they were not."""
        if self._failure is None and self.tally.games < self.options.games:
            status = self._process.returncode
            return f"the bot exited after {self.tally.games} games (status {status})"
        return self._failure

    def _to_bot(self, payload: bytes) -> None:
        """One of the lobby's frames for the bot: watched, then sent."""
        self._stream.send_frame(payload)
        message: dict[str, Any] = msgpack.unpackb(payload)
        kind = message["type"]
        if kind == "error":
            self.tally.refusals[message["code"]] += 1
        elif kind == "welcome":
            asyncio.get_running_loop().call_soon(self._next_game)
        elif kind == "table" and message["info"]["status"] == "finished":
            self._game_over(message)

    def _game_over(self, table: dict[str, Any]) -> None:
        code = table["info"]["code"]
        if code in self._finished:
            return
        self._finished.add(code)
        self.tally.games += 1
        self.tally.wins += table["info"]["you"] in table["view"]["game_winners"]
        asyncio.get_running_loop().call_soon(self._next_game)

    def _next_game(self) -> None:
        """Leave the last table; open and start the next, or close the bot's stdin."""
        if self._link is None:
            return
        if self._finished:
            self._link.receive(encode(Leave()))
        if self.tally.games >= self.options.games:
            self._close_stdin()
            return
        options = self.options
        bots = tuple(BotSpec(seat, options.against) for seat in range(1, options.players))
        table = CreateTable("arena", options.edition, options.players, None, bots)
        self._link.receive(encode(table))
        self._link.receive(encode(Start()))

    def _write(self, data: bytes) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(data)

    def _close_stdin(self) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()

    def _cut_off(self, reason: str) -> None:
        self._failure = f"the bot was cut off: {reason}"
        self._stream.stop()
        self._close_stdin()


async def run_arena(options: ArenaOptions) -> Tally:
    """Run the bot program through `options.games` games; `ArenaError` if it could not."""
    process = await asyncio.create_subprocess_exec(
        *options.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    arena = Arena(options, process)
    arena.attach()
    assert process.stdout is not None
    try:
        while data := await process.stdout.read(65536):
            arena.feed(data)
        await process.wait()
    finally:
        arena.end()
        if process.returncode is None:
            process.kill()
            await process.wait()
    failure = arena.failure()
    if failure is not None:
        raise ArenaError(failure)
    return arena.tally


def arena(options: ArenaOptions) -> int:
    """`lovelet arena`: run it, print the tally; the exit status."""
    try:
        tally = asyncio.run(run_arena(options))
    except ArenaError as err:
        print(f"lovelet arena: {err}", file=sys.stderr)
        return 1
    print(tally.report(options))
    return 0
