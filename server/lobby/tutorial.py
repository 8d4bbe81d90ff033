"""The tutorial: a first game of classic against two easy bots, Bo and Cy, whose opening round
is dealt from a fixed deck and played to a script. At each of the player's decisions a guide
says what just happened, what the cards in hand do, and which play to make; the round shows
every card of classic at work. After it, free play with hints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..engine import Choice, Game, Play
from .errors import TableError

EDITION = "classic"
BOTS = ((1, "Bo"), (2, "Cy"))  # seat, name: easy bots
LEVEL = "easy"
PLAYER = 0  # the player's seat, who plays first
TABLE_NAME = "Tutorial"

# Top first: set aside, the deals (you, Bo, Cy), then every draw in order (a Prince's too).
DECK = (
    *("handmaid", "guard", "princess", "guard"),
    *("priest", "prince", "guard", "guard", "baron", "handmaid"),
    *("priest", "prince", "guard", "countess", "king", "baron"),
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
        "Your Guard missed: Bo held no Baron. Bo's Prince made Cy discard his card and draw "
        "a new one. Cy's Guard named the Baron at you and missed: you held the Priest. A "
        "Priest shows you a player's card. Play the Priest on Cy and keep your Baron.",
    ),
    Step(1, Play("handmaid", ())),
    Step(2, Play("priest", (PLAYER,))),
    Step(
        PLAYER,
        Play("baron", (2,)),
        "You saw Cy's Guard. Bo played a Handmaid: no card can choose Bo until Bo's next "
        "turn. Cy drew, then played a Priest on you, so Cy still holds the Guard. A Baron "
        "compares your other card with a player's: the lower is out. Your Prince (5) beats "
        "Cy's Guard (1): play the Baron on Cy.",
    ),
    Step(1, Play("guard", (PLAYER,), "countess")),
    Step(
        PLAYER,
        Play("countess", ()),
        "Cy is out. Bo's Guard named the Countess at you and missed. You drew the Countess "
        "(7): while you hold her with a King or a Prince, you must play her, so she is your "
        "only play now. Play the Countess.",
    ),
    Step(1, Play("king", (PLAYER,))),
    Step(
        PLAYER,
        Play("baron", (1,)),
        "Bo's King traded hands with you: Bo has your Prince and you hold the Princess (8), "
        "the highest card. Whoever discards her is out, so you never play her. Play the "
        "Baron on Bo: your Princess beats Bo's Prince.",
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


class Run(Protocol):
    """What a lesson reads of the table's game runner."""

    game: Game | None
    epoch: int  # which game of the table (the lesson is the first's first round)
    status: str


class Lesson:
    """The scripted opening round of a tutorial table: its fixed deck, the step due, the
    refusal of any other play, and the guide's words for the player."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.made = 0  # the scripted round's decisions made so far

    def deck(self) -> tuple[str, ...] | None:
        """The fixed deck if the round about to be dealt is the scripted one, else None."""
        game = self.run.game
        return DECK if self.run.epoch == 1 and game is not None and game.round == 0 else None

    def step(self) -> Step | None:
        """The step pending now, while the scripted round is played."""
        game = self.run.game
        if self.run.epoch != 1 or game is None or game.round != 1:
            return None
        if self.run.status != "playing" or game.round_over or self.made >= len(STEPS):
            return None
        return STEPS[self.made]

    def check(self, choice: Choice) -> None:
        """`tutorial_step` unless `choice` is the scripted one (or nothing is scripted now)."""
        step = self.step()
        if step is not None and choice != step.choice:
            raise TableError("tutorial_step", f"in this lesson, play: {describe(step.choice)}")

    def advance(self) -> None:
        """A decision was made: the next step is due (in the scripted round)."""
        if self.step() is not None:
            self.made += 1

    def guide(self, index: int | None) -> str | None:
        """The words for the player at `index` now (None: none)."""
        game = self.run.game
        if index != PLAYER or game is None:
            return None
        if self.run.epoch == 1 and game.round == 1:
            step = self.step()
            if step is None:
                return ROUND_OVER
            return step.guide or WATCH
        return FREE_PLAY if self.run.status == "playing" else None
