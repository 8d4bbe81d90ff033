"""Operator configuration: defaults < TOML file < LOVELET_* environment < command-line flags.

This is the one place every operator-settable default is written (`Limits`, `TableTimings`,
`Config`); the settings objects the SSH layer, lobby and tables run with read their defaults
from `DEFAULTS` here, so a default changes in one line, and build themselves from a `Config`
(`SSHLimits.from_config`, `LobbySettings.from_config`, `TableSettings.from_config`): this
module imports none of them. (The store knows no configuration: the nickname rules' defaults
are `NameRules`', read from there.)

Every setting has a dotted key (`listen`, `limits.per_address`), an environment variable
(`LOVELET_` + the key in capitals, dots as underscores: `LOVELET_LIMITS_PER_ADDRESS`) and a
flag (`--` + the key with dots and underscores as dashes: `--limits-per-address`). The file
holds top-level keys and the `[limits]` and `[table]` sections.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
import socket
import textwrap
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

from protocol.messages import DEFAULT_TIMER
from protocol.registry import MAX_CHAT, MAX_MOTD, MAX_TIMER

from ..store.players import NameRules

ENV_PREFIX = "LOVELET_"
CONFIG_FILE_NAME = "config.toml"
DEFAULT_LOCATION = "the data directory"
CONFIG_ENV = "LOVELET_CONFIG"
"""Environment variable naming the config file when `--config` is not given."""
COLOR_SYSTEMS = ("standard", "256", "truecolor")
LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
ROLES = ("all", "core", "frontend")
RENDER_PATCHES = (
    "strips",
    "chops",
    "lru_clear",
    "inner_outer",
    "repaint_rows",
    "shared_stylesheet",
    "cbc_countermeasure",
)
"""The patches of libraries' internals `render_patches` chooses from (`server.ssh.compat`)."""
SWITCH = ("on", "off")
BROKER_SCHEMES = ("redis", "rediss", "unix")
MAX_HOST = 253  # a DNS name
FINGERPRINT_RE = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
_HOSTNAME_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
_IPV6_RE = re.compile(r"[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[A-Za-z0-9_.-]+)?")


class ConfigError(Exception):
    """A setting is invalid; the message names the key and where the value came from."""

    def __init__(self, key: str, source: str, problem: str) -> None:
        super().__init__(f"{key}: {problem} (from {source})")
        self.key = key
        self.source = source
        self.problem = problem


# --------------------------------------------------------------------------- the settings


_NAMES = NameRules()


@dataclass(frozen=True, slots=True)
class Limits:
    """Admission, idle and chat limits."""

    max_connections: int = 200
    per_address: int = 10
    concurrent_logins: int = 20
    login_timeout: float = 30.0
    logins_per_address: int = 4
    logins_per_network: int = 10
    ipv4_network_prefix: int = 24
    ipv6_network_prefix: int = 64
    early_drop_start: int = 10
    early_drop_rate: float = 0.3
    version_timeout: float = 1.0
    handshake_timeout: float = 10.0
    auth_tries: int = 6
    ipv6_prefix: int = 64
    request_burst: int = 20
    request_rate: float = 1.0
    idle_timeout: float = 1800.0
    chat_messages: int = 5
    chat_interval: float = 10.0
    chat_max_length: int = MAX_CHAT
    sessions_per_identity: int = 3
    keys_per_second: float = 50.0
    key_burst: int = 200
    key_flood: int = 2000
    cpu_share: float = 0.02
    cpu_burst: float = 0.5
    cpu_pool: float = 0.2
    cpu_cut_off: float = 60.0
    names_per_key: int = _NAMES.per_key  # the store's own defaults (it reads no config)
    name_expiry_days: float = _NAMES.expire_after / timedelta(days=1)
    code_tries: int = 10
    code_try_seconds: float = 30.0
    bot_frames_per_second: float = 50.0
    bot_frame_burst: int = 200
    bot_errors: int = 10


@dataclass(frozen=True, slots=True)
class TableTimings:
    """Timings of every table."""

    bot_delay: float = 0.8
    disconnect_grace: float = 120.0
    round_pause: float = 20.0
    turn_timer: int = DEFAULT_TIMER
    hard_bot_cpu_ms: int = 150
    hints_per_minute: int = 4


def default_data_dir() -> Path:
    """The platform's user data directory for lovelet (no environment override)."""
    return Path(platformdirs.user_data_dir("lovelet"))


@dataclass(frozen=True, slots=True)
class Config:
    """Everything an operator sets."""

    listen: str = "0.0.0.0:2222"
    data_dir: Path = field(default_factory=default_data_dir)
    metrics_listen: str | None = None
    web_listen: str | None = "127.0.0.1:8080"
    web_public_url: str = ""
    log_format: str = "text"
    log_level: str = "info"
    admins: tuple[str, ...] = ()
    motd: str = ""
    color_system: str = "256"
    render_patches: tuple[str, ...] = RENDER_PATCHES
    paced_collector: str = "on"
    shutdown_grace: float = 60.0
    leaderboard_min_games: int = 3
    public_host: str = ""
    public_port: int = 0
    role: str = "all"
    broker: str | None = None
    workers: int = 0
    core_lease: float = 5.0
    frontend_timeout: float = 10.0
    limits: Limits = field(default_factory=Limits)
    table: TableTimings = field(default_factory=TableTimings)

    @property
    def listen_address(self) -> tuple[str, int]:
        """`listen` as (host, port)."""
        return split_host_port(self.listen)

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """`metrics_listen` as (host, port), or None when metrics are off."""
        return None if self.metrics_listen is None else split_host_port(self.metrics_listen)

    @property
    def web_address(self) -> tuple[str, int] | None:
        """`web_listen` as (host, port), or None when the web front-end is off."""
        return None if self.web_listen is None else split_host_port(self.web_listen)

    @property
    def database_path(self) -> Path:
        """Where the SQLite database lives."""
        return self.data_dir / "lovelet.db"

    def is_admin(self, fingerprint: str | None) -> bool:
        """Whether a login with this key fingerprint is an administrator."""
        return fingerprint is not None and fingerprint in self.admins


# --------------------------------------------------------------------------- value kinds


def split_host_port(value: str) -> tuple[str, int]:
    """'HOST:PORT' or '[IPv6]:PORT' → (host, port); ValueError when malformed."""
    host, sep, port = value.rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected HOST:PORT such as 0.0.0.0:2222, got {value!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        if not _IPV6_RE.fullmatch(host):
            raise ValueError(f"bad IPv6 address in {value!r}")
    elif not _HOSTNAME_RE.fullmatch(host):
        raise ValueError(f"bad host in {value!r} (write IPv6 addresses in brackets: [::]:2222)")
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise ValueError(f"bad port in {value!r}: expected 0-65535")
    return host, int(port)


class Kind:
    """How one setting is read from TOML values and from text (environment, flags)."""

    toml_type = "a string"

    def from_toml(self, value: object) -> object:
        """Check a value read from the file or passed typed as a flag."""
        if not isinstance(value, str):
            raise ValueError(f"expected {self.toml_type}, got {_shown(value)}")
        return self.from_text(value)

    def from_text(self, text: str) -> object:
        """Parse and check a value given as text."""
        raise NotImplementedError

    def to_toml(self, value: object) -> str:
        """The value written in TOML."""
        return _toml_string(str(value))


@dataclass(frozen=True)
class Number(Kind):
    """An int or a float in [low, high]."""

    low: float
    high: float
    integer: bool = False

    @property
    def toml_type(self) -> str:  # type: ignore[override]
        return "an integer" if self.integer else "a number"

    def from_toml(self, value: object) -> object:
        ok = (int,) if self.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, ok):
            raise ValueError(f"expected {self.toml_type}, got {_shown(value)}")
        return self._check(value)

    def from_text(self, text: str) -> object:
        try:
            number: float = int(text.strip()) if self.integer else float(text.strip())
        except ValueError:
            raise ValueError(f"expected {self.toml_type}, got {text!r}") from None
        return self._check(number)

    def _check(self, number: float) -> float:
        if math.isnan(number) or not self.low <= number <= self.high:
            raise ValueError(
                f"must be between {_num(self.low)} and {_num(self.high)}, got {number}"
            )
        return int(number) if self.integer else float(number)

    def to_toml(self, value: object) -> str:
        return _num(value)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Choice(Kind):
    """One of a few words (case-insensitive)."""

    options: tuple[str, ...]

    def from_text(self, text: str) -> object:
        word = text.strip().lower()
        if word not in self.options:
            raise ValueError(f"must be one of {', '.join(self.options)}; got {text!r}")
        return word


@dataclass(frozen=True)
class Address(Kind):
    """HOST:PORT; when `optional`, an empty string or `off` means off (None)."""

    optional: bool = False

    def from_text(self, text: str) -> object:
        text = text.strip()
        if self.optional and text.lower() in ("", "off"):
            return None
        split_host_port(text)
        return text

    def to_toml(self, value: object) -> str:
        return _toml_string("" if value is None else str(value))


@dataclass(frozen=True)
class Host(Kind):
    """A host name or an IP address (IPv6 without brackets); empty = the default."""

    def from_text(self, text: str) -> object:
        text = text.strip()
        if text and not (_HOSTNAME_RE.fullmatch(text) or _IPV6_RE.fullmatch(text)):
            raise ValueError(f"bad host name {text!r}")
        if len(text) > MAX_HOST:
            raise ValueError(f"longer than {MAX_HOST} characters")
        return text


@dataclass(frozen=True)
class Directory(Kind):
    """A directory path; `~` is expanded."""

    def from_text(self, text: str) -> object:
        if not text.strip():
            raise ValueError("must not be empty")
        return Path(text).expanduser()


@dataclass(frozen=True)
class Message(Kind):
    """Free text shown to players: newlines allowed, no other control characters."""

    max_length: int

    def from_text(self, text: str) -> object:
        if len(text) > self.max_length:
            raise ValueError(f"longer than {self.max_length} characters")
        bad = [c for c in text if c != "\n" and (ord(c) < 32 or 127 <= ord(c) < 160)]
        if bad:
            raise ValueError(f"contains control character {bad[0]!r}")
        return text


@dataclass(frozen=True)
class Fingerprints(Kind):
    """SSH key fingerprints as `ssh-keygen -lf` prints them: a TOML list, or comma-separated."""

    toml_type = "a list of strings"

    def from_toml(self, value: object) -> object:
        if not isinstance(value, list | tuple):
            raise ValueError(f"expected {self.toml_type}, got {_shown(value)}")
        return self._check(value)

    def from_text(self, text: str) -> object:
        return self._check([part for part in re.split(r"[\s,]+", text) if part])

    def _check(self, items: Iterable[object]) -> tuple[str, ...]:
        found: dict[str, None] = {}
        for item in items:
            if not isinstance(item, str) or not FINGERPRINT_RE.fullmatch(item.strip()):
                raise ValueError(
                    f"{_shown(item)} is not a key fingerprint like SHA256:<43 base64 characters> "
                    "(see ssh-keygen -lf KEY.pub)"
                )
            found[item.strip()] = None
        return tuple(found)

    def to_toml(self, value: object) -> str:
        return "[" + ", ".join(_toml_string(item) for item in value) + "]"  # type: ignore[attr-defined]


@dataclass(frozen=True)
class PatchNames(Kind):
    """on (every one of `names`), off (none), or some of them, comma-separated."""

    names: tuple[str, ...]

    def from_text(self, text: str) -> object:
        words = [word for word in re.split(r"[\s,]+", text.strip().lower()) if word]
        if words == ["on"]:
            return self.names
        if words == ["off"]:
            return ()
        unknown = [word for word in words if word not in self.names]
        if unknown or not words:
            raise ValueError(f"must be on, off, or some of {', '.join(self.names)}; got {text!r}")
        return tuple(name for name in self.names if name in words)

    def to_toml(self, value: object) -> str:
        chosen = tuple(value)  # type: ignore[call-overload]
        shown = "on" if chosen == self.names else ",".join(chosen) or "off"
        return _toml_string(shown)


@dataclass(frozen=True)
class WebUrl(Kind):
    """http(s)://HOST[:PORT] with no path; empty = derived."""

    def from_text(self, text: str) -> object:
        text = text.strip().rstrip("/")
        if not text:
            return ""
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path:
            raise ValueError(f"expected http(s)://HOST[:PORT] with no path, got {text!r}")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"expected http(s)://HOST[:PORT] alone, got {text!r}")
        if parts.port == 0:  # reading a port out of range raises ValueError too
            raise ValueError(f"bad port in {text!r}")
        return text


@dataclass(frozen=True)
class BrokerUrl(Kind):
    """A Redis URL (redis://HOST:PORT/DB, rediss://..., unix:///PATH); empty means none."""

    def from_text(self, text: str) -> object:
        text = text.strip()
        if not text:
            return None
        scheme, sep, rest = text.partition("://")
        if not sep or scheme.lower() not in BROKER_SCHEMES or not rest:
            raise ValueError(f"expected a URL such as redis://127.0.0.1:6379/0, got {text!r}")
        return text

    def to_toml(self, value: object) -> str:
        return _toml_string("" if value is None else str(value))


def _shown(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


# --------------------------------------------------------------------------- the key table


@dataclass(frozen=True)
class Setting:
    """One configurable key."""

    key: str
    kind: Kind
    doc: str
    alias: str | None = None
    """A shorter flag that means the same (`--web` for `--web-listen`)."""

    @property
    def env(self) -> str:
        """Its environment variable."""
        return ENV_PREFIX + self.key.replace(".", "_").upper()

    @property
    def flag(self) -> str:
        """Its command-line flag."""
        return "--" + self.key.replace(".", "-").replace("_", "-")

    @property
    def section(self) -> str | None:
        """The TOML section, or None for a top-level key."""
        return self.key.split(".")[0] if "." in self.key else None

    @property
    def name(self) -> str:
        """The key within its section."""
        return self.key.rsplit(".", 1)[-1]


SETTINGS: tuple[Setting, ...] = (
    Setting("listen", Address(), "HOST:PORT the SSH server listens on ([::]:2222 for IPv6)."),
    Setting(
        "data_dir",
        Directory(),
        "Host key, database and config.toml live here. Default: the platform's user data "
        "directory (Linux: ~/.local/share/lovelet). Not settable in the data directory's "
        "own config.toml.",
    ),
    Setting(
        "metrics_listen",
        Address(optional=True),
        'HOST:PORT for Prometheus /metrics and /health, e.g. "127.0.0.1:9100"; empty = off.',
    ),
    Setting(
        "web_listen",
        Address(optional=True),
        "HOST:PORT the web front-end (the page and its WebSocket: play in a browser) listens "
        "on; off (or empty) = none. Loopback by default: put a TLS proxy in front "
        "(docs/self-hosting.md), or 0.0.0.0:8080 for plain http on a LAN.",
        alias="--web",
    ),
    Setting(
        "web_public_url",
        WebUrl(),
        "The page's address as players reach it, e.g. https://play.example.org behind a TLS "
        "proxy: the invite link, and the only origin whose pages may open the WebSocket. "
        "Empty: http://public_host (or listen's host):PORT of web_listen.",
    ),
    Setting("log_format", Choice(LOG_FORMATS), "text, or json (one object per line)."),
    Setting("log_level", Choice(LOG_LEVELS), "debug, info, warning, error or critical."),
    Setting(
        "admins",
        Fingerprints(),
        "SHA256 fingerprints of administrators' SSH keys (ssh-keygen -lf KEY.pub).",
    ),
    Setting("motd", Message(MAX_MOTD), "Message of the day shown in the lobby."),
    Setting(
        "color_system",
        Choice(COLOR_SYSTEMS),
        "Colours for every session: standard (16), 256 or truecolor.",
    ),
    Setting(
        "render_patches",
        PatchNames(RENDER_PATCHES),
        "on, off, or a comma-separated list of the patches of Textual's and asyncssh's "
        "internals to use (docs/configuration.md). Each is used only on a library version it "
        "was verified with; off: the libraries run as released.",
    ),
    Setting(
        "paced_collector",
        Choice(SWITCH),
        "on: the server paces Python's garbage collector for hundreds of sessions "
        "(server/render/collector.py); off: Python's own collector.",
    ),
    Setting(
        "shutdown_grace",
        Number(0, 3600),
        "Seconds a round that cannot be kept for the restart (its game not stored) gets to "
        "finish after SIGTERM; kept tables do not wait.",
    ),
    Setting(
        "leaderboard_min_games",
        Number(0, 1_000_000, integer=True),
        "Rated games a player needs before the leaderboard lists them (docs/ratings.md).",
    ),
    Setting(
        "public_host",
        Host(),
        "Host name players connect to, shown in the invite command on the table screen "
        "(ssh -t HOST CODE). Empty: each player sees the address they connected to "
        "(ssh -t yourname@ADDRESS CODE); programs on the bot API see listen's host, or this "
        "machine's name if listen's is 0.0.0.0 or ::.",
    ),
    Setting(
        "public_port",
        Number(0, 65535, integer=True),
        "Port players connect to, for the invite command (port 22 shows no -p); 0: the port "
        "the server listens on. Set both when a proxy or port forward sits in front.",
    ),
    Setting(
        "role",
        Choice(ROLES),
        "all: the whole server (with workers, a core and that many front-ends); core or "
        "frontend: that part alone, joined to the others through broker (docs/scaling.md).",
    ),
    Setting(
        "broker",
        BrokerUrl(),
        'Redis URL joining front-ends and the core, e.g. "redis://127.0.0.1:6379/0"; '
        "empty = none (one process).",
    ),
    Setting(
        "workers",
        Number(0, 256, integer=True),
        "With role all: SSH front-end processes sharing the listen port, plus one core; "
        "0 = one process, no broker.",
    ),
    Setting(
        "core_lease",
        Number(1, 600),
        "Seconds the core's lease in the broker lasts unrenewed: how soon a standby or a "
        "restarted core takes over after a crash.",
    ),
    Setting(
        "frontend_timeout",
        Number(1, 3600),
        "Seconds the core waits for a silent front-end before its players count as dropped "
        "(their seats are held for table.disconnect_grace).",
    ),
    Setting(
        "limits.max_connections",
        Number(1, 100_000, integer=True),
        "Open SSH connections in total.",
    ),
    Setting(
        "limits.per_address",
        Number(1, 10_000, integer=True),
        "Open SSH connections from one IP address.",
    ),
    Setting(
        "limits.concurrent_logins",
        Number(1, 10_000, integer=True),
        "Connections still authenticating at once.",
    ),
    Setting(
        "limits.login_timeout",
        Number(1, 600),
        "Seconds a connection may take to log in.",
    ),
    Setting(
        "limits.logins_per_address",
        Number(1, 10_000, integer=True),
        "Connections still authenticating from one IP address (IPv6: one ipv6_prefix network).",
    ),
    Setting(
        "limits.logins_per_network",
        Number(1, 10_000, integer=True),
        "Connections still authenticating from one network (IPv4: one ipv4_network_prefix "
        "network, IPv6: one ipv6_network_prefix network).",
    ),
    Setting(
        "limits.ipv4_network_prefix",
        Number(0, 32, integer=True),
        "IPv4 addresses in one network of this prefix length count as one network.",
    ),
    Setting(
        "limits.ipv6_network_prefix",
        Number(0, 128, integer=True),
        "IPv6 addresses in one network of this prefix length count as one network.",
    ),
    Setting(
        "limits.early_drop_start",
        Number(1, 10_000, integer=True),
        "From this many connections authenticating, new ones are dropped at random.",
    ),
    Setting(
        "limits.early_drop_rate",
        Number(0, 1),
        "The chance of that drop at early_drop_start, rising to 1 at concurrent_logins; it "
        "counts only connections that have sent their SSH version string.",
    ),
    Setting(
        "limits.version_timeout",
        Number(0, 600),
        "From early_drop_start on, a connection that has not sent its SSH version string "
        "within this many seconds is dropped first (at concurrent_logins, the one silent "
        "longest makes room for a new one).",
    ),
    Setting(
        "limits.handshake_timeout",
        Number(1, 600),
        "Seconds a new connection may take to finish key exchange and ask to log in.",
    ),
    Setting(
        "limits.auth_tries",
        Number(1, 100, integer=True),
        "Failed authentication attempts on one connection before it is closed.",
    ),
    Setting(
        "limits.ipv6_prefix",
        Number(0, 128, integer=True),
        "IPv6 addresses in one network of this prefix length count as one address.",
    ),
    Setting(
        "limits.request_burst",
        Number(1, 100_000, integer=True),
        "Channel opens and global requests one connection may send at once.",
    ),
    Setting(
        "limits.request_rate",
        Number(0.01, 10_000),
        "Channel opens and global requests per second one connection may sustain.",
    ),
    Setting(
        "limits.idle_timeout",
        Number(0, 86_400),
        "Seconds without input before a session in the lobby is closed; 0 = never.",
    ),
    Setting(
        "limits.chat_messages",
        Number(1, 1000, integer=True),
        "Chat lines one session may send per chat_interval.",
    ),
    Setting(
        "limits.chat_interval",
        Number(0.1, 3600),
        "The window, in seconds, that chat_messages counts over.",
    ),
    Setting(
        "limits.chat_max_length",
        Number(1, MAX_CHAT, integer=True),
        f"Longest chat line, in characters (at most {MAX_CHAT}).",
    ),
    Setting(
        "limits.sessions_per_identity",
        Number(1, 100, integer=True),
        "Sessions one SSH key may have open at once.",
    ),
    Setting(
        "limits.keys_per_second",
        Number(1, 10_000),
        "Keys per second one session may send, sustained (a paste costs one per 16 "
        "characters); keys beyond the budget are dropped with a notice to that player.",
    ),
    Setting(
        "limits.key_burst",
        Number(1, 100_000, integer=True),
        "Keys one session may send at once (a chat line typed or pasted fits).",
    ),
    Setting(
        "limits.key_flood",
        Number(1, 1_000_000, integer=True),
        "Dropped keys (forgiven at keys_per_second) after which a session is disconnected.",
    ),
    Setting(
        "limits.cpu_share",
        Number(0.001, 1),
        "Seconds of the server's time a second one session may cause, sustained (its screen "
        "updates and the work its keys set off); past it and the pool, its keys wait.",
    ),
    Setting(
        "limits.cpu_burst",
        Number(0.01, 60),
        "Seconds of the server's time one session may use at once before cpu_share applies.",
    ),
    Setting(
        "limits.cpu_pool",
        Number(0, 1),
        "Seconds a second the server lends, in all, to sessions past their cpu_share.",
    ),
    Setting(
        "limits.cpu_cut_off",
        Number(1, 86_400),
        "Seconds a session may be held back to its share (with no 10 s of rest) before it "
        "is disconnected.",
    ),
    Setting(
        "limits.names_per_key",
        Number(1, 1000, integer=True),
        "Nicknames one SSH key keeps reserved; a new one releases the least recently used.",
    ),
    Setting(
        "limits.name_expiry_days",
        Number(1, 36_500),
        "Days a reserved nickname stays reserved without being used.",
    ),
    Setting(
        "limits.code_tries",
        Number(1, 10_000, integer=True),
        "Unknown table codes one key (a guest: one name at one address) may try at once.",
    ),
    Setting(
        "limits.code_try_seconds",
        Number(0.1, 86_400),
        "After code_tries, seconds before one more try of a table code is allowed.",
    ),
    Setting(
        "limits.bot_frames_per_second",
        Number(1, 10_000),
        "Frames per second a program on the bot API may send, sustained; more are refused.",
    ),
    Setting(
        "limits.bot_frame_burst",
        Number(1, 100_000, integer=True),
        "Frames a program on the bot API may send at once.",
    ),
    Setting(
        "limits.bot_errors",
        Number(1, 10_000, integer=True),
        "Errors a bot API program may run up (one forgiven every 6 s); one more cuts it off.",
    ),
    Setting(
        "table.bot_delay",
        Number(0, 30),
        "Seconds a bot waits before acting, so people can follow.",
    ),
    Setting(
        "table.disconnect_grace",
        Number(0, 3600),
        "Seconds a dropped player's seat is held (a bot plays meanwhile).",
    ),
    Setting(
        "table.round_pause",
        Number(0, 600),
        "Seconds between rounds unless every player continues sooner.",
    ),
    Setting(
        "table.hard_bot_cpu_ms",
        Number(1, 1000, integer=True),
        "Milliseconds of CPU a hard bot searches per decision (less when the machine is busy).",
    ),
    Setting(
        "table.turn_timer",
        Number(0, MAX_TIMER, integer=True),
        "Default seconds per decision offered for new tables; 0 = no timer.",
    ),
    Setting(
        "table.hints_per_minute",
        Number(0, 60, integer=True),
        "Hints a player may have worked out per minute (one per decision); 0 = no hints.",
    ),
)
BY_KEY = {setting.key: setting for setting in SETTINGS}
SECTIONS = {"limits": Limits, "table": TableTimings}
DEFAULTS = Config()  # what every setting is when nobody set it


def default_value(setting: Setting, config: Config | None = None) -> Any:
    """The value of `setting` in `config` (the defaults when None)."""
    value: Any = config or Config()
    for part in setting.key.split("."):
        value = getattr(value, part)
    return value


# --------------------------------------------------------------------------- reading sources


def load_config(
    flags: Mapping[str, object],
    environ: Mapping[str, str],
    config_path: Path | None,
) -> Config:
    """Merge defaults, the config file, LOVELET_* variables and flags (later wins).

    `flags` maps dotted keys (or argparse dests, see `add_config_flags`) to values; None
    means not given. `config_path` is `--config`; without it `$LOVELET_CONFIG`, else
    `config.toml` in the data directory if present. Raises ConfigError.
    """
    from_flags = _read_flags(flags)
    from_env = _read_environ(environ)
    path, path_source = _config_file(config_path, environ, from_flags, from_env)
    from_file = _read_file(path, path_source) if path is not None else {}
    if path_source == DEFAULT_LOCATION and "data_dir" in from_file:
        raise ConfigError(
            "data_dir",
            f"file {path}",
            "a config.toml inside the data directory cannot move it; use --data-dir, "
            f"{BY_KEY['data_dir'].env} or a file given with --config",
        )
    return _build({**from_file, **from_env, **from_flags})


def _config_file(
    config_path: Path | None,
    environ: Mapping[str, str],
    from_flags: Mapping[str, object],
    from_env: Mapping[str, object],
) -> tuple[Path | None, str]:
    if config_path is not None:
        return _must_exist(Path(config_path).expanduser(), "flag --config")
    if environ.get(CONFIG_ENV):
        return _must_exist(Path(environ[CONFIG_ENV]).expanduser(), f"environment {CONFIG_ENV}")
    data_dir = from_flags.get("data_dir") or from_env.get("data_dir") or default_data_dir()
    candidate = Path(str(data_dir)) / CONFIG_FILE_NAME
    return (candidate, DEFAULT_LOCATION) if candidate.is_file() else (None, "")


def _must_exist(path: Path, source: str) -> tuple[Path, str]:
    if not path.is_file():
        raise ConfigError("config", source, f"no such file: {path}")
    return path, source


def _read_file(path: Path, how: str) -> dict[str, object]:
    source = f"file {path}"
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("config", source, f"invalid TOML: {err}") from None
    except OSError as err:
        raise ConfigError("config", f"{source} ({how})", f"cannot read: {err.strerror}") from None
    values: dict[str, object] = {}
    for name, value in document.items():
        if name in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(name, source, f"must be a [{name}] section, got {_shown(value)}")
            for inner, inner_value in value.items():
                _take(values, f"{name}.{inner}", inner_value, source, from_text=False)
        elif isinstance(value, dict):
            raise ConfigError(name, source, f"unknown section [{name}] (known: limits, table)")
        else:
            _take(values, name, value, source, from_text=False)
    return values


def _read_environ(environ: Mapping[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for setting in SETTINGS:
        if setting.env in environ:
            source = f"environment variable {setting.env}"
            _take(values, setting.key, environ[setting.env], source, from_text=True)
    return values


def _read_flags(flags: Mapping[str, object]) -> dict[str, object]:
    values: dict[str, object] = {}
    for name, value in flags.items():
        if value is None:
            continue
        key = _DESTS.get(name, name)
        setting = BY_KEY.get(key)
        source = f"flag {setting.flag}" if setting else f"flag {name}"
        _take(values, key, value, source, from_text=isinstance(value, str))
    return values


def _take(
    values: dict[str, object], key: str, value: object, source: str, *, from_text: bool
) -> None:
    setting = BY_KEY.get(key)
    if setting is None:
        raise ConfigError(key, source, _unknown_key(key))
    try:
        kind = setting.kind
        values[key] = kind.from_text(value) if from_text else kind.from_toml(value)  # type: ignore[arg-type]
    except ValueError as err:
        raise ConfigError(key, source, str(err)) from None


def _unknown_key(key: str) -> str:
    close = difflib.get_close_matches(key, BY_KEY, n=1, cutoff=0.6)
    if close:
        return f"unknown key; did you mean {close[0]}?"
    section = key.split(".")[0] + "." if "." in key else ""
    known = [k for k in BY_KEY if "." in k] if section else [k for k in BY_KEY if "." not in k]
    known = [k for k in known if k.startswith(section)] or known
    return f"unknown key (known: {', '.join(known)})"


def _build(values: Mapping[str, object]) -> Config:
    top = {k: v for k, v in values.items() if "." not in k}
    sections = {
        name: cls(**{k.split(".", 1)[1]: v for k, v in values.items() if k.startswith(name + ".")})
        for name, cls in SECTIONS.items()
    }
    return Config(**top, **sections)  # type: ignore[arg-type]


def unknown_environment(environ: Mapping[str, str]) -> list[str]:
    """LOVELET_* variables that are no setting (likely typos), for a start-up warning."""
    known = {setting.env for setting in SETTINGS} | {CONFIG_ENV}
    return sorted(n for n in environ if n.startswith(ENV_PREFIX) and n not in known)


# --------------------------------------------------------------------------- command line

_DESTS = {setting.key.replace(".", "_"): setting.key for setting in SETTINGS}


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """Add `--config` and one flag per setting (all default to None = not given)."""
    parser.add_argument("--config", type=Path, metavar="PATH", help="TOML config file")
    for setting in SETTINGS:
        parser.add_argument(
            setting.flag,
            *([setting.alias] if setting.alias else []),
            dest=setting.key.replace(".", "_"),
            metavar=setting.name.upper(),
            help=setting.doc.replace("%", "%%"),
        )


def flags_from_args(args: argparse.Namespace) -> dict[str, object]:
    """The setting flags actually given, keyed by dotted key, for `load_config`."""
    given = {key: getattr(args, dest, None) for dest, key in _DESTS.items()}
    return {key: value for key, value in given.items() if value is not None}


# --------------------------------------------------------------------------- config init


def default_config_toml() -> str:
    """A fully commented config file: every key, its default and its meaning."""
    lines = [
        "# lovelet configuration (TOML). Every key is optional and shown commented out with",
        "# its default. Precedence: command-line flags > LOVELET_* environment variables >",
        "# this file > defaults. See docs/configuration.md.",
    ]
    current: str | None = None
    for setting in SETTINGS:
        if setting.section != current:
            current = setting.section
            lines += ["", f"[{current}]"]
        lines.append("")
        lines += [f"# {line}" for line in textwrap.wrap(setting.doc, 86)]
        lines.append(f"# env {setting.env}, flag {setting.flag}")
        lines.append(f"# {setting.name} = {setting.kind.to_toml(default_value(setting))}")
    return "\n".join(lines) + "\n"


def configuration_reference() -> str:
    """The Markdown table of every key (docs/configuration.md holds a copy; a test compares)."""
    rows = [
        "| Key | Environment variable | Flag | Default | Meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for setting in SETTINGS:
        if setting.key == "data_dir":
            default = "platform user data dir"
        else:
            default = f"`{setting.kind.to_toml(default_value(setting))}`"
        doc = setting.doc.replace("|", "\\|")
        rows.append(f"| `{setting.key}` | `{setting.env}` | `{setting.flag}` | {default} | {doc} |")
    return "\n".join(rows) + "\n"


def write_default_config(path: Path, force: bool = False) -> Path:
    """Write `default_config_toml()` to `path`; FileExistsError unless `force` or new."""
    path = Path(path).expanduser()
    if path.exists() and not force:
        raise FileExistsError(f"{path} already exists (use --force to overwrite)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(default_config_toml(), encoding="utf-8")
    return path


def config_init_path(
    path: Path | None, flags: Mapping[str, object], environ: Mapping[str, str]
) -> Path:
    """Where `lovelet config init` writes: PATH, else config.toml in the data directory."""
    if path is not None:
        return Path(path).expanduser()
    data_dir = _read_flags(flags).get("data_dir") or _read_environ(environ).get("data_dir")
    return Path(str(data_dir or default_data_dir())) / CONFIG_FILE_NAME


# --------------------------------------------------------------------------- wiring helpers


def name_rules(config: Config) -> NameRules:
    """How many nicknames a key keeps reserved, and for how long unused."""
    limits = config.limits
    return NameRules(limits.names_per_key, timedelta(days=limits.name_expiry_days))


def invite_command(config: Config, bound_port: int) -> str:
    """The command before a table code that reaches this server: `ssh -t [-p PORT] HOST`,
    from `public_host`/`public_port`, else where it listens (`bound_port` if it asked for 0)."""
    host, port = config.listen_address
    if config.public_host:
        host = config.public_host
    elif host in ("0.0.0.0", "::"):
        host = socket.gethostname()
    port = config.public_port or port or bound_port
    return f"ssh -t {host}" if port == 22 else f"ssh -t -p {port} {host}"
