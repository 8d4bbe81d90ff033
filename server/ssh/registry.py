"""The live sessions, and the nicknames they hold."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Generic, Protocol, TypeVar

from server.sanitize import with_suffix


class Closable(Protocol):
    """What the registry needs from a session."""

    async def close(self, message: str | None = None) -> None: ...


S = TypeVar("S", bound=Closable)


def _key(nickname: str) -> str:
    return nickname.casefold()


class SessionRegistry(Generic[S]):
    """Sessions by nickname; nicknames are unique case-insensitively while held."""

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[str, S]] = {}
        self.turnover = 0  # nicknames held or released so far: sessions started and ended

    def register(self, wanted: str, session: S) -> str:
        """Hold a nickname for `session`: `wanted`, or `wanted-2`, `wanted-3`... if taken."""
        nickname, number = wanted, 1
        while _key(nickname) in self._by_name:
            number += 1
            nickname = with_suffix(wanted, number)
        self._by_name[_key(nickname)] = (nickname, session)
        self.turnover += 1
        return nickname

    def unregister(self, nickname: str) -> None:
        """Release a nickname (no error if it is not held)."""
        if self._by_name.pop(_key(nickname), None) is not None:
            self.turnover += 1

    def get(self, nickname: str) -> S | None:
        """The session holding `nickname`, if any."""
        entry = self._by_name.get(_key(nickname))
        return entry[1] if entry else None

    def nicknames(self) -> list[str]:
        """Nicknames online."""
        return [nickname for nickname, _ in self._by_name.values()]

    def __iter__(self) -> Iterator[S]:
        return iter([session for _, session in self._by_name.values()])

    def __len__(self) -> int:
        return len(self._by_name)

    async def close_all(self, message: str | None = None) -> None:
        """Close every session politely and wait for them to finish."""
        await asyncio.gather(*(session.close(message) for session in self))
