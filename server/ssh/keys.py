"""The server's ed25519 host key: created once in the data directory, then reused."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import asyncssh

from ..store.private import private_dir

HOST_KEY_NAME = "ssh_host_ed25519_key"

log = logging.getLogger(__name__)


class HostKeyError(Exception):
    """The host key file exists but cannot be used; start-up must stop."""


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The key's SHA256 fingerprint, as `ssh-keygen -l` prints it (`SHA256:...`)."""
    return key.get_fingerprint("sha256")


def load_or_create_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """Return the host key in `data_dir`, generating it (mode 0600) on first start.

    Raises HostKeyError if the file exists but is unreadable or corrupt: a changed host key
    would make every client warn about a man-in-the-middle, so it is never regenerated.
    """
    path = data_dir / HOST_KEY_NAME
    private_dir(data_dir)  # a front-end's directory holds no database to make it private
    if path.exists() or path.is_symlink():
        return _read_host_key(path)
    key = asyncssh.generate_private_key("ssh-ed25519")
    _write_new_file(path, key.export_private_key())
    log.info("generated SSH host key %s (%s)", path, fingerprint(key))
    return key


def _read_host_key(path: Path) -> asyncssh.SSHKey:
    try:
        key = asyncssh.read_private_key(path)
    except (OSError, asyncssh.KeyImportError, ValueError) as error:
        raise HostKeyError(
            f"cannot use SSH host key {path}: {error}. Fix or restore the file; "
            "delete it only if clients may see a new host key."
        ) from error
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        log.warning("SSH host key %s is readable by others; run chmod 600 on it", path)
    return key


def _write_new_file(path: Path, data: bytes) -> None:
    """Write `data` to a new file with mode 0600, atomically, never replacing a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
