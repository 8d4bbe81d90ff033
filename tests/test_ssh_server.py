"""End to end: the real SSH server, a tiny Textual app, an asyncssh client rendered by pyte."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
import webbrowser
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
from asyncssh.constants import MSG_IGNORE
from sshclient import SSHTerminal
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from server.ssh import SessionInfo, SSHService, hooks, start_ssh_server
from server.ssh.session import CRASHED
from server.ssh.terminal import NEED_PTY, clean_term


class EchoApp(App[None]):
    """Greets the player, echoes the last key, shows its size; `x` crashes, `q` quits."""

    CSS = "Static { height: 1; }"

    def __init__(self, info: SessionInfo) -> None:
        super().__init__()
        self.info = info
        self.keys = 0
        self.seen: asyncio.Queue[str] = asyncio.Queue()
        """Every key handled, for tests that must wait without output."""

    def compose(self) -> ComposeResult:
        kind = "guest" if self.info.guest else self.info.identity
        yield Static(f"hello {self.info.nickname}", markup=False)
        yield Static(f"who {kind}", id="who", markup=False)
        yield Static("keys 0", id="keys")
        yield Static("size ?", id="size")

    def on_key(self, event: events.Key) -> None:
        if event.key == "x":
            raise RuntimeError("boom")
        if event.key == "q":
            self.exit()
            return
        if event.key == "s":
            print("a stray print")
            self.deliver_screenshot()
            self.open_url("https://example.com")
        self.keys += 1
        self.query_one("#keys", Static).update(f"keys {self.keys} last {event.key}")
        self.seen.put_nowait(event.key)

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#size", Static).update(f"size {event.size.width}x{event.size.height}")


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[SSHService]:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, EchoApp)
    yield service
    await service.close()


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


async def test_key_login_gets_fingerprint_identity(
    service: SSHService, key: asyncssh.SSHKey
) -> None:
    async with SSHTerminal.connect(service.port, username="alice", key=key) as term:
        await term.wait_for_text("hello alice")
        await term.wait_for_text(f"who {key.get_fingerprint('sha256')}")
        assert "ssh-keygen -t ed25519" in term.banner


async def test_guest_login_via_keyboard_interactive(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port, username="bob") as term:
        await term.wait_for_text("hello bob")
        await term.wait_for_text("who guest")


async def test_a_client_that_prefers_chacha20_gets_aes_gcm(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port) as term:  # asyncssh puts ChaCha20 first
        await term.wait_for_text("hello")
        gcm = {"aes128-gcm@openssh.com", "aes256-gcm@openssh.com"}
        assert term.conn.get_extra_info("recv_cipher") in gcm
        assert term.conn.get_extra_info("send_cipher") in gcm


@pytest.mark.parametrize("patched", [True, False], ids=["patched", "plain"])
async def test_screen_updates_come_with_no_empty_ignore_packets(
    service: SSHService, monkeypatch: pytest.MonkeyPatch, patched: bool
) -> None:
    """asyncssh's CBC countermeasure (an empty ignore packet before every packet) is left
    out: with GCM it doubled the packets, encryptions and socket writes of each update.
    With the patch off (`render_patches`), asyncssh sends them as released."""
    monkeypatch.setattr(hooks.SKIP_NEEDLESS_IGNORES, "on", patched)
    ignored: list[bytes] = []
    handlers = asyncssh.connection.SSHConnection._packet_handlers
    process_ignore = handlers[MSG_IGNORE]

    def counted(conn: asyncssh.connection.SSHConnection, *args: object) -> None:
        if isinstance(conn, asyncssh.SSHClientConnection):
            ignored.append(b"")
        process_ignore(conn, *args)

    monkeypatch.setitem(handlers, MSG_IGNORE, counted)
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        for count, key in enumerate("abcde", 1):
            await term.send_keys(key)
            await term.wait_for_text(f"keys {count} last {key}")
    assert (ignored == []) is patched


async def test_keys_reach_the_app(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        await term.send_keys("a")
        await term.wait_for_text("keys 1 last a")
        await term.send_keys("b", "up")
        await term.wait_for_text("keys 3 last up")


async def test_lone_escape_is_a_key(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        await term.send_keys("escape")
        await term.wait_for_text("keys 1 last escape")
        await term.send_keys("z")
        await term.wait_for_text("keys 2 last z")


async def test_resize_changes_app_size(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port, username="rs", size=(80, 24)) as term:
        await term.wait_for_text("size 80x24")
        await term.resize(100, 30)
        await term.wait_for_text("size 100x30")
        session = service.sessions.get("rs")
        assert session is not None and session.app is not None
        app = session.app
        await term.resize(5000, 3)
        await term.wait_for(lambda: app.size == (500, 10), "size clamped to 500x10")


async def test_session_without_pty_gets_a_message_and_fails(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port, pty=False) as term:
        status = await term.wait_closed()
        assert status == 1
        assert term.raw.decode() == NEED_PTY


async def test_hostile_username_is_sanitised(service: SSHService) -> None:
    hostile = "[@click=app.quit]José[/] " + "y" * 100
    async with SSHTerminal.connect(service.port, username=hostile) as term:
        await term.wait_for_text("hello clickapp.qui")
        assert service.sessions.nicknames() == ["clickapp.quitJos"]


async def test_control_characters_in_username_are_stripped(
    service: SSHService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncssh refuses such names on both ends (SASLprep); check our own layer too.
    monkeypatch.setattr(asyncssh.connection, "saslprep", lambda name: name)
    hostile = "\x1b[2J\x1b]0;x\x07\u202eevil\x9b" + "y" * 100
    async with SSHTerminal.connect(service.port, username=hostile) as term:
        await term.wait_for_text("hello 2J0xevilyyyyyy")
        assert service.sessions.nicknames() == ["2J0xevilyyyyyyyy"]


async def test_same_nickname_twice_gets_distinct_names(service: SSHService) -> None:
    async with (
        SSHTerminal.connect(service.port, username="carol") as first,
        SSHTerminal.connect(service.port, username="Carol") as second,
    ):
        await first.wait_for_text("hello carol")
        await second.wait_for_text("hello Carol-2")
        assert sorted(service.sessions.nicknames()) == ["Carol-2", "carol"]


async def test_crash_ends_only_that_session(service: SSHService) -> None:
    async with (
        SSHTerminal.connect(service.port, username="ok") as healthy,
        SSHTerminal.connect(service.port, username="crash") as doomed,
    ):
        await healthy.wait_for_text("hello ok")
        await doomed.wait_for_text("hello crash")
        await doomed.send_keys("x")
        assert await doomed.wait_closed() == 1
        assert b"\x1b[?1049l" in doomed.raw
        assert doomed.raw.endswith(CRASHED.encode())
        await healthy.send_keys("a")
        await healthy.wait_for_text("keys 1 last a")
        assert service.sessions.nicknames() == ["ok"]


async def test_app_exit_restores_terminal(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        await term.send_keys("q")
        assert await term.wait_closed() == 0
        tail = term.raw[term.raw.rindex(b"\x1b[?1049h") :]
        for sequence in (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?2004l"):
            assert sequence in tail


async def test_service_close_restores_terminals_with_message(tmp_path: Path) -> None:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, EchoApp)
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        await service.close("bye for now")
        assert await term.wait_closed() == 0
        assert b"\x1b[?1049l" in term.raw
        assert term.raw.endswith(b"bye for now\r\n")
    assert len(service.sessions) == 0


async def test_dropped_client_ends_its_session(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port, username="gone") as term:
        await term.wait_for_text("hello gone")
        (session,) = service.sessions
        assert term.conn is not None
        term.conn.abort()
        await asyncio.wait_for(session.wait_closed(), 5)
    assert len(service.sessions) == 0


async def test_failing_app_factory_ends_only_that_session(tmp_path: Path) -> None:
    def factory(info: SessionInfo) -> App[None]:
        if info.nickname == "bad":
            raise ValueError("no app for you")
        return EchoApp(info)

    service = await start_ssh_server("127.0.0.1", 0, tmp_path, factory)
    try:
        async with SSHTerminal.connect(service.port, username="bad") as term:
            assert await term.wait_closed() == 1
            assert term.raw.decode() == CRASHED
        async with SSHTerminal.connect(service.port, username="good") as term:
            await term.wait_for_text("hello good")
    finally:
        await service.close()


def test_term_is_sanitised() -> None:
    assert clean_term("xterm-256color") == "xterm-256color"
    assert clean_term("\x1b]0;x\x07screen.xterm+") == "0xscreen.xterm+"
    assert clean_term("") == "xterm"


async def test_nothing_happens_on_the_server_machine(
    service: SSHService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path))
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url))
    stdout = sys.stdout
    async with (
        SSHTerminal.connect(service.port, username="one") as one,
        SSHTerminal.connect(service.port, username="two") as two,
    ):
        await one.wait_for_text("hello one")
        await two.wait_for_text("hello two")
        await one.send_keys("s")
        await one.wait_for_text("keys 1 last s")
        await one.send_keys("q")
        await one.wait_closed()
        await two.send_keys("q")
        await two.wait_closed()
    assert list(tmp_path.rglob("*.svg")) == []
    assert opened == []
    assert sys.stdout is stdout


async def test_colours_use_256_colour_codes(service: SSHService) -> None:
    async with SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        assert b"38;5;" in term.raw or b"48;5;" in term.raw
        assert b"38;2;" not in term.raw and b"48;2;" not in term.raw


async def test_finished_sessions_are_freed(service: SSHService) -> None:
    refs = []
    for name in ("keyq", "dropped"):
        async with SSHTerminal.connect(service.port, username=name) as term:
            await term.wait_for_text(f"hello {name}")
            (session,) = service.sessions
            refs += [weakref.ref(session), weakref.ref(session.app)]
            await term.send_keys("a", "escape", "up")
            await term.wait_for_text("keys 3 last up")
            if name == "keyq":
                await term.send_keys("q")
                await term.wait_closed()
        await session.wait_closed()
        del session
    gc.collect()
    assert [ref() for ref in refs] == [None] * 4
