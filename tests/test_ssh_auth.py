"""Identity is bound only to the key that completed authentication."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pyte
import pytest
from test_ssh_server import EchoApp

from server.ssh import SSHLimits, SSHService, start_ssh_server
from server.ssh.auth import LoveletSSHServer
from server.ssh.keys import fingerprint
from server.ssh.limits import ConnectionGate
from server.ssh.registry import SessionRegistry
from server.ssh.session import LoveletSession, SessionConfig


class FakeConn:
    """Just enough of an SSHServerConnection for the auth callbacks."""

    _packet_handlers = asyncssh.SSHServerConnection._packet_handlers

    def __init__(self) -> None:
        self.banners: list[str] = []

    def send_userauth_failure(self, partial_success: bool) -> None:
        pass

    def send_packet(self, pkttype: int, *args: bytes, handler: Any = None) -> None:
        pass

    def abort(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("192.0.2.1", 4242) if name == "peername" else default

    def send_auth_banner(self, msg: str) -> None:
        self.banners.append(msg)


def logged_in_server() -> tuple[LoveletSSHServer, FakeConn]:
    limits = SSHLimits()
    config = SessionConfig(EchoApp, SessionRegistry(), limits)
    server = LoveletSSHServer(ConnectionGate(limits), config)
    conn = FakeConn()
    server.connection_made(conn)  # type: ignore[arg-type]
    return server, conn


def identity_of(server: LoveletSSHServer) -> str | None:
    session = server.session_requested()
    assert isinstance(session, LoveletSession)
    return session._login.identity


KEY_A = asyncssh.generate_private_key("ssh-ed25519")
KEY_B = asyncssh.generate_private_key("ssh-ed25519")


async def test_identity_is_the_key_that_completed_auth() -> None:
    server, conn = logged_in_server()
    assert server.begin_auth("alice")
    assert "ssh-keygen -t ed25519" in conn.banners[0]
    server.validate_public_key("alice", KEY_A)  # unsigned query only
    server.validate_public_key("alice", KEY_B)  # query, then signature verified
    server.auth_completed()
    assert identity_of(server) == fingerprint(KEY_B)


async def test_key_offered_then_keyboard_interactive_is_a_guest() -> None:
    server, _ = logged_in_server()
    server.begin_auth("mallory")
    server.validate_public_key("mallory", KEY_A)  # someone else's public key, never signed
    assert server.get_kbdint_challenge("mallory", "", "") is True
    server.auth_completed()
    assert identity_of(server) is None


async def test_password_auth_is_off() -> None:
    server, _ = logged_in_server()
    assert server.password_auth_supported() is False


# With the real OpenSSH client, which queries each key before signing with it.

needs_openssh = pytest.mark.skipif(
    not (shutil.which("ssh") and shutil.which("ssh-keygen")), reason="needs OpenSSH client"
)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[SSHService]:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path / "data", EchoApp)
    yield service
    await service.close()


Process = asyncio.subprocess.Process


async def run_openssh(port: int, user: str, *options: str) -> tuple[Process, str]:
    """Start `ssh -tt` and wait until the app greets; return the process and the screen."""
    process = await asyncio.create_subprocess_exec(
        "ssh",
        "-tt",
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "IdentityAgent=none",
        "-o",
        "LogLevel=ERROR",
        *options,
        "-p",
        str(port),
        f"{user}@127.0.0.1",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    screen = pyte.Screen(40, 12)
    stream = pyte.ByteStream(screen)

    async def until_greeted() -> str:
        assert process.stdout is not None
        while f"hello {user}" not in (text := "\n".join(screen.display)):
            chunk = await process.stdout.read(4096)
            assert chunk, f"ssh ended early:\n{text}"
            stream.feed(chunk)
        return text

    return process, await asyncio.wait_for(until_greeted(), 10)


async def quit_openssh(process: Process) -> int:
    assert process.stdin is not None
    process.stdin.write(b"q")
    await process.stdin.drain()
    return await asyncio.wait_for(process.wait(), 10)


@needs_openssh
async def test_openssh_queried_key_that_never_signs_is_not_the_identity(
    service: SSHService, tmp_path: Path
) -> None:
    # The decoy's public key is offered and accepted, but its private key is locked, so
    # ssh goes on to sign with the second key: the identity must be the second key.
    decoy, key = tmp_path / "decoy", tmp_path / "id_ed25519"
    keygen = await asyncio.create_subprocess_exec(
        "ssh-keygen", "-q", "-t", "ed25519", "-N", "locked", "-f", str(decoy)
    )
    assert await keygen.wait() == 0
    KEY_B.write_private_key(key)
    key.chmod(0o600)
    options = ("-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-i", str(decoy), "-i", str(key))
    process, _ = await run_openssh(service.port, "dave", *options)
    session = service.sessions.get("dave")
    assert session is not None and session.info is not None
    assert session.info.identity == fingerprint(KEY_B)
    assert await quit_openssh(process) == 0


@needs_openssh
async def test_openssh_guest_login(service: SSHService) -> None:
    process, text = await run_openssh(service.port, "erin", "-o", "PubkeyAuthentication=no")
    session = service.sessions.get("erin")
    assert session is not None and session.info is not None
    assert session.info.guest
    assert "who guest" in text
    assert await quit_openssh(process) == 0
