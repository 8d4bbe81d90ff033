"""Events: every change to a game, tagged with who may see which part.

Each kind's fields and who sees its secret part are listed in `event_catalogue.EVENTS`;
tests/test_engine_events.py checks every emitted event against it."""

from __future__ import annotations

from typing import NamedTuple


class Event(NamedTuple):
    """One thing that happened. `public` is for everyone; `secret` only for the seats in `to`."""

    kind: str
    seat: int | None
    public: dict
    secret: dict | None = None
    to: tuple[int, ...] = ()

    def for_seat(self, seat: int | None) -> dict:
        """What `seat` may see of this event (`None`: a spectator)."""
        shown = {"kind": self.kind, "seat": self.seat, **self.public}
        if self.secret is not None and seat in self.to:
            shown.update(self.secret)
        return shown
