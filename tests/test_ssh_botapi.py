"""The bot API over real SSH on 127.0.0.1: the example client as a process through a whole
game, OpenSSH's `ssh -s`, and hostile clients (bad frames, floods, clients that never read).

The server is the real one (`server.commands.serve.start`, or the SSH server and lobby with tighter
output limits); clients are asyncssh or OpenSSH processes speaking length-prefixed msgpack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import struct
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncssh
import msgpack
import pytest
from e2e_helpers import GAME_TIMEOUT, Server, running_server
from test_ops_limits import logged, serving

from protocol import PROTOCOL_VERSION
from server.commands.glue import ssh_app_factory, ssh_bot_factory
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.lobby import REPLACED
from server.ops.config import Limits
from server.ops.logs import EVENTS
from server.services.clock import LoopClock
from server.ssh import SSHService, start_ssh_server
from server.ssh.botapi import OUTPUT_OVERFLOW, OUTPUT_STALLED, TOO_MANY_ERRORS
from server.ssh.keys import fingerprint
from server.ssh.limits import SSHLimits
from server.ssh.server import SHUTDOWN_MESSAGE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "random_bot.py"
FAST = TableSettings(bot_delay=0, grace=60, round_pause=60)
WAIT = 10.0
"""Seconds a test waits for a frame or for the server to close; a failure, never a sync."""
MAX_ERRORS = SSHLimits().bot_max_errors


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
def key_file(tmp_path: Path, key: asyncssh.SSHKey) -> Path:
    path = tmp_path / "id_ed25519"
    key.write_private_key(path)
    path.chmod(0o600)
    return path


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path / "data", FAST) as running:
        yield running


def framed(message: dict[str, Any]) -> bytes:
    payload = msgpack.packb(message)
    return struct.pack(">I", len(payload)) + payload


def hello(name: str = "robo") -> bytes:
    return framed({"type": "hello", "version": PROTOCOL_VERSION, "name": name})


def frames_in(data: bytes) -> list[dict[str, Any]]:
    """Every whole frame in `data`, decoded."""
    messages = []
    while len(data) >= 4:
        (size,) = struct.unpack(">I", data[:4])
        messages.append(msgpack.unpackb(data[4 : 4 + size]))
        data = data[4 + size :]
    return messages


class BotClient:
    """An asyncssh client on the `lovelet` subsystem, reading frames as they come."""

    def __init__(self, writer: asyncssh.SSHWriter, reader: asyncssh.SSHReader) -> None:
        self.writer, self.reader = writer, reader
        self.rest = b""
        """What came after the last frame received, once `closed` has read it."""

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def receive(self) -> dict[str, Any]:
        async with asyncio.timeout(WAIT):
            (size,) = struct.unpack(">I", await self.reader.readexactly(4))
            return msgpack.unpackb(await self.reader.readexactly(size))

    async def receive_type(self, kind: str) -> dict[str, Any]:
        """The next frame of type `kind` (others are skipped)."""
        while (message := await self.receive())["type"] != kind:
            pass
        return message

    async def closed(self) -> bool:
        """Whether the server ends the channel within WAIT seconds (what is left is read)."""
        try:
            async with asyncio.timeout(WAIT):
                while data := await self.reader.read(65536):
                    self.rest += data
        except TimeoutError:
            return False
        except (asyncssh.Error, OSError):
            pass
        return True


@asynccontextmanager
async def bot(port: int, key: asyncssh.SSHKey, name: str = "robo") -> AsyncIterator[BotClient]:
    async with asyncssh.connect(
        "127.0.0.1", port, username=name, client_keys=[key], known_hosts=None
    ) as conn:
        writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
        yield BotClient(writer, reader)


async def greeted(port: int, key: asyncssh.SSHKey, stack: contextlib.AsyncExitStack) -> BotClient:
    client = await stack.enter_async_context(bot(port, key))
    client.send(hello())
    assert (await client.receive())["type"] == "welcome"
    return client


# ---------------------------------------------------------------- the example, the way it runs


async def run_example(port: int, key_file: Path) -> list[str]:
    """`python examples/random_bot.py` as a process against the server: its output lines."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-u", str(EXAMPLE), "--host", "127.0.0.1", "--port", str(port)),
        *("--key", str(key_file), "robo"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            out, err = await process.communicate()
            print(out.decode(), err.decode())
    assert process.returncode == 0, (out + err).decode()
    return out.decode().splitlines()


async def test_the_example_client_plays_a_whole_game_each_time_it_runs(
    server: Server, key_file: Path
) -> None:
    for _ in range(2):
        lines = await run_example(server.port, key_file)
        assert lines[0] == "signed in as robo", lines
        assert lines[-1].startswith("game over, winners: ") and len(lines) == 2, lines
        assert not server.lobby.tables  # it left; its table, with bots only, closed
    games = server.running.store.games()
    assert [game.status for game in games] == ["finished"] * 2


# ---------------------------------------------------------------- OpenSSH


needs_openssh = pytest.mark.skipif(not shutil.which("ssh"), reason="needs the OpenSSH client")
OPENSSH = (
    *("ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no"),
    *("-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=5"),
)


async def openssh_subsystem(port: int, user: str, stdin: bytes, *options: str) -> tuple[int, bytes]:
    """`ssh -s -p PORT USER@127.0.0.1 lovelet` fed `stdin`; its exit status and output."""
    process = await asyncio.create_subprocess_exec(
        *OPENSSH,
        *options,
        *("-p", str(port), "-s", f"{user}@127.0.0.1", "lovelet"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(stdin), WAIT)
    assert process.returncode is not None
    return process.returncode, out


@needs_openssh
async def test_openssh_subsystem_answers_hello_with_welcome(
    server: Server, key: asyncssh.SSHKey, key_file: Path
) -> None:
    options = ("-i", str(key_file), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes")
    status, out = await openssh_subsystem(server.port, "robo", hello(), *options)
    assert status == 0
    welcome, lobby = frames_in(out)[:2]
    assert welcome["type"] == "welcome" and welcome["name"] == "robo"
    assert welcome["identity"] == fingerprint(key) and not welcome["guest"]
    assert lobby["type"] == "lobby" and lobby["api_bots"] == ["robo"]


@needs_openssh
async def test_openssh_frames_sent_before_eof_are_all_answered(
    server: Server, key_file: Path
) -> None:
    options = ("-i", str(key_file), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes")
    stats = framed({"type": "stats_request"})
    status, out = await openssh_subsystem(server.port, "robo", hello() + stats * 20, *options)
    assert status == 0
    assert [m["type"] for m in frames_in(out)].count("stats") == 20


@needs_openssh
async def test_a_guest_on_the_subsystem_is_refused_with_an_error_frame(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=EVENTS)
    options = ("-o", "PubkeyAuthentication=no")
    options += ("-o", "PreferredAuthentications=keyboard-interactive")
    status, out = await openssh_subsystem(server.port, "ana", hello("ana"), *options)
    assert status == 1
    assert [m["code"] for m in frames_in(out)] == ["key_required"]
    assert not server.lobby.sessions
    assert [f["reason"] for f in logged(caplog, "refused")] == ["bot_guest"]


# ---------------------------------------------------------------- hostile clients


async def test_malformed_frames_get_errors_and_change_nothing(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with bot(server.port, key) as client:
        bad = [
            struct.pack(">I", 1) + b"\xc1",  # not msgpack
            framed([1, 2, 3]),  # type: ignore[arg-type]  # not a map
            framed({"type": "fly"}),
            framed({"type": "hello", "version": PROTOCOL_VERSION}),
            framed({"type": "chat", "text": "x" * 2000}),
            struct.pack(">I", 2) + b"\x81\xa1",  # truncated inside the frame
        ]
        client.send(b"".join(bad))
        codes = [(await client.receive())["code"] for _ in bad]
        assert codes == [
            "malformed",
            "malformed",
            "unknown_type",
            "missing_field",
            "too_long",
            "malformed",
        ]
        assert not any(session.greeted for session in server.lobby.sessions)
        client.send(hello())
        assert (await client.receive())["type"] == "welcome"


async def test_a_second_hello_is_an_error_and_changes_nothing(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await greeted(server.port, key, stack)
        client.send(hello("other") + framed({"type": "stats_request"}))
        answers = []
        while not answers or answers[-1]["type"] != "stats":
            if (message := await client.receive())["type"] != "lobby":  # lists come as they do
                answers.append(message)
        assert [(m["type"], m.get("code")) for m in answers] == [
            ("error", "already_greeted"),
            ("stats", None),
        ]
        (session,) = server.lobby.sessions
        assert session.name == "robo" and session.greeted


async def test_a_length_prefix_over_the_limit_is_an_error_then_a_disconnect(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await greeted(server.port, key, stack)
        client.send(struct.pack(">I", 64 * 1024 + 1))
        error = await client.receive_type("error")
        assert error["code"] == "too_large"
        assert await client.closed()
    assert not server.lobby.sessions


async def test_garbage_is_cut_off_after_the_documented_number_of_errors(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with bot(server.port, key) as client:
        garbage = struct.pack(">I", 8) + b"\xc1" * 8  # 0xc1 is never valid msgpack
        client.send(garbage * (MAX_ERRORS + 1))
        codes = [(await client.receive())["code"] for _ in range(MAX_ERRORS + 2)]
        assert codes == ["malformed"] * (MAX_ERRORS + 1) + ["too_many_errors"]
        assert await client.closed()
    assert not server.lobby.sessions and not server.service.sessions.nicknames()


async def test_one_error_fewer_is_not_cut_off(server: Server, key: asyncssh.SSHKey) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await greeted(server.port, key, stack)
        client.send(framed({"type": "fly"}) * MAX_ERRORS + framed({"type": "stats_request"}))
        replies = [await client.receive_type(kind) for kind in ["error"] * MAX_ERRORS + ["stats"]]
        assert [r.get("code") for r in replies] == ["unknown_type"] * MAX_ERRORS + [None]


async def test_a_flood_over_the_request_rate_is_refused_then_cut_off(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    burst = 40  # and next to no refill: however slowly the server answers, the flood is over
    slow_refill = Limits(bot_frames_per_second=0.01, bot_frame_burst=burst)
    async with (
        running_server(tmp_path / "data", FAST, limits=slow_refill) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        client = await greeted(server.port, key, stack)  # hello took one request
        client.send(framed({"type": "stats_request"}) * (burst + 50))
        replies: list[str] = []
        with contextlib.suppress(asyncio.IncompleteReadError):
            while True:
                message = await client.receive()
                if message["type"] in ("stats", "error"):
                    replies.append(message.get("code", "stats"))
        assert replies[: burst - 1] == ["stats"] * (burst - 1)
        refused = [reply for reply in replies if reply != "stats"]
        assert refused == ["rate_limited"] * (MAX_ERRORS + 2) + ["too_many_errors"]  # one free
        assert await client.closed()


# ---------------------------------------------------------------- clients that do not read

TIGHT = SSHLimits(
    output_high_water=1024,
    output_low_water=256,
    output_hard_limit=1536,
    output_stall_timeout=60.0,
    close_timeout=0.5,
)


@asynccontextmanager
async def tight_server(tmp_path: Path, limits: SSHLimits) -> AsyncIterator[SSHService]:
    """The real SSH server and lobby, with `limits` (the config file does not set these)."""
    lobby = Lobby(LobbySettings(table=FAST), clock=LoopClock())
    service = await start_ssh_server(
        "127.0.0.1", 0, tmp_path, ssh_app_factory(lobby), limits, bot_factory=ssh_bot_factory(lobby)
    )
    try:
        yield service
    finally:
        await service.close()


class _Deaf(asyncssh.SSHClientSession[bytes]):
    """Reads nothing: the SSH window it offers is never reopened."""

    def __init__(self) -> None:
        self.lost = asyncio.Event()

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:
        chan.pause_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()


async def deaf_bot(port: int, key: asyncssh.SSHKey, requests: int) -> bool:
    """Say hello, ask for `requests` stats without reading; whether the server drops it."""
    async with asyncssh.connect(
        "127.0.0.1", port, username="deaf", client_keys=[key], known_hosts=None
    ) as conn:
        chan, session = await conn.create_session(
            _Deaf, subsystem="lovelet", encoding=None, window=256, max_pktsize=256
        )
        chan.write(hello("deaf") + framed({"type": "stats_request"}) * requests)
        try:
            await asyncio.wait_for(session.lost.wait(), WAIT)
        except TimeoutError:
            return False
        return True


async def test_a_client_that_does_not_read_is_cut_off_at_the_output_limit(
    tmp_path: Path, key: asyncssh.SSHKey, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="server.ssh.botapi")
    async with tight_server(tmp_path, TIGHT) as service:
        assert await deaf_bot(service.port, key, 40)
        assert OUTPUT_OVERFLOW in caplog.text
        assert not service.sessions.nicknames()


async def test_a_client_that_stops_reading_is_cut_off_after_the_stall_timeout(
    tmp_path: Path, key: asyncssh.SSHKey, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="server.ssh.botapi")
    stalls = SSHLimits(
        output_high_water=512,
        output_low_water=128,
        output_stall_timeout=0.5,
        close_timeout=0.5,
    )
    async with tight_server(tmp_path, stalls) as service:
        assert await deaf_bot(service.port, key, 20)
        assert OUTPUT_STALLED in caplog.text and OUTPUT_OVERFLOW not in caplog.text


def test_cut_off_reasons_are_documented() -> None:
    doc = (ROOT / "docs" / "bot-api.md").read_text()
    for reason in (TOO_MANY_ERRORS, OUTPUT_OVERFLOW, OUTPUT_STALLED):
        assert reason in doc
    assert f"{MAX_ERRORS} errors" in doc


# ---------------------------------------------------------------- closed by the server


async def test_a_second_session_with_the_same_key_takes_the_seat_and_closes_the_first(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        first = await greeted(server.port, key, stack)
        table = {"name": "t", "edition": "2019", "seats": 2, "timer": None, "bots": []}
        first.send(
            framed(
                {
                    "type": "create_table",
                    **table,
                    "takeover": False,
                    "private": False,
                    "hints": None,
                    "bot_level": None,
                    "bot_delay": None,
                }
            )
        )
        code = (await first.receive_type("table"))["info"]["code"]
        second = await greeted(server.port, key, stack)
        assert (await first.receive_type("notice"))["text"] == REPLACED
        assert await first.closed()
        assert frames_in(first.rest) == []  # said once
        state = await second.receive_type("table")
        assert state["info"]["code"] == code and state["info"]["you"] == 0
        assert state["info"]["seats"][0]["api_bot"]


async def test_shutdown_tells_the_program_why_and_closes_it(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with tight_server(tmp_path, SSHLimits()) as service, contextlib.AsyncExitStack() as stack:
        client = await greeted(service.port, key, stack)
        await service.close()
        assert (await client.receive_type("notice"))["text"] == SHUTDOWN_MESSAGE
        assert await client.closed()


async def test_the_error_budget_is_a_setting(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with serving(tmp_path, bot_errors=2) as served, bot(served.port, key) as client:
        client.send(framed({"type": "fly"}) * 3)
        codes = [(await client.receive())["code"] for _ in range(4)]
        assert codes == ["unknown_type"] * 3 + ["too_many_errors"]
        assert await client.closed()
        assert served.refusals("bot_cut_off") == 1


async def test_a_program_is_admitted_like_a_player_sessions_per_key(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with (
        serving(tmp_path, sessions_per_identity=1) as served,
        contextlib.AsyncExitStack() as stack,
    ):
        await greeted(served.port, key, stack)
        async with bot(served.port, key) as second:
            refusal = await second.receive()
            assert refusal["type"] == "error" and refusal["code"] == "refused"
            assert "key" in refusal["message"]
            assert await second.closed()
        assert served.refusals("sessions_per_identity") == 1
