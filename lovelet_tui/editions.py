"""What the lobby and the rules screen show about each edition. Display text only: the server
checks every request, and a table's reference card comes from its view."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EditionInfo:
    """An edition as the menus show it: its id, names, player range and short rules."""

    id: str
    name: str
    short: str
    min_players: int
    max_players: int
    rules: str


def _unwrap(text: str) -> str:
    """Source lines joined into paragraphs, so the screen wraps them to its width."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", text)


_FLOW = """\
Each player holds one card. On your turn draw a card, then play one of your two cards face up
and do what it says. Cards played stay in front of you, in order, for everyone to see.
Knocked-out players reveal their hand and sit out the rest of the round.
The round ends when one player is left, or after a turn that empties the deck: then the
highest card wins. Round winners gain a favor token; enough tokens win the game.
A protected player (Handmaid) cannot be chosen until their next turn. If every other player
is protected, a card that must choose another player is played with no effect."""

EDITIONS: tuple[EditionInfo, ...] = (
    EditionInfo(
        "classic",
        "Love Letter (2012)",
        "Classic",
        2,
        4,
        _unwrap(
            _FLOW
            + """

Tokens to win: 7 with 2 players, 5 with 3, 4 with 4. With 2 players, three more cards are
set aside face up. Ties at the end go to the highest total of discards; still tied, all win.
A Guard names a card other than Guard. You must play the Countess if you hold the King or a
Prince with her."""
        ),
    ),
    EditionInfo(
        "2019",
        "Love Letter (2019)",
        "2019",
        2,
        6,
        _unwrap(
            _FLOW
            + """

Tokens to win: 6 with 2 players, 5 with 3, 4 with 4, 3 with 5 or 6. With 2 players, three
more cards are set aside face up. Ties at the end: all tied players win.
Spy: if you are the only player still in at the end who played or discarded a Spy, gain a
token (besides any win). Chancellor: draw 2, keep 1 of your 3, put 2 under the deck."""
        ),
    ),
    EditionInfo(
        "premium",
        "Love Letter Premium (5–8)",
        "Premium",
        5,
        8,
        _unwrap(
            _FLOW
            + """

Tokens to win: 4. A Guard or Bishop names a number (not 1): every card of that value counts.
Bishop hit: gain a token; the target may discard and redraw. Assassin: a Guard that chooses
you knocks its own player out. Tokens gained mid-round that reach 4 end the game at once.
Ties at the end go to the highest total of discards; still tied, all win."""
        ),
    ),
    EditionInfo(
        "ppea",
        "Princess Princess Ever After",
        "Princess",
        2,
        6,
        _unwrap(
            _FLOW
            + """

The 2019 deck with new characters (Oliver the Dragon protects, the Ogre is the card you must
never discard). Tokens as in 2019. Claire the Spy scores like the Spy. If two different players
still in at the end each played or discarded one of Princess Amira and Princess Sadie, each
gains a token."""
        ),
    ),
)

BY_ID = {edition.id: edition for edition in EDITIONS}


def edition_name(edition_id: str, *, short: bool = False) -> str:
    """The edition's display name; the id itself for an edition this client does not know."""
    info = BY_ID.get(edition_id)
    if info is None:
        return edition_id
    return info.short if short else info.name
