"""Over real SSH at 80×24: a player with a key presses `p` in the lobby, picks another
player online and reads their profile from the server's database (rating and its history,
games per edition, favourite cards, latest games), then replays one of those games."""

from __future__ import annotations

from pathlib import Path

import asyncssh
from e2e_helpers import running_server, screen_text, wait_text
from sshclient import SSHTerminal

from server.lobby import TableSettings
from server.ssh.keys import fingerprint
from server.store import SeatRecord, Store, database_path
from tests.test_replay_access import record_game

SIZE = (80, 24)


def keyed_games(data_dir: Path, ann: str, bob: str) -> int:
    """Two rated games of ann and bob, with bob's Guards in the log; the latest one's id."""
    with Store.open(database_path(data_dir)) as store:
        store.claim_nickname(ann, "ann", set())
        store.claim_nickname(bob, "bob", set())
        seats = [SeatRecord(ann, "ann"), SeatRecord(bob, "bob")]
        record_game(store, seats)
        game_id = record_game(store, seats)
        for seq in range(3):
            store.record_event(game_id, 900 + seq, "play", 1, {"card": "guard", "targets": []})
        return game_id


async def test_p_in_the_lobby_opens_a_players_profile_and_a_replay(tmp_path: Path) -> None:
    ann_key, bob_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    game_id = keyed_games(tmp_path, fingerprint(ann_key), fingerprint(bob_key))
    async with (
        running_server(tmp_path, TableSettings(bot_delay=0)) as server,
        SSHTerminal.connect(server.port, username="ann", key=ann_key, size=SIZE) as ann,
        SSHTerminal.connect(server.port, username="bob", key=bob_key, size=SIZE),
    ):
        await wait_text(ann, "Online: ann")
        await wait_text(ann, "bob (")  # bob's rating beside his name
        await ann.send_keys("p")
        await wait_text(ann, "Whose profile? (online)")
        await ann.send_keys("down", "enter")
        await wait_text(ann, "bob's profile")
        await wait_text(ann, "Favourite cards: Guard ×3")
        text = screen_text(ann)
        assert "Rating " in text and "(2 rated games)" in text
        assert "History (last 2 rated games): " in text
        assert "Love Letter Classic (2012)  2" in text
        assert text.count("ann, bob") == 2
        await ann.send_keys("enter")
        await wait_text(ann, f"Replay of game {game_id}")
        assert "The public view" in screen_text(ann)
        await ann.send_keys("escape")
        await wait_text(ann, "bob's profile")
        await ann.send_keys("escape")
        await wait_text(ann, "Online: ann")
