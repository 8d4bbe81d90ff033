"""The `profile` answer: a player's rating and its history, games and wins per edition,
favourite cards and latest games."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable

from protocol import CardCount, EditionTally, PlayedGame, Profile, RatingInfo

from ..store import Store
from .session import Identity, Session
from .stats import NO_STORE_NOTE, clamp_rating, display_name, shown_rating

LATEST = 10  # games a profile lists
FAVOURITES = 3  # cards a profile names


def profile_of(
    name: str,
    viewer: Identity,
    sessions: Iterable[Session],
    store: Store | None,
    friends: Collection[str] = (),
) -> Profile:
    """The profile of the player called `name` as `viewer` (whose friends' keys are
    `friends`) may see it: someone online by their session's identity, anyone else by the
    key their name is reserved to. Private tables' games are listed to the player only."""
    shown = display_name(name)
    if store is None:
        return Profile(shown, NO_STORE_NOTE)
    online = next((s for s in sessions if s.greeted and s.name == name), None)
    if online is not None and online.identity.guest:
        return Profile(shown, f"{shown} plays as a guest: guests' games are not kept.")
    identity = online.identity.id if online is not None else store.owner_of(name)
    if identity is None:
        return Profile(shown, f"Nobody called {shown} has games kept here.")
    profile = _profile(shown, identity, not viewer.guest and viewer.id == identity, store)
    return dataclasses.replace(profile, friend=identity in friends)


def _profile(name: str, identity: str, yours: bool, store: Store) -> Profile:
    rating = store.rating(identity)
    editions = store.player_stats(identity).items()
    games = store.recent_games(identity, LATEST, public=not yours)
    return Profile(
        name,
        rating=None if rating is None else RatingInfo(*shown_rating(rating), rating.games),
        history=tuple(map(clamp_rating, store.rating_history(identity))),
        editions=tuple(EditionTally(edition, t.games, t.wins) for edition, t in editions),
        favourites=tuple(CardCount(*row) for row in store.favourite_cards(identity, FAVOURITES)),
        games=tuple(
            PlayedGame(
                game.game_id,
                game.edition,
                game.ended_at.isoformat(),
                game.won,
                tuple(map(display_name, game.players)),
                game.seat,
            )
            for game in games
        ),
        yours=yours,
    )
