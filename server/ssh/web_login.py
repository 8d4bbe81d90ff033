"""Web logins: a player with an SSH key brings their identity to a browser.

`ssh HOST web-login` prints a one-time link, valid a few minutes; opening it gives that
browser a cookie bound to a session held here, which signs its WebSockets in as the key's
player (server/web/). `ssh HOST web-logout` ends every browser session of that key. Nothing
is stored on disk: a restart signs every browser out, and no password exists anywhere.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class WebLogin:
    """Who a browser session (or a link) signs in as, and until when."""

    identity: str
    name: str
    expires: float


class WebLogins:
    """The links issued and the browser sessions they made, in memory, bounded per key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._links: dict[str, WebLogin] = {}
        self._sessions: dict[str, WebLogin] = {}
        self.base_url: str | None = None
        """The page's address, once the web front-end listens (None: no link to give)."""

    def issue(self, identity: str, name: str) -> str | None:
        """A one-time link that signs a browser in as `identity` (`name` wanted); None when
        the server serves no page."""
        if self.base_url is None:
            return None
        self._forget_expired()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self._links[token] = WebLogin(identity, name, self._clock() + LINK_SECONDS)
        _keep_newest(self._links, identity, LINKS_PER_KEY)
        return f"{self.base_url}/login/{token}"

    def redeem(self, token: str) -> str | None:
        """The session id a valid, unused link gives (the link is spent); None if it is not
        one, was used, or expired."""
        link = self._links.pop(token, None)
        if link is None or link.expires < self._clock():
            return None
        session = secrets.token_urlsafe(TOKEN_BYTES)
        expires = self._clock() + SESSION_SECONDS
        self._sessions[session] = WebLogin(link.identity, link.name, expires)
        _keep_newest(self._sessions, link.identity, SESSIONS_PER_KEY)
        return session

    def session(self, session: str) -> WebLogin | None:
        """Who the browser session `session` signs in as; None if there is no such session."""
        login = self._sessions.get(session)
        if login is None or login.expires < self._clock():
            self._sessions.pop(session, None)
            return None
        return login

    def revoke(self, identity: str) -> int:
        """End every browser session and unused link of `identity`; how many sessions."""
        ended = [sid for sid, login in self._sessions.items() if login.identity == identity]
        for sid in ended:
            del self._sessions[sid]
        for token in [t for t, link in self._links.items() if link.identity == identity]:
            del self._links[token]
        return len(ended)

    def _forget_expired(self) -> None:
        now = self._clock()
        for held in (self._links, self._sessions):
            for key in [key for key, login in held.items() if login.expires < now]:
                del held[key]


def _keep_newest(held: dict[str, WebLogin], identity: str, most: int) -> None:
    """Drop `identity`'s oldest entries of `held` past `most` (dicts keep insertion order)."""
    own = [key for key, login in held.items() if login.identity == identity]
    for key in own[: max(0, len(own) - most)]:
        del held[key]


def command_answer(logins: WebLogins | None, command: str, identity: str | None, name: str) -> str:
    """What `ssh HOST web-login` or `web-logout` prints, having done it."""
    if logins is None or logins.base_url is None:
        return (
            "This server gives no web-login links: it has no page for browsers, or runs as "
            "several processes (--workers), which do not share them yet."
        )
    if identity is None:
        return (
            "web-login brings an SSH key's identity to a browser; you signed in without a "
            "key. In a browser, just open the page and choose a name."
        )
    if command == "web-logout":
        ended = logins.revoke(identity)
        return f"Signed out {ended} browser{'s' if ended != 1 else ''} of this key."
    link = logins.issue(identity, name)
    minutes = int(LINK_SECONDS // 60)
    return f"Open this link in your browser within {minutes} minutes (it works once):\n{link}"
