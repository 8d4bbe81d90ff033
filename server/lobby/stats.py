"""The `stats` answer: a player's games and wins per edition, recent games, the leaderboard."""

from __future__ import annotations

from protocol import EditionTally, LeaderEntry, PlayedGame, Stats
from protocol.registry import MAX_NAME

from ..sanitize import clean_text
from ..store import Store
from .session import Identity

RECENT_GAMES = 10
LEADERS = 10
GUEST_NOTE = "Guests' games are not kept: log in with an SSH key to have stats of your own."
NO_STORE_NOTE = "This server keeps no stats."


def stats_for(identity: Identity, store: Store | None) -> Stats:
    """What `identity` may see: its own record (keyed players only) and the leaderboard."""
    if store is None:
        return Stats((), (), (), NO_STORE_NOTE)
    leaders = tuple(
        LeaderEntry(_name(row.nickname), row.games, row.wins) for row in store.leaderboard(LEADERS)
    )
    if identity.guest:
        return Stats((), (), leaders, GUEST_NOTE)
    editions = tuple(
        EditionTally(edition, tally.games, tally.wins)
        for edition, tally in store.player_stats(identity.id).items()
    )
    recent = tuple(
        PlayedGame(
            game.game_id,
            game.edition,
            game.ended_at.isoformat(),
            game.won,
            tuple(map(_name, game.players)),
        )
        for game in store.recent_games(identity.id, RECENT_GAMES)
    )
    return Stats(editions, recent, leaders)


def _name(stored: str) -> str:
    """A stored nickname as safe, bounded display text."""
    return clean_text(stored, MAX_NAME) or "?"
