"""A browser signed in as a player with a key: the one-time link's answer (a cookie bound to
a session that `server.ssh.web_login` holds), who a request's cookie signs in as, and `/me`,
which tells the page (its script cannot read the HttpOnly cookie)."""

from __future__ import annotations

import http
import json
import re
from http.cookies import CookieError, SimpleCookie

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.ssh.web_login import SESSION_SECONDS, WebLogin, WebLogins
from server.web.pages import security_headers, text_response

COOKIE = "lovelet_login"
LOGIN_PATH = re.compile(r"/login/([A-Za-z0-9_-]{20,64})")
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

    def answer(self, request: Request) -> Response | None:
        """The answer to `/login/TOKEN` or `/me`; None for any other path."""
        path = request.path.partition("?")[0]
        if path == ME_PATH:
            return self._me(request)
        match = LOGIN_PATH.fullmatch(path)
        if match is None:
            return None
        session = self._logins.redeem(match[1]) if self._logins is not None else None
        if session is None:
            return text_response(http.HTTPStatus.GONE, SPENT)
        return self._signed_in(session)

    def login_of(self, headers: Headers) -> WebLogin | None:
        """Who the request's cookie signs in as; None for a guest."""
        if self._logins is None:
            return None
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("Cookie", "")[:COOKIE_MAX])
        except CookieError:
            return None
        morsel = cookie.get(COOKIE)
        return self._logins.session(morsel.value) if morsel is not None else None

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

    def _me(self, request: Request) -> Response:
        """`{"name": NAME}` for a browser signed in with a key, `{}` for a guest."""
        login = self.login_of(request.headers)
        body = json.dumps({"name": login.name} if login is not None else {}).encode()
        headers = security_headers("application/json", len(body))
        headers["Cache-Control"] = "no-store"
        return Response(http.HTTPStatus.OK.value, "OK", headers, body)
