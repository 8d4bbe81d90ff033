"""Invites over real SSH: the real server on 127.0.0.1 and the real OpenSSH client, run on a
pseudo-terminal read by pyte, typing `ssh -t -p PORT name@host CODE` as a player would.

The host of each table plays from an asyncssh client (tests/sshclient.py); every invitee is
OpenSSH. Synchronisation is on screen text only.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
import pytest
from e2e_helpers import Server, create_table, header_code, running_server, screen_text, wait_text
from ptyterm import PtyTerminal
from sshclient import SSHTerminal

from protocol import (
    PROTOCOL_VERSION,
    Direction,
    ErrorReply,
    FrameReader,
    Hello,
    TableState,
    Visit,
    decode,
    encode,
    frame,
)
from server.commands.serve import start
from server.lobby import LobbySettings, TableSettings
from server.ops.config import Config
from server.ssh.terminal import NEED_PTY, NOT_A_CODE

pytestmark = pytest.mark.skipif(not shutil.which("ssh"), reason="needs the OpenSSH client")

FROZEN = TableSettings(bot_delay=60, grace=60, round_pause=60)
"""Nothing happens on its own during a test: no bot turn, no round timer."""
OPENSSH_OPTIONS = (
    "-F", "/dev/null",
    "-o", "StrictHostKeyChecking=no",
    "-o", "UserKnownHostsFile=/dev/null",
    "-o", "LogLevel=ERROR",
    "-o", "PubkeyAuthentication=no",
    "-o", "PreferredAuthentications=keyboard-interactive",
    "-o", "ConnectTimeout=5",
)  # fmt: skip
"""A guest with no config, no keys and no host key prompt."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, FROZEN) as running:
        yield running


def ssh(port: int, name: str, *command: str, pty: bool = True) -> list[str]:
    """OpenSSH as `name`, a guest, with `command` (a table code) after the host."""
    return ["ssh", *(["-t"] if pty else []), "-p", str(port), *OPENSSH_OPTIONS,
            f"{name}@127.0.0.1", *command]  # fmt: skip


def as_typed(shown: str, name: str) -> list[str]:
    """The command the table screen shows, as a player pastes it, their name for
    "yourname" (plus this test's client options)."""
    program, *arguments = shown.split()
    assert program == "ssh"
    return [program, *OPENSSH_OPTIONS, *(a.replace("yourname@", f"{name}@") for a in arguments)]


@asynccontextmanager
async def openssh(command: list[str]) -> AsyncIterator[PtyTerminal]:
    async with PtyTerminal.spawn(command, size=(80, 24)) as term:
        yield term


async def host_table(term: SSHTerminal, seats: int, private: bool = False) -> str:
    """From the lobby, open a table with the form (private if asked); its code."""
    if not private:
        return await create_table(term, seats=seats)
    await term.send_keys("n")
    await wait_text(term, "Turn timer")
    await term.send_keys(*["tab"] * 7, "right")
    await wait_text(term, "yes: by invite only")
    await term.send_keys("enter")
    await wait_text(term, "Before the game")
    return header_code(term)


def invite_line(term: SSHTerminal | PtyTerminal) -> str:
    """The command after "Invite: " on the table screen."""
    for line in screen_text(term).splitlines():
        if "Invite: " in line:
            return line.split("Invite: ", 1)[1].strip()
    raise AssertionError(f"no invite on the screen\n{screen_text(term)}")


async def test_the_shown_command_lands_in_a_free_seat_of_a_waiting_table(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana") as ana:
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=3)
        shown = invite_line(ana)
        assert shown == f"ssh -t -p {server.port} yourname@127.0.0.1 {code}"
        async with openssh(as_typed(shown, "bob")) as bob:
            await bob.wait_for(lambda: "bob (you)" in bob.text, "bob seated")
            assert header_code(bob) == code
            assert "Before the game" in bob.text
            assert server.table(code).seats[1].name == "bob"
            await wait_text(ana, "bob")


async def test_at_a_started_table_the_invite_lands_watching(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana") as ana:
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=2)
        await ana.send_keys("g")
        await wait_text(ana, "round 1")
        async with openssh(ssh(server.port, "bob", code)) as bob:
            await bob.wait_for(lambda: "Watching · invite:" in bob.text, "bob watching")
            assert header_code(bob) == code
            assert "1 watching" in bob.text
            table = server.table(code)
            assert [m.identity.name for m in table.seating.spectators] == ["bob"]


async def test_an_unknown_code_says_so_in_one_line_and_leaves_the_player_in_the_lobby(
    server: Server,
) -> None:
    async with openssh(ssh(server.port, "bob", "zzzz")) as bob:
        notice = "No open table has the code ZZZZ: here is the lobby."
        await bob.wait_for(lambda: notice in bob.text, "the notice")
        assert "signed in as bob (guest)" in bob.text
        assert "No tables yet" in bob.text


async def test_a_private_table_is_not_listed_and_its_code_brings_players_in(
    server: Server,
) -> None:
    async with (
        SSHTerminal.connect(server.port, username="ana") as ana,
        SSHTerminal.connect(server.port, username="cat", source="127.0.0.2") as cat,
    ):
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=4, private=True)
        assert len(code) == 10 and "private" in ana.screen.display[0]
        await wait_text(cat, "signed in as cat")
        await wait_text(cat, "Online: ana, cat")  # a lobby list sent after the table opened
        assert code not in screen_text(cat) and "No tables yet" in screen_text(cat)
        async with openssh(ssh(server.port, "bob", code)) as bob:
            await bob.wait_for(lambda: "bob (you)" in bob.text, "bob seated")
            assert invite_line(bob) == f"ssh -t -p {server.port} yourname@127.0.0.1 {code}"
            assert server.table(code).seats[1].name == "bob"


async def test_guessing_codes_runs_out_of_tries_and_then_even_the_right_code_waits(
    tmp_path: Path,
) -> None:
    tries = LobbySettings(code_tries=2, code_try_seconds=600)
    async with (
        running_server(tmp_path, FROZEN, tries) as server,
        SSHTerminal.connect(server.port, username="ana", source="127.0.0.2") as ana,
    ):
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=4, private=True)
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB"):
            async with openssh(ssh(server.port, "eve", guess)) as eve:
                await eve.wait_for(lambda: "No open table has the code" in eve.text, "a miss")
        async with openssh(ssh(server.port, "eve", code)) as eve:
            wait = re.compile(r"Too many tries of codes: wait (\d+) s\.")
            await eve.wait_for(lambda: wait.search(eve.text) is not None, "the limit")
            assert 500 < int(wait.search(eve.text).group(1)) <= 600  # counted from the 1st try
            assert "signed in as eve" in eve.text and "Before the game" not in eve.text
            assert len(server.table(code).seating.members()) == 1


async def test_wrong_guesses_behind_one_address_refuse_nobody_else(tmp_path: Path) -> None:
    """All but the host come from 127.0.0.1 (one NAT): guests on OpenSSH, keys on the bot
    API. Those who guessed wrong run out of tries; the others' right code still works."""
    tries = LobbySettings(code_tries=2, code_try_seconds=600)
    async with (
        running_server(tmp_path, FROZEN, tries) as server,
        SSHTerminal.connect(server.port, username="ana", source="127.0.0.2") as ana,
    ):
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=4, private=True)
        misses = ["no_such_table"] * 2
        assert await visits(server.port, "mal", "AAAAAAAAAA", "BBBBBBBBBB", code) == [
            *misses,
            "too_many_tries",
        ]
        async with openssh(ssh(server.port, "bob", code)) as bob:
            await bob.wait_for(lambda: "bob (you)" in bob.text, "bob seated")
        for guess in ("AAAAAAAAAA", "BBBBBBBBBB", code):
            async with openssh(ssh(server.port, "eve", guess)) as eve:
                await eve.wait_for(lambda: "the code" in eve.text or "tries" in eve.text, "refused")
            await signed_out(server, "eve")  # else the next login is eve-2, another guesser
        assert "Too many tries of codes" in eve.text
        assert await visits(server.port, "cat", code) == ["table"]


async def signed_out(server: Server, name: str) -> None:
    """Wait (10 s at most) until the lobby holds no session of `name`."""
    async with asyncio.timeout(10):
        while any(s.identity.name == name for s in server.lobby.sessions):
            await asyncio.sleep(0.02)


async def visits(port: int, name: str, *codes: str) -> list[str]:
    """A program with a new key visits each of `codes` on the bot API; per code, "table" or
    the error's code."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with asyncssh.connect(
        "127.0.0.1", port, username=name, client_keys=[key], known_hosts=None
    ) as conn:
        writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
        messages = frames(reader)
        writer.write(frame(encode(Hello(PROTOCOL_VERSION, name)), direction=Direction.TO_SERVER))
        answers = []
        for code in codes:
            writer.write(frame(encode(Visit(code)), direction=Direction.TO_SERVER))
            async with asyncio.timeout(10):
                async for message in messages:
                    if isinstance(message, TableState | ErrorReply):
                        answers.append("table" if isinstance(message, TableState) else message.code)
                        break
        return answers


async def frames(reader: asyncssh.SSHReader[bytes]) -> AsyncIterator[object]:
    """Every message the server sends on the bot API, in order."""
    frames = FrameReader(direction=Direction.TO_CLIENT)
    while chunk := await reader.read(65536):
        for payload in frames.feed(chunk):
            yield decode(payload, direction=Direction.TO_CLIENT)


async def test_the_invite_shows_the_configured_public_host_and_port(tmp_path: Path) -> None:
    async with (
        running_server(tmp_path, FROZEN, public_host="play.example.org", public_port=22) as server,
        SSHTerminal.connect(server.port, username="ana") as ana,
    ):
        await wait_text(ana, "signed in as ana")
        code = await host_table(ana, seats=2)
        assert invite_line(ana) == f"ssh -t play.example.org {code}"


async def test_without_a_public_host_the_invite_is_to_the_address_the_player_reached(
    tmp_path: Path,
) -> None:
    """Listening on every address, the server shows each player the address they connected
    to (not the machine's name), with a user name to fill in."""
    config = Config(listen="0.0.0.0:0", data_dir=tmp_path, web_listen=None)  # no link shown
    settings = LobbySettings(table=FROZEN)
    with contextlib.redirect_stdout(io.StringIO()):
        running = await start(config, settings)
    gc.unfreeze()  # `start` freezes start-up objects for a long-lived server; not in tests
    try:
        port = running.service.port
        async with SSHTerminal.connect(port, username="ana", host="127.0.0.3") as ana:
            await wait_text(ana, "signed in as ana")
            code = await host_table(ana, seats=2)
            assert invite_line(ana) == f"ssh -t -p {port} yourname@127.0.0.3 {code}"
    finally:
        await running.stop(grace=0)


async def test_a_command_that_is_no_table_code_is_refused_in_one_line(server: Server) -> None:
    for command in ("rm -rf /", "A" * 17, "ABCD;id", "ÄBCD", "AB CD"):
        async with openssh(ssh(server.port, "bob", command)) as term:
            status = await term.exited()
            assert status == 1 and NOT_A_CODE.strip() in term.raw.decode(), command
    assert not server.lobby.sessions


async def test_without_a_terminal_a_code_gets_the_one_line_refusal(server: Server) -> None:
    async with openssh(ssh(server.port, "bob", "ABCD", pty=False)) as term:
        assert await term.exited() == 1
        assert NEED_PTY.strip() in term.raw.decode()
