"""The events of a table's log, as the wire carries them. GENERATED: do not edit.

Generated from `server/engine/event_catalogue.py` (field types and who sees the private ones
are explained there) by `.venv/bin/python -m server.commands.wire_events`.

`EVENTS`: for each kind, the type of its `seat` and its fields as (name, type, flags):
"private" (only some seats are sent it), "optional" (may be absent). `WORDS`: the types that
are one of a few words. Then one frozen record per kind (`KINDS`), as a receiver gets it: a
private or optional field it was not sent is None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

EVENTS = {
    "round_start": (
        "none",
        (
            ("round", "round", ()),
            ("start", "seat", ()),
            ("face_up", "cards", ()),
            ("tokens", "counts", ()),
        ),
    ),
    "deal": ("seat", (("card", "card", ("private",)),)),
    "draw": ("seat", (("set_aside", "bool", ("optional",)), ("card", "card", ("private",)))),
    "draw_nothing": ("seat", ()),
    "play": ("seat", (("card", "card", ()), ("targets", "seats", ()), ("guess", "guess", ()))),
    "no_effect": ("seat", (("card", "card", ()), ("why", "no_effect_why", ()))),
    "guess": ("seat", (("target", "seat", ()), ("guess", "guess", ()), ("hit", "bool", ()))),
    "assassin": ("seat", (("guard", "seat", ()),)),
    "look": ("seat", (("target", "seat", ()), ("cards", "cards", ("private",)))),
    "no_look": ("seat", ()),
    "compare": (
        "seat",
        (
            ("target", "seat", ()),
            ("loser", "seat_or_none", ()),
            ("cards", "card_by_seat", ("private",)),
        ),
    ),
    "protected": ("seat", ()),
    "discard": ("seat", (("card", "card", ()),)),
    "knocked_out": ("seat", (("cards", "cards", ()),)),
    "swap": ("seat", (("seats", "seats", ()), ("cards", "cards_by_seat", ("private",)))),
    "chancellor_draw": ("seat", (("count", "count", ()), ("cards", "cards", ("private",)))),
    "chancellor_return": (
        "seat",
        (("count", "count", ()), ("keep", "card", ("private",)), ("bottom", "cards", ("private",))),
    ),
    "marked": ("seat", (("target", "seat", ()),)),
    "jester": ("seat", (("target", "seat", ()),)),
    "redraw": ("seat", (("redraw", "bool", ()),)),
    "token": ("seat", (("reason", "reason", ()), ("tokens", "count", ()))),
    "showdown": (
        "none",
        (
            ("hands", "card_by_seat", ()),
            ("scores", "count_by_seat", ()),
            ("counts", "count_by_seat", ()),
            ("outranked", "card_by_seat", ()),
            ("discards", "count_by_seat", ()),
        ),
    ),
    "round_end": (
        "none",
        (
            ("winners", "seats", ()),
            ("reason", "round_end_reason", ()),
            ("gains", "count_by_seat", ()),
            ("awards", "reasons_by_seat", ()),
            ("tokens", "counts", ()),
            ("next_start", "seat", ()),
        ),
    ),
    "game_end": ("none", (("winners", "seats", ()), ("tokens", "counts", ()))),
    "autoplay": (
        "seat",
        (
            ("reason", "autoplay_reason", ()),
            ("decision", "decision", ()),
            ("card", "card", ("optional",)),
            ("keep", "card", ("private", "optional")),
        ),
    ),
    "hint": ("seat", ()),
}

WORDS = {
    "no_effect_why": ("no_target", "empty_deck"),
    "round_end_reason": ("last_standing", "showdown"),
    "autoplay_reason": ("timeout", "disconnected"),
    "decision": ("play", "keep", "look", "redraw"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One event of a table's log; `KIND` is its wire tag, `seat` the acting seat (None: the
    table's)."""

    KIND: ClassVar[str]
    seat: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStart(Event):
    """A round is dealt: who plays first, the cards dealt face up, everyone's tokens."""

    KIND: ClassVar[str] = "round_start"
    seat: None = None
    round: int
    start: int
    face_up: tuple[str, ...]
    tokens: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(Event):
    """A seat is dealt its card."""

    KIND: ClassVar[str] = "deal"
    seat: int
    card: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Draw(Event):
    """A seat draws: at its turn's start (no `set_aside`), or after discarding its hand."""

    KIND: ClassVar[str] = "draw"
    seat: int
    set_aside: bool | None = None
    card: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawNothing(Event):
    """A seat had to draw with no card left to draw."""

    KIND: ClassVar[str] = "draw_nothing"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Play(Event):
    """A seat plays a card on its chosen seats, naming its guess."""

    KIND: ClassVar[str] = "play"
    seat: int
    card: str
    targets: tuple[int, ...]
    guess: str | int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class NoEffect(Event):
    """The card just played did nothing: nobody to choose, or no card to draw."""

    KIND: ClassVar[str] = "no_effect"
    seat: int
    card: str
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Guess(Event):
    """A Guard's or Bishop's guess at the target's hand, and whether it was right."""

    KIND: ClassVar[str] = "guess"
    seat: int
    target: int
    guess: str | int | None
    hit: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Assassin(Event):
    """The seat revealed an Assassin against the `guard` seat's Guard."""

    KIND: ClassVar[str] = "assassin"
    seat: int
    guard: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Look(Event):
    """A seat looks at the target's hand."""

    KIND: ClassVar[str] = "look"
    seat: int
    target: int
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NoLook(Event):
    """A Cardinal's player chose to look at neither hand."""

    KIND: ClassVar[str] = "no_look"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Compare(Event):
    """Two hands are compared (none loses a tie); the two seats see both cards."""

    KIND: ClassVar[str] = "compare"
    seat: int
    target: int
    loser: int | None
    cards: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Protected(Event):
    """A seat is protected until its next turn."""

    KIND: ClassVar[str] = "protected"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard(Event):
    """A seat discards its hand."""

    KIND: ClassVar[str] = "discard"
    seat: int
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class KnockedOut(Event):
    """A seat is out of the round, showing the hand it held."""

    KIND: ClassVar[str] = "knocked_out"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Swap(Event):
    """Two seats swap hands; each sees both hands as they were before."""

    KIND: ClassVar[str] = "swap"
    seat: int
    seats: tuple[int, ...]
    cards: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChancellorDraw(Event):
    """A Chancellor's player draws `count` cards to choose from."""

    KIND: ClassVar[str] = "chancellor_draw"
    seat: int
    count: int
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChancellorReturn(Event):
    """A Chancellor's player keeps one card and puts `count` under the deck."""

    KIND: ClassVar[str] = "chancellor_return"
    seat: int
    count: int
    keep: str | None = None
    bottom: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Marked(Event):
    """The next card that chooses players must choose the target."""

    KIND: ClassVar[str] = "marked"
    seat: int
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Jester(Event):
    """If the target wins the round, the seat gains a token."""

    KIND: ClassVar[str] = "jester"
    seat: int
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Redraw(Event):
    """A Bishop's target chose to discard and draw, or to keep its card."""

    KIND: ClassVar[str] = "redraw"
    seat: int
    redraw: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Token(Event):
    """A seat gains a token during the round, and now has `tokens`."""

    KIND: ClassVar[str] = "token"
    seat: int
    reason: str
    tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Showdown(Event):
    """The deck ran out: the hands still in the round are shown. `scores`: each hand's value
    there, its card's plus one per Count its player discarded (`counts`, the seats with any);
    `outranked`: the hands that lose whatever their value (a Bishop), each with the card that
    beats it (a Princess); `discards`: where the highest scores tie and the edition breaks ties
    so, each tied seat's discards added up."""

    KIND: ClassVar[str] = "showdown"
    seat: None = None
    hands: Mapping[str, str]
    scores: Mapping[str, int]
    counts: Mapping[str, int]
    outranked: Mapping[str, str]
    discards: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnd(Event):
    """The round is over: its winners, each seat's tokens gained and why, who starts next."""

    KIND: ClassVar[str] = "round_end"
    seat: None = None
    winners: tuple[int, ...]
    reason: str
    gains: Mapping[str, int]
    awards: Mapping[str, tuple[str, ...]]
    tokens: tuple[int, ...]
    next_start: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnd(Event):
    """The game is over."""

    KIND: ClassVar[str] = "game_end"
    seat: None = None
    winners: tuple[int, ...]
    tokens: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Autoplay(Event):
    """Written by the table, not the engine: a bot decided for a seat's player (timed out or
    gone); the card it played, or (for that seat only) the card it kept."""

    KIND: ClassVar[str] = "autoplay"
    seat: int
    reason: str
    decision: str
    card: str | None = None
    keep: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint(Event):
    """Written by the table, not the engine: the seat's player asked for a hint on this decision
    (the hint itself goes to that player alone)."""

    KIND: ClassVar[str] = "hint"
    seat: int


KINDS: Mapping[str, type[Event]] = {
    RoundStart.KIND: RoundStart,
    Deal.KIND: Deal,
    Draw.KIND: Draw,
    DrawNothing.KIND: DrawNothing,
    Play.KIND: Play,
    NoEffect.KIND: NoEffect,
    Guess.KIND: Guess,
    Assassin.KIND: Assassin,
    Look.KIND: Look,
    NoLook.KIND: NoLook,
    Compare.KIND: Compare,
    Protected.KIND: Protected,
    Discard.KIND: Discard,
    KnockedOut.KIND: KnockedOut,
    Swap.KIND: Swap,
    ChancellorDraw.KIND: ChancellorDraw,
    ChancellorReturn.KIND: ChancellorReturn,
    Marked.KIND: Marked,
    Jester.KIND: Jester,
    Redraw.KIND: Redraw,
    Token.KIND: Token,
    Showdown.KIND: Showdown,
    RoundEnd.KIND: RoundEnd,
    GameEnd.KIND: GameEnd,
    Autoplay.KIND: Autoplay,
    Hint.KIND: Hint,
}
"""The record of each kind."""
