"""Channel requests a session accepts: the environment variables it uses, counted and sized,
and window-size changes, counted and coalesced.

asyncssh keeps every `env` request a client sends (OpenSSH's AcceptEnv accepts none by
default) and offers no hook to refuse one; `intercept_env_requests` installs one. It is the
only use of asyncssh internals here (asyncssh is pinned to 2.24.x; tests/test_ssh_requests.py
names the private symbol and fails if a release moves it).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from server.services.sanitize import clean_text
from server.ssh.input import TokenBucket

ACCEPTED_ENV = frozenset({"TERM", "LANG", "NO_COLOR", "COLORTERM"})
ACCEPTED_ENV_PREFIX = "LC_"
ENV_NAME_MAX = 32
ENV_VALUE_MAX = 64
ENV_KEPT_MAX = 16
"""Variables kept per session at most (LC_* is an open family of names)."""


def accepted_env_name(name: bytes) -> str | None:
    """`name` as text if it is a variable lovelet uses, else None."""
    if len(name) > ENV_NAME_MAX or not name.isascii():
        return None
    text = name.decode("ascii")
    if text in ACCEPTED_ENV or (
        text.startswith(ACCEPTED_ENV_PREFIX) and text[3:].replace("_", "").isalnum()
    ):
        return text
    return None


class Environment:
    """The environment one session keeps: counted requests, known names, short values."""

    def __init__(self, max_requests: int) -> None:
        self._max_requests = max_requests
        self._requests = 0
        self._kept: dict[str, str] = {}

    @property
    def variables(self) -> Mapping[str, str]:
        """The variables kept, values sanitised."""
        return dict(self._kept)

    @property
    def exhausted(self) -> bool:
        """More requests arrived than a session may make."""
        return self._requests > self._max_requests

    def request(self, name: bytes, value: bytes) -> bool:
        """Account for one `env` request; True if the variable is kept."""
        self._requests += 1
        key = accepted_env_name(name)
        if self.exhausted or key is None or len(value) > ENV_VALUE_MAX:
            return False
        if key not in self._kept and len(self._kept) >= ENV_KEPT_MAX:
            return False
        self._kept[key] = clean_text(value.decode("utf-8", "replace"), ENV_VALUE_MAX)
        return True


class WindowChanges:
    """Counts window-size changes and passes the latest on at most every `interval` seconds."""

    def __init__(
        self, apply: Callable[[], None], *, rate: float, burst: int, interval: float
    ) -> None:
        self._apply = apply
        self._budget = TokenBucket(rate, burst)
        self._interval = interval
        self._applied_at = -math.inf
        self._timer: asyncio.TimerHandle | None = None

    def changed(self) -> bool:
        """One window-change request; False when the client sends more than its budget."""
        if not self._budget.take(1):
            return False
        if self._timer is None:
            wait = self._applied_at + self._interval - time.monotonic()
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)
        return True

    def close(self) -> None:
        """Apply nothing more."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        self._applied_at = time.monotonic()
        self._apply()


def intercept_env_requests(channel: Any, handler: Callable[[bytes, bytes], bool]) -> None:
    """Route `channel`'s env requests to `handler(name, value)`; its answer is the reply.

    asyncssh looks the request handler up by name on the channel, so an instance attribute
    takes the place of `SSHServerChannel._process_env_request`, which stores every variable.
    """

    def process_env_request(packet: Any) -> bool:
        name = packet.get_string()
        value = packet.get_string()
        packet.check_end()
        return handler(name, value)

    channel._process_env_request = process_env_request
