"""A table: seats, your hand, the log, the card tracker, the pending decision and chat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen

from lovelet_tui.actions import bindings
from lovelet_tui.editions import edition_name
from lovelet_tui.messages import send
from lovelet_tui.names import Names
from lovelet_tui.narrate import REASONS, gained, narrate
from lovelet_tui.staging import Staging
from lovelet_tui.widgets.chat_input import ChatInput, chat_text, typing_chat
from lovelet_tui.widgets.choices import ChoicePanel
from lovelet_tui.widgets.hand import HandView
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.log_view import LogView
from lovelet_tui.widgets.rows import TextRows
from lovelet_tui.widgets.seats import SeatList
from lovelet_tui.widgets.too_small import TooSmall
from lovelet_tui.widgets.tracker import Tracker
from protocol import (
    Act,
    AddBot,
    Chat,
    ChatLine,
    ClientMessage,
    ContinueRound,
    ProtocolError,
    Rematch,
    RemoveBot,
    Sit,
    Stand,
    Start,
    TableInfo,
    TableState,
    choice_from_wire,
)
from protocol.registry import BOT_LEVELS

View = Mapping[str, Any]
WAITING_FOR = {
    "play": "to play a card",
    "chancellor": "to choose which card to keep",
    "cardinal_look": "to choose a hand to look at",
    "bishop_redraw": "to decide whether to redraw",
}


class TableScreen(Screen[str]):
    """Shows the latest `TableState`; dismissed with the table's code when the player leaves."""

    CSS_PATH = "table.tcss"
    BINDINGS = bindings("table")
    AUTO_FOCUS = ""  # nothing takes the focus: keys go to the screen's bindings

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code
        self.info: TableInfo | None = None
        self.view: View | None = None
        self.names = Names(())
        self.staging: Staging | None = None
        self.staged_from: list[Any] | None = None  # the choices `staging` was built from
        self.cursor = 0  # the seat managed before the game starts
        self.continued = False  # this round's "next round" was sent
        self.round_end: Mapping[str, Any] = {}  # the last round_end event, for the summary
        self.offered: dict[str, bool] = {}  # `_offered()` when the key bar was last refreshed

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield TextRows(wrap=False, id="header")
        yield SeatList(id="seats")
        yield HandView(id="hand")
        with Horizontal(id="body"):
            yield LogView(id="log")
            yield Tracker(id="tracker")
            yield ChoicePanel(id="choices")
        yield ChatInput()
        yield KeyBar()

    # ---------------------------------------------------------------- what arrives

    def show_state(self, state: TableState) -> None:
        """Render a table update: info, view and the new events."""
        round_before = self.view.get("round") if self.view else None
        self.info, self.view = state.info, state.view
        self.names = Names.for_table(state.info, state.view)
        self.cursor = min(self.cursor, len(state.info.seats) - 1)
        if self.view is None or self.view.get("round") != round_before:
            self.continued = False
        self._log_events(state.events)
        self._restage()
        self._draw()

    def add_chat(self, line: ChatLine) -> None:
        """A table chat line, in the log, shown literally."""
        self.query_one(LogView).write(chat_text(line))

    def reopen(self) -> None:
        """The server refused the last request: offer the current decision again, unless
        one is being staged."""
        if self.staging is not None:
            return
        self.staged_from = None
        self._restage()
        self._draw()

    @property
    def reference(self) -> list[Mapping[str, Any]]:
        """The edition's reference card from the view (empty before the game starts)."""
        return list(self.view.get("cards", [])) if self.view else []

    def _log_events(self, events: tuple[dict[str, Any], ...]) -> None:
        """Narrate new events; a batch that starts a game (a rematch, or the whole log sent
        again after a reconnect) replaces the log."""
        log = self.query_one(LogView)
        if events and events[0].get("kind") == "round_start" and events[0].get("round") == 1:
            log.clear()
        for event in events:
            if event.get("kind") == "round_end":
                self.round_end = event
        log.write(*narrate(events, self.names))

    def _restage(self) -> None:
        choices = list(self.view.get("choices") or []) if self.view else []
        if choices != self.staged_from:
            self.staged_from = choices
            self.staging = Staging(choices, self.names) if choices else None

    # ---------------------------------------------------------------- drawing

    def _draw(self) -> None:
        if self.info is None:
            return
        info, view = self.info, self.view
        self.query_one("#header", TextRows).show(_header(info, view))
        cursor = self.cursor if view is None else None
        self.query_one(SeatList).show(info, view, self.names, cursor)
        hand = self.query_one(HandView)
        if view is None:
            hand.show_note("")
        elif info.you is None:
            hand.show_note("You are watching this table.")
        else:
            hand.show(view.get("hand", []), self.names)
        if view is not None:
            self.query_one(Tracker).show(view.get("unseen", {}), self.names)
        self._draw_decision()

    def _draw_decision(self) -> None:
        """The choice panel and the keys offered: all a step of a decision changes."""
        self._draw_choices()
        offered = self._offered()
        if offered != self.offered:
            self.offered = offered
            self.refresh_bindings()

    def _draw_choices(self) -> None:
        panel = self.query_one(ChoicePanel)
        if self.staging is not None:
            panel.show_staging(self.staging)
        else:
            panel.show_text(self._status())

    def _status(self) -> Text:
        """What the table waits for, when the receiver has nothing to choose."""
        assert self.info is not None
        view, names = self.view, self.names
        if view is None:
            return _waiting_help(self._hosting())
        if view.get("game_over"):
            winners = names.group(view.get("game_winners") or [], capital=True)
            rematch = "\n\nr: rematch · l: leave" if self.info.you is not None else ""
            return Text.assemble(("Game over", "bold"), f"\n{winners} won the game.", rematch)
        if view.get("round_over"):
            return self._round_summary(view)
        pending = view.get("pending")
        if not pending:
            return Text("")
        if pending.get("seat") == self.info.you:
            return Text("Sent. Waiting for the table…")
        who = names.player(pending.get("seat"))
        return Text(f"Waiting for {who} {WAITING_FOR.get(pending.get('kind'), 'to decide')}.")

    def _round_summary(self, view: View) -> Text:
        names = self.names
        winners = names.group(view.get("round_winners") or [], capital=True)
        reason = REASONS.get(self.round_end.get("reason", ""), "")
        gains = self.round_end.get("gains") or {}
        text = Text.assemble((f"Round {view.get('round')} over", "bold"), f"\n{winners} won")
        text.append(f" ({reason})." if reason else ".")
        if gains:
            text.append(f"\nTokens: {gained(gains, names)}")
        if self.info is not None and self.info.you is not None:
            text.append("\n\nWaiting for the others…" if self.continued else "\n\nn: next round")
        return text

    # ---------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer (and show in the footer) only the keys that mean something now."""
        if action == "chat":
            return not typing_chat(self)
        return self.offered.get(action, True)

    def _offered(self) -> dict[str, bool]:
        """Which of the actions that come and go are offered now."""
        view, seated = self.view, self.info is not None and self.info.you is not None
        waiting = self.info is not None and view is None
        return {
            "pick": self.staging is not None or waiting,
            "move": self.staging is not None or waiting,
            "choose": self.staging is not None,
            "back": self.staging is not None and self.staging.can_back,
            "next_round": _round_break(view) and seated and not self.continued,
            "rematch": bool(view and view.get("game_over")) and seated,
            "sit": waiting and self._cursor_seat_empty(),
            "stand": waiting and seated,
            "bot": waiting and self._hosting(),
            "start": waiting and self._hosting(),
            "tracker": view is not None,
        }

    def action_pick(self, key: str) -> None:
        """A digit: pick that option, or (before the game) that seat."""
        if self.staging is not None:
            self._send_choice(self.staging.pick_key(key))
            self._draw_decision()
        elif self.info is not None and key.isdigit() and 0 < int(key) <= len(self.info.seats):
            self.cursor = int(key) - 1
            self._draw()

    def action_move(self, delta: int) -> None:
        """Arrows: move through the options, or (before the game) the seats."""
        if self.staging is not None:
            self.staging.move(delta)
            self._draw_decision()
        elif self.info is not None:
            self.cursor = max(0, min(len(self.info.seats) - 1, self.cursor + delta))
            self._draw()

    def action_choose(self) -> None:
        """Enter: pick the option under the cursor."""
        if self.staging is not None:
            self._send_choice(self.staging.choose())
            self._draw_decision()

    def action_back(self) -> None:
        """Esc: undo one step of the decision."""
        if self.staging is not None and self.staging.back():
            self._draw_decision()

    def _send_choice(self, choice: Mapping[str, Any] | None) -> None:
        if choice is None:
            return
        try:
            self._send(Act(choice_from_wire(choice)))
        except ProtocolError as err:
            self.notify(err.reason, title="Bad choice", severity="error", markup=False)
            return
        self.staging = None
        self.staged_from = None

    def action_next_round(self) -> None:
        """Ready for the next round."""
        self._send(ContinueRound())
        self.continued = True
        self._draw()

    def action_rematch(self) -> None:
        """Play again with the same seats."""
        self._send(Rematch())

    def action_sit(self) -> None:
        """Sit in the chosen seat."""
        self._send(Sit(self.cursor))

    def action_stand(self) -> None:
        """Give up the seat and watch."""
        self._send(Stand())

    def action_bot(self) -> None:
        """Host: the chosen seat cycles empty → each bot level, weakest first → empty."""
        assert self.info is not None
        bot = self.info.seats[self.cursor].bot
        if bot is not None:
            self._send(RemoveBot(self.cursor))
        cycle = (None, *BOT_LEVELS, None)
        if bot in cycle[:-2]:
            self._send(AddBot(self.cursor, cycle[cycle.index(bot) + 1]))

    def action_start(self) -> None:
        """Host: start the game (empty seats get bots)."""
        self._send(Start())

    def action_tracker(self) -> None:
        """Switch the log pane and the card tracker."""
        self.toggle_class("-tracker")

    def action_chat(self) -> None:
        """Start typing a table chat line."""
        self.query_one(ChatInput).open()

    def on_chat_input_closed(self, event: ChatInput.Closed) -> None:
        if event.text:
            self._send(Chat(event.text))

    def action_scroll_log(self, pages: int) -> None:
        """Page through the log."""
        self.query_one(LogView).page(pages)

    def action_leave(self) -> None:
        """Leave the table for the lobby."""
        self.dismiss(self.code)

    def _send(self, message: ClientMessage) -> None:
        send(self, message)

    def _hosting(self) -> bool:
        info = self.info
        return info is not None and info.host is not None and info.host == self.app.player_name

    def _cursor_seat_empty(self) -> bool:
        return self.info is not None and self.info.seats[self.cursor].name is None


def _round_break(view: View | None) -> bool:
    return bool(view and view.get("round_over") and not view.get("game_over"))


def _header(info: TableInfo, view: View | None) -> Text:
    parts = [info.code, info.name, edition_name(info.edition)]
    if view is not None:
        parts.append(f"round {view.get('round')}")
    if info.timer:
        parts.append(f"{info.timer} s per turn")
    if info.spectators:
        parts.append(f"{len(info.spectators)} watching")
    return Text(" · ".join(parts), style="bold")


def _waiting_help(hosting: bool) -> Text:
    lines = ["Before the game", "", "↑↓ or 1-8: choose a seat", "s: sit there · u: stand up"]
    if hosting:
        lines += ["b: bot (easy → medium → none)", "g: start (empty seats get bots)"]
    else:
        lines.append("The host starts the game.")
    return Text("\n".join(lines))
