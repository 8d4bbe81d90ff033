"""The `stats` answer: a player's games and wins per edition, recent games, the leaderboard."""

from __future__ import annotations

from collections.abc import Iterable

from protocol import (
    EditionTally,
    FinishedGame,
    LeaderEntry,
    OnlineRating,
    PlayedGame,
    PlayerGames,
    RatingInfo,
    Stats,
)
from protocol.registry import MAX_NAME, MAX_RATING

from ..services.sanitize import clean_text
from ..store import LeaderRow, RatingChange, RatingRecord, RecentGame, Store
from .errors import TableError
from .session import Identity, Session

RECENT_GAMES = 10
LEADERS = 10
LATEST_GAMES = 10
GUEST_NOTE = "Guests' games are not kept: log in with an SSH key to have stats of your own."
NO_STORE_NOTE = "This server keeps no stats."


def stats_for(identity: Identity, store: Store | None, min_games: int = 0) -> Stats:
    """What `identity` may see: its own record and rating (keyed players only) and the
    leaderboard of players with at least `min_games` rated games."""
    if store is None:
        return Stats((), (), (), NO_STORE_NOTE, min_games=min_games)
    leaders = _leaders(store.leaderboard(LEADERS, min_games))
    bots = _leaders(store.bot_leaderboard(LEADERS, min_games))
    latest = _latest(store)
    if identity.guest:
        return Stats((), (), leaders, GUEST_NOTE, latest=latest, bots=bots, min_games=min_games)
    editions = edition_tallies(store, identity.id)
    recent = played_games(store.recent_games(identity.id, RECENT_GAMES))
    rating = store.bot_rating(identity.id) if identity.api_bot else store.rating(identity.id)
    return Stats(
        editions,
        recent,
        leaders,
        rating=rating_info(rating),
        latest=latest,
        bots=bots,
        min_games=min_games,
    )


def edition_tallies(store: Store, identity: str) -> tuple[EditionTally, ...]:
    """The games and wins of `identity` in each edition."""
    return tuple(
        EditionTally(edition, tally.games, tally.wins)
        for edition, tally in store.player_stats(identity).items()
    )


def played_games(games: Iterable[RecentGame]) -> tuple[PlayedGame, ...]:
    """A player's games as the protocol lists them (names as shown)."""
    return tuple(
        PlayedGame(
            game.game_id,
            game.edition,
            game.ended_at.isoformat(),
            game.won,
            tuple(map(display_name, game.players)),
            game.seat,
        )
        for game in games
    )


def rating_info(rating: RatingRecord | None) -> RatingInfo | None:
    """A rating as the protocol shows it; None for none."""
    return None if rating is None else RatingInfo(*shown_rating(rating), rating.games)


def _leaders(rows: Iterable[LeaderRow]) -> tuple[LeaderEntry, ...]:
    return tuple(
        LeaderEntry(display_name(row.nickname), row.games, row.wins, *shown_rating(row.rating))
        for row in rows
    )


def games_of(name: str, store: Store | None) -> PlayerGames:
    """The latest finished public games of the player called `name` (as the leaderboard
    names them); TableError if the server keeps no games or no one has that name."""
    if store is None:
        raise TableError("no_store", NO_STORE_NOTE)
    identity = store.owner_of(name)
    if identity is None:
        raise TableError("no_such_player", f"no player is called {display_name(name)}")
    return PlayerGames(display_name(name), _latest(store, identity))


def _latest(store: Store, identity: str | None = None) -> tuple[FinishedGame, ...]:
    """The server's (or `identity`'s) latest finished public games: anyone may replay them."""
    return tuple(
        FinishedGame(
            game.id,
            game.edition,
            game.ended_at.isoformat() if game.ended_at else "",
            tuple(display_name(seat.nickname) for seat in game.seats),
            tuple(game.winners or ()),
        )
        for game in store.finished_public_games(LATEST_GAMES, identity)
    )


def online_ratings(sessions: Iterable[Session], store: Store | None) -> tuple[OnlineRating, ...]:
    """The ratings of the keyed players online who have one, for the lobby list."""
    if store is None:
        return ()
    keyed = {s.identity.id: s.name for s in sessions if s.greeted and not s.identity.guest}
    found = store.ratings_of(list(keyed))
    return tuple(OnlineRating(keyed[key], shown_rating(r)[0]) for key, r in found.items())


def shown_change(change: RatingChange | None) -> tuple[int | None, int | None]:
    """A game's change of a rating as a seat map carries it: the rating after, and by how
    much it moved (as shown, whole numbers); (None, None) for no change."""
    if change is None:
        return None, None
    after = clamp_rating(change.after.mu)
    return after, after - clamp_rating(change.before)


def shown_rating(rating: RatingRecord) -> tuple[int, int]:
    """A rating and its uncertainty as the protocol carries them: whole, within 0..MAX."""
    return clamp_rating(rating.mu), clamp_rating(rating.sigma)


def clamp_rating(value: float) -> int:
    """A rating as the protocol carries it: whole, within 0..MAX."""
    return min(max(round(value), 0), MAX_RATING)


def display_name(stored: str) -> str:
    """A stored nickname as safe, bounded display text."""
    return clean_text(stored, MAX_NAME) or "?"
