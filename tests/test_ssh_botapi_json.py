"""The `lovelet-json` subsystem over real SSH on 127.0.0.1: a plain bash script drives the real
OpenSSH client (`ssh -s ... lovelet-json`) through a whole game, and what is not JSON (or not
msgpack, on `lovelet`) is said plainly."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncssh
import msgpack
import pytest
from e2e_helpers import GAME_TIMEOUT, Server, running_server
from test_ssh_botapi import FAST, OPENSSH, WAIT, bot, framed, needs_openssh

from protocol import PROTOCOL_VERSION
from protocol.jsonlines import line_to_payload, payload_to_line

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "json_bot.sh"


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


@needs_openssh
async def test_a_bash_script_plays_a_whole_game_through_openssh(
    server: Server, key_file: Path
) -> None:
    options = ("-i", str(key_file), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes")
    process = await asyncio.create_subprocess_exec(
        *("bash", str(SCRIPT), *OPENSSH[1:], *options, "-p", str(server.port), "robo@127.0.0.1"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PROTOCOL_VERSION": str(PROTOCOL_VERSION)},
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, (out + err).decode()
    last = json.loads(out.decode().splitlines()[-1])
    assert last["type"] == "table" and last["info"]["status"] == "finished"
    assert last["view"]["game_winners"] and "refused" not in err.decode(), err.decode()
    games = server.running.store.games()
    assert [game.status for game in games] == ["finished"]
    assert not server.lobby.tables  # it left; its table, with a bot only, closed


@asynccontextmanager
async def json_bot(port: int, key: asyncssh.SSHKey) -> AsyncIterator[JsonClient]:
    async with asyncssh.connect(
        "127.0.0.1", port, username="robo", client_keys=[key], known_hosts=None
    ) as conn:
        writer, reader, _ = await conn.open_session(subsystem="lovelet-json", encoding=None)
        yield JsonClient(writer, reader)


class JsonClient:
    """An asyncssh client on `lovelet-json`, one message a line."""

    def __init__(self, writer: asyncssh.SSHWriter, reader: asyncssh.SSHReader) -> None:
        self.writer, self.reader = writer, reader

    async def receive(self) -> dict[str, Any]:
        async with asyncio.timeout(WAIT):
            return json.loads(await self.reader.readuntil(b"\n"))

    async def receive_type(self, kind: str) -> dict[str, Any]:
        while (message := await self.receive())["type"] != kind:
            pass
        return message


HELLO = {"type": "hello", "version": PROTOCOL_VERSION, "name": "robo"}


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (b'{"type": "chat", "text": "hi", "x": 1.5}\n', "not an integer"),
        (b'{"type": "chat", "text": "hi"\n', "invalid JSON"),
        (b'{"type": "chat", "text": 7}\n', "text"),
    ],
    ids=["float", "truncated", "bad-field"],
)
async def test_what_is_not_a_message_is_said_plainly(
    server: Server, key: asyncssh.SSHKey, sent: bytes, said: str
) -> None:
    async with json_bot(server.port, key) as client:
        client.writer.write(json.dumps(HELLO).encode() + b"\n")
        welcome = await client.receive()
        assert welcome["type"] == "welcome" and welcome["catalogue"]["editions"]
        client.writer.write(sent)
        error = await client.receive_type("error")
        assert said in error["message"], error
        client.writer.write(b'{"type": "stats_request"}\n')  # and the session goes on
        assert (await client.receive_type("stats"))["type"] == "stats"


async def test_msgpack_on_the_json_subsystem_is_said_at_once_and_cut_off(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with json_bot(server.port, key) as client:
        client.writer.write(framed(HELLO))  # no newline ever comes: told at once
        error = await client.receive()
        assert error["type"] == "error" and "looks like msgpack frames" in error["message"]
        async with asyncio.timeout(WAIT):
            assert await client.reader.read() == b""  # then closed


async def test_json_on_the_msgpack_subsystem_names_the_json_subsystem(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(bot(server.port, key))
        client.send(struct.pack(">I", 8) + b'{"a": 1}')
        error = await client.receive_type("error")
        assert "lovelet-json" in error["message"], error


def test_seat_keyed_maps_are_the_same_in_json_and_msgpack() -> None:
    wire = {"type": "x", "cards": {"0": "guard", "2": "baron"}, "n": [1, None, True]}
    payload = msgpack.packb(wire)
    assert json.loads(payload_to_line(payload)) == wire
    assert msgpack.unpackb(line_to_payload(payload_to_line(payload))) == wire
