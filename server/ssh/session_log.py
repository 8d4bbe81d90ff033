"""What a session logs and counts: its login, a crash of its app, its kick, its end."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from server.ops.logs import Stopwatch, log_disconnect, log_login

if TYPE_CHECKING:
    from server.ops.metrics import Metrics

log = logging.getLogger("server.ssh.session")
"""The session's own logger, by the name operators filter on."""


class SessionLog:
    """One session's log lines and counts; keeps the first error its app raised."""

    def __init__(
        self, peer: str, identity: str | None, client_version: str | None, metrics: Metrics | None
    ) -> None:
        self._peer, self._identity, self._client_version = peer, identity, client_version
        self._metrics = metrics
        self.error: BaseException | None = None
        self._started: Stopwatch | None = None  # set when the login is logged
        self._held_back = False

    def logged_in(self, nickname: str, term: str | None, size: tuple[int, int]) -> None:
        """Log and count the login, now that the nickname, TERM and size are known."""
        self._started = Stopwatch()
        log_login(self._peer, self._identity, nickname, self._client_version, term, size)
        if self._metrics is not None:
            self._metrics.login(guest=self._identity is None)

    def crashed(self, nickname: str | None, error: BaseException) -> None:
        """Log an app's exception without local variables; the session will end."""
        if self.error is None:
            self.error = error
        log.error(
            "session %s from %s crashed",
            nickname,
            self._peer,
            exc_info=(type(error), error, error.__traceback__),
        )

    def kicked(self, nickname: str | None, reason: str) -> None:
        """The server ends the session: the client misbehaves or cannot keep up."""
        log.warning("session %s from %s: %s", nickname, self._peer, reason)

    def ended(
        self, nickname: str | None, close_message: str | None, cost: tuple[float, int]
    ) -> None:
        """Log the end of a logged-in session: its duration, why it ended, and `cost` (the
        server time it caused, the times its input was held back to its share)."""
        if self._started is None:
            return
        reason = "error" if self.error is not None else close_message
        log_disconnect(self._peer, nickname, self._started.elapsed(), reason, cost)
        self._started = None
        if self._metrics is not None:
            self._metrics.session_ended(cost[0])

    def held_back(self, nickname: str | None) -> None:
        """The session's input waits for its share of the server's time (counted each time,
        logged once)."""
        if self._metrics is not None:
            self._metrics.session_held()
        if not self._held_back:
            self._held_back = True
            log.warning(
                "session %s from %s: past its share of the server's time", nickname, self._peer
            )
