"""The seam where the server's policy (bans, reserved names, limits per identity) meets SSH."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Admission:
    """A session let in under `name` (with a one-line `notice`), or refused with `refusal`."""

    name: str = ""
    notice: str | None = None
    refusal: str | None = None


class Gatekeeper(Protocol):
    """Decides who may connect and under which name; the SSH layer only asks."""

    def refuse_address(self, address: str) -> str | None:
        """A one-line reason to refuse a connection from `address`, or None."""
        ...

    def admit(
        self, identity: str | None, address: str, wanted: str, online: dict[str, str | None]
    ) -> Admission | Awaitable[Admission]:
        """Admit a session; `online` maps each nickname online to its identity. A gatekeeper
        in another process (the game core, docs/scaling.md) answers with an awaitable."""
        ...


class OpenDoor:
    """The default policy: everybody in, names made unique by the registry."""

    def refuse_address(self, address: str) -> str | None:
        """Nobody is refused."""
        return None

    def admit(
        self, identity: str | None, address: str, wanted: str, online: dict[str, str | None]
    ) -> Admission:
        """The wanted name; the registry adds a suffix on a clash."""
        return Admission(wanted)
