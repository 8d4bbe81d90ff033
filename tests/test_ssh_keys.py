"""The server's host key."""

from __future__ import annotations

import stat
from pathlib import Path

import asyncssh
import pytest

from server.ssh import HostKeyError, start_ssh_server
from server.ssh.keys import HOST_KEY_NAME, fingerprint, load_or_create_host_key


def test_host_key_is_created_private_and_reused(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = load_or_create_host_key(data_dir)
    path = data_dir / HOST_KEY_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first.algorithm == b"ssh-ed25519"
    again = load_or_create_host_key(data_dir)
    assert fingerprint(again) == fingerprint(first)
    assert fingerprint(first).startswith("SHA256:")
    assert [p.name for p in data_dir.iterdir()] == [HOST_KEY_NAME]


def test_corrupt_key_stops_startup_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / HOST_KEY_NAME
    path.write_bytes(b"not a key")
    with pytest.raises(HostKeyError, match=HOST_KEY_NAME):
        load_or_create_host_key(tmp_path)
    assert path.read_bytes() == b"not a key"


def test_unreadable_key_stops_startup(tmp_path: Path) -> None:
    (tmp_path / HOST_KEY_NAME).mkdir()
    with pytest.raises(HostKeyError):
        load_or_create_host_key(tmp_path)


def test_empty_key_file_stops_startup(tmp_path: Path) -> None:
    (tmp_path / HOST_KEY_NAME).write_bytes(b"")
    with pytest.raises(HostKeyError):
        load_or_create_host_key(tmp_path)


async def test_restarted_server_presents_the_same_host_key(tmp_path: Path) -> None:
    seen = []
    for _ in range(2):
        service = await start_ssh_server("127.0.0.1", 0, tmp_path, lambda info: None)
        host_key = await asyncssh.get_server_host_key("127.0.0.1", service.port)
        assert host_key is not None
        seen.append((service.fingerprint, fingerprint(host_key)))
        await service.close()
    assert seen[0] == seen[1]
    assert seen[0][0] == seen[0][1]


async def test_corrupt_key_stops_the_server(tmp_path: Path) -> None:
    (tmp_path / HOST_KEY_NAME).write_text("-----BEGIN OPENSSH PRIVATE KEY-----\ngarbage\n")
    with pytest.raises(HostKeyError, match="cannot use SSH host key"):
        await start_ssh_server("127.0.0.1", 0, tmp_path, lambda info: None)
