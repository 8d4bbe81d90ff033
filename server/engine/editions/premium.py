"""Love Letter Premium for 5–8 players: 32 cards. With 2–4 players it is the classic game."""

from ..cards import CardSpec, Role
from ..edition import Edition
from .classic import CLASSIC_CARDS
from .rules_text import rules

_CLASSIC = {card.id: card for card in CLASSIC_CARDS}

PREMIUM = Edition(
    id="premium",
    name="Love Letter Premium (5–8)",
    cards=(
        CardSpec(
            "assassin",
            "Assassin",
            0,
            1,
            "If a Guard chooses you, its player is out; discard this and draw.",
            Role.ASSASSIN,
        ),
        CardSpec(
            "jester",
            "Jester",
            0,
            1,
            "Choose another player; if they win the round, gain 1 token.",
            Role.JESTER,
        ),
        CardSpec(
            "guard",
            "Guard",
            1,
            8,
            "Name a number other than 1; if that player's card has it, they are out.",
            Role.GUARD,
        ),
        _CLASSIC["priest"],
        CardSpec(
            "cardinal",
            "Cardinal",
            2,
            2,
            "Two players swap hands; look at one of them.",
            Role.CARDINAL,
        ),
        _CLASSIC["baron"],
        CardSpec(
            "baroness",
            "Baroness",
            3,
            2,
            "Look at the hands of one or two other players.",
            Role.BARONESS,
        ),
        _CLASSIC["handmaid"],
        CardSpec(
            "sycophant",
            "Sycophant",
            4,
            2,
            "Mark a player: the next card choosing players must include them.",
            Role.SYCOPHANT,
        ),
        _CLASSIC["prince"],
        CardSpec(
            "count",
            "Count",
            5,
            2,
            "At showdown, +1 to your hand for each Count you played.",
            Role.COUNT,
        ),
        _CLASSIC["king"],
        CardSpec(
            "constable",
            "Constable",
            6,
            1,
            "If you are knocked out with this in your discards, gain 1 token.",
            Role.CONSTABLE,
        ),
        _CLASSIC["countess"],
        CardSpec(
            "dowager_queen",
            "Dowager Queen",
            7,
            1,
            "Compare hands with another player; higher value is out.",
            Role.DOWAGER_QUEEN,
        ),
        _CLASSIC["princess"],
        CardSpec(
            "bishop",
            "Bishop",
            9,
            1,
            "Name a number; if that player's card has it, gain 1 token. Loses to the Princess.",
            Role.BISHOP,
        ),
    ),
    min_players=5,
    max_players=8,
    tokens_by_players={5: 4, 6: 4, 7: 4, 8: 4},
    short="Premium",
    rules=rules(
        """
Tokens to win: 4. A Guard or Bishop names a number (not 1): every card of that value counts.
Bishop hit: gain a token; the target may discard and redraw. Assassin: a Guard that chooses
you knocks its own player out. Tokens gained mid-round that reach 4 end the game at once.
Ties at the end go to the highest total of discards; still tied, all win."""
    ),
    tie_break_by_discards=True,
    guess_by_value=True,
)
