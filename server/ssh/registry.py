"""The live sessions, and the nicknames they hold; what ended ones left in memory."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from server.render.collector import Leftovers
from server.services.lookalikes import name_key
from server.services.sanitize import with_suffix


class Closable(Protocol):
    """What the registry needs from a session."""

    async def close(self, message: str | None = None) -> None: ...


S = TypeVar("S", bound=Closable)


@dataclass(frozen=True, slots=True)
class _Held:
    nickname: str
    session: Any
    owner: str | None  # the identity of a player with a key; None for a guest


class SessionRegistry(Generic[S]):
    """Sessions by nickname; no two nicknames held look alike (`name_key`: case, width and
    look-alike letters folded), except that a player with a key is one player: their newest
    session holds their nickname. Sessions that ended are kept weakly in `ended` (the paced
    collector frees what they leave in cycles)."""

    def __init__(self) -> None:
        self._by_name: dict[str, _Held] = {}
        self.ended = Leftovers()

    def register(self, wanted: str, session: S, owner: str | None = None) -> str:
        """Hold a nickname for `session`: `wanted`, or `wanted-2`, `wanted-3`... if someone
        else holds it or one that looks like it. A session of the same `owner` (identity)
        takes its nickname over."""
        nickname, number = wanted, 1
        while (held := self._by_name.get(name_key(nickname))) is not None:
            if owner is not None and held.owner == owner:
                break
            number += 1
            nickname = with_suffix(wanted, number)
        self._by_name[name_key(nickname)] = _Held(nickname, session, owner)
        return nickname

    def unregister(self, nickname: str, session: S) -> None:
        """Release `session`'s nickname (nothing if it is not held, or held by a newer
        session of the same player)."""
        held = self._by_name.get(name_key(nickname))
        if held is not None and held.session is session:
            del self._by_name[name_key(nickname)]
            self.ended.add(session)

    def get(self, nickname: str) -> S | None:
        """The session holding `nickname`, or one that looks like it, if any."""
        held = self._by_name.get(name_key(nickname))
        return held.session if held else None

    def nicknames(self) -> list[str]:
        """Nicknames online."""
        return [held.nickname for held in self._by_name.values()]

    def __iter__(self) -> Iterator[S]:
        return iter([held.session for held in self._by_name.values()])

    def __len__(self) -> int:
        return len(self._by_name)

    async def close_all(self, message: str | None = None) -> None:
        """Close every session politely and wait for them to finish."""
        await asyncio.gather(*(session.close(message) for session in self))
