"""Love Letter (2019): 21 cards with the Spy and the Chancellor, 2–6 players. The cards it
shares with the classic game are the classic ones, renumbered above the Chancellor."""

from dataclasses import replace

from ..cards import CardSpec, Role
from ..edition import Edition
from .classic import CLASSIC_CARDS
from .rules_text import rules

_CLASSIC = {card.id: card for card in CLASSIC_CARDS}

V2019 = Edition(
    id="2019",
    name="Love Letter (2019)",
    cards=(
        CardSpec(
            "spy",
            "Spy",
            0,
            2,
            "At round end, if only you played or discarded a Spy, gain 1 token.",
            Role.SPY,
        ),
        replace(_CLASSIC["guard"], count=6),
        _CLASSIC["priest"],
        _CLASSIC["baron"],
        _CLASSIC["handmaid"],
        _CLASSIC["prince"],
        CardSpec(
            "chancellor",
            "Chancellor",
            6,
            2,
            "Draw 2, keep 1, put 2 on the bottom of the deck.",
            Role.CHANCELLOR,
        ),
        replace(_CLASSIC["king"], value=7),
        replace(_CLASSIC["countess"], value=8),
        replace(_CLASSIC["princess"], value=9),
    ),
    min_players=2,
    max_players=6,
    tokens_by_players={2: 6, 3: 5, 4: 4, 5: 3, 6: 3},
    short="2019",
    rules=rules(
        """
Tokens to win: 6 with 2 players, 5 with 3, 4 with 4, 3 with 5 or 6. With 2 players, three
more cards are set aside face up. Ties at the end: all tied players win.
Spy: if you are the only player still in at the end who played or discarded a Spy, gain a
token (besides any win). Chancellor: draw 2, keep 1 of your 3, put 2 under the deck."""
    ),
)
