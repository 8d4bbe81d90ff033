"""Pending decisions and the value objects a player chooses from."""

from __future__ import annotations

from typing import NamedTuple


class Play(NamedTuple):
    """Play `card`; `targets` are the chosen seats, `guess` the named card id or number.

    A card that normally chooses a player, played with no targets, has no effect
    (every other player is protected or out).
    """

    card: str
    targets: tuple[int, ...] = ()
    guess: str | int | None = None


class Keep(NamedTuple):
    """Chancellor: keep one card, put the others on the bottom (`bottom` listed top to bottom)."""

    keep: str
    bottom: tuple[str, ...]


class Look(NamedTuple):
    """Cardinal: look at the hand of one of the two seats that swapped, or (None) at neither."""

    seat: int | None


class Redraw(NamedTuple):
    """Bishop's target: discard the hand and draw a new card, or not."""

    redraw: bool


Choice = Play | Keep | Look | Redraw


class Decision(NamedTuple):
    """Whose decision is pending, of which kind, and every legal choice."""

    seat: int
    kind: str  # "play" | "chancellor" | "cardinal_look" | "bishop_redraw"
    choices: tuple[Choice, ...]


def choice_type(choice: Choice) -> str:
    """The choice's type word, as the wire names it: "play", "keep", "look" or "redraw"."""
    return _TYPE_NAMES[type(choice)]


def choice_to_dict(choice: Choice) -> dict:
    """The choice as the wire's map: {"type": "play"|"keep"|"look"|"redraw", ...fields}.

    With `choice_from_dict`, the one conversion between engine and wire choices (views list
    choices so; the protocol's `choice` records check the same maps; tables and bots turn maps
    back with `choice_from_dict`). tests/test_protocol_choices.py keeps it the only one.
    """
    return {"type": choice_type(choice), **choice._asdict()}


def choice_from_dict(data: dict) -> Choice:
    """The inverse of `choice_to_dict`; ValueError on anything malformed."""
    kind = _TYPES.get(str(data.get("type")))
    if kind is None:
        raise ValueError(f"unknown choice type {data.get('type')!r}")
    fields = {k: v for k, v in data.items() if k != "type"}
    unexpected = sorted(set(fields) - set(kind._fields))
    if unexpected:
        raise ValueError(f"unexpected fields for {data['type']}: {unexpected}")
    for key in ("targets", "bottom"):
        if key in fields:
            if not isinstance(fields[key], list | tuple):
                raise ValueError(f"{key} must be a list")
            fields[key] = tuple(fields[key])
    try:
        return kind(**fields)
    except TypeError as err:
        raise ValueError(str(err)) from None


_TYPES: dict[str, type[Choice]] = {"play": Play, "keep": Keep, "look": Look, "redraw": Redraw}
_TYPE_NAMES: dict[type, str] = {kind: name for name, kind in _TYPES.items()}
