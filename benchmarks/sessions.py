"""Load benchmark: N SSH players at tables of 4 against `lovelet serve` in another process.

Usage: python benchmarks/sessions.py [--players 200] [--table-size 4] [--duration 60]
           [--think 2.0] [--pyte-tables 10] [--budget 180] [--workers N [--broker URL]]
           [--soak-interval S] [--stagger S] [--web]

The server runs as `python -m server.cli serve --listen 127.0.0.1:PORT --data-dir TMP`, so
its RSS and CPU time come from /proc/<pid>. With `--workers N` it runs as a game core and N
SSH front-ends joined through Redis (docs/scaling.md): `--broker URL`, or a redis-server
this script starts on a free loopback port; RSS and CPU are then those of every process of
the server (the supervisor, the core, the front-ends) plus that redis-server's. Every player
is an asyncssh client with a PTY, logged in as a guest; clients spread over loopback source
addresses (127.0.0.2, .3, ...) so the server's per-address limit holds. Tables are made
through the UI with keys: the host presses n and Enter in the lobby, the other players
ctrl+end and j, the host g; every seat is a human. A player whose turn it is thinks
`--think` seconds, then presses a digit per step (2 for a guess, 1 otherwise); n at a
round's end, r (host) at a game's end. Think times vary (0.5-1.5 × `--think`) and tables
start at random moments, so turns of different tables do not fall in step. Every table starts
playing at once, though, so their first rounds end in one wave within the first 30 s;
`--stagger S` starts each table's play at a random moment within S seconds instead (about a
round's length, 20 s, puts rounds out of step as on a public server) and measures once all
play.

Reported: server RSS before/after N idle sessions (MB per idle session: seated at tables
not yet started, or waiting in the lobby with --lobby-idle); server CPU per screen update
delivered; key press → every screen at the table showing the new deck count (p50/p99),
measured on pyte screens for the first `--pyte-tables` tables and on the raw byte stream for
the others; the server's oldest-generation garbage collections while playing, its paced
steps and any whole collection, and the CPU of its younger generations' collections (a
sitecustomize written on the server's PYTHONPATH logs them). Targets (2 cores): <= 3 MB per
idle session, p99 <= 100 ms with 200 players. Other load on the machine shows in the last
line (load average, /proc/pressure/cpu).

A soak (`--duration 600 --soak-interval 60`, say) also reads, at the start of play and every
S seconds of it, the server's asyncio tasks (each process counts its own on its loop, through
the same sitecustomize), open file descriptors and RSS (over every process serving, Redis
among them) and Redis's used memory; it reports those readings and their growth.

With `--web`, every player is a browser's WebSocket instead (the page's own origin, the same
80x24 terminal stream, keys as binary messages) on the server's web port: the same numbers,
to set beside SSH's (docs/self-hosting.md). Without it the server runs with `--web off`.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import _quiet  # noqa: F401 (before asyncssh, which warns as it is imported)
import asyncssh
import pyte
import redis
import uvloop
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

ROOT = Path(__file__).resolve().parent.parent
CTRL_END = "\x1b[1;5F"  # xterm's ctrl+end: the lobby's table list jumps to its last row
PROMPTS = (
    "Play which card?",
    "On whom?",
    "and who else?",
    "Name a card:",
    "Name a number:",
    "Keep which card?",
    "Put under the deck",
    "Look at ",
    "Discard your hand and draw?",
)
FIRST_STEP = ("Play which card?", "Look at ", "Discard your hand and draw?")
GUESSES = ("Name a card:", "Name a number:")
PANEL_MARKERS = {
    **{prompt: "decide" for prompt in PROMPTS},
    "Sent. Waiting": "sent",
    "n: next round": "round_over",
    "r: ready for a rematch": "game_over",
    "Waiting for ": "waiting",
    "y: yes · any other key: no": "confirm",  # playing the Princess asks first
}
MARKER_RE = re.compile("|".join(re.escape(m) for m in sorted(PANEL_MARKERS, key=len)[::-1]))
DECK_RE = re.compile(r"Deck (\d+) ·")
CODE_RE = re.compile(r"([A-Z]{4}) · ")
PER_ADDRESS = 8  # clients per loopback source address (the server allows 10)
LOGIN_CONCURRENCY = 16  # logins in flight at once (the server allows 20)
PLAY_STRIDE = 3.0  # seconds of play before measuring starts
PUBSUB_BUFFER = "pubsub 256mb 64mb 60"
"""Redis's output buffer for a subscriber (a front-end) before it is disconnected."""
TEXT_KEPT = 16_384  # characters of recent output each player keeps for `expect`


# ---------------------------------------------------------------- the server process

GC_MONITOR = """\
# Written by benchmarks/sessions.py on the server's PYTHONPATH: logs each collection of the
# oldest generation (monotonic end time, pause in seconds, CPU seconds of the process meanwhile,
# then the count and CPU seconds of the younger generations' collections since the line before).
import gc, os, time

_log = open(os.environ["BENCH_GC_LOG"], "a", buffering=1)
_began = [0.0, 0.0]
_young = [0, 0.0]


def _watch(phase, info):
    if phase == "start":
        _began[:] = time.perf_counter(), time.process_time()
        return
    wall, cpu = time.perf_counter() - _began[0], time.process_time() - _began[1]
    if info["generation"] < 2:
        _young[:] = _young[0] + 1, _young[1] + cpu
        return
    _log.write(f"{time.monotonic():.3f} {wall:.4f} {cpu:.4f} {_young[0]} {_young[1]:.4f}\\n")
    _young[:] = 0, 0.0


gc.callbacks.append(_watch)
"""

TASK_PROBE = """\
# With BENCH_TASK_LOG set: every BENCH_TASK_INTERVAL seconds, the loop of each asyncio.Runner
# (server/cli.py runs one per process) logs its pid, monotonic time and number of tasks.
import asyncio, threading

_tasks = open(os.environ["BENCH_TASK_LOG"], "a", buffering=1)
_interval = float(os.environ["BENCH_TASK_INTERVAL"])
_runner_init = asyncio.Runner.__init__


def _count_tasks():
    _tasks.write(f"{os.getpid()} {time.monotonic():.3f} {len(asyncio.all_tasks())}\\n")


def _probe(loop):
    while not loop.is_closed():
        try:
            loop.call_soon_threadsafe(_count_tasks)
        except RuntimeError:  # closed meanwhile
            return
        time.sleep(_interval)


def _watched_runner(self, *, debug=None, loop_factory=None):
    factory = loop_factory or asyncio.new_event_loop

    def watched_loop():
        loop = factory()
        threading.Thread(target=_probe, args=(loop,), daemon=True).start()
        return loop

    _runner_init(self, debug=debug, loop_factory=watched_loop)


asyncio.Runner.__init__ = _watched_runner
"""
TASK_INTERVAL = 5.0  # seconds between two task counts of a server process


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1])."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_tree(pid: int) -> list[int]:
    """`pid` and every process descended from it."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
    tree, grew = [pid], True
    while grew:
        more = [p for p, parent in parents.items() if parent in tree and p not in tree]
        tree += more
        grew = bool(more)
    return tree


def rss_of(pid: int) -> float:
    """One process's resident set size in MB (0 if it is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds_of(pid: int) -> int:
    """One process's open file descriptors (0 if it is gone)."""
    with contextlib.suppress(OSError):
        return len(os.listdir(f"/proc/{pid}/fd"))
    return 0


def cpu_of(pid: int) -> float:
    """One process's user + system CPU seconds so far (0 if it is gone)."""
    with contextlib.suppress(OSError):
        fields = _stat(pid)
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def part_of(pid: int) -> str:
    """What process `pid` runs: `core`, `frontend`, `redis` or `server` (the supervisor or
    the single process)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "gone"
    if b"--role" in words:
        return words[words.index(b"--role") + 1].decode()
    return "redis" if any(b"redis-server" in word for word in words) else "server"


@dataclass
class ServerProcess:
    """`lovelet serve` in a child process (with --workers, the tree of processes it runs,
    and the redis-server started for it), and readings of their /proc entries."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    gc_log: Path
    broker: subprocess.Popen[bytes] | None = None
    broker_url: str = ""
    task_log: Path | None = None

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    def pids(self) -> list[int]:
        """Every process serving: the server's tree, and the broker started for it."""
        return process_tree(self.pid) + ([self.broker.pid] if self.broker else [])

    def rss_mb(self) -> float:
        """Resident set size in MB, summed over the processes."""
        return sum(rss_of(pid) for pid in self.pids())

    def cpu_seconds(self) -> float:
        """User + system CPU time so far, summed over the processes."""
        return sum(cpu_of(pid) for pid in self.pids())

    def cpu_by_part(self) -> dict[str, float]:
        """User + system CPU time so far of each process, by what it runs."""
        return {f"{part_of(pid)} {pid}": cpu_of(pid) for pid in self.pids()}

    def open_fds(self) -> int:
        """Open file descriptors, summed over the processes."""
        return sum(fds_of(pid) for pid in self.pids())

    def tasks(self) -> int:
        """asyncio tasks at each process's latest count, summed (0 without a task log)."""
        latest: dict[str, str] = {}
        if self.task_log is not None:
            for line in self.task_log.read_text().splitlines():
                pid, _, count = line.split()
                latest[pid] = count
        return sum(map(int, latest.values()))

    def broker_mb(self) -> float:
        """Redis's used memory in MB (0 without a broker)."""
        if not self.broker_url:
            return 0.0
        client = redis.Redis.from_url(self.broker_url)
        try:
            return int(client.info("memory")["used_memory"]) / 1e6
        finally:
            client.close()

    def full_collections(self, since: float, until: float) -> list[tuple[float, float]]:
        """(pause, CPU) in seconds of each full garbage collection that ended in [since,
        until]: a pause is longer than its CPU while other processes hold the cores."""
        return [
            (pause, cpu) for ended, pause, cpu, _, _ in self._gc_lines() if since <= ended <= until
        ]

    def young_collections(self, since: float, until: float) -> tuple[int, float]:
        """How many collections of the younger generations ran before the full ones that
        ended in [since, until], and their CPU seconds."""
        lines = [line for line in self._gc_lines() if since <= line[0] <= until]
        return int(sum(line[3] for line in lines)), sum(line[4] for line in lines)

    def _gc_lines(self) -> list[tuple[float, ...]]:
        return [tuple(map(float, line.split())) for line in self.gc_log.read_text().splitlines()]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers; then the broker started for it."""
        for process in (self.process, self.broker):
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spawn_broker(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server on a free loopback port, saving nothing; and its URL."""
    port = free_port()
    command = ["redis-server", "--bind", "127.0.0.1", "--port", str(port)]
    command += ["--save", "", "--appendonly", "no", "--logfile", str(data_dir / "redis.log")]
    command += ["--client-output-buffer-limit", PUBSUB_BUFFER]  # as docs/scaling.md advises
    return subprocess.Popen(command, cwd=data_dir), f"redis://127.0.0.1:{port}/0"


def spawn_server(
    data_dir: Path,
    players: int,
    workers: int = 0,
    broker: str = "",
    count_tasks: bool = False,
    web: bool = False,
) -> ServerProcess:
    """Start `python -m server.cli serve` on a free loopback port, with the GC monitor (and
    with `count_tasks` the task probe); with `workers`, a core and that many front-ends
    through `broker` (or a redis-server of ours); with `web`, its `port` is the web port."""
    redis_server = None
    if workers and not broker:
        redis_server, broker = spawn_broker(data_dir)
    port = free_port()
    site, gc_log, task_log = data_dir / "site", data_dir / "gc.log", data_dir / "tasks.log"
    site.mkdir()
    (site / "sitecustomize.py").write_text(GC_MONITOR + (TASK_PROBE if count_tasks else ""))
    gc_log.touch()
    task_log.touch()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "BENCH_GC_LOG": str(gc_log),
        "LOVELET_LIMITS_MAX_CONNECTIONS": str(players + 20),
        "LOVELET_LIMITS_LOGINS_PER_ADDRESS": str(PER_ADDRESS),  # logins run 16 at once
        "LOVELET_LIMITS_LOGINS_PER_NETWORK": str(LOGIN_CONCURRENCY),  # all from 127.0.0.0/24
        "LOVELET_LIMITS_EARLY_DROP_START": "20",  # no random drop below the total cap
        "LOVELET_LIMITS_IDLE_TIMEOUT": "0",
        "BENCH_TASK_LOG": str(task_log),
        "BENCH_TASK_INTERVAL": str(TASK_INTERVAL),
    }
    log = data_dir / "server.log"
    command = [sys.executable, "-m", "server.cli", "serve"]
    command += ["--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir)]
    if web:
        port = free_port()
    command += ["--web", f"127.0.0.1:{port}" if web else "off"]
    if workers:
        command += ["--workers", str(workers), "--broker", broker]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    return ServerProcess(
        process, port, log, gc_log, redis_server, broker if workers else "", task_log
    )


async def wait_listening(server: ServerProcess, timeout: float = 30.0) -> None:
    """Wait until the server accepts TCP connections."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"server exited; see {server.log}")
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.close()
            return
        await asyncio.sleep(0.1)
    raise TimeoutError("server did not start listening")


# ---------------------------------------------------------------- latency bookkeeping


@dataclass
class Update:
    """One deck change at a table: when the key went, when each screen showed it."""

    key_at: float
    created: float
    seen: dict[int, float] = field(default_factory=dict)


@dataclass
class Stats:
    """Everything measured while playing."""

    all_screens: dict[str, list[float]] = field(default_factory=lambda: {"pyte": [], "raw": []})
    per_screen: dict[str, list[float]] = field(default_factory=lambda: {"pyte": [], "raw": []})
    incomplete: int = 0


class Table:
    """The players at one table, the time of its last key press and its pending updates."""

    def __init__(
        self, number: int, size: int, stats: Stats, pyte_screens: bool, think: float
    ) -> None:
        self.number = number
        self.size = size
        self.stats = stats
        self.kind = "pyte" if pyte_screens else "raw"
        self.players: list[Player] = []
        self.code = ""
        self.last_key_at = 0.0
        self.expiry = min(1.5, think / 2)  # an update not on every screen by then is dropped
        self.updates: dict[int, Update] = {}
        self.turns = 0
        self.measuring = False

    def key_pressed(self, now: float) -> None:
        """A player of this table sent a key."""
        self.last_key_at = now

    def deck_lowered(self, player: Player, deck: int, now: float) -> None:
        """`player`'s screen shows the deck at `deck`, lower than before."""
        if not self.measuring:
            return
        update = self.updates.get(deck)
        if update is None or now - update.created > self.expiry:
            if update is not None:
                self.stats.incomplete += 1
            update = self.updates[deck] = Update(self.last_key_at, now)
        update.seen[player.index] = now
        if len(update.seen) == self.size:
            del self.updates[deck]
            self.turns += 1
            self._record(update)

    def _record(self, update: Update) -> None:
        delays = [seen - update.key_at for seen in update.seen.values()]
        self.stats.per_screen[self.kind].extend(delays)
        self.stats.all_screens[self.kind].append(max(delays))


# ---------------------------------------------------------------- one player


class Player(asyncssh.SSHClientSession[bytes]):
    """One SSH session with a PTY: scans its output for the panel state and the deck count,
    renders it with pyte when asked, and plays with keys."""

    def __init__(self, index: int, think: float, pyte_screen: bool, web: bool = False) -> None:
        self.index = index
        self.web = web
        self.name = f"p{index:03d}"
        self.think = think
        self.table: Table | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | WebChannel | None = None
        self.conn: asyncssh.SSHClientConnection | WebChannel | None = None
        self.screen = pyte.Screen(80, 24) if pyte_screen else None
        self._stream = pyte.ByteStream(self.screen) if self.screen else None
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self.text = ""
        self.frames = 0
        self.received = 0
        self.deck: int | None = None
        self.panel = ""
        self.playing = False
        self._pending: asyncio.TimerHandle | None = None
        self._changed = asyncio.Event()

    # output

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        now = time.perf_counter()
        self.frames += 1
        self.received += len(data)
        chunk = self._decode(data)
        self.text = (self.text + chunk)[-TEXT_KEPT:]
        if self._stream is not None:
            self._stream.feed(data)
        self._see_deck(self._screen_deck() if self.screen else _last_deck(chunk), now)
        self._see_panel(chunk)
        self._changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._changed.set()

    def _screen_deck(self) -> int | None:
        assert self.screen is not None
        for row in range(1, 10):
            line = self.screen.buffer[row]
            text = "".join(line[x].data for x in range(self.screen.columns))
            match = DECK_RE.search(text)
            if match:
                return int(match[1])
        return None

    def _see_deck(self, deck: int | None, now: float) -> None:
        if deck is None or deck == self.deck:
            return
        lowered = self.deck is not None and deck < self.deck
        self.deck = deck
        if lowered and self.table is not None:
            self.table.deck_lowered(self, deck, now)

    def _see_panel(self, chunk: str) -> None:
        markers = MARKER_RE.findall(chunk)
        if not markers:
            return
        marker = markers[-1]
        state = PANEL_MARKERS[marker]
        self.panel = marker if state == "decide" else state
        if self.playing:
            self._react(state, marker)

    # playing

    def start_playing(self) -> None:
        """Play from now on, starting with what the panel shows now."""
        self.playing = True
        if self.panel:
            self._react(PANEL_MARKERS.get(self.panel, self.panel), self.panel)

    def _react(self, state: str, marker: str) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if state == "decide":
            key = "2" if marker in GUESSES else "1"
            self._later(self._thinking() if marker in FIRST_STEP else 0.0, key)
        elif state == "confirm":
            self._later(0.0, "y")
        elif state == "round_over":
            self._later(self.think / 4, "n")
        elif state == "game_over":  # every player says ready for the rematch
            self._later(self.think / 4, "r")

    def _thinking(self) -> float:
        """Seconds before a turn: `think` on average, between half and one and a half of it."""
        return random.uniform(0.5, 1.5) * self.think

    def _later(self, delay: float, key: str) -> None:
        loop = asyncio.get_running_loop()
        self._pending = loop.call_later(delay, self.press, key)

    def press(self, key: str) -> None:
        """Send one key (or escape sequence)."""
        self._pending = None
        if self.chan is None or self.chan.is_closing():
            return
        self.chan.write(key.encode())
        if self.table is not None:
            self.table.key_pressed(time.perf_counter())

    async def expect(
        self, text: str, send: str | None = None, timeout: float = 30.0, fresh: bool = True
    ) -> None:
        """Send `send` (if any), then wait until `text` shows in the output that follows."""
        if fresh:
            self.text = ""
        if send is not None:
            self.press(send)
        deadline = time.monotonic() + timeout
        while text not in self.text:
            if self.chan is None or self.chan.is_closing():
                raise ConnectionError(f"player {self.index} closed waiting for {text!r}")
            self._changed.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"player {self.index} waited for {text!r}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


def _last_deck(chunk: str) -> int | None:
    matches = DECK_RE.findall(chunk)
    return int(matches[-1]) if matches else None


class _Guest(asyncssh.SSHClient):
    """Keyboard-interactive with no prompts: a guest login."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        return [] if not prompts else None


_logins = asyncio.Semaphore(LOGIN_CONCURRENCY)


async def connect(port: int, player: Player) -> None:
    """Log `player` in as a guest from its loopback address and open its PTY session (or
    its WebSocket, for a browser)."""
    async with _logins:
        await (_connect_web if player.web else _connect)(port, player)


class WebChannel:
    """A browser's WebSocket as the player's channel and connection: keys go out in order,
    the terminal stream comes in to `data_received`."""

    def __init__(self, socket: ClientConnection, player: Player) -> None:
        self._socket = socket
        self._keys: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks = [
            asyncio.create_task(self._receive(player)),
            asyncio.create_task(self._send()),
        ]

    async def _receive(self, player: Player) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for message in self._socket:
                player.data_received(message, None)  # type: ignore[arg-type]
        player.connection_lost(None)

    async def _send(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self._socket.send(await self._keys.get())

    def write(self, data: bytes) -> None:
        self._keys.put_nowait(data)

    def is_closing(self) -> bool:
        return self._socket.state is not State.OPEN

    def close(self) -> None:
        self._tasks[1].cancel()
        asyncio.get_running_loop().create_task(self._socket.close())

    async def wait_closed(self) -> None:
        await self._socket.wait_closed()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _connect_web(port: int, player: Player) -> None:
    source = f"127.0.0.{2 + player.index // PER_ADDRESS}"
    page = f"http://127.0.0.1:{port}"
    socket = await ws_connect(
        f"ws://127.0.0.1:{port}/ws?name={player.name}&cols=80&rows=24",
        origin=page,  # type: ignore[arg-type]
        compression=None,
        local_addr=(source, 0),
    )
    player.conn = player.chan = WebChannel(socket, player)
    await player.expect("signed in as", fresh=False)


async def _connect(port: int, player: Player) -> None:
    source = f"127.0.0.{2 + player.index // PER_ADDRESS}"
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=player.name,
        local_addr=(source, 0),
        client_factory=_Guest,
        known_hosts=None,
        agent_path=None,
        config=None,
        client_keys=None,
        password_auth=False,
        public_key_auth=False,
        kbdint_auth=True,
    )
    player.conn = conn
    player.chan, _ = await conn.create_session(
        lambda: player, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    await player.expect("signed in as", fresh=False)


# ---------------------------------------------------------------- phases


def say(message: str) -> None:
    """Progress on stderr, timestamped."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


async def connect_all(port: int, players: list[Player]) -> None:
    """Log every player in, a bounded number at a time."""
    await asyncio.gather(*(connect(port, player) for player in players))


async def settle(server: ServerProcess, quiet_for: float = 1.0, limit: float = 30.0) -> float:
    """Wait until the server's CPU use stays near zero for `quiet_for` s; its RSS then."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = server.cpu_seconds()
        await asyncio.sleep(quiet_for)
        if server.cpu_seconds() - before < 0.05 * quiet_for:
            break
    return server.rss_mb()


async def set_up_table(table: Table) -> None:
    """Through the UI: the host opens a table and the others join it (not started yet)."""
    host, *guests = table.players
    await host.expect("Turn timer", send="n")
    if table.size != 4:
        await pick_seats(host, table.size)
    await host.expect("Before the game", send="\r")
    match = CODE_RE.search(host.text)
    if match is None:
        raise RuntimeError(f"table {table.number}: no code on the host's screen")
    table.code = match[1]
    host.text = ""
    await asyncio.gather(*(join(guest, table.code) for guest in guests))


async def pick_seats(host: Player, seats: int) -> None:
    """In the new-table form: Tab to the seat count and step it to `seats`."""
    host.press("\t")
    host.press("\t")
    step = "\x1b[D" if seats < 4 else "\x1b[C"
    for _ in range(abs(seats - 4)):
        host.press(step)
    await host.expect(f"‹ {seats} ›", fresh=False)


async def join(player: Player, code: str) -> None:
    """From the lobby, once the table is listed there (with front-ends, the list can come
    a moment after the host's screen): the newest table is the last row; ctrl+end, then j."""
    for _ in range(30):
        player.press(CTRL_END)  # the newest row scrolls into view once the list has it
        with contextlib.suppress(TimeoutError):
            await player.expect(code, fresh=False, timeout=1.0)
            break
    await player.expect("Before the game", send="j")
    if code not in player.text:
        raise RuntimeError(f"player {player.index} joined another table than {code}")


# ---------------------------------------------------------------- the run


@dataclass
class Report:
    """Numbers for the final printout."""

    players: int
    tables: int
    rss_base: float = 0.0
    rss_idle: float = 0.0
    rss_lobby: float = 0.0
    rss_end: float = 0.0
    lobby_login_cpu: float = 0.0
    setup_cpu: float = 0.0
    setup_seconds: float = 0.0
    play_seconds: float = 0.0
    play_cpu: float = 0.0
    client_cpu: float = 0.0
    part_cpu: dict[str, float] = field(default_factory=dict)
    frames: int = 0
    received: int = 0
    gc_pauses: list[tuple[float, float]] = field(default_factory=list)  # (pause, CPU) s
    young_gc: tuple[int, float] = (0, 0.0)  # collections of the younger generations, CPU s
    setup_gc_pauses: list[tuple[float, float]] = field(default_factory=list)
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    pressure: str = ""
    turns: list[int] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Reading:
    """The server at one moment of a soak, `at` seconds into play."""

    at: float
    rss_mb: float
    fds: int
    tasks: int
    broker_mb: float


def read_server(server: ServerProcess, since: float) -> Reading:
    """The server's RSS, open files, tasks and Redis memory now."""
    return Reading(
        time.monotonic() - since,
        server.rss_mb(),
        server.open_fds(),
        server.tasks(),
        server.broker_mb(),
    )


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (nearest rank) in milliseconds; NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def print_report(report: Report, stats: Stats) -> None:
    """The numbers, a few per line."""
    lines = [*memory_lines(report), *cpu_lines(report), *latency_lines(report, stats)]
    for line in [*lines, *soak_lines(report.readings)]:
        print(line)


def soak_lines(readings: list[Reading]) -> Iterator[str]:
    """Each soak reading, then how each figure went from the first reading to the last."""
    if len(readings) < 2:
        return
    yield "soak readings (s into play: server RSS, open fds, asyncio tasks, Redis used MB):"
    for r in readings:
        yield f"  {r.at:4.0f} s: {r.rss_mb:.1f} MB, {r.fds} fds, {r.tasks} tasks, {r.broker_mb:.2f}"
    first, middle, last = readings[0], readings[len(readings) // 2], readings[-1]
    yield (
        f"soak over {last.at - first.at:.0f} s: RSS {last.rss_mb - first.rss_mb:+.1f} MB "
        f"({100 * (last.rss_mb / first.rss_mb - 1):+.1f}%; "
        f"{last.rss_mb - middle.rss_mb:+.1f} MB in the second half)"
    )
    for name, values in (
        ("open fds", [r.fds for r in readings]),
        ("asyncio tasks", [r.tasks for r in readings]),
        ("Redis MB", [round(r.broker_mb, 2) for r in readings]),
    ):
        yield f"  {name}: {values[0]} → {values[-1]} (min {min(values)}, max {max(values)})"


def memory_lines(report: Report) -> Iterator[str]:
    """RSS before and after the idle sessions."""
    n, size = report.players, report.players // max(report.tables, 1)
    yield f"{n} players at {report.tables} tables of {size} humans (every seat a human)"
    if report.rss_lobby:
        per = (report.rss_lobby - report.rss_base) / n
        yield (
            f"server RSS {report.rss_base:.1f} MB → {report.rss_lobby:.1f} MB with {n} idle "
            f"in the lobby: {per:.2f} MB per idle session (target ≤ 3)"
        )
        yield f"  server CPU for those {n} logins: {1000 * report.lobby_login_cpu / n:.0f} ms each"
    else:
        per = (report.rss_idle - report.rss_base) / n
        yield (
            f"server RSS {report.rss_base:.1f} MB → {report.rss_idle:.1f} MB with {n} idle "
            f"(seated, game not started): {per:.2f} MB per idle session (target ≤ 3)"
        )
    yield f"  server RSS after playing: {report.rss_end:.1f} MB"


def cpu_lines(report: Report) -> Iterator[str]:
    """Set-up time and CPU, and CPU per screen update while playing."""
    n = report.players
    yield (
        f"logins and tables through the UI: {report.setup_seconds:.1f} s, server CPU "
        f"{report.setup_cpu:.1f} s ({1000 * report.setup_cpu / n:.0f} ms per player)"
    )
    if report.setup_gc_pauses:
        collections = _collections(report.setup_gc_pauses)
        yield f"  server collections of the oldest generation meanwhile: {collections}"
    share = report.play_cpu / max(report.play_seconds, 1e-9)
    per_update = 1000 * report.play_cpu / max(report.frames, 1)
    yield (
        f"play {report.play_seconds:.0f} s: {report.frames} screen updates delivered "
        f"({report.received / 1e6:.1f} MB), server CPU {report.play_cpu:.1f} s "
        f"({100 * share:.0f}% of a core) → {per_update:.2f} ms per screen update"
    )
    if len(report.part_cpu) > 1:
        shares = (
            f"{part} {100 * spent / max(report.play_seconds, 1e-9):.0f}%"
            for part, spent in sorted(report.part_cpu.items())
        )
        yield f"  by process (part pid: share of a core): {', '.join(shares)}"
    turns = sum(report.turns)
    if turns:
        per_turn = 1000 * report.play_cpu / turns
        yield f"  server CPU per turn (every screen of its table): {per_turn:.1f} ms"


def latency_lines(report: Report, stats: Stats) -> Iterator[str]:
    """Key press → screens updated, and what else ran on the machine."""
    size = report.players // max(report.tables, 1)
    turns = report.turns or [0]
    yield f"turns measured per table: min {min(turns)}, max {max(turns)}"
    for kind in ("pyte", "raw"):
        everyone, each = stats.all_screens[kind], stats.per_screen[kind]
        if everyone:
            yield (
                f"key → all {size} screens ({kind}, {len(everyone)} turns): "
                f"p50 {percentile(everyone, 0.5):.0f} ms, p99 {percentile(everyone, 0.99):.0f} ms, "
                f"max {percentile(everyone, 1.0):.0f} ms (one screen: p50 "
                f"{percentile(each, 0.5):.0f} ms, p99 {percentile(each, 0.99):.0f} ms)"
            )
    yield f"updates a screen skipped (not counted): {stats.incomplete}"
    if report.gc_pauses:
        yield (
            "server collections of the oldest generation while playing: "
            f"{_collections(report.gc_pauses)} (the loop stands still meanwhile)"
        )
        count, young = report.young_gc
        yield f"  and of the younger generations: {count}, {young:.1f} s CPU"
        spent = sum(cpu for _, cpu in report.gc_pauses)
        rest = 1000 * (report.play_cpu - spent) / max(report.frames, 1)
        yield f"  server CPU per screen update without those collections: {rest:.2f} ms"
    load = ", ".join(f"{x:.1f}" for x in report.load)
    yield f"client process CPU {report.client_cpu:.1f} s; load average {load}; {report.pressure}"


def _collections(pauses: list[tuple[float, float]]) -> str:
    """Count, total pause, CPU and longest pause of some collections."""
    total, cpu = sum(pause for pause, _ in pauses), sum(spent for _, spent in pauses)
    longest = max(pause for pause, _ in pauses)
    return f"{len(pauses)}, {total:.1f} s in all ({cpu:.1f} s CPU), longest {1000 * longest:.0f} ms"


def cpu_pressure() -> str:
    """The kernel's CPU pressure (share of time tasks waited for a CPU), if available."""
    with contextlib.suppress(OSError):
        some = Path("/proc/pressure/cpu").read_text().splitlines()[0].split()
        return "CPU pressure " + " ".join(some[1:3])
    return "CPU pressure unknown"


async def run(args: argparse.Namespace) -> None:
    """Every phase, then the report."""
    size, count = args.table_size, args.players - args.players % args.table_size
    stats = Stats()
    tables = [Table(t, size, stats, t < args.pyte_tables, args.think) for t in range(count // size)]
    players = [Player(i, args.think, i // size < args.pyte_tables, args.web) for i in range(count)]
    for player in players:
        table = tables[player.index // size]
        table.players.append(player)
        player.table = table
    report = Report(count, len(tables))
    with tempfile.TemporaryDirectory(prefix="lovelet-bench-") as tmp:
        server = spawn_server(
            Path(tmp), count, args.workers, args.broker, args.soak_interval > 0, args.web
        )
        try:
            deadline = time.monotonic() + args.budget
            await asyncio.wait_for(
                phases(server, players, tables, report, args, deadline), args.budget + 30
            )
        except TimeoutError as err:
            say(f"out of time ({err or '--budget'}): the numbers below are partial")
        finally:
            for player in players:
                if player.conn is not None:
                    player.conn.close()
            server.stop()
    report.load = os.getloadavg()
    report.pressure = cpu_pressure()
    print_report(report, stats)


async def phases(
    server: ServerProcess,
    players: list[Player],
    tables: list[Table],
    report: Report,
    args: argparse.Namespace,
    deadline: float,
) -> None:
    """Warm up, seat everyone (idle), start the tables, play; fill `report`."""
    await wait_listening(server)
    await warm_up(server.port, args.think, args.web)
    report.rss_base = await settle(server)
    say(f"server up (pid {server.pid}), RSS {report.rss_base:.1f} MB")
    if args.lobby_idle:
        await idle_in_lobby(server, players, report)
    cpu, started = server.cpu_seconds(), time.monotonic()
    await seat_everyone(server.port, tables, args.lanes)
    report.setup_cpu = server.cpu_seconds() - cpu
    report.setup_seconds = time.monotonic() - started
    report.setup_gc_pauses = server.full_collections(started, time.monotonic())
    report.rss_idle = await settle(server)
    say(f"{len(players)} seated, idle: RSS {report.rss_idle:.1f} MB; starting the tables")
    await asyncio.gather(*(start_table(table, args.think) for table in tables))
    duration = min(args.duration, deadline - time.monotonic() - PLAY_STRIDE - args.stagger - 5)
    if duration < 5:
        raise TimeoutError("no time left to play within --budget")
    say(f"{len(tables)} tables playing; measuring for {duration:.0f} s")
    await play(server, players, tables, report, duration, args.soak_interval, args.stagger)
    report.rss_end = server.rss_mb()


async def start_table(table: Table, think: float) -> None:
    """The host presses g, at a random moment within one think time (tables out of step)."""
    await asyncio.sleep(random.uniform(0, think))
    await table.players[0].expect("round 1", send="g")


async def warm_up(port: int, think: float, web: bool = False) -> None:
    """One session in and out, so start-up costs are not counted per session."""
    warm = Player(999, think, False, web)
    await connect(port, warm)
    assert warm.conn is not None
    warm.conn.close()
    await warm.conn.wait_closed()


async def idle_in_lobby(server: ServerProcess, players: list[Player], report: Report) -> None:
    """Every player logs in and waits in the lobby (each login updates everyone's lobby)."""
    cpu = server.cpu_seconds()
    await connect_all(server.port, players)
    report.lobby_login_cpu = server.cpu_seconds() - cpu
    report.rss_lobby = await settle(server)
    say(f"{len(players)} idle in the lobby: RSS {report.rss_lobby:.1f} MB")


async def seat_everyone(port: int, tables: list[Table], lanes: int) -> None:
    """Every table's players log in and sit down, `lanes` tables at a time. Opening a table
    and joining it is one step at a time (joiners take the newest table in the list)."""
    lane, newest = asyncio.Semaphore(lanes), asyncio.Lock()

    async def seat(table: Table) -> None:
        async with lane:
            await connect_all(port, [p for p in table.players if p.conn is None])
            async with newest:
                await set_up_table(table)
            host, *guests = table.players
            for guest in guests:
                await host.expect(guest.name, fresh=False)

    await asyncio.gather(*(seat(table) for table in tables))


async def play(
    server: ServerProcess,
    players: list[Player],
    tables: list[Table],
    report: Report,
    duration: float,
    soak_interval: float = 0.0,
    stagger: float = 0.0,
) -> None:
    """Let every table play for `duration` seconds, counting updates and CPU (and with a
    `soak_interval`, reading the server at the start and every that many seconds); each
    table starts at a random moment within `stagger` seconds."""
    loop = asyncio.get_running_loop()
    for table in tables:
        loop.call_later(random.uniform(0, stagger), _start_playing, table)
    await asyncio.sleep(PLAY_STRIDE + stagger)  # every table in its stride first
    frames = sum(p.frames for p in players)
    received = sum(p.received for p in players)
    cpu, client, started = server.cpu_seconds(), time.process_time(), time.monotonic()
    parts = server.cpu_by_part()
    for table in tables:
        table.measuring = True
    if soak_interval > 0:
        report.readings = await soak(server, started, duration, soak_interval)
    else:
        await asyncio.sleep(duration)
    for table in tables:
        table.measuring = False
    report.play_seconds = time.monotonic() - started
    report.play_cpu = server.cpu_seconds() - cpu
    report.client_cpu = time.process_time() - client
    report.part_cpu = {
        part: spent - parts.get(part, 0.0) for part, spent in server.cpu_by_part().items()
    }
    report.frames = sum(p.frames for p in players) - frames
    report.received = sum(p.received for p in players) - received
    report.turns = [table.turns for table in tables]
    report.gc_pauses = server.full_collections(started, time.monotonic())
    report.young_gc = server.young_collections(started, time.monotonic())


def _start_playing(table: Table) -> None:
    for player in table.players:
        player.start_playing()


async def soak(
    server: ServerProcess, started: float, duration: float, interval: float
) -> list[Reading]:
    """Readings of the server now and every `interval` s until `duration` s after `started`."""
    readings = [read_server(server, started)]
    while (left := started + duration - time.monotonic()) > 0:
        await asyncio.sleep(min(interval, left))
        readings.append(read_server(server, started))
    return readings


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Flags."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="SSH clients (default 200)")
    parser.add_argument("--table-size", type=int, default=4, help="humans per table (2-6)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play measured")
    parser.add_argument("--think", type=float, default=2.0, help="seconds before each turn")
    parser.add_argument(
        "--lanes", type=int, default=2, help="tables whose players log in at once (set-up)"
    )
    parser.add_argument("--pyte-tables", type=int, default=10, help="tables rendered by pyte")
    parser.add_argument(
        "--lobby-idle",
        action="store_true",
        help="first log everyone in to wait in the lobby (slow: each login redraws every lobby)",
    )
    parser.add_argument("--budget", type=float, default=180.0, help="seconds for the whole run")
    parser.add_argument(
        "--workers", type=int, default=0, help="SSH front-ends plus a core (0: one process)"
    )
    parser.add_argument(
        "--broker", default="", help="Redis URL for --workers (default: start a redis-server)"
    )
    parser.add_argument(
        "--soak-interval",
        type=float,
        default=0.0,
        help="soak: read tasks, fds, RSS and Redis memory every this many s of play (0: off)",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=0.0,
        help="start each table's play at a random moment within this many s (0: all at once)",
    )
    parser.add_argument(
        "--web", action="store_true", help="players are browsers' WebSockets on the web port"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark."""
    args = parse_args(argv)
    if not 2 <= args.table_size <= 6 or args.players < args.table_size:
        raise SystemExit("need 2 <= --table-size <= 6 and at least one table of players")
    uvloop.run(run(args))  # the players' loop: as lean as the server's (clients are remote)


if __name__ == "__main__":
    main()
