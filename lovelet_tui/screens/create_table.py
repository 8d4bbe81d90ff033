"""The new-table form: name, edition, seats, bots and their level, turn timer, whether
late joiners may take a bot's seat, whether the table is private (by invite only), and whether
players may ask for hints."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from lovelet_tui.actions import bindings
from lovelet_tui.editions import catalogue_of
from lovelet_tui.messages import send
from lovelet_tui.widgets.cycler import Cycler
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.plain_input import FieldInput
from lovelet_tui.widgets.too_small import TooSmall
from protocol import DEFAULT_TIMER, BotSpec, CreateTable
from protocol.registry import MAX_TABLE_NAME

DEFAULT_SEATS = 4
TIMERS = (30, 60, 90, 120, 300)  # the turn timers offered besides none and the server's default
TAKEOVER = [(False, "watch"), (True, "take a bot's seat")]  # joining a started game
PRIVATE = [(False, "no: listed in the lobby"), (True, "yes: by invite only")]
HINTS = [(None, "with bots"), (True, "on"), (False, "off")]  # None: only if a bot plays


class CreateTableScreen(ModalScreen[None]):
    """Sends `CreateTable` on Enter; the host takes seat 1, bots the next seats."""

    CSS_PATH = "create_table.tcss"
    BINDINGS = bindings("form")

    def __init__(self, player: str, timer: int | None = DEFAULT_TIMER) -> None:
        """The form for `player`, starting on the server's default turn `timer`."""
        super().__init__()
        self.default_name = f"{player}'s table"[:MAX_TABLE_NAME] if player else "New table"
        self.default_timer = timer
        self.chosen_seats: int | None = None  # seats the player picked, kept while they fit

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="form"):
            yield Label("New table", id="title")
            with Horizontal(id="name-row"):
                yield Label("Name", id="name-label")
                yield FieldInput(
                    placeholder=self.default_name,
                    max_length=MAX_TABLE_NAME,
                    compact=True,
                    id="name",
                )
            catalogue = catalogue_of(self)
            editions = [(e.id, e.name) for e in catalogue.editions]
            yield Cycler("Edition", editions, id="edition", on_change=self._edition_changed)
            yield Cycler(
                "Seats",
                [(DEFAULT_SEATS, str(DEFAULT_SEATS))],
                id="seats",
                on_change=self._seats_changed,
            )
            yield Cycler("Bots", [(0, "0")], id="bots")
            levels = [(level, level) for level in catalogue.bot_levels]
            yield Cycler("Bot level", levels, id="level")
            yield Cycler("Turn timer", timer_options(self.default_timer), id="timer")
            yield Cycler("Late joiners", TAKEOVER, id="takeover")
            yield Cycler("Private", PRIVATE, id="private")
            yield Cycler("Hints", HINTS, id="hints")
        yield KeyBar()

    def on_mount(self) -> None:
        edition = self.query_one("#edition", Cycler)
        edition.set_options(edition.options, catalogue_of(self).default_edition)
        timer = self.query_one("#timer", Cycler)
        timer.set_options(timer.options, self.default_timer)
        self._fit_seats()

    def on_screen_resume(self) -> None:
        """Shown again (`lovelet_tui.kept`): a fresh form, as a new one would be."""
        if not self.is_mounted:
            return
        name = self.query_one("#name", FieldInput)
        name.value = ""
        self.chosen_seats = None
        for field in ("bots", "level", "takeover", "private", "hints"):
            cycler = self.query_one(f"#{field}", Cycler)
            cycler.set_options(cycler.options, cycler.options[0][0])
        self.on_mount()  # the edition, timer, seats and bots a new form starts with
        name.focus()

    def _edition_changed(self, edition: Cycler) -> None:
        self._fit_seats()

    def _seats_changed(self, seats: Cycler) -> None:
        self.chosen_seats = seats.value
        self._fit_bots()

    def _value(self, field: str) -> Any:
        return self.query_one(f"#{field}", Cycler).value

    def _fit_seats(self) -> None:
        """Offer the edition's player counts: the count the player picked if the edition
        allows it, else the edition's default (4, or the nearest count it allows)."""
        info = catalogue_of(self).edition(self._value("edition"))
        assert info is not None  # the form offers only the catalogue's editions
        low, high = info.min_players, info.max_players
        options = [(n, str(n)) for n in range(low, high + 1)]
        chosen = self.chosen_seats
        seats = chosen if chosen is not None and low <= chosen <= high else None
        default = max(low, min(high, DEFAULT_SEATS))
        self.query_one("#seats", Cycler).set_options(options, seats or default)
        self._fit_bots()

    def _fit_bots(self) -> None:
        """Offer 0 to seats - 1 bots, keeping the count if it still fits."""
        seats, field = self._value("seats"), self.query_one("#bots", Cycler)
        field.set_options([(n, str(n)) for n in range(seats)], min(field.value, seats - 1))

    def action_create(self) -> None:
        """Send the request and close the form."""
        name = self.query_one("#name", FieldInput).value.strip() or self.default_name
        level = self._value("level")
        request = CreateTable(
            name=name,
            edition=self._value("edition"),
            seats=self._value("seats"),
            timer=self._value("timer"),
            bots=tuple(BotSpec(seat, level) for seat in range(1, 1 + self._value("bots"))),
            takeover=self._value("takeover"),
            private=self._value("private"),
            hints=self._value("hints"),
            bot_level=level,
        )
        send(self, request)
        self.dismiss()

    def action_cancel(self) -> None:
        """Close the form without creating a table."""
        self.dismiss()


def timer_options(default: int | None) -> list[tuple[int | None, str]]:
    """The turn timers offered, shortest first and none last, the server's `default` among them."""
    seconds = sorted({*TIMERS, default} - {None})
    return [(n, f"{n // 60} min" if n % 60 == 0 else f"{n} s") for n in seconds] + [(None, "none")]
