"""Over real SSH at 80×24: ann marks bob as a friend on his profile, her lobby then says
where bob is, and when bob opens a table `f` and Enter take her to a seat at it."""

from __future__ import annotations

from pathlib import Path

import asyncssh
from e2e_helpers import create_table, running_server, screen_text, wait_text
from sshclient import SSHTerminal

from server.lobby import TableSettings

SIZE = (80, 24)


async def test_a_friend_is_marked_followed_and_joined(tmp_path: Path) -> None:
    ann_key, bob_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    async with (
        running_server(tmp_path, TableSettings(bot_delay=0)) as server,
        SSHTerminal.connect(server.port, username="ann", key=ann_key, size=SIZE) as ann,
        SSHTerminal.connect(server.port, username="bob", key=bob_key, size=SIZE) as bob,
    ):
        await wait_text(ann, "Online: ann, bob")
        assert "Friends (f)" not in screen_text(ann)
        await ann.send_keys("p", "down", "enter")
        await wait_text(ann, "f Add friend")
        await ann.send_keys("f")
        await wait_text(ann, "bob's profile · your friend")
        await ann.send_keys("escape")
        await wait_text(ann, "Friends (f): bob online")
        code = await create_table(bob, 2, "bob's")
        await wait_text(ann, f"Friends (f): bob at table {code}")
        await ann.send_keys("f")
        await wait_text(ann, f"› bob  at table {code}")
        await ann.send_keys("enter")
        await wait_text(ann, "Before the game")
        assert code in screen_text(ann).splitlines()[0]
        await wait_text(bob, "ann")
