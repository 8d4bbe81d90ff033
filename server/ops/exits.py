"""The exit statuses of `lovelet serve`, for supervisors: systemd's RestartPreventExitStatus
in deploy/*.service lists those a restart cannot cure, and `--workers` stops rather than
restart a part that exits with one of them."""

from __future__ import annotations

STOPPED = 0
"""SIGTERM or SIGINT: a clean stop."""
FAILED = 1
"""A failure a restart may cure: the port in use, the database busy or unreachable, the
broker unreachable at start, or another core took the lease."""
REFUSED_CONFIG = 2
"""The configuration is refused (a bad setting, a role without a broker, a bad flag)."""
REFUSED_DATA = 3
"""The data directory needs the operator: a database written by a newer lovelet, a failed
migration, or a host key that cannot be read."""
INCURABLE = (REFUSED_CONFIG, REFUSED_DATA)
"""What restarting cannot change."""
