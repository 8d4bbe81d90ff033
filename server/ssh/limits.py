"""Limits for the SSH service and the admission of new connections."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.ops.config import DEFAULTS, Config
from server.services.addresses import address_key, network_key

_LIMITS = DEFAULTS.limits


@dataclass(frozen=True, slots=True)
class SSHLimits:
    """Every bound the SSH layer enforces, in one place."""

    max_connections: int = _LIMITS.max_connections
    max_per_address: int = _LIMITS.per_address
    max_logins_in_progress: int = _LIMITS.concurrent_logins
    """Connections not yet logged in, in total: at this many every new one is dropped."""
    max_logins_per_address: int = _LIMITS.logins_per_address
    """Connections not yet logged in from one address (IPv6: one /`ipv6_prefix` network)."""
    max_logins_per_network: int = _LIMITS.logins_per_network
    """Connections not yet logged in from one network (`ipv4_network_prefix`,
    `ipv6_network_prefix`)."""
    ipv4_network_prefix: int = _LIMITS.ipv4_network_prefix
    ipv6_network_prefix: int = _LIMITS.ipv6_network_prefix
    early_drop_start: int = _LIMITS.early_drop_start
    """From this many connections not yet logged in, new ones are dropped at random."""
    early_drop_rate: float = _LIMITS.early_drop_rate
    """The chance of that drop at `early_drop_start`, rising to 1 at `max_logins_in_progress`
    (counting only connections that have sent their SSH version string)."""
    version_timeout: float = _LIMITS.version_timeout
    """From `early_drop_start` on, connections silent this long (no SSH version string) are
    dropped first."""
    ipv6_prefix: int = _LIMITS.ipv6_prefix
    """IPv6 addresses in one network of this prefix length count as one address."""
    max_sessions_per_connection: int = 1
    handshake_timeout: float = _LIMITS.handshake_timeout
    """Seconds from the TCP connection to the client's first authentication request."""
    login_timeout: float = _LIMITS.login_timeout
    max_auth_tries: int = _LIMITS.auth_tries
    """Failed authentication attempts on one connection (the first `none` probe not counted)."""
    request_rate: float = _LIMITS.request_rate
    """Channel opens and global requests per second on one connection, sustained."""
    request_burst: int = _LIMITS.request_burst
    keepalive_interval: float = 30.0
    keepalive_count_max: int = 3
    min_size: tuple[int, int] = (20, 10)
    max_size: tuple[int, int] = (500, 200)
    output_high_water: int = 64 * 1024
    """Frames are dropped while the channel holds more than this, until it drains."""
    output_low_water: int = 16 * 1024
    output_hard_limit: int = 1024 * 1024
    """A session whose unsent output exceeds this is disconnected."""
    output_stall_timeout: float = 60.0
    """A session whose output stays paused this long is disconnected."""
    close_timeout: float = 5.0
    """How long a session's app may take to exit when asked politely."""
    input_rate: float = 1024.0
    """Sustained bytes per second read from one session; reading pauses when it is faster."""
    input_burst: int = 8 * 1024
    input_window: int = 64 * 1024
    """SSH receive window per channel: the most input buffered while reading is paused."""
    input_buffer: int = 4 * 1024
    """Bytes of one session's input waiting for its app before reading pauses."""
    input_chunk: int = 64
    """Bytes of one session's input turned into events per turn of the event loop."""
    key_rate: float = _LIMITS.keys_per_second
    """Keys per second one session may send, sustained; the excess is dropped."""
    key_burst: int = _LIMITS.key_burst
    key_flood: int = _LIMITS.key_flood
    """Dropped keys (forgiven at key_rate per second) before a session is disconnected."""
    cpu_share: float = _LIMITS.cpu_share
    """Seconds of the server's time one session may cause a second, sustained (its app's
    updates and renders, its input): past it, its input waits (server/ssh/cost.py)."""
    cpu_burst: float = _LIMITS.cpu_burst
    """Seconds of the server's time a session may use at once before its share applies."""
    cpu_pool: float = _LIMITS.cpu_pool
    """Seconds a second the server lends, in all, to sessions past their share (split evenly
    among those borrowing lately)."""
    cpu_cut_off: float = _LIMITS.cpu_cut_off
    """A session held back this long, without 10 s of rest, is disconnected."""
    max_env_requests: int = 64
    """`env` requests one session may send; more disconnect it."""
    window_change_rate: float = 20.0
    """Window-size changes per second one session may send, sustained; more disconnect it."""
    window_change_burst: int = 400
    resize_interval: float = 0.2
    """Seconds between two resizes passed to the app (the latest size wins)."""
    max_paste: int = 64 * 1024
    """A bracketed paste longer than this (characters) disconnects the session."""
    bot_request_rate: float = _LIMITS.bot_frames_per_second
    """Frames per second a bot API client may send, sustained (a terminal's key_rate); the
    excess is refused."""
    bot_request_burst: int = _LIMITS.bot_frame_burst
    bot_max_errors: int = _LIMITS.bot_errors
    """Errors a bot API client may run up before it is disconnected (docs/bot-api.md)."""
    bot_error_forgiveness: float = 6.0
    """Seconds after which one of those errors is forgiven."""

    def __post_init__(self) -> None:
        if not 0 <= self.early_drop_rate <= 1:
            raise ValueError("SSHLimits needs 0 <= early_drop_rate <= 1")
        if not (0 <= self.ipv6_prefix <= 128 and 0 <= self.ipv6_network_prefix <= 128):
            raise ValueError("SSHLimits needs IPv6 prefixes of 0 to 128")
        if not 0 <= self.ipv4_network_prefix <= 32:
            raise ValueError("SSHLimits needs 0 <= ipv4_network_prefix <= 32")
        if not 0 <= self.output_low_water <= self.output_high_water:
            raise ValueError("SSHLimits needs 0 <= output_low_water <= output_high_water")
        (min_w, min_h), (max_w, max_h) = self.min_size, self.max_size
        if not (1 <= min_w <= max_w and 1 <= min_h <= max_h):
            raise ValueError("SSHLimits needs 1 <= min_size <= max_size")

    @classmethod
    def from_config(cls, config: Config) -> SSHLimits:
        """The limits `config` sets; the ones it has no setting for keep their defaults."""
        limits = config.limits
        return cls(
            max_connections=limits.max_connections,
            max_per_address=limits.per_address,
            max_logins_in_progress=limits.concurrent_logins,
            login_timeout=limits.login_timeout,
            key_rate=limits.keys_per_second,
            key_burst=limits.key_burst,
            key_flood=limits.key_flood,
            cpu_share=limits.cpu_share,
            cpu_burst=limits.cpu_burst,
            cpu_pool=limits.cpu_pool,
            cpu_cut_off=limits.cpu_cut_off,
            max_logins_per_address=limits.logins_per_address,
            max_logins_per_network=limits.logins_per_network,
            ipv4_network_prefix=limits.ipv4_network_prefix,
            ipv6_network_prefix=limits.ipv6_network_prefix,
            version_timeout=limits.version_timeout,
            early_drop_start=limits.early_drop_start,
            early_drop_rate=limits.early_drop_rate,
            handshake_timeout=limits.handshake_timeout,
            max_auth_tries=limits.auth_tries,
            ipv6_prefix=limits.ipv6_prefix,
            request_burst=limits.request_burst,
            request_rate=limits.request_rate,
            bot_request_rate=limits.bot_frames_per_second,
            bot_request_burst=limits.bot_frame_burst,
            bot_max_errors=limits.bot_errors,
        )

    def clamp_size(self, width: int, height: int) -> tuple[int, int]:
        """Clamp a terminal size reported by a client."""
        (min_w, min_h), (max_w, max_h) = self.min_size, self.max_size
        return min(max(width, min_w), max_w), min(max(height, min_h), max_h)


EARLY_DROP = "Dropped at random: too many logins in progress."
"""The reason `ConnectionGate.admit` gives for a random early drop (never shown to a client)."""


class Connection(Protocol):
    """What the gate needs from a connection (an `asyncssh.SSHServerConnection`)."""

    def get_extra_info(self, name: str, default: Any = None) -> Any: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


def greeted(conn: Connection) -> bool:
    """Whether the client has sent its SSH version string (asyncssh's public extra info)."""
    return conn.get_extra_info("client_version") is not None


@dataclass(frozen=True, slots=True)
class Admitted:
    """An admitted connection: its address, what the limits count it as, when it came."""

    address: str
    key: str
    network: str
    opened: float


class ConnectionGate:
    """Counts connections by state, address and network and decides whether to admit another.

    Addresses are counted by `address_key`, networks by `network_key`. Connections not yet
    logged in are capped per address, per network and in total, and new ones are dropped at
    random in between (OpenSSH's MaxStartups), by a chance that counts only the connections
    that have sent their SSH version string. A real client sends it at once, so silent ones go
    first: from `early_drop_start` on, a new connection first drops those silent for
    `version_timeout` seconds, and at `max_logins_in_progress` it takes the place of the one
    silent longest. `dropped(address)` hears of each connection dropped so.
    """

    def __init__(
        self,
        limits: SSHLimits,
        chance: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
        dropped: Callable[[str], None] = lambda address: None,
    ) -> None:
        self._limits = limits
        self._chance = chance
        self._clock = clock
        self._dropped = dropped
        self._open: dict[Connection, Admitted] = {}
        self._starting: dict[Connection, Admitted] = {}
        """The open connections not yet logged in, oldest first."""
        self._per_address: Counter[str] = Counter()
        self._starting_from: Counter[str] = Counter()
        self._starting_in: Counter[str] = Counter()
        self._refusing = 0
        self._open_for_business = True

    @property
    def accepting(self) -> bool:
        """False once shutdown has begun: no new connections or sessions."""
        return self._open_for_business

    def shut(self) -> None:
        """Refuse everything from now on."""
        self._open_for_business = False

    @property
    def total(self) -> int:
        """Open connections."""
        return len(self._open)

    def key(self, address: str) -> str:
        """The address as the per-address limits count it."""
        return address_key(address, self._limits.ipv6_prefix)

    def network(self, address: str) -> str:
        """The network of the address, as the per-network limits count it."""
        limits = self._limits
        return network_key(address, limits.ipv4_network_prefix, limits.ipv6_network_prefix)

    def admit(self, address: str, conn: Connection) -> str | None:
        """Register a new connection; return a refusal reason instead if over a limit.

        `EARLY_DROP` is returned for a connection dropped at random: close it without a word.
        """
        if not self._open_for_business:
            return "The server is shutting down."
        now = self._clock()
        if len(self._starting) >= self._limits.early_drop_start:
            self._drop_silent(opened_by=now - self._limits.version_timeout)
        new = Admitted(address, self.key(address), self.network(address), now)
        reason = self._refusal(new)
        if reason is None:
            self._open[conn] = self._starting[conn] = new
            self._per_address[new.key] += 1
            self._starting_from[new.key] += 1
            self._starting_in[new.network] += 1
        return reason

    def _refusal(self, new: Admitted) -> str | None:
        limits = self._limits
        if len(self._open) >= limits.max_connections:
            return "Server is full, please try again later."
        if self._per_address[new.key] >= limits.max_per_address:
            return "Too many connections from your address."
        if self._starting_from[new.key] >= limits.max_logins_per_address:
            return "Too many logins in progress from your address, please try again in a moment."
        if self._starting_in[new.network] >= limits.max_logins_per_network:
            return "Too many logins in progress from your network, please try again in a moment."
        if len(self._starting) >= limits.max_logins_in_progress and not self._drop_oldest_silent():
            return "Too many logins in progress, please try again in a moment."
        if self._chance() < self.drop_chance():
            return EARLY_DROP
        return None

    def drop_chance(self) -> float:
        """The chance a new connection is dropped at random, given the logins in progress
        whose client has sent its version string."""
        limits = self._limits
        start, full = limits.early_drop_start, limits.max_logins_in_progress
        if len(self._starting) < start:
            return 0.0
        progressing = sum(map(greeted, self._starting))
        if progressing < start:
            return 0.0
        if full <= start:
            return limits.early_drop_rate
        rising = (progressing - start) / (full - start)
        return limits.early_drop_rate + (1 - limits.early_drop_rate) * rising

    def _drop_silent(self, opened_by: float) -> None:
        """Drop every connection not logged in, opened by `opened_by`, still silent."""
        silent = []
        for conn, admitted in self._starting.items():
            if admitted.opened > opened_by:
                break
            if not greeted(conn):
                silent.append(conn)
        for conn in silent:
            self._drop(conn)

    def _drop_oldest_silent(self) -> bool:
        """Drop the connection silent longest; False if every one not logged in has spoken."""
        conn = next((conn for conn in self._starting if not greeted(conn)), None)
        if conn is not None:
            self._drop(conn)
        return conn is not None

    def _drop(self, conn: Connection) -> None:
        address = self._open[conn].address
        self.release(conn)
        conn.abort()
        self._dropped(address)

    def logged_in(self, conn: Connection) -> None:
        """An admitted connection finished authenticating."""
        admitted = self._starting.pop(conn, None)
        if admitted is not None:
            self._forget_start(admitted)

    def release(self, conn: Connection) -> None:
        """A connection closed (nothing for one the gate does not hold)."""
        admitted = self._open.pop(conn, None)
        if admitted is None:
            return
        _decrement(self._per_address, admitted.key)
        if self._starting.pop(conn, None) is not None:
            self._forget_start(admitted)

    def _forget_start(self, admitted: Admitted) -> None:
        _decrement(self._starting_from, admitted.key)
        _decrement(self._starting_in, admitted.network)

    def begin_refusal(self) -> bool:
        """May a refused connection stay open until it can be told why? (False under flood.)"""
        if self._refusing >= self._limits.max_logins_in_progress:
            return False
        self._refusing += 1
        return True

    def end_refusal(self) -> None:
        """A connection refused politely closed."""
        self._refusing -= 1

    def close_all(self) -> None:
        """Close every admitted connection."""
        for conn in list(self._open):
            conn.close()


def _decrement(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
