"""Every seat in order: name, tokens, marks, discards and whose turn it is; then the deck."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from lovelet_tui.names import Names
from lovelet_tui.widgets.rows import Rows
from protocol import SeatInfo, TableInfo

NAME_WIDTH = 24  # "8 " + a 16-character name + " (you)"
MARK_WIDTH = 18
TURN, CURSOR = "▶ ", "› "


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
        self._args: tuple[TableInfo, Mapping[str, Any] | None, Names, int | None] | None = None

    def show(
        self,
        info: TableInfo,
        view: Mapping[str, Any] | None,
        names: Names,
        cursor: int | None = None,
    ) -> None:
        """Render `info` (and `view` once the game runs); `cursor` marks a seat to manage."""
        self._args = (info, view, names, cursor)
        self.styles.height = len(info.seats) + 1
        self.redraw()

    def build_rows(self, width: int, height: int) -> list[Text]:
        """A row per seat, then the deck row."""
        if self._args is None:
            return []
        info, view, names, cursor = self._args
        width = max(width, 40)
        rows = [
            _seat_line(i, seat, info, view, names, cursor, width)
            for i, seat in enumerate(info.seats)
        ]
        rows.append(_deck_line(view, names) if view else _waiting_line(info))
        return rows


def _seat_line(
    index: int,
    seat: SeatInfo,
    info: TableInfo,
    view: Mapping[str, Any] | None,
    names: Names,
    cursor: int | None,
    width: int,
) -> Text:
    you = index == info.you
    state = view["seats"][index] if view else None
    turning = view is not None and not view.get("round_over") and view.get("turn") == index
    marker = CURSOR if index == cursor else TURN if turning else "  "
    number = f"{index + 1} " if cursor is not None else ""
    label = Text(f"{number}{seat.name or '(empty)'}{' (you)' if you else ''}")
    label.truncate(NAME_WIDTH, overflow="ellipsis", pad=True)
    if you:
        label.stylize("bold")
    if state is not None and not state["alive"]:
        label.stylize("dim strike")
    marks = Text(_marks(index, seat, info, view))
    marks.truncate(MARK_WIDTH, overflow="ellipsis", pad=True)
    line = Text.assemble(marker, label, " ", marks, " ")
    if state is not None:
        line.append(_tail([names.card(c) for c in state["discards"]], width - cell_len(line.plain)))
    return line


def _marks(index: int, seat: SeatInfo, info: TableInfo, view: Mapping[str, Any] | None) -> str:
    """Tokens and state in a few words."""
    words = []
    if view is None:
        words.append("host" if seat.name is not None and seat.name == info.host else "")
        words.append(f"{seat.bot} bot" if seat.bot else "")
    else:
        state = view["seats"][index]
        words.append(f"♥{state['tokens']}")
        words.append("out" if not state["alive"] else "protected" if state["protected"] else "")
        words.append("marked" if view.get("marked") == index else "")
        jester = view.get("jester")
        words.append("jester" if jester and jester[1] == index else "")
    words.append("" if seat.connected or seat.name is None else "away")
    return " ".join(word for word in words if word)


def _tail(words: Sequence[str], width: int) -> str:
    """The last words that fit in `width` cells, with "…" when some were left off."""
    kept: list[str] = []
    used = 0
    for word in reversed(words):
        need = cell_len(word) + (1 if kept else 0)
        if used + need > width - 2:
            return "… " + " ".join(reversed(kept))
        kept.append(word)
        used += need
    return " ".join(reversed(kept))


def _deck_line(view: Mapping[str, Any], names: Names) -> Text:
    parts = [f"Deck {view.get('deck_size', 0)}", f"set aside {view.get('set_aside', 0)}"]
    face_up = view.get("face_up") or []
    if face_up:
        parts.append(f"face up: {names.hand(face_up)}")
    parts.append(f"{view.get('target')} tokens to win")
    return Text("  " + " · ".join(parts), style="dim")


def _waiting_line(info: TableInfo) -> Text:
    watching = f" · {len(info.spectators)} watching" if info.spectators else ""
    return Text(f"  Waiting for the host to start{watching}", style="dim")
