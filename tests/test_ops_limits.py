"""Bans and limits over real SSH: each refusal tells the person why in one line, is logged
and counted.

The server runs in-process (`server.commands.serve.start`, the code `lovelet serve` runs) so its log
records and metrics can be read; bans are set with the real `lovelet admin` command, a
separate process on the same database. Synchronisation is on screens, exit statuses and
refusals, with timeouts; never on sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from asyncssh.constants import MSG_KEXINIT
from e2e_helpers import create_table, screen_text, wait_text
from ptyterm import LOVELET
from sshclient import LoginRefused, SSHTerminal

from server.commands.serve import RunningServer, start
from server.ops.config import Config, Limits
from server.ops.logs import EVENTS
from server.ops.metrics import Metrics
from server.ssh.driver import RESTORE_TERMINAL
from server.ssh.keys import fingerprint

ROOT = Path(__file__).resolve().parent.parent
RETRY_TIMEOUT = 5.0
IDLE = 5.0
"""Seconds idle in the lobby before disconnection: more than a login and creating a table by
keys take, even on a loaded machine."""


@pytest.fixture(scope="module")
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
def events(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Captures the structured events the `server.ops.logs` helpers write."""
    caplog.set_level(logging.INFO, logger=EVENTS)
    return caplog


def logged(caplog: pytest.LogCaptureFixture, message: str) -> list[dict[str, Any]]:
    """The fields of every event logged with this message, in order."""
    records = [r for r in caplog.records if r.name == EVENTS and r.getMessage() == message]
    return [dict(r.fields) for r in records]  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Served:
    """The running server, its data directory and its metrics."""

    running: RunningServer
    data_dir: Path
    metrics: Metrics

    @property
    def port(self) -> int:
        return self.running.service.port

    def refusals(self, reason: str) -> float:
        """`lovelet_refusals_total{reason}` now."""
        value = self.metrics.registry.get_sample_value("lovelet_refusals_total", {"reason": reason})
        return value or 0.0

    def logins(self, kind: str) -> float:
        """`lovelet_logins_total{kind}` now."""
        value = self.metrics.registry.get_sample_value("lovelet_logins_total", {"kind": kind})
        return value or 0.0


@asynccontextmanager
async def serving(data_dir: Path, **limits: Any) -> AsyncIterator[Served]:
    """`lovelet serve` in-process on 127.0.0.1 with these `limits.*` settings."""
    metrics = Metrics("test")
    config = Config(listen="127.0.0.1:0", data_dir=data_dir, limits=Limits(**limits))
    with contextlib.redirect_stdout(io.StringIO()):
        running = await start(config, metrics=metrics)
    gc.unfreeze()  # `start` freezes start-up objects for a long-lived server; not in tests
    try:
        yield Served(running, data_dir, metrics)
    finally:
        await running.stop(grace=0)


async def admin(data_dir: Path, *args: str) -> str:
    """Run `lovelet admin --data-dir DATA_DIR ARGS` as its own process; its output."""
    process = await asyncio.create_subprocess_exec(
        *(LOVELET, "admin", "--data-dir", str(data_dir), *args),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, (out + err).decode()
    return out.decode()


async def signed_in(port: int, name: str, key: asyncssh.SSHKey | None = None) -> None:
    """Log in, see the lobby, quit with ctrl+q."""
    async with SSHTerminal.connect(port, username=name, key=key) as term:
        await wait_text(term, f"signed in as {name}")
        await term.send("\x11")
        assert await term.wait_closed() == 0


async def tried_to_sign_in(port: int, name: str, key: asyncssh.SSHKey | None = None) -> bool:
    """Log in and quit; False when refused, before login or at the session."""
    try:
        async with SSHTerminal.connect(port, username=name, key=key) as term:
            lobby = f"signed in as {name}"
            await term.wait_for(lambda: term.closed or lobby in screen_text(term), "the lobby")
            if term.closed:
                return False
            await term.send("\x11")
            assert await term.wait_closed() == 0
            return True
    except LoginRefused:
        return False


async def eventually_signed_in(port: int, name: str, key: asyncssh.SSHKey | None = None) -> None:
    """Retry a login until the server has noticed that earlier connections closed."""

    async def attempt() -> None:
        while not await tried_to_sign_in(port, name, key):
            pass

    await asyncio.wait_for(attempt(), RETRY_TIMEOUT)


async def refused_session(port: int, name: str, key: asyncssh.SSHKey | None = None) -> str:
    """Log in and open a terminal session that the server ends at once; what it said."""
    async with SSHTerminal.connect(port, username=name, key=key) as term:
        await term.wait_closed()  # its exit status is 0 (like a normal goodbye), not checked
        return term.raw_text


async def refused_login(port: int, name: str = "late") -> str:
    """A connection refused before login; the banner the client was shown."""
    with pytest.raises(LoginRefused) as refused:
        async with SSHTerminal.connect(port, username=name):
            pass
    return refused.value.banner


def one_line(text: str) -> str:
    """`text` must be exactly one line ending in CRLF; the line."""
    assert text.endswith("\r\n") and text.count("\n") == 1, repr(text)
    return text.removesuffix("\r\n")


# ---------------------------------------------------------------- the log and metrics hooks


async def test_a_login_is_logged_with_its_terminal_and_a_disconnect_with_its_duration(
    tmp_path: Path, key: asyncssh.SSHKey, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server:
        async with SSHTerminal.connect(
            server.port, username="ana", key=key, size=(90, 30), term="screen-256color"
        ) as ana:
            await wait_text(ana, "signed in as ana")
            await ana.send("\x11")
            assert await ana.wait_closed() == 0
        (login,) = logged(events, "login")
        assert login == {
            "address": "127.0.0.1",
            "identity": fingerprint(key),
            "name": "ana",
            "client": f"SSH-2.0-AsyncSSH_{asyncssh.__version__}",
            "term": "screen-256color",
            "size": "90x30",
        }
        (connect,) = logged(events, "connect")
        assert connect == {"address": "127.0.0.1"}
        (bye,) = logged(events, "disconnect")
        assert bye["name"] == "ana" and "reason" not in bye
        assert 0 < bye["duration_seconds"] < 30
        assert server.logins("key") == 1 and server.logins("guest") == 0


# ---------------------------------------------------------------- bans


async def test_a_banned_key_is_told_why_and_let_in_once_unbanned(
    tmp_path: Path, key: asyncssh.SSHKey, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server:
        banned = fingerprint(key)
        await admin(tmp_path, "ban", "fingerprint", banned, "--reason", "spam")
        said = await refused_session(server.port, "ana", key)
        assert one_line(said) == "You are banned from this server: spam."
        await signed_in(server.port, "ana")  # the same person as a guest: only the key is banned
        assert server.refusals("banned") == 1
        assert logged(events, "refused") == [{"address": "127.0.0.1", "reason": "banned"}]

        assert "Lifted ban 1" in await admin(tmp_path, "unban", banned)
        await signed_in(server.port, "ana", key)


async def test_a_banned_address_is_refused_before_login_with_the_reason_in_the_banner(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server:
        await admin(tmp_path, "ban", "address", "127.0.0.0/8", "--reason", "flood")
        banner = await refused_login(server.port, "ana")
        assert one_line(banner) == "You are banned from this server: flood."
        assert server.refusals("banned") == 1
        assert logged(events, "refused") == [{"address": "127.0.0.1", "reason": "banned"}]
        assert not logged(events, "login")

        await admin(tmp_path, "unban", "127.0.0.0/8")
        await signed_in(server.port, "ana")


# ---------------------------------------------------------------- connection limits


async def test_a_third_connection_from_one_address_is_refused(tmp_path: Path) -> None:
    async with serving(tmp_path, per_address=2) as server:
        async with (
            SSHTerminal.connect(server.port, username="ana") as ana,
            SSHTerminal.connect(server.port, username="bob") as bob,
        ):
            await wait_text(ana, "signed in as ana")
            await wait_text(bob, "signed in as bob")
            banner = await refused_login(server.port)
            assert one_line(banner) == "Too many connections from your address."
            assert server.refusals("per_address") == 1
        await eventually_signed_in(server.port, "cat")


async def test_connections_over_the_total_are_refused(tmp_path: Path) -> None:
    async with serving(tmp_path, max_connections=2) as server:
        async with (
            SSHTerminal.connect(server.port, username="ana") as ana,
            SSHTerminal.connect(server.port, username="bob") as bob,
        ):
            await wait_text(ana, "signed in as ana")
            await wait_text(bob, "signed in as bob")
            banner = await refused_login(server.port)
            assert one_line(banner) == "Server is full, please try again later."
            assert server.refusals("full") == 1
        await eventually_signed_in(server.port, "cat")


async def test_logins_in_progress_are_capped(tmp_path: Path) -> None:
    async with serving(tmp_path, concurrent_logins=1) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            assert (await reader.readline()).startswith(b"SSH-2.0-")  # admitted, not logged in
            writer.write(b"SSH-2.0-stalled\r\n")  # it spoke: not dropped to make room
            assert (await reader.readexactly(6))[5] == MSG_KEXINIT
            banner = await refused_login(server.port)
            assert one_line(banner) == "Too many logins in progress, please try again in a moment."
            assert server.refusals("logins_in_progress") == 1
        finally:
            writer.close()
            await writer.wait_closed()
        await eventually_signed_in(server.port, "ana")


async def test_sessions_per_key_are_capped(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with serving(tmp_path, sessions_per_identity=1) as server:
        async with SSHTerminal.connect(server.port, username="ana", key=key) as ana:
            await wait_text(ana, "signed in as ana")
            said = one_line(await refused_session(server.port, "ana", key))
            assert re.fullmatch(r"You already have 1 sessions? open with this key\.", said), said
            assert server.refusals("sessions_per_identity") == 1
            await signed_in(server.port, "bob")  # other people are not affected
        await eventually_signed_in(server.port, "ana", key)


# ---------------------------------------------------------------- lobby limits


async def type_chat(term: SSHTerminal, line: str) -> None:
    """Open the chat input, type `line`, press Enter."""
    await term.send_keys("c")
    await wait_text(term, "Say something")
    await term.send(line)
    await wait_text(term, line)
    await term.send_keys("enter")


async def say(term: SSHTerminal, line: str) -> None:
    """Send a chat line and wait until it comes back from the server."""
    await type_chat(term, line)
    await wait_text(term, f": {line}")


async def test_chat_over_the_rate_is_refused_on_the_senders_screen_only(tmp_path: Path) -> None:
    async with (
        serving(tmp_path, chat_messages=2, chat_interval=600) as server,
        SSHTerminal.connect(server.port, username="ana", size=(100, 30)) as ana,
        SSHTerminal.connect(server.port, username="bob", size=(100, 30)) as bob,
    ):
        await wait_text(ana, "signed in as ana")
        await wait_text(bob, "signed in as bob")
        for line in ("one", "two"):
            await say(ana, line)
        await type_chat(ana, "three")
        await wait_text(ana, "Slow down: at most 2 lines every 600 s")  # as a sentence
        await say(bob, "done")  # sent after "three" was refused, so shown after it
        for term in (ana, bob):
            assert "ana: one" in screen_text(term) and "ana: two" in screen_text(term)
        assert "ana: three" not in screen_text(bob) + screen_text(ana)


async def test_an_idle_session_in_the_lobby_is_closed_with_a_reason(tmp_path: Path) -> None:
    async with (
        serving(tmp_path, idle_timeout=IDLE) as server,
        SSHTerminal.connect(server.port, username="bob") as bob,
    ):
        await wait_text(bob, "signed in as bob")
        await create_table(bob, seats=2)  # bob's idle clock runs out before ana's
        async with SSHTerminal.connect(server.port, username="ana") as ana:
            await wait_text(ana, "signed in as ana")
            assert await ana.wait_closed() == 0
            tail = ana.raw_text.rsplit(RESTORE_TERMINAL, 1)[1]
            assert re.fullmatch(r"Disconnected after .+ idle\.", one_line(tail)), tail
        assert not bob.closed, "a player at a table is never closed for idling"
        await bob.send_keys("c")
        await wait_text(bob, "Say something")
