"""The lobby list: the open tables and who is online, for every session in the lobby."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from protocol import Lobby as LobbyMessage
from protocol import TableSummary

from ..services.clock import Clock
from ..store import Store
from .session import Session
from .stats import online_ratings


class LobbyList:
    """One update per turn of the loop to the greeted sessions not at a table; private
    tables are listed to administrators only."""

    def __init__(
        self,
        clock: Clock,
        sessions: Mapping[Session, None],
        listing: Mapping[str, TableSummary],
        store: Store | None = None,
        admin: Callable[[Session], bool] = lambda session: False,
        after: Callable[[], None] = lambda: None,
    ) -> None:
        self._clock = clock
        self._store = store  # for the ratings beside names
        self._sessions = sessions
        self._listing = listing
        self._admin = admin
        self._after = after  # what else follows who is where (friends' whereabouts)
        self._dirty = False

    def online(self) -> tuple[str, ...]:
        """Names of every greeted session."""
        return tuple(s.name for s in self._sessions if s.greeted)

    def changed(self) -> None:
        """Coalesce: the list goes out once, soon."""
        if not self._dirty:
            self._dirty = True
            self._clock.call_soon(self._flush)

    def send_to(self, session: Session) -> None:
        """The list, now, to one session."""
        session.send(self._messages()[self._admin(session)])

    def _flush(self) -> None:
        self._dirty = False
        messages = self._messages()
        for session in self._sessions:
            if session.greeted and session.table is None:
                session.send(messages[self._admin(session)])
        self._after()

    def _messages(self) -> tuple[LobbyMessage, LobbyMessage]:
        """The list for players, and for administrators (with the private tables)."""
        online = self.online()
        ratings = online_ratings(self._sessions, self._store)
        programs = self.api_bots()
        every = tuple(self._listing.values())
        public = tuple(table for table in every if not table.private)
        return (
            LobbyMessage(public, online, ratings, programs),
            LobbyMessage(every, online, ratings, programs),
        )

    def api_bots(self) -> tuple[str, ...]:
        """Names of the greeted sessions that are programs on the bot API."""
        return tuple(s.name for s in self._sessions if s.greeted and s.identity.api_bot)
