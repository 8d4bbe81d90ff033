"""Where browsers find this server: the link an invite shows, and the origins whose pages may
open the WebSocket (any other page's is refused: no cross-site WebSocket hijacking)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

LOOPBACK = ("localhost", "127.0.0.1", "::1")
ANY = ("0.0.0.0", "::")
DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of `url` as a browser sends it in `Origin` (lower case, no
    default port); ValueError for anything but an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"expected http://HOST[:PORT] or https://HOST[:PORT], got {url!r}")
    return _origin(parts.scheme, parts.hostname, parts.port)


def _origin(scheme: str, host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == DEFAULT_PORTS[scheme]:
        return f"{scheme}://{shown.lower()}"
    return f"{scheme}://{shown.lower()}:{port}"


def public_url(configured: str, public_host: str, host: str, port: int) -> str:
    """The address browsers reach the page at: `configured` (`web_public_url`, e.g. behind a
    TLS proxy), else `http://` `public_host` or the listening host (this machine's name when
    it listens on every address, `localhost` on a loopback one), at `port`."""
    if configured:
        return origin_of(configured)
    if not public_host and host in ANY:
        public_host = socket.gethostname()
    elif not public_host and host in LOOPBACK:
        public_host = "localhost"
    return _origin("http", public_host or host, port)


def allowed_origins(configured: str, public_host: str, host: str, port: int) -> frozenset[str]:
    """The origins whose pages may open the WebSocket: the public URL's; without one
    configured, also the names a browser on this machine calls a loopback or wildcard
    listener by (`localhost`, `127.0.0.1`, `[::1]`)."""
    origins = {public_url(configured, public_host, host, port)}
    if not configured and (host in LOOPBACK or host in ANY):
        origins.update(_origin("http", name, port) for name in LOOPBACK)
    return frozenset(origins)
