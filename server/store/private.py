"""Files only the service's user may read: the data directory (0700), the database, its
backups and the host key (0600), whatever the umask."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600

log = logging.getLogger(__name__)


def private_dir(path: Path) -> None:
    """Create the directory `path` (0700) if missing, or take group's and others' rights."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    tighten(path, PRIVATE_DIR)


def tighten(path: Path, mode: int) -> None:
    """Take from `path` any right `mode` lacks, logging the change (or why it failed)."""
    current = stat.S_IMODE(path.stat().st_mode)
    if current & ~mode:
        try:
            path.chmod(current & mode)
        except OSError as error:
            log.warning("cannot make %s private (mode %o): %s", path, current, error)
        else:
            log.info("made %s private: mode %o, was %o", path, current & mode, current)
