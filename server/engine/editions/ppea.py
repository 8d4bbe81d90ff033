"""Princess Princess Ever After: the 2019 deck re-themed, plus the Princesses' pair bonus."""

from ..cards import CardSpec, Role
from ..edition import Edition
from .rules_text import rules

PPEA = Edition(
    id="ppea",
    name="Princess Princess Ever After (PPEA)",
    cards=(
        CardSpec(
            "claire",
            "Claire the Spy",
            0,
            2,
            "At round end, if only you played or discarded a Claire, gain 1 token.",
            Role.SPY,
        ),
        CardSpec(
            "guard",
            "Guard",
            1,
            6,
            "Name a non-Guard character; if that player holds it, they are out.",
            Role.GUARD,
        ),
        CardSpec(
            "kings_advisors", "King's Advisors", 2, 2, "Look at another player's hand.", Role.PRIEST
        ),
        CardSpec(
            "palace_librarian",
            "Palace Librarian",
            3,
            2,
            "Compare hands with another player; lower value is out.",
            Role.BARON,
        ),
        CardSpec(
            "oliver",
            "Oliver the Dragon",
            4,
            2,
            "Protection from other cards until your next turn.",
            Role.HANDMAID,
        ),
        CardSpec(
            "prince_vladric",
            "Prince Vladric",
            5,
            2,
            "A player (maybe you) discards their hand and draws.",
            Role.PRINCE,
        ),
        CardSpec(
            "princess_amira",
            "Princess Amira",
            6,
            1,
            "Draw 2, keep 1, put 2 on the bottom. Pair bonus with Sadie.",
            Role.CHANCELLOR,
        ),
        CardSpec(
            "princess_sadie",
            "Princess Sadie",
            6,
            1,
            "Draw 2, keep 1, put 2 on the bottom. Pair bonus with Amira.",
            Role.CHANCELLOR,
        ),
        CardSpec("ghost_king", "Ghost King", 7, 1, "Trade hands with another player.", Role.KING),
        CardSpec(
            "celeste",
            "Celeste the Unicorn",
            8,
            1,
            "Must be played if you hold the Ghost King or Prince Vladric.",
            Role.COUNTESS,
        ),
        CardSpec("ogre", "Ogre", 9, 1, "If you play or discard him, you are out.", Role.PRINCESS),
    ),
    min_players=2,
    max_players=6,
    tokens_by_players={2: 6, 3: 5, 4: 4, 5: 3, 6: 3},
    short="PPEA",
    rules=rules(
        """
The 2019 deck with new characters (Oliver the Dragon protects, the Ogre is the card you must
never discard). Tokens as in 2019. Claire the Spy scores like the Spy. If two different players
still in at the end each played or discarded one of Princess Amira and Princess Sadie, each
gains a token."""
    ),
    pair_bonus=("princess_amira", "princess_sadie"),
)
