"""Love Letter (2012): 16 cards, 2–4 players."""

from ..cards import CardSpec, Role
from ..edition import Edition
from .rules_text import rules

CLASSIC_CARDS = (
    CardSpec(
        "guard",
        "Guard",
        1,
        5,
        "Name a non-Guard card; if that player holds it, they are out.",
        Role.GUARD,
    ),
    CardSpec("priest", "Priest", 2, 2, "Look at another player's hand.", Role.PRIEST),
    CardSpec(
        "baron", "Baron", 3, 2, "Compare hands with another player; lower value is out.", Role.BARON
    ),
    CardSpec(
        "handmaid",
        "Handmaid",
        4,
        2,
        "Protection from other cards until your next turn.",
        Role.HANDMAID,
    ),
    CardSpec(
        "prince", "Prince", 5, 2, "A player (maybe you) discards their hand and draws.", Role.PRINCE
    ),
    CardSpec("king", "King", 6, 1, "Trade hands with another player.", Role.KING),
    CardSpec(
        "countess",
        "Countess",
        7,
        1,
        "Must be played if you hold the King or a Prince.",
        Role.COUNTESS,
    ),
    CardSpec(
        "princess", "Princess", 8, 1, "If you play or discard her, you are out.", Role.PRINCESS
    ),
)

CLASSIC = Edition(
    id="classic",
    name="Love Letter Classic (2012)",
    cards=CLASSIC_CARDS,
    min_players=2,
    max_players=4,
    tokens_by_players={2: 7, 3: 5, 4: 4},
    short="Classic",
    rules=rules(
        """
Tokens to win: 7 with 2 players, 5 with 3, 4 with 4. With 2 players, three more cards are
set aside face up. Ties at the end go to the highest total of discards; still tied, all win.
A Guard names a card other than Guard. You must play the Countess if you hold the King or a
Prince with her."""
    ),
    tie_break_by_discards=True,
)
