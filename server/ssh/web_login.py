"""Web logins: a player with an SSH key brings their identity to a browser.

`ssh HOST web-login` prints a one-time link, valid a few minutes; opening it gives that
browser a cookie bound to a session held server-side, which signs its WebSockets in as the
key's player (server/web/). `ssh HOST web-logout` ends every browser session of that key.
No password exists anywhere. Where links and sessions are held is a `LoginStore`: this
process's memory (`MemoryLogins`: a restart signs every browser out), or Redis, shared by
every front-end of `--workers` (`server.bus.web_logins.RedisLogins`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from server.ops.logs import event

LINK_SECONDS = 300.0
"""How long a login link is valid (it also works once only)."""
SESSION_SECONDS = 30 * 24 * 3600.0
"""How long a browser stays signed in."""
LINKS_PER_KEY = 5
"""Unused links one key may hold; a new one past that replaces the oldest."""
SESSIONS_PER_KEY = 10
"""Browser sessions one key may hold; a new one past that ends the oldest."""
TOKEN_BYTES = 32
COMMANDS = ("web-login", "web-logout")
"""The SSH commands that issue a link and end the browser sessions."""
UNAVAILABLE = "The server cannot reach its store of web logins right now; try again in a moment."


@dataclass(frozen=True, slots=True)
class WebLogin:
    """Who a browser session (or a link) signs in as."""

    identity: str
    name: str


@dataclass(frozen=True, slots=True)
class Kind:
    """Links or browser sessions: how long one lasts, how many one identity holds."""

    name: str
    seconds: float
    most: int


LINK = Kind("link", LINK_SECONDS, LINKS_PER_KEY)
SESSION = Kind("session", SESSION_SECONDS, SESSIONS_PER_KEY)


class LoginsUnavailable(Exception):
    """The store cannot be reached now (Redis is down); nothing was done."""


class LoginStore(Protocol):
    """Where links and browser sessions are held, by token, each for its kind's `seconds`
    and at most its kind's `most` newest of one identity. Every method may raise
    `LoginsUnavailable`."""

    async def put(self, kind: Kind, token: str, login: WebLogin) -> None:
        """Hold `login` under `token`, dropping the identity's oldest past `kind.most`."""
        ...

    async def take(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`, which is gone from now on (atomically: one caller of
        all the processes sharing the store gets it); None if there is none."""
        ...

    async def get(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`; None if there is none (or it expired)."""
        ...

    async def revoke(self, identity: str) -> int:
        """Drop every link and session of `identity`; how many sessions there were."""
        ...


class MemoryLogins:
    """A `LoginStore` in this process's memory (one process: `lovelet serve` alone)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[Kind, dict[str, tuple[WebLogin, float]]] = {LINK: {}, SESSION: {}}
        """By kind, then token: the login and when it expires, oldest first."""

    async def put(self, kind: Kind, token: str, login: WebLogin) -> None:
        """Hold `login` under `token`, dropping the identity's oldest past `kind.most`."""
        now = self._clock()
        for held in self._held.values():
            for key in [key for key, (_, expires) in held.items() if expires < now]:
                del held[key]
        held = self._held[kind]
        held[token] = (login, now + kind.seconds)
        own = [key for key, (other, _) in held.items() if other.identity == login.identity]
        for key in own[: max(0, len(own) - kind.most)]:
            del held[key]

    async def take(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`, forgotten from now on; None if there is none."""
        held = self._held[kind].pop(token, None)
        return held[0] if held is not None and held[1] >= self._clock() else None

    async def get(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`; None if there is none (or it expired)."""
        held = self._held[kind].get(token)
        if held is not None and held[1] < self._clock():
            return await self.take(kind, token)  # expired: None, and forgotten
        return held[0] if held is not None else None

    async def revoke(self, identity: str) -> int:
        """Forget every link and session of `identity`; how many sessions there were."""
        own = {
            kind: [key for key, (login, _) in held.items() if login.identity == identity]
            for kind, held in self._held.items()
        }
        for kind, keys in own.items():
            for key in keys:
                del self._held[kind][key]
        return len(own[SESSION])


class WebLogins:
    """The links issued and the browser sessions they made, held in `store`."""

    def __init__(self, store: LoginStore) -> None:
        self._store = store
        self.base_url: str | None = None
        """The page's address, once the web front-end listens (None: no link to give)."""

    async def issue(self, identity: str, name: str) -> str | None:
        """A one-time link that signs a browser in as `identity` (`name` wanted); None when
        the server serves no page."""
        if self.base_url is None:
            return None
        token = secrets.token_urlsafe(TOKEN_BYTES)
        await self._store.put(LINK, token, WebLogin(identity, name))
        return f"{self.base_url}/login/{token}"

    async def redeem(self, token: str) -> tuple[str, WebLogin] | None:
        """The session id a valid, unused link gives (the link is spent), and who it signs
        in as; None if it is not one, was used, or expired."""
        link = await self._store.take(LINK, token)
        if link is None:
            return None
        session = secrets.token_urlsafe(TOKEN_BYTES)
        await self._store.put(SESSION, session, link)
        return session, link

    async def session(self, session: str) -> WebLogin | None:
        """Who the browser session `session` signs in as; None if there is no such session."""
        return await self._store.get(SESSION, session)

    async def revoke(self, identity: str) -> int:
        """End every browser session and unused link of `identity`; how many sessions."""
        return await self._store.revoke(identity)


async def command_answer(
    logins: WebLogins | None, command: str, identity: str | None, name: str
) -> str:
    """What `ssh HOST web-login` or `web-logout` prints, having done it."""
    if logins is None or logins.base_url is None:
        return "This server gives no web-login links: it has no page for browsers."
    if identity is None:
        return (
            "web-login brings an SSH key's identity to a browser; you signed in without a "
            "key. In a browser, just open the page and choose a name."
        )
    try:
        if command == "web-logout":
            ended = await logins.revoke(identity)
            event("web logout", identity=identity, sessions=ended)
            return f"Signed out {ended} browser{'s' if ended != 1 else ''} of this key."
        link = await logins.issue(identity, name)
    except LoginsUnavailable:
        return UNAVAILABLE
    event("web login link", identity=identity, name=name)
    minutes = int(LINK_SECONDS // 60)
    return f"Open this link in your browser within {minutes} minutes (it works once):\n{link}"
