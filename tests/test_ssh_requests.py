"""Channel requests: env requests counted and sized, window changes counted and coalesced."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest
from sshclient import SSHTerminal
from test_ssh_input import until
from test_ssh_limits import app_of, serving
from test_ssh_server import EchoApp
from textual import events

from server.ssh import SSHLimits, start_ssh_server
from server.ssh.guard import TOO_MANY_ENV, TOO_MANY_RESIZES
from server.ssh.info import SessionInfo
from server.ssh.requests import ENV_VALUE_MAX, Environment, accepted_env_name


def test_the_private_asyncssh_hook_still_exists() -> None:
    """requests.intercept_env_requests replaces this handler; an upgrade that moves it fails."""
    assert callable(getattr(asyncssh.SSHServerChannel, "_process_env_request", None))


def test_only_the_variables_used_are_accepted() -> None:
    assert [accepted_env_name(n) for n in (b"LANG", b"LC_ALL", b"NO_COLOR", b"COLORTERM")] == [
        "LANG",
        "LC_ALL",
        "NO_COLOR",
        "COLORTERM",
    ]
    for name in (b"PATH", b"LD_PRELOAD", b"LC_\x1b", b"LANG" * 10, b"LC_\xff"):
        assert accepted_env_name(name) is None


def test_environment_keeps_few_short_values_and_counts_requests() -> None:
    env = Environment(max_requests=40)
    assert not env.request(b"LANG", b"x" * (ENV_VALUE_MAX + 1))
    assert env.request(b"LANG", b"C.UTF-8\x1b[31m")
    assert all(env.request(f"LC_X{i}".encode(), b"C") for i in range(15))
    assert not env.request(b"LC_ONE_TOO_MANY", b"C")
    assert env.variables["LANG"] == "C.UTF-8[31m"
    assert len(env.variables) == 16
    assert not env.exhausted
    for _ in range(23):
        env.request(b"PATH", b"/bin")
    assert env.exhausted


async def test_the_app_sees_only_the_variables_used(tmp_path: Path) -> None:
    sent = {"LANG": "C.UTF-8", "NO_COLOR": "1", "PATH": "/bin", "SECRET": "s" * 30_000}
    async with (
        serving(tmp_path) as service,
        SSHTerminal.connect(service.port, env=sent) as term,
    ):
        await term.wait_for_text("keys 0")
        assert app_of(service, "tester").info.environment == {"LANG": "C.UTF-8", "NO_COLOR": "1"}


async def test_an_env_flood_is_refused_then_disconnected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    flood = {f"V{i}": "v" * 30_000 for i in range(100)}
    async with serving(tmp_path, max_env_requests=64) as service:
        with pytest.raises((asyncssh.Error, OSError)):
            async with SSHTerminal.connect(service.port, env=flood) as term:
                await term.wait_closed()
        await until(lambda: len(service.sessions) == 0, "the session to end")
    assert f"from 127.0.0.1: {TOO_MANY_ENV}" in caplog.text


class ResizeCounter(EchoApp):
    """An EchoApp that counts the resizes it is told of."""

    def __init__(self, info: SessionInfo) -> None:
        super().__init__(info)
        self.resizes = 0

    def on_resize(self, event: events.Resize) -> None:
        self.resizes += 1
        super().on_resize(event)


async def test_window_changes_are_coalesced(tmp_path: Path) -> None:
    limits = SSHLimits(resize_interval=0.5)
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, ResizeCounter, limits)
    try:
        async with SSHTerminal.connect(service.port) as term:
            await term.wait_for_text("size 80x24")
            app = app_of(service, "tester")
            assert isinstance(app, ResizeCounter)
            before = app.resizes
            for width in range(81, 121):
                await term.resize(width, 30)
            await term.wait_for_text("size 120x30")
            assert app.resizes - before <= 3
    finally:
        await service.close()


async def test_a_window_change_flood_disconnects(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = {"window_change_rate": 1.0, "window_change_burst": 50}
    async with serving(tmp_path, **limits) as service, SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        for width in range(100):
            await term.resize(40 + width, 30)
        assert await term.wait_closed() == 1
        assert term.modes_not_restored == []
        assert term.said_after_restoring(TOO_MANY_RESIZES)
    assert f"from 127.0.0.1: {TOO_MANY_RESIZES}" in caplog.text
