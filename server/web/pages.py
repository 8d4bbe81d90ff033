"""The HTTP side of the web front-end: the page (at `/` and at `/t/CODE`, an invite), its
assets from the package, and the headers every answer carries."""

from __future__ import annotations

import http
import re
from functools import cache
from importlib.resources import files

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

SOCKET_PATH = "/ws"
INVITE_PATH = re.compile(r"/t/[A-Za-z0-9]{1,16}")
ASSETS = {
    "/assets/lovelet.js": ("lovelet.js", "text/javascript; charset=utf-8"),
    "/assets/lovelet.css": ("lovelet.css", "text/css; charset=utf-8"),
    "/assets/vendor/xterm.js": ("vendor/xterm.js", "text/javascript; charset=utf-8"),
    "/assets/vendor/xterm.css": ("vendor/xterm.css", "text/css; charset=utf-8"),
    "/assets/vendor/addon-fit.js": ("vendor/addon-fit.js", "text/javascript; charset=utf-8"),
}
"""Every file served, by path: nothing else in the package is reachable."""
PAGE = ("index.html", "text/html; charset=utf-8")
CSP = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; "
    # xterm.js writes its theme into a <style> element it makes: styles only, never script.
    "style-src 'self' 'unsafe-inline'; font-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


@cache
def _asset(name: str) -> bytes:
    """A file of the `assets` folder, read once."""
    return files("server.web").joinpath("assets", name).read_bytes()


def page_response(request: Request) -> Response | None:
    """The answer to a plain HTTP request; None for the WebSocket's path (the handshake
    goes on)."""
    path = request.path.partition("?")[0]
    if path == SOCKET_PATH:
        return None
    if path == "/" or INVITE_PATH.fullmatch(path):
        return respond(http.HTTPStatus.OK, *PAGE, cache="no-cache")
    if path in ASSETS:
        return respond(http.HTTPStatus.OK, *ASSETS[path], cache="max-age=3600")
    if path == "/favicon.ico":  # asked for by every browser: no icon, and no error either
        return text_response(http.HTTPStatus.NO_CONTENT, "")
    return text_response(http.HTTPStatus.NOT_FOUND, "Not found.\n")


def respond(status: http.HTTPStatus, name: str, content_type: str, *, cache: str) -> Response:
    """A file of the assets, with the security headers."""
    body = _asset(name)
    headers = security_headers(content_type, len(body))
    headers["Cache-Control"] = cache
    return Response(status.value, status.phrase, headers, body)


def text_response(status: http.HTTPStatus, text: str) -> Response:
    """A short plain-text answer (an error), with the security headers."""
    body = text.encode()
    return Response(
        status.value, status.phrase, security_headers("text/plain; charset=utf-8", len(body)), body
    )


def security_headers(content_type: str, length: int) -> Headers:
    """The headers of every answer: the security ones, the content's type and length (the
    connection adds `Connection`: kept alive or closed)."""
    headers = Headers(SECURITY_HEADERS)
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(length)
    return headers
