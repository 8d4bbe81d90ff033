"""The SSH layer: host key, authentication, one Textual app per terminal session."""

from server.ssh.info import SessionInfo
from server.ssh.keys import HostKeyError
from server.ssh.limits import SSHLimits
from server.ssh.server import SSHService, start_ssh_server

__all__ = ["HostKeyError", "SSHLimits", "SSHService", "SessionInfo", "start_ssh_server"]
