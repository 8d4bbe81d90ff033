"""Over real SSH: a name that cannot be used as asked is explained on the first screen, in one
line with the name given; letters that draw safely are kept; a name that looks like another's
is taken, and one mixing Latin letters with look-alikes is refused in a sentence."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
from e2e_helpers import Server, running_server, screen_lines, wait_text
from sshclient import LoginRefused, SSHTerminal
from test_ssh_botapi import bot, hello

from server.lobby import TableSettings

MIXED = (
    "Your SSH username mixes Latin letters with letters of another alphabet that look like them"
    " (Cyrillic і U+0456), so it could pass for someone else's name; connect as ssh NAME@host"
    " with a NAME in one alphabet."
)
"""What the server says to `vіctim`, written with a Cyrillic і."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, TableSettings(bot_delay=60)) as running:
        yield running


async def first_screen(
    server: Server, username: str, signed_in: str, key: asyncssh.SSHKey | None = None
) -> str:
    """The notice lines under the welcome for `username` (a guest without `key`), once it says
    who they are."""
    async with SSHTerminal.connect(server.port, username=username, key=key) as term:
        await wait_text(term, f"signed in as {signed_in}{' (guest)' if key is None else ''}")
        lines = screen_lines(term)
        end = next(i for i, line in enumerate(lines) if line.startswith(" No tables yet"))
        return " ".join(" ".join(lines[1:end]).split())


@pytest.mark.parametrize(
    ("username", "given", "why"),
    [
        ("Ελένη", "Ελένη", ""),
        ("李小龍", "李小龍", ""),
        ("José Martínez", "José_Martínez", '"José Martínez" has spaces, and names have none'),
        ("a" * 20, "a" * 16, f'"{"a" * 20}" is longer than 16 characters'),
        (
            "♥ana[1]",
            "ana1",
            '"♥ana[1]" has characters a name cannot hold (letters, digits and - _ .)',
        ),
        ("مرحبا", "guest", '"مرحبا" has no character a name can hold'),
    ],
)
async def test_the_first_screen_says_why_a_name_changed(
    server: Server, username: str, given: str, why: str
) -> None:
    notice = await first_screen(server, username, given)
    assert notice == (f"{why}, so you are {given} here." if why else "")


async def test_a_name_in_use_is_explained_with_the_name_given(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="bob") as bob:
        await wait_text(bob, "signed in as bob (guest)")
        notice = await first_screen(server, "BOB", "BOB-2")
    assert notice == "Someone called BOB is playing right now, so you are BOB-2 here."


async def test_openssh_is_told_in_a_sentence_why_ssh_refused_an_emoji_name(
    server: Server,
) -> None:
    options = ["-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "BatchMode=yes"]
    options += ["-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=5"]
    ssh = await asyncio.create_subprocess_exec(
        "ssh", "-p", str(server.port), *options, "-l", "ana😀", "127.0.0.1",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, "LC_ALL": "C.UTF-8"},
    )  # fmt: skip
    _, err = await asyncio.wait_for(ssh.communicate(), 15)
    assert ssh.returncode == 255
    said = err.decode("utf-8", "replace")
    assert "Your SSH username has characters SSH does not know, such as emoji" in said, said
    assert "Unassigned character" not in said


def new_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


async def test_a_name_that_looks_like_a_keyed_players_is_taken(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="victim", key=new_key()) as victim:
        await wait_text(victim, "signed in as victim")
        notice = await first_screen(server, "vıctım", "vıctım-2", key=new_key())  # dotless ı
    assert notice == (
        "The name vıctım looks like victim, which is reserved by another player's SSH key,"
        " so you are vıctım-2 here."
    )


async def test_a_name_mixing_latin_with_lookalike_letters_is_refused_in_a_sentence(
    server: Server,
) -> None:
    with pytest.raises(LoginRefused) as refused:
        async with SSHTerminal.connect(server.port, username="vіctim"):
            pass
    error = refused.value.__cause__
    assert isinstance(error, asyncssh.IllegalUserName) and error.reason == MIXED


async def test_api_bots_are_named_by_the_same_rules(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="victim", key=new_key()) as victim:
        await wait_text(victim, "signed in as victim")
        async with bot(server.port, new_key(), "ѕсоре") as client:  # every letter Cyrillic
            client.send(hello())
            assert (await client.receive_type("welcome"))["name"] == "ѕсоре"
        async with bot(server.port, new_key(), "vıctım") as client:
            client.send(hello())
            assert (await client.receive_type("welcome"))["name"] == "vıctım-2"
            notice = (await client.receive_type("notice"))["text"]
            assert notice.startswith("The name vıctım looks like victim, which is reserved")
        with pytest.raises(asyncssh.IllegalUserName) as refused:
            async with bot(server.port, new_key(), "vіctim"):
                pass
    assert refused.value.reason == MIXED
