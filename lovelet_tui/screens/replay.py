"""A replay: a finished game's seats, hand, log and card tracker, one step at a time.

The server sends one round at a time (`replay`: the deal, then a frame per decision, each as
the chosen viewpoint saw it); this screen keeps a few rounds and asks for the others as the
player moves. It draws with the table's widgets and knows no rules.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen

from lovelet_tui.actions import bindings
from lovelet_tui.editions import catalogue_of, edition_name
from lovelet_tui.messages import send
from lovelet_tui.names import Names
from lovelet_tui.narrate import narrate
from lovelet_tui.seen import Sightings
from lovelet_tui.widgets.choices import ChoicePanel
from lovelet_tui.widgets.hand import HandView
from lovelet_tui.widgets.header import TableHeader
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.log_view import LogView
from lovelet_tui.widgets.seats import SeatList
from lovelet_tui.widgets.too_small import TooSmall
from lovelet_tui.widgets.tracker import Tracker
from protocol import ErrorReply, Replay, ReplayFrame, ReplayRequest, SeatInfo, TableInfo, View

KEPT_ROUNDS = 4  # rounds kept after they arrive; others are asked for again
FIRST, LAST = 0, -1  # where to land in a round: its deal, its last step (or a step's index)
STEP_MARK = "› "  # before the log lines of the step shown


class ReplayScreen(Screen[None]):
    """Steps through game `game_id` as `seat` saw it (None: the public view); `mine` is the
    receiver's own seat in that game, if it played (`v` switches between the two views)."""

    CSS_PATH = "replay.tcss"
    BINDINGS = bindings("replay")
    AUTO_FOCUS = ""

    def __init__(self, game_id: int, seat: int | None = None, mine: int | None = None) -> None:
        super().__init__()
        self.game_id, self.seat, self.mine = game_id, seat, mine
        self.rounds: dict[int, Replay] = {}
        self.round = 1
        self.step = 0
        self.wanted: tuple[int, int] | None = None  # the round asked for, and where to land
        self.problem = ""  # the server's refusal, shown instead of the game

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield TableHeader(id="header")
        yield SeatList(id="seats")
        yield HandView(id="hand")
        with Horizontal(id="body"):
            yield LogView(id="log")
            yield Tracker(id="tracker")
            yield ChoicePanel(id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        self._go(1, FIRST)

    # ---------------------------------------------------------------- what arrives

    def show_replay(self, reply: Replay) -> None:
        """A round from the server: kept, and shown if it is the one asked for."""
        if reply.game_id != self.game_id or reply.seat != self.seat:
            return  # an answer for the view before a switch
        self.rounds[reply.round] = reply
        if self.wanted is not None and self.wanted[0] == reply.round:
            self._land(*self.wanted)
        self._forget_far_rounds()

    def refused(self, error: ErrorReply) -> None:
        """The server would not replay it (no such game, not your seat...)."""
        if self.wanted is not None:
            self.wanted = None
            if not self.rounds:
                self.problem = error.message
            self._draw()

    @property
    def shown(self) -> Replay | None:
        """The round on screen, if it has arrived."""
        return self.rounds.get(self.round)

    @property
    def frame(self) -> ReplayFrame | None:
        """The step on screen."""
        shown = self.shown
        return shown.frames[self.step] if shown is not None else None

    # ---------------------------------------------------------------- moving

    def action_step(self, delta: int) -> None:
        """→ / ←: the next or previous step, across rounds."""
        shown = self.shown
        if shown is None or self.wanted is not None:
            return
        step = self.step + delta
        if 0 <= step < len(shown.frames):
            self.step = step
            self._draw()
        elif step < 0 and self.round > 1:
            self._go(self.round - 1, LAST)
        elif step >= len(shown.frames) and self.round < shown.rounds:
            self._go(self.round + 1, FIRST)

    def action_round(self, delta: int) -> None:
        """PgDn: the next round's deal (the last step in the last round); PgUp: this round's
        deal, or the previous round's from there."""
        shown = self.shown
        if shown is None or self.wanted is not None:
            return
        if delta > 0 and self.round < shown.rounds:
            self._go(self.round + 1, FIRST)
        elif delta > 0:
            self._land(self.round, LAST)
        elif self.step > 0 or self.round == 1:
            self._land(self.round, FIRST)
        else:
            self._go(self.round - 1, FIRST)

    def action_first(self) -> None:
        """Home: the first deal."""
        self._go(1, FIRST)

    def action_last(self) -> None:
        """End: the game's last step."""
        shown = self.shown
        if shown is not None:
            self._go(shown.rounds, LAST)

    def action_switch_view(self) -> None:
        """v: your own seat's view ↔ the public view, at the same step."""
        if self.mine is None or self.shown is None:
            return
        self.seat = None if self.seat is not None else self.mine
        self.rounds.clear()
        self._go(self.round, self.step)

    def action_tracker(self) -> None:
        """Switch the log pane and the card tracker."""
        self.toggle_class("-tracker")

    def action_close(self) -> None:
        """Back to where the replay was opened."""
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`v` only where there are two views to switch between."""
        if action == "switch_view":
            return self.mine is not None
        return True

    def _go(self, round_no: int, where: int) -> None:
        """Show round `round_no` at step `where` (FIRST, LAST or an index), asking for it
        first if it is not here."""
        if round_no in self.rounds:
            self._land(round_no, where)
            return
        self.wanted = (round_no, where)
        send(self, ReplayRequest(self.game_id, self.seat, round_no))
        self._draw()

    def _land(self, round_no: int, where: int) -> None:
        last = len(self.rounds[round_no].frames) - 1
        self.round, self.wanted = round_no, None
        self.step = last if where == LAST else min(where, last)
        self._draw()

    def _forget_far_rounds(self) -> None:
        while len(self.rounds) > KEPT_ROUNDS:
            del self.rounds[max(self.rounds, key=lambda r: abs(r - self.round))]

    # ---------------------------------------------------------------- drawing

    def _draw(self) -> None:
        shown, frame = self.shown, self.frame
        status = self.query_one(ChoicePanel)
        if shown is None or frame is None or self.wanted is not None:
            waiting = self.problem or f"Loading round {self.wanted[0] if self.wanted else 1}…"
            status.show_text(Text(waiting, style="" if self.problem else "italic"))
            if self.problem:
                self.query_one(HandView).show_note(f"No replay: {self.problem}")
            return
        info = _table_info(shown, frame.view)
        names = Names.for_table(info, catalogue_of(self))
        self.query_one(TableHeader).show(self._header(shown))
        self.query_one(SeatList).show(info, frame.view, names, None, self._sightings(shown))
        hand = self.query_one(HandView)
        if self.seat is None:
            hand.show_note("The public view: no one's hand is shown.")
        else:
            hand.show(frame.view.hand, names)
        self.query_one(Tracker).show(frame.view.unseen, names)
        self._draw_log(shown, names)
        status.show_text(self._status(shown, names))

    def _header(self, shown: Replay) -> list[tuple[str, str]]:
        steps, catalogue, edition = len(shown.frames), catalogue_of(self), shown.edition
        return [
            (f"Replay of game {shown.game_id}", f"#{shown.game_id}"),
            (edition_name(catalogue, edition), edition_name(catalogue, edition, short=True)),
            (f"round {shown.round} of {shown.rounds}", f"r{shown.round}/{shown.rounds}"),
            (f"step {self.step + 1} of {steps}", f"{self.step + 1}/{steps}"),
        ]

    def _sightings(self, shown: Replay) -> Sightings:
        seen = Sightings()
        for frame in shown.frames[: self.step + 1]:
            seen.read(frame.events, self.seat)
        return seen

    def _draw_log(self, shown: Replay, names: Names) -> None:
        """The round's narration up to this step; this step's lines marked."""
        log = self.query_one(LogView)
        log.clear()
        before = [event for frame in shown.frames[: self.step] for event in frame.events]
        now = [Text(STEP_MARK).append_text(line) for line in narrate(self.frame.events, names)]
        for line in now:
            line.stylize("bold")
        log.write(*narrate(before, names), *now)

    def _status(self, shown: Replay, names: Names) -> Text:
        whose = "The public view" if self.seat is None else f"{names.whose(self.seat)} view"
        actor = self.frame.actor
        move = "The deal" if actor is None else f"{names.whose(actor, capital=True)} move"
        text = Text.assemble((f"{whose[0].upper()}{whose[1:]}", "bold"), f"\n{move}")
        if shown.round == shown.rounds and self.step == len(shown.frames) - 1:
            text.append("\nThe end of the game.")
        if self.mine is not None:
            other = "the public view" if self.seat is not None else "your own view"
            text.append(f"\n\nv: {other}")
        return text


def _table_info(shown: Replay, view: View) -> TableInfo:
    """The replayed game's seats as the table widgets take them."""
    seats = tuple(SeatInfo(seat.name, seat.bot, True) for seat in shown.seats)
    status = "finished" if view.game_over else "playing"
    return TableInfo(
        f"#{shown.game_id}", "replay", shown.edition, None, seats, (), status, None, shown.seat
    )
