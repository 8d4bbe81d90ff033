"""Love Letter (2019): 21 cards with the Spy and the Chancellor, 2–6 players."""

from ..cards import CardSpec, Role
from ..edition import Edition

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
        CardSpec(
            "guard",
            "Guard",
            1,
            6,
            "Name a non-Guard card; if that player holds it, they are out.",
            Role.GUARD,
        ),
        CardSpec("priest", "Priest", 2, 2, "Look at another player's hand.", Role.PRIEST),
        CardSpec(
            "baron",
            "Baron",
            3,
            2,
            "Compare hands with another player; lower value is out.",
            Role.BARON,
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
            "prince",
            "Prince",
            5,
            2,
            "A player (maybe you) discards their hand and draws.",
            Role.PRINCE,
        ),
        CardSpec(
            "chancellor",
            "Chancellor",
            6,
            2,
            "Draw 2, keep 1, put 2 on the bottom of the deck.",
            Role.CHANCELLOR,
        ),
        CardSpec("king", "King", 7, 1, "Trade hands with another player.", Role.KING),
        CardSpec(
            "countess",
            "Countess",
            8,
            1,
            "Must be played if you hold the King or a Prince.",
            Role.COUNTESS,
        ),
        CardSpec(
            "princess", "Princess", 9, 1, "If you play or discard her, you are out.", Role.PRINCESS
        ),
    ),
    min_players=2,
    max_players=6,
    tokens_by_players={2: 6, 3: 5, 4: 4, 5: 3, 6: 3},
)
