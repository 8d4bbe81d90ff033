"""The `profile` answer: a player's rating and its history, games and wins per edition,
favourite cards and latest games."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable

from protocol import CardCount, Profile

from ..store import Store
from .session import Identity, Session
from .stats import (
    NO_STORE_NOTE,
    clamp_rating,
    display_name,
    edition_tallies,
    played_games,
    rating_info,
)

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
    return Profile(
        name,
        rating=rating_info(store.rating(identity)),
        history=tuple(map(clamp_rating, store.rating_history(identity))),
        editions=edition_tallies(store, identity),
        favourites=tuple(CardCount(*row) for row in store.favourite_cards(identity, FAVOURITES)),
        games=played_games(store.recent_games(identity, LATEST, public=not yours)),
        yours=yours,
    )
