"""Connection limits, forwarding refusals and output backpressure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
import pytest
from asyncssh.constants import MSG_KEXINIT
from sshclient import LoginRefused, SSHTerminal
from test_ssh_server import EchoApp

from server.ssh import SSHLimits, SSHService, start_ssh_server
from server.ssh.driver import OUTPUT_OVERFLOW


@asynccontextmanager
async def serving(tmp_path: Path, **limits: object) -> AsyncIterator[SSHService]:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, EchoApp, SSHLimits(**limits))
    try:
        yield service
    finally:
        await service.close()


@asynccontextmanager
async def raw_tcp(port: int, version: bytes = b"") -> AsyncIterator[asyncio.StreamReader]:
    """A TCP connection that never logs in; yields once the server has sent its version (and
    with a `version` of the client's, once the server has answered it: key exchange began)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await reader.readline()
    if version:
        writer.write(version)
        assert (await reader.readexactly(6))[5] == MSG_KEXINIT
    try:
        yield reader
    finally:
        writer.close()
        await writer.wait_closed()


async def eventually_logs_in(port: int, timeout: float = 5.0) -> None:
    """Retry a login until the server has noticed an earlier connection closing."""

    async def loop() -> None:
        while True:
            try:
                async with SSHTerminal.connect(port) as term:
                    await term.wait_for_text("hello")
                    return
            except LoginRefused:
                continue

    await asyncio.wait_for(loop(), timeout)


def app_of(service: SSHService, nickname: str) -> EchoApp:
    session = service.sessions.get(nickname)
    assert session is not None and isinstance(session.app, EchoApp)
    return session.app


async def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    async with serving(tmp_path, max_per_address=1) as service:
        async with SSHTerminal.connect(service.port) as term:
            await term.wait_for_text("hello")
            with pytest.raises(LoginRefused, match="Too many connections from your address"):
                async with SSHTerminal.connect(service.port):
                    pass
        await eventually_logs_in(service.port)


async def test_total_connections_are_capped(tmp_path: Path) -> None:
    async with (
        serving(tmp_path, max_connections=1) as service,
        SSHTerminal.connect(service.port) as term,
    ):
        await term.wait_for_text("hello")
        with pytest.raises(LoginRefused, match="Server is full"):
            async with SSHTerminal.connect(service.port):
                pass


async def test_logins_in_progress_are_capped_and_floods_dropped(tmp_path: Path) -> None:
    async with serving(tmp_path, max_logins_in_progress=1) as service:
        async with raw_tcp(service.port, b"SSH-2.0-stalled\r\n"):  # no silent one to drop
            with pytest.raises(LoginRefused, match="Too many logins in progress"):
                async with SSHTerminal.connect(service.port):
                    pass
            async with raw_tcp(service.port), raw_tcp(service.port) as dropped:
                assert await dropped.read() == b""  # closed without a word
        await eventually_logs_in(service.port)


async def test_sessions_per_connection_are_capped(tmp_path: Path) -> None:
    async with (
        serving(tmp_path, max_sessions_per_connection=1) as service,
        SSHTerminal.connect(service.port) as term,
    ):
        await term.wait_for_text("hello")
        assert term.conn is not None
        with pytest.raises(asyncssh.ChannelOpenError):
            await term.conn.create_session(asyncssh.SSHClientSession, term_type="xterm")


async def test_commands_and_forwarding_are_refused(tmp_path: Path) -> None:
    async with serving(tmp_path) as service, SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("hello")
        conn = term.conn
        assert conn is not None
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.run("cat /etc/passwd", check=False)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_connection("127.0.0.1", service.port)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_unix_connection("/tmp/socket")
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.start_sftp_client()


async def test_slow_client_drops_frames_then_gets_a_full_repaint(tmp_path: Path) -> None:
    limits = {"output_high_water": 2048, "output_low_water": 512}
    async with (
        serving(tmp_path, **limits) as service,
        SSHTerminal.connect(service.port, username="slow", window=1024) as term,
    ):
        await term.wait_for_text("keys 0")
        session = service.sessions.get("slow")
        assert session is not None and session.driver is not None
        app = app_of(service, "slow")
        term.pause_reading()
        count = 0
        while not session.driver.dropped_frames:
            assert count < 1000, "output was never paused"
            await term.send_keys("k")
            assert await app.seen.get() == "k"
            count += 1
        assert f"keys {count}" not in term.text
        term.resume_reading()
        await term.wait_for_text(f"keys {count} last k")


async def test_client_far_behind_is_disconnected(tmp_path: Path) -> None:
    limits = {"output_high_water": 1 << 20, "output_hard_limit": 4096}
    async with (
        serving(tmp_path, **limits) as service,
        SSHTerminal.connect(service.port, window=1024) as term,
    ):
        await term.wait_for_text("keys 0")
        (session,) = service.sessions
        term.pause_reading()
        await term.resize(200, 60)
        await asyncio.wait_for(session.wait_closed(), 5)
        await term.wait_closed()
        assert len(service.sessions) == 0


async def test_stalled_client_holds_bounded_output_then_is_cut_off_restored(
    tmp_path: Path,
) -> None:
    """A client that stops reading costs at most high water plus a frame, is cut off after
    the stall timeout, and gets its terminal back and the reason if it reads again."""
    high_water = 2048
    limits = {"output_high_water": high_water, "output_low_water": 512}
    async with (
        serving(tmp_path, **limits, output_stall_timeout=3.0) as service,
        SSHTerminal.connect(service.port, window=1024) as term,
    ):
        await term.wait_for_text("keys 0")
        (session,) = service.sessions
        assert session.driver is not None
        app = app_of(service, "tester")
        term.pause_reading()
        count = 0
        while not session.driver.dropped_frames:  # the client window and high water fill up
            assert count < 500, "output was never paused"
            await term.send_keys("k")
            assert await asyncio.wait_for(app.seen.get(), 5) == "k"
            assert session.driver.unsent_output < high_water + 1024  # a frame is ~100 bytes
            count += 1
        await asyncio.wait_for(session.wait_closed(), 5)
        term.resume_reading()
        assert await term.wait_closed() == 1
        assert term.modes_not_restored == []
        assert term.said_after_restoring(OUTPUT_OVERFLOW)
        assert len(service.sessions) == 0


def test_inconsistent_limits_are_rejected() -> None:
    with pytest.raises(ValueError):
        SSHLimits(output_high_water=100, output_low_water=200)
    with pytest.raises(ValueError):
        SSHLimits(min_size=(600, 10))
