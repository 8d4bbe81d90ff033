"""The events of a table's log, as the wire carries them. GENERATED: do not edit.

Generated from `server/engine/event_catalogue.py` (field types and who sees the private ones
are explained there) by `.venv/bin/python -m server.commands.wire_events`.

`EVENTS`: for each kind, the type of its `seat` and its fields as (name, type, flags):
"private" (only some seats are sent it), "optional" (may be absent). `WORDS`: the types that
are one of a few words.
"""

from __future__ import annotations

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
    "showdown": ("none", (("hands", "card_by_seat", ()),)),
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
