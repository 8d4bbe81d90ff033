"""What a session asks of its terminal: lovelet runs one full-screen app, so it needs a PTY;
the only command it takes is a table code (`ssh -t HOST CODE`), an invite straight to a table."""

from __future__ import annotations

import re

from server.services.sanitize import clean_text
from server.ssh.limits import SSHLimits

NEED_PTY = (
    "lovelet is a full-screen game and needs a terminal: "
    "connect with plain `ssh`, or `ssh -t` to give a table code.\r\n"
)
NOT_A_CODE = (
    "lovelet takes no command but a table code (letters and digits, at most 16): "
    "`ssh -t HOST CODE` goes straight to that table; and `ssh HOST web-login` gives a "
    "link that signs a browser in with your key.\r\n"
)
TABLE_CODE = re.compile(r"[A-Za-z0-9]{1,16}")
"""A table code as an SSH command: the protocol's codes (at most 16), ASCII letters and digits."""
COMMAND_MAX = 64
"""Characters of a command looked at: spaces around a code are forgiven, little else."""
DEFAULT_TERM = "xterm"
TERM_MAX_LEN = 40


def table_code(command: str) -> str | None:
    """The table code `command` names (`ssh -t host CODE`), upper case; None if it is not one."""
    if len(command) > COMMAND_MAX:
        return None
    code = command.strip(" ")
    return code.upper() if TABLE_CODE.fullmatch(code) else None


def clean_term(term: str) -> str:
    """A TERM value reduced to a safe charset; `xterm` if nothing usable is left."""
    cleaned = "".join(c for c in clean_text(term, TERM_MAX_LEN) if c.isalnum() or c in "-_.+")
    return cleaned or DEFAULT_TERM


class Terminal:
    """The PTY (its TERM and size, clamped to the limits) and the command a session asked for."""

    def __init__(self, limits: SSHLimits) -> None:
        self._limits = limits
        self.term: str | None = None
        """The cleaned TERM, once a PTY is requested."""
        self.command: str | None = None
        """What `ssh host COMMAND` asked for, if anything."""
        self.size = limits.clamp_size(80, 24)

    def pty_requested(self, term_type: str, width: int, height: int) -> None:
        """A PTY: its TERM cleaned, its size clamped."""
        self.term = clean_term(term_type)
        self.set_size(width, height)

    def set_size(self, width: int, height: int) -> None:
        """The terminal's new size, clamped to the limits."""
        self.size = self._limits.clamp_size(width, height)

    def refusal(self) -> str | None:
        """Why this session cannot start: no terminal, or a command that is no table code."""
        if self.term is None:
            return NEED_PTY
        if self.command is not None and table_code(self.command) is None:
            return NOT_A_CODE
        return None

    def table_code(self) -> str | None:
        """The table the command invites to, if it names one."""
        return None if self.command is None else table_code(self.command)
