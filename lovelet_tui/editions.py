"""What the lobby, help and rules screens show about each edition. Display text only: the
server checks every request. The card lists mirror the engine's reference cards (a test keeps
them equal) until the server sends its catalogue; at a table, the view's reference wins."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CardInfo:
    """One card of an edition's reference: value, name, copies in the deck, effect."""

    value: int
    name: str
    count: int
    text: str


@dataclass(frozen=True, slots=True)
class EditionInfo:
    """An edition as the menus show it: its id, names, player range, short rules, cards."""

    id: str
    name: str
    short: str
    min_players: int
    max_players: int
    rules: str
    cards: tuple[CardInfo, ...] = ()


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

_CLASSIC = (
    CardInfo(1, "Guard", 5, "Name a non-Guard card; if that player holds it, they are out."),
    CardInfo(2, "Priest", 2, "Look at another player's hand."),
    CardInfo(3, "Baron", 2, "Compare hands with another player; lower value is out."),
    CardInfo(4, "Handmaid", 2, "Protection from other cards until your next turn."),
    CardInfo(5, "Prince", 2, "A player (maybe you) discards their hand and draws."),
    CardInfo(6, "King", 1, "Trade hands with another player."),
    CardInfo(7, "Countess", 1, "Must be played if you hold the King or a Prince."),
    CardInfo(8, "Princess", 1, "If you play or discard her, you are out."),
)
_2019 = (
    CardInfo(0, "Spy", 2, "At round end, if only you played or discarded a Spy, gain 1 token."),
    CardInfo(1, "Guard", 6, "Name a non-Guard card; if that player holds it, they are out."),
    CardInfo(2, "Priest", 2, "Look at another player's hand."),
    CardInfo(3, "Baron", 2, "Compare hands with another player; lower value is out."),
    CardInfo(4, "Handmaid", 2, "Protection from other cards until your next turn."),
    CardInfo(5, "Prince", 2, "A player (maybe you) discards their hand and draws."),
    CardInfo(6, "Chancellor", 2, "Draw 2, keep 1, put 2 on the bottom of the deck."),
    CardInfo(7, "King", 1, "Trade hands with another player."),
    CardInfo(8, "Countess", 1, "Must be played if you hold the King or a Prince."),
    CardInfo(9, "Princess", 1, "If you play or discard her, you are out."),
)
_PREMIUM = (
    CardInfo(0, "Assassin", 1, "If a Guard chooses you, its player is out; discard this and draw."),
    CardInfo(0, "Jester", 1, "Choose another player; if they win the round, gain 1 token."),
    CardInfo(
        1, "Guard", 8, "Name a number other than 1; if that player's card has it, they are out."
    ),
    CardInfo(2, "Priest", 2, "Look at another player's hand."),
    CardInfo(2, "Cardinal", 2, "Two players swap hands; look at one of them."),
    CardInfo(3, "Baron", 2, "Compare hands with another player; lower value is out."),
    CardInfo(3, "Baroness", 2, "Look at the hands of one or two other players."),
    CardInfo(4, "Handmaid", 2, "Protection from other cards until your next turn."),
    CardInfo(4, "Sycophant", 2, "Mark a player: the next card choosing players must include them."),
    CardInfo(5, "Prince", 2, "A player (maybe you) discards their hand and draws."),
    CardInfo(5, "Count", 2, "At showdown, +1 to your hand for each Count you played."),
    CardInfo(6, "King", 1, "Trade hands with another player."),
    CardInfo(6, "Constable", 1, "If you are knocked out with this in your discards, gain 1 token."),
    CardInfo(7, "Countess", 1, "Must be played if you hold the King or a Prince."),
    CardInfo(7, "Dowager Queen", 1, "Compare hands with another player; higher value is out."),
    CardInfo(8, "Princess", 1, "If you play or discard her, you are out."),
    CardInfo(
        9,
        "Bishop",
        1,
        "Name a number; if that player's card has it, gain 1 token. Loses to the Princess.",
    ),
)
_PPEA = (
    CardInfo(
        0,
        "Claire the Spy",
        2,
        "At round end, if only you played or discarded a Claire, gain 1 token.",
    ),
    CardInfo(1, "Guard", 6, "Name a non-Guard character; if that player holds it, they are out."),
    CardInfo(2, "King's Advisors", 2, "Look at another player's hand."),
    CardInfo(3, "Palace Librarian", 2, "Compare hands with another player; lower value is out."),
    CardInfo(4, "Oliver the Dragon", 2, "Protection from other cards until your next turn."),
    CardInfo(5, "Prince Vladric", 2, "A player (maybe you) discards their hand and draws."),
    CardInfo(6, "Princess Amira", 1, "Draw 2, keep 1, put 2 on the bottom. Pair bonus with Sadie."),
    CardInfo(6, "Princess Sadie", 1, "Draw 2, keep 1, put 2 on the bottom. Pair bonus with Amira."),
    CardInfo(7, "Ghost King", 1, "Trade hands with another player."),
    CardInfo(
        8, "Celeste the Unicorn", 1, "Must be played if you hold the Ghost King or Prince Vladric."
    ),
    CardInfo(9, "Ogre", 1, "If you play or discard him, you are out."),
)

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
        _CLASSIC,
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
        _2019,
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
        _PREMIUM,
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
        _PPEA,
    ),
)

BY_ID = {edition.id: edition for edition in EDITIONS}
CONFIRM_PLAY = frozenset({"princess", "ogre"})  # playing one knocks you out: asked first


def reference(edition_id: str) -> list[Mapping[str, Any]]:
    """The edition's cards as reference rows (`value`, `name`, `count`, `text`), as a view's
    `cards` holds them; empty for an edition this client does not know."""
    info = BY_ID.get(edition_id)
    return [asdict(card) for card in info.cards] if info else []


def edition_name(edition_id: str, *, short: bool = False) -> str:
    """The edition's display name; the id itself for an edition this client does not know."""
    info = BY_ID.get(edition_id)
    if info is None:
        return edition_id
    return info.short if short else info.name
