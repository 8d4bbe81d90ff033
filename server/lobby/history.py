"""The lobby's answers about finished games: a round to replay, a player's latest games, a
player's profile. Each request rebuilds a game or reads the store, so they share one rate
limit per session."""

from __future__ import annotations

from collections.abc import Iterable

from protocol import GamesRequest, ProfileRequest, ReplayRequest

from ..services.clock import Clock
from ..store import Store
from .errors import TableError
from .profile import profile_of
from .replays import replay_for
from .session import Session
from .stats import games_of


class History:
    """Answers `replay`, `games` and `profile` requests from the store, within each
    session's limit."""

    def __init__(self, store: Store | None, clock: Clock, sessions: Iterable[Session]) -> None:
        self.store = store
        self.clock = clock
        self.sessions = sessions  # who is online: a profile finds them by their session

    def replay(self, session: Session, message: ReplayRequest) -> None:
        """One round of a finished game, as this session may see it (each request rebuilds
        the game: they are rate-limited)."""
        self._replay_allowed(session)
        viewer = None if session.identity.guest else session.identity.id
        session.send(replay_for(self.store, message, viewer))

    def games(self, session: Session, message: GamesRequest) -> None:
        """A player's latest public games, to replay (rate-limited with replays)."""
        self._replay_allowed(session)
        session.send(games_of(message.name, self.store))

    def profile(self, session: Session, message: ProfileRequest) -> None:
        """A player's profile (rate-limited with replays)."""
        self._replay_allowed(session)
        viewer = session.identity
        session.send(profile_of(message.name, viewer, self.sessions, self.store, session.friends))

    def _replay_allowed(self, session: Session) -> None:
        limit = session.replay_limit
        if limit is not None and not limit.allow(self.clock.now()):
            raise TableError("too_fast", "too many replay requests: wait a few seconds")
