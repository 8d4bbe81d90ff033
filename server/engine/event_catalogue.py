"""The event catalogue: every kind of event in a game's log, its fields, and who sees what.

The one place event kinds and their secrecy are written down. Every event, as a seat sees it
(`Event.for_seat`), is a map of `kind`, `seat` and exactly the fields listed for its kind
(an optional field may be absent). A private field is shown only to the event's audience
(`EventSpec.shown_to`); everyone else gets the event without it. The wire schema
(`protocol/events.py`) is generated from this table, the TUI's narration and the bots read it,
and tests check every event the engine emits against it.

Field types are words of a small vocabulary (`TYPES`), so that the table stays plain data.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple


class Audience(StrEnum):
    """Who may see an event's private fields, named by the event's public fields."""

    NOBODY = "nobody"  # the event has no private field
    SEAT = "seat"  # the acting seat
    SEAT_AND_TARGET = "seat_and_target"  # the acting seat and its `target`
    SEATS = "seats"  # the seats in its `seats` (the two hands of a swap)


TYPES: Mapping[str, str] = MappingProxyType(
    {
        "seat": "a seat number",
        "seat_or_none": "a seat number, or none",
        "none": "always none (an event of the table, not of a seat)",
        "seats": "a list of seat numbers",
        "card": "a card id",
        "cards": "a list of card ids",
        "guess": "a card id, a card value (editions that guess by value), or none",
        "count": "a number of cards or tokens",
        "counts": "a number per seat, in seat order (tokens)",
        "bool": "true or false",
        "round": "the round's number, from 1",
        "reason": "a lower snake case id: a card's id or a word of the rules",
        "card_by_seat": "a map from seat (as a string) to a card id",
        "cards_by_seat": "a map from seat (as a string) to a list of card ids",
        "count_by_seat": "a map from seat (as a string) to a number",
        "reasons_by_seat": "a map from seat (as a string) to a list of reasons",
    }
)
"""Every field type, with what its value is."""

WORDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "no_effect_why": ("no_target", "empty_deck"),
        "round_end_reason": ("last_standing", "showdown"),
        "autoplay_reason": ("timeout", "disconnected"),
        "decision": ("play", "keep", "look", "redraw"),
    }
)
"""Field types that are one of a few fixed words (beside those in `TYPES`)."""


class FieldSpec(NamedTuple):
    """One field of an event: its name, type (a key of `TYPES` or `WORDS`), whether only the
    event's audience sees it, and whether it may be absent."""

    name: str
    type: str
    private: bool = False
    optional: bool = False


class EventSpec(NamedTuple):
    """One kind of event: the type of its `seat`, its other fields, and who sees the private
    ones."""

    kind: str
    seat: str  # "seat" (the acting seat) or "none"
    fields: tuple[FieldSpec, ...] = ()
    shown_to: Audience = Audience.NOBODY
    doc: str = ""

    @property
    def private(self) -> frozenset[str]:
        """The names of the fields only the audience sees."""
        return frozenset(f.name for f in self.fields if f.private)

    def audience(self, event: Mapping[str, Any]) -> frozenset[int]:
        """The seats that may see the private fields of `event` (a map as any seat sees it)."""
        if self.shown_to is Audience.SEAT:
            return frozenset((event["seat"],))
        if self.shown_to is Audience.SEAT_AND_TARGET:
            return frozenset((event["seat"], event["target"]))
        if self.shown_to is Audience.SEATS:
            return frozenset(event["seats"])
        return frozenset()


def _f(name: str, type_: str, *, private: bool = False, optional: bool = False) -> FieldSpec:
    return FieldSpec(name, type_, private, optional)


_SEAT, _NONE = "seat", "none"
_CATALOGUE = (
    EventSpec(
        "round_start",
        _NONE,
        (_f("round", "round"), _f("start", "seat"), _f("face_up", "cards"), _f("tokens", "counts")),
        doc="A round is dealt: who plays first, the cards dealt face up, everyone's tokens.",
    ),
    EventSpec(
        "deal",
        _SEAT,
        (_f("card", "card", private=True),),
        Audience.SEAT,
        "A seat is dealt its card.",
    ),
    EventSpec(
        "draw",
        _SEAT,
        (_f("set_aside", "bool", optional=True), _f("card", "card", private=True)),
        Audience.SEAT,
        "A seat draws: at its turn's start (no `set_aside`), or after discarding its hand.",
    ),
    EventSpec("draw_nothing", _SEAT, doc="A seat had to draw with no card left to draw."),
    EventSpec(
        "play",
        _SEAT,
        (_f("card", "card"), _f("targets", "seats"), _f("guess", "guess")),
        doc="A seat plays a card on its chosen seats, naming its guess.",
    ),
    EventSpec(
        "no_effect",
        _SEAT,
        (_f("card", "card"), _f("why", "no_effect_why")),
        doc="The card just played did nothing: nobody to choose, or no card to draw.",
    ),
    EventSpec(
        "guess",
        _SEAT,
        (_f("target", "seat"), _f("guess", "guess"), _f("hit", "bool")),
        doc="A Guard's or Bishop's guess at the target's hand, and whether it was right.",
    ),
    EventSpec(
        "assassin",
        _SEAT,
        (_f("guard", "seat"),),
        doc="The seat revealed an Assassin against the `guard` seat's Guard.",
    ),
    EventSpec(
        "look",
        _SEAT,
        (_f("target", "seat"), _f("cards", "cards", private=True)),
        Audience.SEAT,
        "A seat looks at the target's hand.",
    ),
    EventSpec("no_look", _SEAT, doc="A Cardinal's player chose to look at neither hand."),
    EventSpec(
        "compare",
        _SEAT,
        (
            _f("target", "seat"),
            _f("loser", "seat_or_none"),
            _f("cards", "card_by_seat", private=True),
        ),
        Audience.SEAT_AND_TARGET,
        "Two hands are compared (none loses a tie); the two seats see both cards.",
    ),
    EventSpec("protected", _SEAT, doc="A seat is protected until its next turn."),
    EventSpec("discard", _SEAT, (_f("card", "card"),), doc="A seat discards its hand."),
    EventSpec(
        "knocked_out",
        _SEAT,
        (_f("cards", "cards"),),
        doc="A seat is out of the round, showing the hand it held.",
    ),
    EventSpec(
        "swap",
        _SEAT,
        (_f("seats", "seats"), _f("cards", "cards_by_seat", private=True)),
        Audience.SEATS,
        "Two seats swap hands; each sees both hands as they were before.",
    ),
    EventSpec(
        "chancellor_draw",
        _SEAT,
        (_f("count", "count"), _f("cards", "cards", private=True)),
        Audience.SEAT,
        "A Chancellor's player draws `count` cards to choose from.",
    ),
    EventSpec(
        "chancellor_return",
        _SEAT,
        (
            _f("count", "count"),
            _f("keep", "card", private=True),
            _f("bottom", "cards", private=True),
        ),
        Audience.SEAT,
        "A Chancellor's player keeps one card and puts `count` under the deck.",
    ),
    EventSpec(
        "marked",
        _SEAT,
        (_f("target", "seat"),),
        doc="The next card that chooses players must choose the target.",
    ),
    EventSpec(
        "jester",
        _SEAT,
        (_f("target", "seat"),),
        doc="If the target wins the round, the seat gains a token.",
    ),
    EventSpec(
        "redraw",
        _SEAT,
        (_f("redraw", "bool"),),
        doc="A Bishop's target chose to discard and draw, or to keep its card.",
    ),
    EventSpec(
        "token",
        _SEAT,
        (_f("reason", "reason"), _f("tokens", "count")),
        doc="A seat gains a token during the round, and now has `tokens`.",
    ),
    EventSpec(
        "showdown",
        _NONE,
        (
            _f("hands", "card_by_seat"),
            _f("scores", "count_by_seat"),
            _f("counts", "count_by_seat"),
            _f("outranked", "card_by_seat"),
            _f("discards", "count_by_seat"),
        ),
        doc="The deck ran out: the hands still in the round are shown. `scores`: each hand's "
        "value there, its card's plus one per Count its player discarded (`counts`, the seats "
        "with any); `outranked`: the hands that lose whatever their value (a Bishop), each with "
        "the card that beats it (a Princess); `discards`: where the highest scores tie and the "
        "edition breaks ties so, each tied seat's discards added up.",
    ),
    EventSpec(
        "round_end",
        _NONE,
        (
            _f("winners", "seats"),
            _f("reason", "round_end_reason"),
            _f("gains", "count_by_seat"),
            _f("awards", "reasons_by_seat"),
            _f("tokens", "counts"),
            _f("next_start", "seat"),
        ),
        doc="The round is over: its winners, each seat's tokens gained and why, who starts next.",
    ),
    EventSpec(
        "game_end",
        _NONE,
        (_f("winners", "seats"), _f("tokens", "counts")),
        doc="The game is over.",
    ),
    EventSpec(
        "autoplay",
        _SEAT,
        (
            _f("reason", "autoplay_reason"),
            _f("decision", "decision"),
            _f("card", "card", optional=True),
            _f("keep", "card", private=True, optional=True),
        ),
        Audience.SEAT,
        "Written by the table, not the engine: a bot decided for a seat's player (timed out "
        "or gone); the card it played, or (for that seat only) the card it kept.",
    ),
    EventSpec(
        "hint",
        _SEAT,
        (),
        doc="Written by the table, not the engine: the seat's player asked for a hint on this "
        "decision (the hint itself goes to that player alone).",
    ),
)

EVENTS: Mapping[str, EventSpec] = MappingProxyType({spec.kind: spec for spec in _CATALOGUE})
"""Every event kind, in the order a round meets them."""


def check_event(event: Mapping[str, Any], seat: int | None) -> str | None:
    """Why `event`, as shown to `seat` (None: a spectator), breaks the catalogue; None if not.

    It must name a known kind and hold exactly that kind's fields (optional ones may be
    missing), its private fields if and only if `seat` is in their audience.
    """
    spec = EVENTS.get(event.get("kind"))  # type: ignore[arg-type]
    if spec is None:
        return f"unknown event kind {event.get('kind')!r}"
    if spec.seat == _NONE and event.get("seat") is not None:
        return f"{spec.kind} names a seat"
    allowed = {"kind", "seat", *(f.name for f in spec.fields)}
    if extra := set(event) - allowed:
        return f"{spec.kind} has unlisted fields {sorted(extra)}"
    sees_private = seat in spec.audience(event)
    for field in spec.fields:
        hidden = field.private and not sees_private
        if hidden and field.name in event:
            return f"{spec.kind} shows its private field {field.name!r} to seat {seat}"
        if not hidden and not field.optional and field.name not in event:
            return f"{spec.kind} misses its field {field.name!r}"
    return None


def _check_catalogue() -> None:
    """The table names only known types, and an audience exactly where fields are private."""
    for spec in _CATALOGUE:
        for field in spec.fields:
            if field.type not in TYPES and field.type not in WORDS:
                raise TypeError(f"{spec.kind}.{field.name}: unknown type {field.type!r}")
        if bool(spec.private) != (spec.shown_to is not Audience.NOBODY):
            raise TypeError(f"{spec.kind}: private fields and audience disagree")


_check_catalogue()
