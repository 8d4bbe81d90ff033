"""Hostile clients before and around login (issue 12): real SSH clients against the real
server on loopback; each refusal is logged as one `refused` event with the address and the
reason. Attackers and bystanders use different loopback addresses (127.0.0.2, .3, ...)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh
import pytest
from asyncssh.constants import MSG_KEXINIT
from asyncssh.public_key import SSHLocalKeyPair
from e2e_helpers import wait_text
from sshclient import LoginRefused, SSHTerminal
from test_ops_limits import logged, serving

from server.ops.logs import EVENTS
from server.services.addresses import address_key
from server.ssh.auth import FORWARDING_REFUSED
from server.ssh.limits import ConnectionGate, SSHLimits

STALLED = b"SSH-2.0-stalled\r\n"
"""The version string of a client that sends it, then stalls in key exchange."""
DROP_WAIT = 5.0
"""Seconds a test waits for the server to drop a connection (its deadline is shorter)."""
ATTACKER, SECOND_ATTACKER, BYSTANDER = "127.0.0.2", "127.0.0.4", "127.0.0.3"


@pytest.fixture
def events(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger=EVENTS)
    return caplog


def refusals(caplog: pytest.LogCaptureFixture, reason: str) -> list[str]:
    """The addresses of every refusal logged with this reason."""
    return [f["address"] for f in logged(caplog, "refused") if f["reason"] == reason]


@asynccontextmanager
async def half_open(
    port: int, source: str, version: bytes = b""
) -> AsyncIterator[asyncio.StreamReader]:
    """A TCP connection from `source` that reads the server's version and sends nothing; or
    only `version`, its own version string: then it yields once the server has answered it
    (began key exchange) and stalls there."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        assert (await reader.readline()).startswith(b"SSH-2.0-")
        if version:
            writer.write(version)
            assert (await reader.readexactly(6))[5] == MSG_KEXINIT
        yield reader
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """Whether the server closes the connection within DROP_WAIT seconds."""
    try:
        async with asyncio.timeout(DROP_WAIT):
            while await reader.read(4096):
                pass
    except TimeoutError:
        return False
    except OSError:
        pass
    return True


async def signed_in(port: int, name: str, source: str) -> None:
    """Log in from `source`, see the lobby, quit with ctrl+q."""
    async with SSHTerminal.connect(port, username=name, source=source) as term:
        await wait_text(term, f"signed in as {name}")
        await term.send("\x11")
        assert await term.wait_closed() == 0


# ---------------------------------------------------------------- logins in progress


async def test_half_open_connections_from_one_address_do_not_lock_out_another(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server, contextlib.AsyncExitStack() as stack:
        for source in (ATTACKER, SECOND_ATTACKER):  # the 2 × 10 idle connections
            for _ in range(10):
                await stack.enter_async_context(half_open(server.port, source))
        with pytest.raises(LoginRefused) as refused:
            async with SSHTerminal.connect(server.port, source=ATTACKER):
                pass
        assert "Too many logins in progress from your address" in refused.value.banner
        await signed_in(server.port, "bystander", source=BYSTANDER)
        refused_from = refusals(events, "logins_per_address")
        assert set(refused_from) == {ATTACKER, SECOND_ATTACKER} and len(refused_from) == 13
        assert server.refusals("logins_per_address") == 13  # 6 + 6 sockets and 1 login


async def test_a_handshake_that_never_finishes_is_dropped_by_its_deadline(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path, handshake_timeout=1, login_timeout=30) as server:
        async with half_open(server.port, ATTACKER) as silent:
            started = time.monotonic()
            assert await closed_by_server(silent)
            assert time.monotonic() - started < 30  # the login deadline did not do it
        assert refusals(events, "handshake_timeout") == [ATTACKER]
        await signed_in(server.port, "after", source=BYSTANDER)  # the deadline spares logins


async def test_logins_in_progress_past_the_start_are_dropped_at_random(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    settings = {"early_drop_start": 1, "early_drop_rate": 1.0, "concurrent_logins": 5}
    async with serving(tmp_path, **settings) as server, half_open(server.port, ATTACKER, STALLED):
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=(BYSTANDER, 0)
        )
        try:
            assert await closed_by_server(reader)
        finally:
            writer.close()
        assert refusals(events, "early_drop") == [BYSTANDER]


class FakeConn:
    """A connection as the gate sees it: whether its client sent a version, whether it was
    dropped."""

    def __init__(self, version: str | None = "SSH-2.0-OpenSSH_9.6") -> None:
        self.version = version
        self.aborted = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self.version if name == "client_version" else default

    def close(self) -> None: ...

    def abort(self) -> None:
        self.aborted = True


def test_the_early_drop_chance_rises_from_the_rate_at_start_to_one_when_full() -> None:
    limits = SSHLimits(early_drop_start=2, early_drop_rate=0.3, max_logins_in_progress=4)
    gate = ConnectionGate(limits, chance=lambda: 0.99)  # never drops below a chance of 1
    chances = []
    for number in range(4):
        chances.append(gate.drop_chance())
        assert gate.admit(f"192.0.2.{number}", FakeConn()) is None
    assert chances == [0.0, 0.0, 0.3, pytest.approx(0.65)]
    assert gate.drop_chance() == 1.0


# ---------------------------------------------------------------- IPv6 networks


def test_ipv6_addresses_count_by_their_network() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("2001:db8::1", 128) != address_key("2001:db8::2", 128)
    assert address_key("::ffff:192.0.2.7") == address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("fe80::1%eth0") == "fe80::/64"


def test_one_ipv6_host_with_a_64_cannot_pass_the_per_address_caps() -> None:
    gate = ConnectionGate(SSHLimits(max_logins_per_address=2, max_per_address=3))
    first, second = FakeConn(), FakeConn()
    assert gate.admit("2001:db8::1", first) is None
    assert gate.admit("2001:db8::2", second) is None
    assert "from your address" in (gate.admit("2001:db8::3", FakeConn()) or "")
    assert gate.admit("2001:db8:0:1::1", FakeConn()) is None
    gate.logged_in(first)
    gate.logged_in(second)
    assert gate.admit("2001:db8::4", FakeConn()) is None
    assert "Too many connections" in (gate.admit("2001:db8::5", FakeConn()) or "")


# ---------------------------------------------------------------- authentication attempts


class BadSigner(SSHLocalKeyPair):
    """A key pair whose signatures never verify (it signs other data than asked)."""

    def __init__(self) -> None:
        super().__init__(asyncssh.generate_private_key("ssh-ed25519"), None, None, None)

    def sign(self, data: bytes) -> bytes:
        """A well-formed signature of the wrong data."""
        return super().sign(data + b"!")


class Forger(asyncssh.SSHClient):
    """Offers its bad signature again and again."""

    def __init__(self) -> None:
        self.signer = BadSigner()
        self.tries = 0

    def public_key_auth_requested(self) -> list[BadSigner] | None:  # type: ignore[override]
        self.tries += 1
        return [self.signer] if self.tries <= 100 else None


async def test_failed_signatures_are_capped_then_the_connection_is_closed(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path, auth_tries=3) as server:
        forger = Forger()
        with pytest.raises(asyncssh.DisconnectError, match="Too many authentication failures"):
            await asyncssh.connect(
                "127.0.0.1",
                server.port,
                username="mallory",
                local_addr=(ATTACKER, 0),
                client_factory=lambda: forger,
                known_hosts=None,
                client_keys=None,  # only the forger's key, not the user's ~/.ssh ones
                agent_path=None,
                config=None,
                password_auth=False,
                kbdint_auth=False,
            )
        assert forger.tries == 4  # `none` is failure 1; signatures 2-4 are answered, 5 is not
        assert refusals(events, "auth_tries") == [ATTACKER]


# ---------------------------------------------------------------- channels and requests


needs_openssh = pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client")


@needs_openssh
async def test_openssh_stdio_forward_is_administratively_prohibited(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server:
        process = await asyncio.create_subprocess_exec(
            *("ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no"),
            *("-o", "UserKnownHostsFile=/dev/null", "-o", "IdentityAgent=none"),
            *("-o", "PubkeyAuthentication=no", "-o", "LogLevel=INFO"),
            *("-W", "127.0.0.1:9", "-p", str(server.port), "erin@127.0.0.1"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "TERM": "xterm"},
        )
        _, err = await asyncio.wait_for(process.communicate(), 20)
        assert process.returncode != 0
        assert f"administratively prohibited: {FORWARDING_REFUSED}" in err.decode()
        assert refusals(events, "forwarding") == ["127.0.0.1"]


async def test_local_forwards_are_administratively_prohibited(tmp_path: Path) -> None:
    async with serving(tmp_path) as server, SSHTerminal.connect(server.port) as term:
        assert term.conn is not None
        with pytest.raises(asyncssh.ChannelOpenError) as refused:
            await term.conn.open_connection("127.0.0.1", server.port)
        assert refused.value.code == asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED


async def test_a_flood_of_channel_opens_and_global_requests_is_cut_off(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with (
        serving(tmp_path, request_burst=6, request_rate=0.1) as server,
        SSHTerminal.connect(server.port, username="flood", source=ATTACKER) as term,
    ):
        await wait_text(term, "signed in as flood")  # its session was the first request
        conn = term.conn
        assert conn is not None
        rounds = 0
        while not conn.is_closed() and rounds < 30:
            rounds += 1
            with contextlib.suppress(asyncssh.Error, asyncssh.ChannelListenError, OSError):
                await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 9)  # global request
            with contextlib.suppress(asyncssh.Error, OSError):
                await conn.open_connection("127.0.0.1", 9)  # channel open
        await asyncio.wait_for(conn.wait_closed(), DROP_WAIT)
        assert rounds <= 3  # 1 session + 2 requests a round: the 7th request is one too many
        assert refusals(events, "requests") == [ATTACKER]


# ---------------------------------------------------------------- names


async def test_a_fullwidth_admin_is_not_let_in_as_admin(tmp_path: Path) -> None:
    async with (
        serving(tmp_path) as server,
        SSHTerminal.connect(server.port, username="ａｄｍｉｎ") as term,
    ):
        await wait_text(term, "is reserved")  # the notice, in a toast
        await wait_text(term, "signed in as player-2")
