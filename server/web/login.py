"""A browser signed in as a player with a key: the one-time link's answer (a cookie bound to
a session that `server.ssh.web_login` holds), who a request's cookie signs in as, and `/me`,
which tells the page (its script cannot read the HttpOnly cookie). Each asks the store of
logins, which may be Redis: they are awaited, and answer 503 while it cannot be reached."""

from __future__ import annotations

import http
import json
import re
from http.cookies import CookieError, SimpleCookie

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.ops.logs import event
from server.ssh.web_login import (
    SESSION_SECONDS,
    UNAVAILABLE,
    LoginsUnavailable,
    WebLogin,
    WebLogins,
)
from server.web.pages import security_headers, text_response

COOKIE = "lovelet_login"
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
"""A link's token or a session id, as `server.ssh.web_login` makes them."""
LOGIN_PATH = re.compile(rf"/login/({TOKEN.pattern})")
ME_PATH = "/me"
COOKIE_MAX = 2000
"""Characters of a `Cookie` header looked at."""
SPENT = (
    "This sign-in link was used already or has expired. For a new one, in a terminal: "
    "ssh HOST web-login\n"
)


class BrowserLogins:
    """The web's side of web logins; `secure` when players reach the page over https (the
    cookie then goes over https only)."""

    def __init__(self, logins: WebLogins | None, secure: bool) -> None:
        self._logins = logins
        self._secure = secure

    async def answer(self, request: Request, address: str) -> Response | None:
        """The answer to `/login/TOKEN` (from the browser at `address`) or `/me`; None for
        any other path."""
        path = request.path.partition("?")[0]
        try:
            if path == ME_PATH:
                return self._me(await self.login_of(request.headers))
            match = LOGIN_PATH.fullmatch(path)
            if match is None:
                return None
            redeemed = await self._logins.redeem(match[1]) if self._logins is not None else None
        except LoginsUnavailable:
            return unavailable()
        if redeemed is None:
            return text_response(http.HTTPStatus.GONE, SPENT)
        session, login = redeemed
        event("web login", address=address, identity=login.identity, name=login.name)
        return self._signed_in(session)

    async def login_of(self, headers: Headers) -> WebLogin | None:
        """Who the request's cookie signs in as; None for a guest. Raises
        `LoginsUnavailable` when the store cannot be asked."""
        if self._logins is None:
            return None
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("Cookie", "")[:COOKIE_MAX])
        except CookieError:
            return None
        morsel = cookie.get(COOKIE)
        if morsel is None or TOKEN.fullmatch(morsel.value) is None:
            return None
        return await self._logins.session(morsel.value)

    def _signed_in(self, session: str) -> Response:
        """To the page, with the session's cookie."""
        status = http.HTTPStatus.SEE_OTHER
        headers = security_headers("text/plain; charset=utf-8", 0)
        headers["Location"] = "/"
        headers["Cache-Control"] = "no-store"
        secure = "; Secure" if self._secure else ""
        headers["Set-Cookie"] = (
            f"{COOKIE}={session}; Path=/; Max-Age={int(SESSION_SECONDS)}; HttpOnly; "
            f"SameSite=Strict{secure}"
        )
        return Response(status.value, status.phrase, headers, b"")

    def _me(self, login: WebLogin | None) -> Response:
        """`{"name": NAME}` for a browser signed in with a key, `{}` for a guest."""
        body = json.dumps({"name": login.name} if login is not None else {}).encode()
        headers = security_headers("application/json", len(body))
        headers["Cache-Control"] = "no-store"
        return Response(http.HTTPStatus.OK.value, "OK", headers, body)


def unavailable() -> Response:
    """The answer while the store of logins cannot be reached (503: try again)."""
    return text_response(http.HTTPStatus.SERVICE_UNAVAILABLE, UNAVAILABLE + "\n")
