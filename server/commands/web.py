"""The web front-end of `lovelet serve`: started beside the SSH server, sharing its sessions."""

from __future__ import annotations

import logging

from ..ops.config import DEFAULTS, Config
from ..ops.logs import say
from ..ssh.server import SSHService
from ..web import WebService, start_web_server
from ..web.server import WebAddress

log = logging.getLogger(__name__)


async def start_web(
    config: Config, service: SSHService, *, reuse_port: bool = False
) -> WebService | None:
    """Serve the page and its WebSocket where `web_listen` says (None when it is off), with
    the SSH service's sessions, limits and CPU pool; say where the page is. The default
    address taken by another program (a second server on the machine, a test's) is not an
    error: the server goes on without its web front-end."""
    if config.web_address is None:
        return None
    host, port = config.web_address
    address = WebAddress(host, port, config.web_public_url, config.public_host)
    try:
        web = await start_web_server(address, service.session_config, reuse_port=reuse_port)
    except OSError as err:
        if config.web_listen != DEFAULTS.web_listen:
            raise  # the operator asked for that address: not serving it is an error
        log.warning("no web front-end: %s:%d is not free (%s); set web_listen", host, port, err)
        return None
    say(f"or play in a browser: {web.url}", web=web.url)
    return web
