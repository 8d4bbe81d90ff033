"""`lovelet serve` as a real process: SIGKILL and restart, SIGTERM, configuration sources.
(Players back at a rebuilt table after a restart: tests/test_ops_resume.py.)

Each test runs the `lovelet serve` console script on a temporary data directory and talks to it over
real SSH. Synchronisation is on what the process prints, what the clients' screens show and
what the database holds, each with a timeout; never on sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import asyncssh
import pytest
from e2e_helpers import (
    GAME_TIMEOUT,
    answer_yes,
    create_table,
    log_lines,
    log_text,
    read_hand,
    read_panel,
    read_table_line,
    screen_text,
    wait_text,
)
from ptyterm import LOVELET, lovelet_lines
from sshclient import SSHTerminal

from lovelet_tui.staging import PROMPTS
from protocol import (
    PROTOCOL_VERSION,
    AddBot,
    CreateTable,
    Direction,
    FrameReader,
    Hello,
    TableState,
    decode,
    encode,
    frame,
)
from server.commands.serve import RESTART_MESSAGE
from server.engine import find_edition
from server.ssh.driver import RESTORE_TERMINAL
from server.store import GameLog, Store, database_path

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 20.0
"""Seconds a server process may take to print where it listens (imports are slow)."""
FAST = {
    "LOVELET_LISTEN": "127.0.0.1:0",
    "LOVELET_LOG_FORMAT": "json",
    "LOVELET_TABLE_BOT_DELAY": "0",
    "LOVELET_TABLE_ROUND_PAUSE": "0.05",
}
"""Bots act at once and rounds follow each other at once; logs are JSON lines."""
T = TypeVar("T")
LISTENING = re.compile(r"^lovelet is listening on (\S+):(\d+)$")
CARD_NAMES = {card.id: card.name for card in find_edition("2019").cards}


class ServerProcess:
    """One `lovelet serve` process; its stdout and stderr lines are collected as they come."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._changed = asyncio.Event()
        self._readers = [
            asyncio.create_task(self._read(process.stdout, self.stdout)),
            asyncio.create_task(self._read(process.stderr, self.stderr)),
        ]

    @classmethod
    @asynccontextmanager
    async def run(
        cls, env: Mapping[str, str], args: Sequence[str] = ()
    ) -> AsyncIterator[ServerProcess]:
        """Start the server with only these LOVELET_* variables; killed at the end if alive."""
        process = await asyncio.create_subprocess_exec(
            *serve_command(args),
            cwd=ROOT,
            env=environment(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        server = cls(process)
        try:
            yield server
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()
            await asyncio.gather(*server._readers)

    async def _read(self, stream: asyncio.StreamReader | None, lines: list[str]) -> None:
        assert stream is not None
        while line := await stream.readline():
            lines.append(line.decode(errors="replace").rstrip("\n"))
            self._changed.set()
        self._changed.set()

    async def wait_line(
        self, lines: list[str], matches: Callable[[str], bool], what: str, timeout: float
    ) -> str:
        """The first line of `lines` (stdout or stderr) that `matches`, waiting for it."""
        return await self.wait_for(
            lambda: next((line for line in lines if matches(line)), None), what, timeout
        )

    async def wait_for(self, found: Callable[[], T | None], what: str, timeout: float) -> T:
        """What `found` returns once it is not None, asked again after each printed line."""

        async def until() -> T:
            while True:
                value = found()
                if value is not None:
                    return value
                if self.process.returncode is not None and all(r.done() for r in self._readers):
                    raise AssertionError(f"the server exited before {what}\n{self.output}")
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(until(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}\n{self.output}") from None

    async def listening(self) -> tuple[str, int]:
        """(host, port) from "lovelet is listening on HOST:PORT"."""
        line = await self.wait_line(
            self.stdout, lambda x: LISTENING.match(said(x)), "the listening line", START_TIMEOUT
        )
        match = LISTENING.match(said(line))
        assert match is not None
        return match[1], int(match[2])

    async def ready(self) -> tuple[str, int]:
        """(host, port) once the server has answered a TCP connection with its SSH version.

        The listening line is printed before `serve` installs its SIGTERM handler; the event
        loop serving a connection afterwards proves the handler is in place.
        """
        host, port = await self.listening()
        reader, writer = await asyncio.open_connection(host, port)
        try:
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith(b"SSH-2.0-")
        finally:
            writer.close()
            await writer.wait_closed()
        return host, port

    async def fingerprint(self) -> str:
        """The host key fingerprint the server printed."""
        prefix = "host key fingerprint: "
        line = await self.wait_line(
            self.stdout, lambda x: said(x).startswith(prefix), "the fingerprint", START_TIMEOUT
        )
        return said(line).removeprefix(prefix)

    async def event(self, message: str, timeout: float = 10.0, **fields: object) -> dict:
        """The first JSON log line with this message and these field values."""

        def matches(line: str) -> bool:
            entry = _json(line)
            return entry.get("message") == message and all(
                entry.get(k) == v for k, v in fields.items()
            )

        return _json(await self.wait_line(self.stderr, matches, f"log {message!r}", timeout))

    async def exited(self, timeout: float) -> int:
        """Wait for the process to end; its exit status."""
        try:
            return await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"the server is still running\n{self.output}") from None

    @property
    def output(self) -> str:
        """Everything printed so far, for failure messages."""
        return "\n".join(["--- stdout", *self.stdout, "--- stderr", *self.stderr])


def serve_command(args: Sequence[str]) -> list[str]:
    return [LOVELET, "serve", *args]


def environment(lovelet: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without its LOVELET_* variables, plus `lovelet`."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("LOVELET_")}
    return {**kept, **lovelet}


def said(line: str) -> str:
    """What a line says: the message of a JSON record (the JSON log format), else the line."""
    return str(_json(line).get("message", line))


def _json(line: str) -> dict:
    try:
        entry = json.loads(line)
    except ValueError:
        return {}
    return entry if isinstance(entry, dict) else {}


def fast_env(data_dir: Path, **more: str) -> dict[str, str]:
    """FAST settings on `data_dir`, plus `more` LOVELET_* variables."""
    return {**FAST, "LOVELET_DATA_DIR": str(data_dir), **more}


# ---------------------------------------------------------------- driving the game with keys


async def watch_first_table(term: SSHTerminal, code: str) -> None:
    """From the lobby: `w` watches the selected (only) table."""
    await wait_text(term, code)
    await term.send_keys("w")
    await wait_text(term, "The host starts the game.")


async def play_all_bot_game(host: SSHTerminal, watcher: SSHTerminal) -> None:
    """`host` opens a table that `watcher` watches, starts it and leaves: bots play it out.

    (Standing up and then starting is not possible from the TUI: a host without a seat is
    not shown as host, so `g` is not offered. Leaving hands the seat to a bot instead.)
    """
    code = await create_table(host, seats=3)
    await watch_first_table(watcher, code)
    await host.send_keys("g")
    await host.wait_for(lambda: "Round 1: " in screen_text(host), "the game started")
    await host.send_keys("l", "y")  # leaving a running game asks first
    await wait_text(host, "signed in as")
    await wait_text(watcher, "Game over", timeout=GAME_TIMEOUT)  # the panel (may wrap after)
    await watcher.send_keys("l")
    await wait_text(watcher, "signed in as")


async def until_my_turn(term: SSHTerminal, rng: random.Random) -> None:
    """Wait until the player must choose a card to play, with their draw last in the log.

    Other decisions met on the way (finishing a play, a redraw offer) are made at random.
    """
    while True:
        await term.wait_for(lambda: read_panel(term) is not None, "a decision", GAME_TIMEOUT)
        panel = read_panel(term)
        if panel is not None and panel.prompt == PROMPTS["card"]:
            await term.wait_for(
                lambda: last_log_line(term).startswith("You drew "), "my draw in the log"
            )
            return
        await decide(term, rng)


async def decide(term: SSHTerminal, rng: random.Random) -> None:
    """Pick options at random until the panel shows no decision any more."""
    while (panel := read_panel(term)) is not None:
        table_line = read_table_line(term)
        await term.send_keys(rng.choice(panel.options).key)
        await term.wait_for(
            lambda p=panel, t=table_line: read_panel(term) != p or read_table_line(term) != t,
            "the key taken",
        )
        await answer_yes(term)


def this_round(log: str) -> str:
    """The log from the last round's headline ("Round 2: ana to play first") on."""
    starts = [match.start() for match in re.finditer(r"Round \d+: ", log)]
    assert starts, f"no round headline in the log: {log}"
    return log[starts[-1] :]


def last_log_line(term: SSHTerminal) -> str:
    """The last non-empty line of the visible log that narrates the game (a guest's rejoin
    code, told in the log as the game starts, left out)."""
    lines = [line.strip() for line in log_lines(term) if line.strip()]
    told = next((i for i, line in enumerate(lines) if line.startswith("Your rejoin code")), None)
    if told is not None:
        end = next((i for i in range(told, len(lines)) if lines[i].endswith("seat back.")), told)
        del lines[told : end + 1]
    return lines[-1] if lines else ""


# ---------------------------------------------------------------- the database


def game_logs(data_dir: Path) -> dict[int, GameLog]:
    """Every game in the database, by id."""
    with Store.open(database_path(data_dir)) as store:
        ids = _game_ids(data_dir)
        return {game_id: store.game_log(game_id) for game_id in ids}


def _game_ids(data_dir: Path) -> list[int]:
    conn = sqlite3.connect(database_path(data_dir))
    try:
        return [row[0] for row in conn.execute("SELECT id FROM games ORDER BY id")]
    finally:
        conn.close()


def assert_no_cards_logged(log: list[str]) -> None:
    """No log line names a card (games were played: hands, draws and plays happened)."""
    words = re.compile(r"\b(?:" + "|".join([*CARD_NAMES, *CARD_NAMES.values()]) + r")\b")
    events = [entry for entry in map(_json, log) if entry]
    assert any(entry.get("message") == "game end" for entry in events), "\n".join(log)
    for entry in events:
        entry.pop("host_key", None)  # base64: could spell a card by chance
        assert not words.search(json.dumps(entry)), entry


def integrity(data_dir: Path) -> str:
    conn = sqlite3.connect(database_path(data_dir))
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


# ---------------------------------------------------------------- kill -9 and restart


async def test_kill_9_loses_no_logged_action_and_a_restart_rebuilds_the_cut_game(
    tmp_path: Path,
) -> None:
    rng = random.Random(9)
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.listening()
        fingerprint = await server.fingerprint()
        async with (
            SSHTerminal.connect(port, username="bo") as bo,
            SSHTerminal.connect(port, username="ana", size=(100, 60)) as ana,
        ):
            await wait_text(bo, "signed in as bo")
            await wait_text(ana, "signed in as ana")
            await play_all_bot_game(bo, ana)
            await create_table(ana, seats=2)  # 6 tokens to win: ana gets her two turns first
            await ana.send_keys("g")
            await until_my_turn(ana, rng)
            await decide(ana, rng)
            await until_my_turn(ana, rng)
            plays_seen = this_round(log_text(ana)).count(" played ")
            hand = read_hand(ana)
            server.process.send_signal(signal.SIGKILL)
            assert await server.exited(10) == -signal.SIGKILL
        assert_no_cards_logged(server.stderr)

    before = game_logs(tmp_path)
    assert sorted(before) == [1, 2]
    finished, cut = before[1], before[2]
    check_finished(finished)
    assert cut.game.status == "playing" and cut.game.ended_at is None
    last = cut.events[-1]
    assert (last.kind, last.seat) == ("draw", 0), "the draw that began ana's turn is stored"
    assert last.secret is not None and CARD_NAMES[last.secret["card"]] in hand
    assert any(event.kind == "play" and event.seat == 0 for event in cut.events)
    round_start = max(i for i, event in enumerate(cut.events) if event.kind == "round_start")
    assert sum(event.kind == "play" for event in cut.events[round_start:]) == plays_seen
    assert [event.seq for event in cut.events] == list(range(len(cut.events)))
    assert integrity(tmp_path) == "ok"

    async with ServerProcess.run(fast_env(tmp_path)) as server:
        await server.ready()
        assert await server.fingerprint() == fingerprint
        assert (await server.event("tables resumed"))["tables"] == 1
        after = game_logs(tmp_path)
        assert after[1] == finished
        assert after[2].game.status == "playing" and after[2].game.ended_at is None
        assert after[2].events == cut.events, "the rebuilt table waits for ana's decision"
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0


def check_finished(log: GameLog) -> None:
    """A game played to its end: winners, one row per round, the last event `game_end`."""
    game = log.game
    assert game.status == "finished" and game.ended_at is not None and game.winners
    round_ends = [event for event in log.events if event.kind == "round_end"]
    assert log.rounds and len(log.rounds) == len(round_ends)
    assert log.events[-1].kind == "game_end"
    assert log.events[-1].public["winners"] == game.winners
    assert [seat.bot_level for seat in game.seats][1:] == ["easy", "easy"]


# ---------------------------------------------------------------- SIGTERM


async def test_sigterm_keeps_the_round_at_once_then_restores_terminals(tmp_path: Path) -> None:
    grace = 30  # for rounds that could not be rebuilt: this one can
    env = fast_env(tmp_path, LOVELET_SHUTDOWN_GRACE=str(grace))
    async with ServerProcess.run(env) as server:
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="ana", size=(100, 40)) as ana:
            await wait_text(ana, "signed in as ana")
            await create_table(ana, seats=2)
            await ana.send_keys("g")
            await until_my_turn(ana, random.Random(1))
            stopping = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            await wait_text(ana, RESTART_MESSAGE)
            assert await ana.wait_closed(10) == 0
            assert await server.exited(10) == 0
            elapsed = time.monotonic() - stopping
        assert elapsed < grace / 2, "a round kept for the restart does not wait for its end"
        tail = ana.raw[ana.raw.rindex(b"\x1b[?1049h") :]
        for sequence in (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?2004l"):
            assert sequence in tail
        assert ana.raw.endswith(RESTORE_TERMINAL.encode() + RESTART_MESSAGE.encode() + b"\r\n")
        started = await server.event("server started")
        assert started["event_loop"] == ("asyncio" if sys.platform == "win32" else "uvloop")
        login = await server.event("login", name="ana")
        assert login["identity"] == "guest" and login["term"] == "xterm-256color"
        assert login["size"] == "100x40" and login["client"].startswith("SSH-2.0-AsyncSSH")
        bye = await server.event("disconnect", name="ana")
        assert bye["reason"] == RESTART_MESSAGE
        await server.event("server stopped")

    (game,) = game_logs(tmp_path).values()
    assert game.game.status == "playing" and game.events[-1].kind == "draw"
    assert integrity(tmp_path) == "ok"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
async def test_sigterm_exits_within_two_seconds_whatever_the_bot_workers_do(
    tmp_path: Path,
) -> None:
    """The hard bot's worker processes are stopped (SIGSTOP): the stand-in, made certain, for
    workers that cannot run soon (starved on a loaded machine, still starting, busy). The
    server must not wait for them."""
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        host, port = await server.ready()
        key = asyncssh.generate_private_key("ssh-ed25519")
        async with asyncssh.connect(
            host, port, username="robo", client_keys=[key], known_hosts=None
        ) as conn:
            writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
            hello, table = Hello(PROTOCOL_VERSION, "robo"), CreateTable("t", "2019", 2)
            for message in (hello, table, AddBot(1, "hard")):  # a hard bot starts the workers
                writer.write(frame(encode(message), direction=Direction.TO_SERVER))
            await table_frame(reader, lambda table: table.info.seats[1].bot == "hard")
            workers = bot_workers(server.process.pid)
            assert workers, "the hard bot's workers were started"
            try:
                for pid in workers:
                    os.kill(pid, signal.SIGSTOP)
                server.process.send_signal(signal.SIGTERM)
                await server.event("server stopped")
                stopped = time.monotonic()
                assert await server.exited(10) == 0
                assert time.monotonic() - stopped < 2, 'exit within 2 s of "server stopped"'
            finally:
                for pid in workers:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)


async def table_frame(
    reader: asyncssh.SSHReader[bytes], wanted: Callable[[TableState], bool]
) -> TableState:
    """The first `table` frame from the bot API that is `wanted`."""
    frames = FrameReader(direction=Direction.TO_CLIENT)
    async with asyncio.timeout(10):
        while chunk := await reader.read(65536):
            for payload in frames.feed(chunk):
                message = decode(payload, direction=Direction.TO_CLIENT)
                if isinstance(message, TableState) and wanted(message):
                    return message
    raise AssertionError("the bot API channel closed before the table frame")


def bot_workers(pid: int) -> list[int]:
    """The worker processes (multiprocessing spawn children) of the process `pid` (Linux)."""
    workers = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if parent == pid and b"spawn_main" in command:
            workers.append(int(stat.parent.name))
    return workers


# ---------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    ("env", "file", "expected"),
    [
        (
            {"LOVELET_LIMITS_PER_ADDRESS": "ten"},
            "",
            "lovelet serve: limits.per_address: expected an integer, got 'ten' "
            "(from environment variable LOVELET_LIMITS_PER_ADDRESS)",
        ),
        (
            {},
            "[table]\nbot_delay = -1\n",
            "lovelet serve: table.bot_delay: must be between 0 and 30, got -1 (from file ",
        ),
    ],
    ids=["environment", "file"],
)
async def test_an_invalid_value_stops_the_server_naming_the_key(
    tmp_path: Path, env: dict[str, str], file: str, expected: str
) -> None:
    if file:
        (tmp_path / "config.toml").write_text(file)
    async with ServerProcess.run({"LOVELET_DATA_DIR": str(tmp_path), **env}) as server:
        assert await server.exited(START_TIMEOUT) == 2
    [said] = lovelet_lines(server.stderr)
    assert said.startswith(expected), server.output
    assert not server.stdout
    assert not database_path(tmp_path).exists(), "nothing was started"


async def test_flags_beat_the_environment_which_beats_the_file(tmp_path: Path) -> None:
    config = tmp_path / "lovelet.toml"
    config.write_text('listen = "127.0.0.2:0"\n')
    file = {"LOVELET_CONFIG": str(config)}
    env = {**file, "LOVELET_LISTEN": "127.0.0.3:0"}
    hosts = await asyncio.gather(
        listen_host(tmp_path / "a", file),
        listen_host(tmp_path / "b", env),
        listen_host(tmp_path / "c", env, "--listen", "127.0.0.4:0"),
    )
    assert hosts == ["127.0.0.2", "127.0.0.3", "127.0.0.4"]


async def listen_host(data_dir: Path, env: Mapping[str, str], *args: str) -> str:
    """Where a server started with `env` and `args` says it listens; then stop it."""
    async with ServerProcess.run({**env, "LOVELET_DATA_DIR": str(data_dir)}, args) as server:
        host, port = await server.ready()
        assert port > 0
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0
    return host
