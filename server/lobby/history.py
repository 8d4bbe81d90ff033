"""The lobby's answers about finished games: a round to replay, a player's latest games.
Each request rebuilds a game or reads the store, so they share one rate limit per session."""

from __future__ import annotations

from protocol import GamesRequest, ReplayRequest

from ..services.clock import Clock
from ..store import Store
from .errors import TableError
from .replays import replay_for
from .session import Session
from .stats import games_of


class History:
    """Answers `replay` and `games` requests from the store, within each session's limit."""

    def __init__(self, store: Store | None, clock: Clock) -> None:
        self.store = store
        self.clock = clock

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

    def _replay_allowed(self, session: Session) -> None:
        limit = session.replay_limit
        if limit is not None and not limit.allow(self.clock.now()):
            raise TableError("too_fast", "too many replay requests: wait a few seconds")
