"""What the game learns about one SSH session."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One terminal session, as handed to the app factory.

    Every string here is already sanitised.
    """

    nickname: str
    """Unique among sessions online (case-insensitive)."""
    identity: str | None
    """SHA256 fingerprint of the key the client authenticated with; None for a guest."""
    peer: str
    """Client IP address."""
    term: str
    """The client's TERM value."""
    size: tuple[int, int]
    """Initial (columns, rows), already clamped."""
    notice: str | None = None
    """A one-line notice for the player from admission (e.g. why their name has a suffix)."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """The client's TERM, LANG, LC_*, NO_COLOR and COLORTERM, if it sent them (none else)."""
    table_code: str | None = None
    """The table code given as the SSH command (`ssh -t host CODE`): go straight there."""
    api_bot: bool = False
    """A program on the bot API subsystem (no terminal: `term` is "" and `size` (0, 0))."""
    reached: tuple[str, int] | None = None
    """The server's address and port the client connected to (None: not over a socket)."""

    @property
    def guest(self) -> bool:
        """True when the player logged in without a key."""
        return self.identity is None
