"""Helpers for the TUI tests (no tests here): a fake link, the screen as text, and table
states built from the real engine so fixtures have the real shapes."""

from __future__ import annotations

import io
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from textual import events
from textual.app import App
from textual.keys import key_to_character
from textual.pilot import Pilot

from lovelet_tui import LoveletApp
from protocol import (
    PROTOCOL_VERSION,
    CardInfo,
    Catalogue,
    ClientMessage,
    CreateTable,
    Direction,
    Hello,
    SeatInfo,
    TableInfo,
    TableState,
    Welcome,
    decode,
    encode,
)
from server.engine import Game, find_edition
from server.services.catalogue import catalogue
from server.services.views import wire_events, wire_view

NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal")


CATALOGUE = catalogue()  # what the real server sends in `welcome`


class FakeLink:
    """Records what the app sends, decoded; remembers whether it was closed. Once `served`
    tied it to an app, it answers `hello` as the server does: a guest's welcome carrying
    `catalogue`."""

    def __init__(self, catalogue: Catalogue = CATALOGUE) -> None:
        self.sent: list[ClientMessage] = []
        self.closed = False
        self.catalogue = catalogue
        self.app: LoveletApp | None = None

    def send(self, frame: bytes) -> None:
        message = decode(frame, direction=Direction.TO_SERVER)
        self.sent.append(message)  # type: ignore[arg-type]
        if isinstance(message, Hello) and self.app is not None:
            welcome = Welcome(PROTOCOL_VERSION, message.name, None, True, catalogue=self.catalogue)
            self.app.deliver(encode(welcome))

    def close(self) -> None:
        self.closed = True


def served(link: FakeLink, name: str = "", **kwargs: Any) -> LoveletApp:
    """An app on `link` whose hello the link answers with a welcome, as the server does."""
    app = LoveletApp(link, name, **kwargs)
    link.app = app
    return app


def burst(app: App[object], *keys: str) -> None:
    """Hand `keys` (named as for `pilot.press`) to the app at once, as one read from a fast
    typist or a slow link does, without waiting for any to be handled."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else key_to_character(key)))


async def form_request(*keys: str, size: tuple[int, int] = (80, 24)) -> tuple[CreateTable, str]:
    """What the new-table form of a keyed player sends after `keys` (typed from its name
    field), then Enter; and the form's screen before the keys."""
    link = FakeLink()
    app = served(link, "ana")
    async with app.run_test(size=size) as pilot:
        welcome = Welcome(PROTOCOL_VERSION, "ana", "SHA256:ana", False, "", catalogue=CATALOGUE)
        app.deliver(encode(welcome))
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        form = screen_text(app)
        burst(app, *keys, "enter")
        await pilot.pause()
    (request,) = [m for m in link.sent if isinstance(m, CreateTable)]
    return request, form


async def deliver(app: LoveletApp, pilot: Pilot[None], state: TableState) -> None:
    """`state` arrives as the server would send it, and the app has handled it."""
    app.deliver(encode(state))
    await pilot.pause()


def option_key(app: LoveletApp, label: str) -> str:
    """The key of the staged decision's option labelled `label`."""
    assert app.table is not None and app.table.staging is not None
    return next(o.key for o in app.table.staging.options if o.label == label)


def screen_text(app: App[object]) -> str:
    """What the terminal shows now, as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text()


def stacked_deck(edition: str, first: Sequence[str]) -> list[str]:
    """The edition's deck, top first, beginning with `first` (set-aside, deals, draws)."""
    rest = Counter(find_edition(edition).deck_ids())
    rest.subtract(first)
    return [*first, *rest.elements()]


def new_game(edition: str, players: int, first: Sequence[str] = (), start: int = 0) -> Game:
    """A game whose first round is dealt from a deck beginning with `first`."""
    game = Game(find_edition(edition), players=players, rng=random.Random(1))
    game.start_round(deck=stacked_deck(edition, first) if first else None, start=start)
    return game


def table_info(
    game: Game | None,
    you: int | None,
    *,
    players: int = 4,
    edition: str = "2019",
    status: str = "playing",
    seats: Sequence[SeatInfo] | None = None,
    host: str | None = "Ana",
    code: str = "T1",
) -> TableInfo:
    """A table's info around `game` (or a table not started yet)."""
    count = game.players if game else players
    return TableInfo(
        code=code,
        name="Friday game",
        edition=game.edition.id if game else edition,
        host=host,
        seats=tuple(seats or (SeatInfo(NAMES[i], None, True) for i in range(count))),
        spectators=(),
        status=status,
        timer=None,
        you=you,
    )


def table_state(game: Game, seat: int | None, since: int = 0, **info: object) -> TableState:
    """What the server sends `seat`: its view and the events from index `since` on."""
    events = wire_events(game.events[since:], seat)
    view = wire_view(game.view(seat))
    return TableState(table_info(game, seat, **info), view, events)  # type: ignore[arg-type]


def cards_of(edition: str) -> dict[str, CardInfo]:
    """The edition's cards by id, as the catalogue sends them (what `Names` names cards by)."""
    found = CATALOGUE.edition(edition)
    assert found is not None
    return {card.id: card for card in found.cards}
