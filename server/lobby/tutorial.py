"""The tutorial: a first game of classic against two easy bots, Bo and Cy, whose opening round
is dealt from a fixed deck and played to a script. At each of the player's decisions a guide
says what just happened, what the cards in hand do, and which play to make; the round shows
every card of classic at work. After it, free play with hints."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Choice, Play

EDITION = "classic"
BOTS = ((1, "Bo"), (2, "Cy"))  # seat, name: easy bots
LEVEL = "easy"
PLAYER = 0  # the player's seat, who plays first
TABLE_NAME = "Tutorial"

# Top first: set aside, the deals (you, Bo, Cy), then every draw in order (a Prince's too).
DECK = (
    *("handmaid", "guard", "princess", "guard"),
    *("priest", "prince", "guard", "guard", "baron", "handmaid"),
    *("guard", "prince", "priest", "countess", "king", "baron"),
)


@dataclass(frozen=True, slots=True)
class Step:
    """One decision of the scripted round: who makes it, the choice, and (for the player's
    steps) the guide shown while it is pending."""

    seat: int
    choice: Choice
    guide: str = ""


STEPS = (
    Step(
        PLAYER,
        Play("guard", (1,), "baron"),
        "Welcome! Each turn you draw a card, then play one of your two. You hold a Guard (1) "
        "and a Priest (2). A Guard names a card (not a Guard): if that player holds it, they "
        "are out of the round. Bo's card is hidden, so you guess. Play the Guard on Bo, "
        "naming the Baron.",
    ),
    Step(1, Play("prince", (2,))),
    Step(2, Play("guard", (PLAYER,), "baron")),
    Step(
        PLAYER,
        Play("priest", (2,)),
        "Your Guard missed: Bo holds no Baron. Bo's Prince made Cy discard his card and draw "
        "a new one. Cy's Guard named the Baron at you and missed: you held the Priest. A "
        "Priest shows you a player's card. Play the Priest on Cy and keep your Baron.",
    ),
    Step(1, Play("handmaid", ())),
    Step(2, Play("guard", (PLAYER,), "prince")),
    Step(
        PLAYER,
        Play("baron", (2,)),
        "You saw Cy's Guard. Bo played a Handmaid: no card can choose Bo until Bo's next "
        "turn. Cy's Guard missed again. A Baron compares your other card with a player's: "
        "the lower is out. Your Prince (5) beats Cy's Guard (1): play the Baron on Cy.",
    ),
    Step(1, Play("priest", (PLAYER,))),
    Step(
        PLAYER,
        Play("countess", ()),
        "Cy is out. Bo's Priest saw your Prince. You drew the Countess (7): while you hold "
        "her with a King or a Prince, you must play her, so she is your only play now. "
        "Play the Countess.",
    ),
    Step(1, Play("king", (PLAYER,))),
    Step(
        PLAYER,
        Play("baron", (1,)),
        "Bo's King traded hands with you: Bo has your Prince and you hold the Princess (8), "
        "the highest card. Whoever discards her is out, so you never play her. Play the "
        "Baron on Bo: your Princess beats his Prince.",
    ),
)

ROUND_OVER = (
    "You won the round and a token of affection: the first to 5 tokens wins the game. "
    "From now on you play as you like against Bo and Cy (easy bots), with hints: press h "
    "at any decision to see what the hard bot would do, and why. Press n for the next round."
)
WATCH = "Bo and Cy play now: follow the log."
FREE_PLAY = "Free play against easy bots: press h at a decision for a hint."


def describe(choice: Choice) -> str:
    """The scripted play in a few words, for a refusal of any other."""
    assert isinstance(choice, Play)
    text = choice.card.capitalize()
    names = dict(BOTS)
    if choice.targets:
        text += " on " + " and ".join(names.get(seat, "yourself") for seat in choice.targets)
    if choice.guess is not None:
        text += f", naming {str(choice.guess).capitalize()}"
    return text
