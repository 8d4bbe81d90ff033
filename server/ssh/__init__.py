"""The SSH layer: host key, authentication, one Textual app per terminal session.

A session (`session.LoveletSession`, the SSH transport of a `session.StreamSession`, which runs
the app over any byte stream) has parts of one concern each:
`terminal` (a PTY is required; the only command is a table code), `guard` (request limits,
and the kick of a session that breaks one), `session_log` (login, crash and end lines) and
`handoff` (a subsystem, the bot API, takes the channel over).
"""

from server.ssh.info import SessionInfo
from server.ssh.keys import HostKeyError
from server.ssh.limits import SSHLimits
from server.ssh.server import SSHService, start_ssh_server

__all__ = ["HostKeyError", "SSHLimits", "SSHService", "SessionInfo", "start_ssh_server"]
