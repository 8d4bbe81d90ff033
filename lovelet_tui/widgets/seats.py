"""Every seat in order: name, tokens, marks, what you saw them hold, discards and whose turn
it is; then the deck.

The columns are as wide as the widest entry at the table, two cells apart. Where the width
is tight (8 seats at 80 columns) the marks take their short forms and what was seen loses its
"turns ago" before any card name is cut; discards keep the newest that fit, whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from lovelet_tui.names import Names
from lovelet_tui.seen import Sightings
from lovelet_tui.widgets.rows import Rows
from protocol import SeatInfo, TableInfo, View

TURN, CURSOR = "▶ ", "› "
GAP = "  "
DISCARDS_MIN = 16  # cells kept for discards before the marks take their short forms
SEEN_STYLE = "italic"


@dataclass(frozen=True, slots=True)
class Mark:
    """A word about a seat, in its long and short form."""

    long: str
    short: str


PROTECTED = Mark("protected", "prot")
OUT = Mark("out", "out")
MARKED = Mark("marked", "mark")
JESTER = Mark("jester bet", "jest")
AWAY = Mark("away", "away")
HOST = Mark("host", "host")
API_BOT = Mark("API bot", "api")
"""A program plays this seat through the bot API (docs/bot-api.md)."""
SMALL = Mark("screen too small", "small")
"""Its player's terminal cannot show the table: their turn timer waits (docs/table-screen.md)."""


class SeatList(Rows):
    """One line per seat, and a last line with the deck and the set-aside cards."""

    DEFAULT_CSS = """
    SeatList {
        height: 3;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hosting = False
        self._args: tuple[TableInfo, View | None, Names, int | None, Sightings | None] | None = None

    def show(
        self,
        info: TableInfo,
        view: View | None,
        names: Names,
        cursor: int | None = None,
        seen: Sightings | None = None,
        *,
        hosting: bool = False,
    ) -> None:
        """Render `info` (and `view` once the game runs); `cursor` marks a seat to manage;
        `seen` says what the receiver saw each seat hold; `hosting`: the receiver hosts."""
        self._args = (info, view, names, cursor, seen)
        self.hosting = hosting
        if self.styles.height is None or self.styles.height.value != len(info.seats) + 1:
            self.styles.height = len(info.seats) + 1
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """A row per seat, then the deck row."""
        if self._args is None:
            return []
        info, view, names, cursor, seen = self._args
        labels = [_label(i, seat, info, view, cursor) for i, seat in enumerate(info.seats)]
        marks = [_marks(i, seat, info, view) for i, seat in enumerate(info.seats)]
        label_width = max(cell_len(label.plain) for label in labels)
        fixed = len(TURN) + label_width + len(GAP)
        short = fixed + _widest(marks, long=True) + len(GAP) + DISCARDS_MIN > width
        mark_texts = [" ".join(m.short if short else m.long for m in row) for row in marks]
        mark_width = max(cell_len(text) for text in mark_texts)
        rest = max(0, width - fixed - mark_width - len(GAP))
        rows = []
        for index, (label, mark_text) in enumerate(zip(labels, mark_texts, strict=True)):
            line = Text.assemble(_marker(index, view, cursor), label)
            line.pad_right(label_width - cell_len(label.plain))
            line.append(GAP + mark_text.ljust(mark_width))
            if view is not None:
                line.append(GAP)
                line.append_text(_detail(index, view, names, seen, rest))
            rows.append(line)
        rows.append(_deck_line(view, names, width) if view else _waiting_line(info, self.hosting))
        return rows


def _widest(marks: Sequence[Sequence[Mark]], *, long: bool) -> int:
    return max(cell_len(" ".join(m.long if long else m.short for m in row)) for row in marks)


def _marker(index: int, view: View | None, cursor: int | None) -> str:
    turning = view is not None and not view.round_over and view.turn == index
    return CURSOR if index == cursor else TURN if turning else "  "


def _label(
    index: int,
    seat: SeatInfo,
    info: TableInfo,
    view: View | None,
    cursor: int | None,
) -> Text:
    you = index == info.you
    number = f"{index + 1} " if cursor is not None else ""
    label = Text(f"{number}{seat.name or '(empty)'}{' (you)' if you else ''}")
    if you:
        label.stylize("bold")
    if view is not None and not view.seats[index].alive:
        label.stylize("dim strike")
    return label


def _marks(index: int, seat: SeatInfo, info: TableInfo, view: View | None) -> list[Mark]:
    """Tokens and state in a few words."""
    marks: list[Mark] = []
    if view is None:
        if seat.name is not None and seat.name == info.host:
            marks.append(HOST)
        if seat.bot:
            marks.append(Mark(f"{seat.bot} bot", seat.bot))
    else:
        state = view.seats[index]
        marks.append(Mark(f"♥{state.tokens}", f"♥{state.tokens}"))
        if not state.alive:
            marks.append(OUT)
        elif state.protected:
            marks.append(PROTECTED)
        if view.marked == index:
            marks.append(MARKED)
        jester = view.jester
        if jester and jester[1] == index:
            marks.append(JESTER)
    if seat.api_bot:
        marks.append(API_BOT)
    if not seat.connected and seat.name is not None:
        marks.append(AWAY)
    if seat.small:
        marks.append(SMALL)
    return marks


def _detail(index: int, view: View, names: Names, seen: Sightings | None, width: int) -> Text:
    """What the receiver saw this seat hold (if still so), then the newest discards."""
    discards = [names.card(c) for c in view.seats[index].discards]
    ago = seen.turns_ago(index) if seen is not None else None
    if ago is None:
        return Text(_tail(discards, width))
    card = names.card(seen.held[index].card) if seen is not None else ""
    forms = [f"holds {card} — seen {_ago(ago)}", f"holds {card} ({_ago(ago)})", f"holds {card}"]
    keep = min(DISCARDS_MIN, cell_len(" ".join(discards)))
    note = next((form for form in forms if cell_len(form) + len(GAP) + keep <= width), forms[-1])
    text = Text(note, style=SEEN_STYLE)
    room = width - cell_len(note) - len(GAP)
    if discards and room > 0:
        text.append(GAP + _tail(discards, room))
    return text


def _ago(turns: int) -> str:
    return "just now" if turns == 0 else "1 turn ago" if turns == 1 else f"{turns} turns ago"


def _tail(words: Sequence[str], width: int) -> str:
    """The last words that fit in `width` cells, with "…" when some were left off."""
    kept: list[str] = []
    used = 0
    for word in reversed(words):
        need = cell_len(word) + (1 if kept else 0)
        if used + need > width - 2:
            return "… " + " ".join(reversed(kept)) if kept else "…"[:width]
        kept.append(word)
        used += need
    return " ".join(reversed(kept))


def _deck_line(view: View, names: Names, width: int) -> Text:
    """The deck, the cards set aside and face up, the tokens to win; where the width is
    tight, "7 to win", then without the count set aside, then the face-up cards counted
    (never a word cut)."""
    face_up = [f"face up: {names.hand(view.face_up)}"] if view.face_up else []
    counted = [f"{len(view.face_up)} face up"] if view.face_up else []
    deck, aside = f"Deck {view.deck_size}", f"set aside {view.set_aside}"
    forms = [
        [deck, aside, *face_up, f"{view.target} tokens to win"],
        [deck, aside, *face_up, f"{view.target} to win"],
        [deck, *face_up, f"{view.target} to win"],
        [deck, aside, *counted, f"{view.target} tokens to win"],
    ]
    lines = ["  " + " · ".join(parts) for parts in forms]
    fits = next((line for line in lines if cell_len(line) <= width), lines[-1])
    return Text(fits, style="dim")


def _waiting_line(info: TableInfo, hosting: bool) -> Text:
    watching = f" · {len(info.spectators)} watching" if info.spectators else ""
    if hosting:
        waiting = "You host this table: g starts the game"
    elif info.host:
        waiting = f"Waiting for {info.host} (the host) to start"
    else:
        waiting = "Waiting for the game to start"
    return Text(f"  {waiting}{watching}", style="dim")
