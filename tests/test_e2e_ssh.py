"""End to end over real SSH on 127.0.0.1: the lobby, the TUI and the game, played with keys.

Each test runs the real server (lobby + SSH) in-process and drives asyncssh clients with a
PTY whose output pyte renders. Synchronisation is on screen text only (with timeouts); the
server's table state is read to check what the screens show.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
from e2e_helpers import (
    Player,
    Server,
    answer_yes,
    create_table,
    header_code,
    log_lines,
    log_text,
    phase,
    play_to_game_over,
    read_panel,
    read_tokens,
    running_server,
    said,
    screen_lines,
    screen_text,
    wait_log,
    wait_text,
)
from sshclient import SSHTerminal

from server.lobby import TableSettings
from server.ops.config import RENDER_PATCHES
from server.services.sanitize import clean_name
from server.ssh.terminal import NEED_PTY

FAST = TableSettings(bot_delay=0, grace=60, round_pause=60)
"""Bots act at once; rounds wait for every player's `n`; dropped seats are held."""
FROZEN_BOTS = TableSettings(bot_delay=60, grace=60, round_pause=60)
"""Nothing happens on its own during a test: no bot turn, no round timer."""
HOSTILE_NAME = "\x1b[31m[b]x[/b]\x1b]0;owned\x07" + "W" * 20
HOSTILE_CHAT = "\x1b[31mRED\x1b[0m [b]bold[/b] [@click=app.quit]q[/] \x1b]0;title\x07 end"
C1_CHAT = "\x9b31mC1 \x9d0;t\x9c control"


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture(params=[RENDER_PATCHES, ()], ids=["patched", "plain"])
async def server(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Server]:
    """The server with every patch of the libraries' internals in force, and with none
    (`render_patches = off`): each test here runs against both."""
    async with running_server(tmp_path, FAST, render_patches=request.param) as running:
        yield running


@pytest.fixture
async def frozen_server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, FROZEN_BOTS) as running:
        yield running


async def join_first_table(term: SSHTerminal, code: str) -> None:
    """From the lobby: `j` joins the selected (only) table."""
    await wait_text(term, code)
    await term.send_keys("j")
    await wait_text(term, "Before the game")


async def decide(term: SSHTerminal, rng: random.Random) -> None:
    """Pick options from the panel until it shows no decision any more."""
    while (panel := read_panel(term)) is not None:
        await term.send_keys(rng.choice(panel.options).key)
        await term.wait_for(lambda p=panel: read_panel(term) != p, "the next step")
        await answer_yes(term)


def dealt(term: SSHTerminal) -> bool:
    """Round 1 is on the screen: a decision to make, or someone else's to wait for."""
    text = screen_text(term)
    return "round 1" in text and (read_panel(term) is not None or "Waiting for" in text)


# ---------------------------------------------------------------- a whole game


async def test_two_players_and_four_bots_play_a_whole_game(
    server: Server, key: asyncssh.SSHKey
) -> None:
    async with (
        SSHTerminal.connect(server.port, username="ana", key=key) as ana,
        SSHTerminal.connect(server.port, username="bob") as bob,
    ):
        await wait_text(ana, "signed in as ana")
        await wait_text(bob, "signed in as bob (guest)")
        code = await create_table(ana, seats=6)
        await join_first_table(bob, code)
        await wait_text(ana, "bob")
        await ana.send_keys("g")
        table = server.table(code)
        players = [Player(ana, 0), Player(bob, 1)]
        await asyncio.gather(*(play_to_game_over(p, table, random.Random(p.seat)) for p in players))

        game = table.game
        assert game is not None and game.game_over and table.runner.status == "finished"
        names = [seat.name or "" for seat in table.seats]
        assert names[2:] == [f"easy bot {seat}" for seat in range(3, 7)]
        for player in players:
            winners = said(names, game.game_winners, player.seat)
            await wait_log(player.term, f"Game over: {winners} won the game")
            last_round = said(names, game.round_winners, player.seat)
            assert f"Round over: {last_round} won" in log_text(player.term)
            assert read_tokens(player.term) == dict(zip(names, game.tokens, strict=True))
            assert player.decisions > 0 and player.backed_out <= 1
            assert player.rounds_continued == game.round - 1

        # Esc was tried once by each player whose deal offered a later step (a short game can
        # give a player only cards without one, so the pair is checked, not each)
        assert sum(player.backed_out for player in players) >= 1
        await ana.send_keys("r")
        await wait_text(ana, "Ready. The rematch waits for bob.")
        await bob.send_keys("r")  # every human still there says ready
        for term in (ana, bob):
            await term.wait_for(
                lambda t=term: phase(t) != "over" and "round 1" in screen_text(t), "a rematch"
            )
        assert table.runner.epoch == 2


# ---------------------------------------------------------------- the terminal


async def test_resize_reflows_live_and_too_small_says_so(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana") as term:
        await wait_text(term, "signed in as ana")
        await term.resize(120, 30)
        await term.wait_for(
            lambda: "─" * 120 in screen_text(term) and "Quit" in screen_lines(term)[29], "120×30"
        )
        await term.resize(70, 20)
        await wait_text(term, "Terminal too small (need 80×24)")
        assert "signed in as" not in screen_text(term)
        await term.resize(80, 24)
        await term.wait_for(
            lambda: (
                "signed in as ana" in screen_text(term) and "too small" not in screen_text(term)
            ),
            "80×24",
        )
        code = await create_table(term, seats=2)
        await term.resize(130, 26)
        await term.wait_for(
            lambda: (
                any(line.find("Before the game") >= 130 - 36 for line in screen_lines(term))
                and header_code(term) != ""  # the header may come in a later frame
            ),
            "the table reflowed",
        )
        assert header_code(term) == code
        await term.resize(80, 23)
        await wait_text(term, "Terminal too small")
        assert "Before the game" not in screen_text(term)


async def test_session_without_pty_gets_one_line_and_exits(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana", pty=False) as term:
        assert await term.wait_closed() == 1
        assert term.raw.decode() == NEED_PTY
        assert NEED_PTY.count("\n") == 1
    assert not server.lobby.sessions


# ---------------------------------------------------------------- seats survive a drop


async def test_reconnect_with_the_same_key_gets_the_seat_and_log_back(
    frozen_server: Server, key: asyncssh.SSHKey
) -> None:
    server, rng = frozen_server, random.Random(7)
    async with SSHTerminal.connect(server.port, username="bob") as bob:
        async with SSHTerminal.connect(server.port, username="ana", key=key) as ana:
            await wait_text(ana, "signed in as ana")
            code = await create_table(ana, seats=2)
            await join_first_table(bob, code)
            await wait_text(ana, "bob")
            await ana.send_keys("g")
            for term in (ana, bob):
                await term.wait_for(lambda t=term: dealt(t), "round 1 dealt")
            first = ana if read_panel(ana) is not None else bob
            await decide(first, rng)
            await ana.wait_for(lambda: "played" in screen_text(ana), "the first play in ana's log")
            log_before = log_lines(ana)
            session = server.service.sessions.get("ana")
            assert session is not None
        await session.wait_closed()
        await wait_text(bob, "away")
        assert server.table(code).seats[0].held is not None

        async with SSHTerminal.connect(server.port, username="ana", key=key) as ana:
            # log_before may have been read mid-frame, and the log may wrap at another width
            # now: every word of it must come back, in order
            await ana.wait_for(lambda: in_order(log_before, log_lines(ana)), "the same log")
            await wait_text(ana, f"Welcome back: you are at table {code}")  # a toast
            assert "ana (you)" in ana.screen.display[1]
            assert header_code(ana) == code
            await bob.wait_for(lambda: "away" not in screen_text(bob), "ana back at the table")
            table = server.table(code)
            assert table.seats[0].held is None and table.seats[0].name == "ana"


async def test_a_second_session_with_the_same_key_takes_the_seat_and_closes_the_first(
    frozen_server: Server, key: asyncssh.SSHKey
) -> None:
    server = frozen_server
    async with SSHTerminal.connect(server.port, username="ana", key=key) as first:
        await wait_text(first, "signed in as ana")
        code = await create_table(first, seats=2)
        await first.send_keys("g")
        await first.wait_for(lambda: dealt(first), "round 1 dealt")
        async with SSHTerminal.connect(server.port, username="ana", key=key) as second:
            assert await first.wait_closed() is not None
            assert "You are playing from another session now" in first.text
            await second.wait_for(lambda: dealt(second), "the game on the new session")
            assert "ana (you)" in second.screen.display[1]
            assert "ana-2 (you)" not in screen_text(second)
            assert header_code(second) == code
            table = server.table(code)
            assert table.seats[0].name == "ana" and table.seats[0].member is not None
            assert table.seats[0].held is None


def in_order(lines: list[str], screen: list[str]) -> bool:
    """Whether every word of `lines` is in `screen`'s lines, in the same order."""
    words = " ".join(lines).split()
    remaining = iter(" ".join(screen).split())
    return bool(words) and all(word in remaining for word in words)


# ---------------------------------------------------------------- hostile text


def assert_literal(term: SSHTerminal, text: str) -> None:
    """`text` is on the screen as typed, every character in one style."""
    for row, line in enumerate(screen_lines(term)):
        column = line.find(text)
        if column >= 0:
            cells = [term.screen.buffer[row][x] for x in range(column, column + len(text))]
            plain = {(c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse) for c in cells}
            assert len(plain) == 1, f"styled text in {text!r}: {plain}"
            return
    raise AssertionError(f"{text!r} not on the screen\n{screen_text(term)}")


async def test_hostile_name_and_chat_arrive_sanitised_and_literal(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncssh refuses control characters in user names (SASLprep, on both ends): that
    check is switched off here so that the escape sequences reach the server's own
    sanitising, the last line of defence. The chat line is pasted (bracketed paste), the
    only way to get an ESC into the chat input."""
    monkeypatch.setattr(asyncssh.connection, "saslprep", lambda text: text)
    shown_name = clean_name(HOSTILE_NAME)
    assert shown_name.isalnum() and len(shown_name) == 16
    table_name = "[b]bold[/b] [red]r[/]"
    async with (
        SSHTerminal.connect(server.port, username="ana", size=(200, 30)) as ana,
        SSHTerminal.connect(server.port, username=HOSTILE_NAME, size=(120, 30)) as eve,
    ):
        await wait_text(ana, f"Online: ana, {shown_name}")
        await wait_text(eve, f"signed in as {shown_name}")
        code = await create_table(ana, seats=3, name=table_name)
        await wait_text(eve, table_name)
        assert_literal(eve, table_name)
        await join_first_table(eve, code)
        await wait_text(ana, f"2 {shown_name}")
        assert_literal(ana, shown_name)
        await paste_chat(eve, C1_CHAT, "control")
        line = await chat_line(ana, shown_name, "control")
        assert "31mC1" in line and "0;t" in line
        assert_literal(ana, line.removeprefix(shown_name))
        await paste_chat(eve, HOSTILE_CHAT, "0;title")  # ESC breaks a paste into keys
        line = await chat_line(ana, shown_name, "RED")
        for literal in ("31mRED", "[b]bold[/b]", "[@click=app.quit", "0;title"):
            assert literal in line
        assert_literal(ana, line.removeprefix(shown_name))
        assert_literal(ana, table_name)
        assert screen_lines(ana)[0].startswith(f" {code} · {table_name} ·")
        assert "title" not in ana.screen.title and "owned" not in ana.screen.title
        for sequence in (b"\x1b[31mRED", b"\x1b]0;", "\x9b".encode(), "\x9d".encode()):
            assert sequence not in ana.raw


async def paste_chat(term: SSHTerminal, text: str, shows: str) -> None:
    """Open the chat input, paste `text` (bracketed paste), wait for `shows`, press Enter."""
    await term.send_keys("c")
    await wait_text(term, "Say something")
    await term.send(f"\x1b[200~{text}\x1b[201~")
    await wait_text(term, shows)
    await term.send_keys("enter")


async def chat_line(term: SSHTerminal, sender: str, has: str) -> str:
    """Wait for a chat line from `sender` with `has` in it; return it (sender included)."""

    def found() -> str | None:
        lines = (re.split(r"\s{3,}", line)[0] for line in screen_lines(term))
        return next((x for x in lines if x.startswith(f"{sender}: ") and has in x), None)

    await term.wait_for(lambda: found() is not None, f"a chat line from {sender}")
    line = found()
    assert line is not None
    return line


async def test_keys_read_in_one_burst_are_taken_in_order(server: Server) -> None:
    """Fast typing, or a slow link, brings keys to the server in one read: the Chat key opens
    the input for the text after it, and the key after Enter acts on the lobby."""
    async with SSHTerminal.connect(server.port, username="ana", size=(120, 30)) as ana:
        await wait_text(ana, "signed in as ana")
        await ana.send("chello in one go\rn")
        await chat_line(ana, "ana", "hello in one go")
        await wait_text(ana, "Turn timer")


async def test_table_chat_stays_at_its_table(server: Server) -> None:
    async with (
        SSHTerminal.connect(server.port, username="ana", size=(120, 30)) as ana,
        SSHTerminal.connect(server.port, username="bob", size=(120, 30)) as bob,
        SSHTerminal.connect(server.port, username="cat", size=(120, 30)) as cat,
        SSHTerminal.connect(server.port, username="dan", size=(120, 30)) as dan,
    ):
        for term, name in ((ana, "ana"), (bob, "bob"), (cat, "cat"), (dan, "dan")):
            await wait_text(term, f"signed in as {name}")
        code_a = await create_table(ana, seats=2, name="table A")
        await join_first_table(bob, code_a)
        await create_table(cat, seats=2, name="table B")

        await say(ana, "secret of table A")
        await wait_text(bob, "ana: secret of table A")
        await say(cat, "only table B hears this")
        await say(dan, "lobby only")
        assert "secret" not in screen_text(cat) + screen_text(dan)
        assert "lobby only" not in screen_text(ana) + screen_text(bob) + screen_text(cat)
        assert "table B" not in ana.screen.display[0] + "".join(log_lines(ana))
        assert "only table B" not in screen_text(ana) + screen_text(bob) + screen_text(dan)


async def say(term: SSHTerminal, line: str) -> None:
    """Type a chat line and wait until it comes back: everything sent to this player
    before it (say, another table's chat, had it leaked) is on the screen by then."""
    await term.send_keys("c")
    await wait_text(term, "Say something")
    await term.send(line)
    await term.send_keys("enter")
    await wait_text(term, f": {line}")


# ---------------------------------------------------------------- the real OpenSSH client


@pytest.mark.skipif(
    not (shutil.which("ssh") and shutil.which("tmux")), reason="needs the ssh and tmux commands"
)
async def test_openssh_client_in_tmux_sees_the_lobby_and_quits_cleanly(tmp_path: Path) -> None:
    tmux = Tmux(f"lovelet-e2e-{os.getpid()}")
    async with running_server(tmp_path, FAST) as server:
        try:
            await tmux.run("new-session", "-d", "-x", "80", "-y", "24", "bash --norc --noprofile")
            await tmux.run("send-keys", f"{ssh_command(server.port)}; echo EXIT=$?", "Enter")
            await tmux.wait_for_text("signed in as ana (guest)")
            in_app = {"alternate_on": "1", "cursor_flag": "0", "wrap_flag": "0"}
            assert await tmux.flags() == in_app
            await tmux.run("send-keys", "C-q")
            await tmux.wait_for_text("EXIT=0")
            restored = {"alternate_on": "0", "cursor_flag": "1", "wrap_flag": "1"}
            assert await tmux.flags() == restored
            assert "signed in as" not in await tmux.capture()
        finally:
            await tmux.run("kill-server", check=False)


def ssh_command(port: int) -> str:
    """OpenSSH as a guest: no config, no keys, no host key prompt."""
    options = [
        "-F /dev/null",
        "-o StrictHostKeyChecking=no",
        "-o UserKnownHostsFile=/dev/null",
        "-o LogLevel=ERROR",
        "-o PubkeyAuthentication=no",
        "-o PreferredAuthentications=keyboard-interactive",
        "-o ConnectTimeout=5",
    ]
    return f"ssh -p {port} {' '.join(options)} ana@127.0.0.1"


class Tmux:
    """A private tmux server (its own socket) with one pane."""

    FLAGS = ("alternate_on", "cursor_flag", "wrap_flag")

    def __init__(self, socket: str) -> None:
        self.socket = socket

    async def run(self, *args: str, check: bool = True) -> str:
        """One tmux command; its output."""
        process = await asyncio.create_subprocess_exec(
            "tmux", "-L", self.socket, "-f", "/dev/null", *args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await process.communicate()
        if check and process.returncode:
            raise AssertionError(f"tmux {args}: {err.decode()}")
        return out.decode()

    async def capture(self) -> str:
        """The pane's visible text."""
        return await self.run("capture-pane", "-p")

    async def flags(self) -> dict[str, str]:
        """The pane's terminal modes named in FLAGS."""
        shown = await self.run("display-message", "-p", " ".join(f"#{{{f}}}" for f in self.FLAGS))
        return dict(zip(self.FLAGS, shown.split(), strict=True))

    async def wait_for_text(self, text: str, timeout: float = 15.0) -> None:
        """Poll the pane until `text` shows (tmux has no change notification to wait on)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while text not in (screen := await self.capture()):
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {text!r}\n{screen}")
            await asyncio.sleep(0.05)


async def test_only_the_guest_whose_seat_is_held_is_told_of_it(
    frozen_server: Server, key: asyncssh.SSHKey
) -> None:
    """bob (a guest) drops from a running game; eve, another guest behind the same address,
    signs in before bob is back. Only bob hears of the held seat."""
    server, nat, told = frozen_server, "127.0.0.5", "A seat of yours is held"
    async with SSHTerminal.connect(server.port, username="ana", key=key) as ana:
        await wait_text(ana, "signed in as ana")
        code = await create_table(ana, seats=2)
        async with SSHTerminal.connect(server.port, username="bob", source=nat) as bob:
            await join_first_table(bob, code)
            await wait_text(ana, "bob")
            await ana.send_keys("g")
            await wait_text(bob, "Your rejoin code")
            session = server.service.sessions.get("bob")
            assert session is not None
        await session.wait_closed()
        await wait_text(ana, "away")
        async with SSHTerminal.connect(server.port, username="eve", source=nat) as eve:
            await wait_text(eve, "signed in as eve")
            async with SSHTerminal.connect(server.port, username="bob", source=nat) as bob:
                await bob.wait_for(lambda: told in bob.raw_text, "the held seat told to bob")
                await eve.wait_for(lambda: "bob" in screen_text(eve), "bob online, after eve")
            assert told not in eve.raw_text


async def test_a_guest_who_drops_takes_the_seat_back_with_the_rejoin_code(
    frozen_server: Server, key: asyncssh.SSHKey
) -> None:
    server = frozen_server
    async with SSHTerminal.connect(server.port, username="ana", key=key) as ana:
        await wait_text(ana, "signed in as ana")
        code = await create_table(ana, seats=2)
        async with SSHTerminal.connect(server.port, username="bob") as bob:
            await join_first_table(bob, code)
            await wait_text(ana, "bob")
            await ana.send_keys("g")
            await wait_text(bob, "Your rejoin code")  # in the table log, told to bob alone
            rejoin = server.table(code).seats[1].rejoin
            assert rejoin is not None and rejoin not in screen_text(ana)
            session = server.service.sessions.get("bob")
            assert session is not None
        await session.wait_closed()
        await wait_text(ana, "away")
        async with SSHTerminal.connect(server.port, username="bob") as bob:
            await wait_text(bob, "signed in as bob")
            await bob.send_keys("r")
            await wait_text(bob, "Your rejoin code (e.g.")
            await bob.send(rejoin)
            await bob.send_keys("enter")
            await bob.wait_for(lambda: header_code(bob) == code, "bob back at the table")
            assert "bob (you)" in screen_text(bob)
            await ana.wait_for(lambda: "away" not in screen_text(ana), "bob back at the table")
            assert server.table(code).seats[1].held is None
