"""A session as the lobby sees it: who it is, where it sends frames, where it sits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from protocol import Message, encode

from .limits import RateLimit

if TYPE_CHECKING:
    from ..services.clock import Timer

SendFrame = Callable[[bytes], None]


class AtTable(Protocol):
    """The table a session is at, as the lobby uses it: a code and one input."""

    @property
    def code(self) -> str: ...

    def submit(self, member: Any, command: object) -> None:
        """One command from `member`."""


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a session is: a stable `id` (key fingerprint, or a one-off guest id), a name, the
    client's IP address when it came over the network (bans of guests need it), and whether
    it is a program on the bot API (marked as such to everyone)."""

    id: str
    name: str
    guest: bool = False
    address: str | None = None
    api_bot: bool = False


@dataclass(eq=False)
class Session:
    """One attached client: its identity, its outgoing frame sink and its place."""

    identity: Identity
    send_frame: SendFrame
    table: AtTable | None = None  # set by the lobby from what its tables say
    greeted: bool = False
    notice: str | None = None  # said once after the welcome (e.g. why the name has a suffix)
    chat_limit: RateLimit | None = None
    replay_limit: RateLimit | None = None
    idle_timer: Timer | None = None
    closed: bool = field(default=False)
    friends: dict[str, str] = field(default_factory=dict)  # a keyed player's: key to name
    friends_sent: Message | None = None  # the last `friends` sent: only changes are sent

    @property
    def name(self) -> str:
        """The player's display name."""
        return self.identity.name

    def send(self, message: Message) -> None:
        """Encode and send one message; a closed session drops it.

        Not re-decoded here (`check=False`): the client validates every frame anyway, and the
        tests decode every frame the lobby sends.
        """
        if not self.closed:
            self.send_frame(encode(message, check=False))
