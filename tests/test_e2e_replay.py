"""Over real SSH: a player with a key opens the stats screen, picks a game they played and
steps through its replay from their own seat, then switches to the public view."""

from __future__ import annotations

from pathlib import Path

import asyncssh
from e2e_helpers import running_server, screen_text, wait_text
from sshclient import SSHTerminal

from server.lobby import TableSettings
from server.ssh.keys import fingerprint
from server.store import SeatRecord, Store, database_path
from tests.test_replay_access import record_game

SIZE = (100, 30)


async def test_a_replay_opens_from_the_stats_screen_and_steps_by_keys(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    with Store.open(database_path(tmp_path)) as store:
        store.claim_nickname(fingerprint(key), "ann", set())
        game_id = record_game(store, [SeatRecord(fingerprint(key), "ann"), SeatRecord(None, "cy")])
    async with (
        running_server(tmp_path, TableSettings(bot_delay=0)) as server,
        SSHTerminal.connect(server.port, username="ann", key=key, size=SIZE) as term,
    ):
        await wait_text(term, "Online:")
        await term.send_keys("i")
        await wait_text(term, "Enter: replay a game")
        assert "Latest games on this server" in screen_text(term)
        await term.send_keys("enter")
        await wait_text(term, f"Replay of game {game_id}")
        assert "step 1 of" in screen_text(term) and "Your view" in screen_text(term)
        assert "› You were dealt" in screen_text(term)
        await term.send_keys("right")
        await wait_text(term, "step 2 of")
        await term.send_keys("v")
        await wait_text(term, "The public view")
        assert "step 2 of" in screen_text(term) and "You were dealt" not in screen_text(term)
        await term.send_keys("escape")
        await wait_text(term, "Latest games on this server")
