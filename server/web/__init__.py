"""The browser's way in: an HTTP page with a terminal (xterm.js, shipped in `assets/`) and a
WebSocket that carries the same Textual app's terminal stream as an SSH session does.

`connection` drives each TCP connection from asyncio's callbacks through websockets' Sans-I/O
protocol (no task per connection, as asyncssh drives SSH channels) and is the `Stream` a
`server.ssh.session.StreamSession` runs its app over; `pages` answers the plain HTTP
requests (the page, its assets, headers such as the CSP); `login` the web-login links and
cookies; `origin` decides which pages may open the WebSocket; `session` is one browser's
session; `server` listens. Limits, the input pump, the key and CPU budgets and the driver
are the SSH layer's own (`server.ssh`), so both ways in share them.
"""

from server.web.server import WebService, start_web_server

__all__ = ["WebService", "start_web_server"]
