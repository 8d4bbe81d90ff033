"""A table: seats, your hand, the log, the card tracker, the pending decision and chat."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from lovelet_tui.actions import bindings
from lovelet_tui.countdown import Clock, clock_texts
from lovelet_tui.editions import catalogue_of, edition_name, out_if_played
from lovelet_tui.messages import send
from lovelet_tui.names import Names
from lovelet_tui.narrate import narrate, round_awards, round_reason, token_reason
from lovelet_tui.screens.players import PlayersScreen
from lovelet_tui.seen import Sightings
from lovelet_tui.staging import Staging
from lovelet_tui.widgets.backdrop import Backdrop, BackdropRow
from lovelet_tui.widgets.chat_input import ChatInput, chat_text, typing_chat
from lovelet_tui.widgets.choices import ChoicePanel
from lovelet_tui.widgets.guide import Guide
from lovelet_tui.widgets.hand import HandView
from lovelet_tui.widgets.header import TableHeader
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.log_view import LogView
from lovelet_tui.widgets.seats import SeatList
from lovelet_tui.widgets.too_small import TooSmall
from lovelet_tui.widgets.tracker import Tracker
from protocol import (
    Act,
    AddBot,
    Catalogue,
    Chat,
    ChatLine,
    Choice,
    ClientMessage,
    ContinueRound,
    Countdown,
    Hint,
    HintRequest,
    PlayChoice,
    ProtocolError,
    Rematch,
    RemoveBot,
    Sit,
    Stand,
    Start,
    TableInfo,
    TableState,
    View,
)
from protocol import events as ev

TABLE_KEYS = {binding.key: binding.action for binding in bindings("table") if not binding.priority}
WAITING_FOR = {
    "play": "to play a card",
    "chancellor": "to choose which card to keep",
    "cardinal_look": "to choose a hand to look at",
    "bishop_redraw": "to decide whether to redraw",
}
SENT_SHOWN_AFTER = 0.25  # s: the table's answer redraws the panel; "Sent" only if it is slow
PLACES = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")


@dataclass(frozen=True, slots=True)
class Panes:
    """The table screen's widgets that it draws on or opens, made once with the screen
    (finding each by a query on every update cost more than drawing some of them)."""

    header: TableHeader
    seats: SeatList
    hand: HandView
    guide: Guide
    log: LogView
    tracker: Tracker
    choices: ChoicePanel
    chat: ChatInput

    @classmethod
    def make(cls) -> Panes:
        """Fresh widgets, with the ids the stylesheet uses."""
        return cls(
            TableHeader(id="header"),
            SeatList(id="seats"),
            HandView(id="hand"),
            Guide(id="guide"),
            LogView(id="log"),
            Tracker(id="tracker"),
            ChoicePanel(id="choices"),
            ChatInput(),
        )


@dataclass(frozen=True, slots=True)
class Confirm:
    """A question that needs `y` before something that cannot be undone."""

    kind: str  # "play" | "leave" | "quit"
    question: str
    detail: str
    choice: Choice | None = None  # the play to send on yes


class TableScreen(Screen[str], Backdrop):
    """Shows the latest `TableState`; dismissed with the table's code when the player leaves."""

    CSS_PATH = "table.tcss"
    BINDINGS = bindings("table")
    AUTO_FOCUS = ""  # nothing takes the focus: keys go to the screen's bindings

    def __init__(self, code: str, notices: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.code = code
        self.notices = notices  # the server's notices to this player since the last update
        self.info: TableInfo | None = None
        self.view: View | None = None
        self.names = Names(())
        self.staging: Staging | None = None
        self.staged_from: tuple[Choice, ...] | None = None  # what `staging` was built from
        self.cursor = 0  # the seat managed before the game starts
        self.continued = False  # this round's "next round" was sent
        self.round_end: ev.RoundEnd | None = None  # the last round's end, for the summary
        self.round_events: list[ev.Event] = []  # since the round began: its tokens
        self.offered: dict[str, bool | str] = {}  # `_offered()` at the last key bar refresh
        self.seen = Sightings()  # what this receiver's effects showed of other hands
        self.rounds_won: Counter[int] = Counter()  # seat → rounds won this game
        self.confirming: Confirm | None = None
        self.placed = False  # the seat cursor was put on the receiver's seat or a free one
        self.clock = Clock(self, self._draw_clock)  # the timer running at the table
        self.hint: Hint | None = None  # the server's hint for the decision being staged
        self.awaiting: asyncio.TimerHandle | None = None  # a sent choice awaits the answer
        self.panes = Panes.make()

    def compose(self) -> ComposeResult:
        panes = self.panes
        yield TooSmall()
        yield panes.header
        yield panes.seats
        yield panes.hand
        yield panes.guide
        with BackdropRow(id="body"):
            yield panes.log
            yield panes.tracker
            yield panes.choices
        yield panes.chat
        yield KeyBar()

    # ---------------------------------------------------------------- what arrives

    def show_state(self, state: TableState) -> None:
        """Render a table update: info, view and the new events."""
        self._answered()
        round_before = self.view.round if self.view else None
        first = self.info is None
        if self.info is not None and self.info.you != state.info.you:
            self.app.clear_notifications()  # a refusal about the old seat no longer applies
        self._place_cursor(state.info)
        self.info, self.view = state.info, state.view
        self.names = Names.for_table(state.info, catalogue_of(self))
        if self.view is None or self.view.round != round_before:
            self.continued = False
        if self.confirming is not None and not self._confirm_applies(self.confirming):
            self.confirming = None
        self._log_events(state.events, first)
        self.notices = ()
        self.panes.guide.show_guide(state.guide)
        self._restage()
        self._draw()
        self.clock.start(state.countdown)

    def show_hint(self, hint: Hint) -> None:
        """The server's hint for the pending decision, above its choices."""
        if self.staging is not None:
            self.hint = hint
            self._draw_decision()

    def add_chat(self, line: ChatLine) -> None:
        """A table chat line, in the log, shown literally."""
        self.panes.log.write(chat_text(line))

    def add_notice(self, text: str) -> None:
        """The server's notice to this player, in the log where it stays readable (a guest's
        rejoin code), shown literally; written again if the update that follows starts the
        log anew."""
        self.notices += (text,)
        self.panes.log.write(_notice_text(text))

    def reopen(self) -> None:
        """The server refused the last request: offer the current decision again, unless
        one is being staged."""
        if self.staging is not None:
            return
        self._answered()
        self.staged_from = None
        self._restage()
        self._draw()

    def _log_events(self, events: tuple[ev.Event, ...], first: bool) -> None:
        """Narrate new events; a batch that starts a game (a rematch, or the whole log sent
        again after a reconnect) replaces the log. The notices told just before an update
        that starts a log follow its events."""
        log = self.panes.log
        anew = bool(events) and isinstance(events[0], ev.RoundStart) and events[0].round == 1
        if anew:
            log.clear()
            self.seen.clear()
            self.rounds_won.clear()
        for event in events:
            if isinstance(event, ev.RoundStart):
                self.round_events = []
            elif isinstance(event, ev.RoundEnd):
                self.round_end = event
                self.rounds_won.update(event.winners)
            self.round_events.append(event)
        self.seen.read(events, self.info.you if self.info else None)
        log.write(*narrate(events, self.names))
        if self.notices and (anew or first):
            log.write(*map(_notice_text, self.notices))

    def _place_cursor(self, info: TableInfo) -> None:
        """The seat cursor starts on the receiver's seat, else on the first empty one, and
        follows the receiver when it sits down."""
        sat_down = self.info is not None and info.you is not None and info.you != self.info.you
        if not self.placed or sat_down:
            empty = [i for i, seat in enumerate(info.seats) if seat.name is None]
            self.cursor = info.you if info.you is not None else (empty or [0])[0]
            self.placed = True
        self.cursor = min(self.cursor, len(info.seats) - 1)

    def _restage(self) -> None:
        choices = self.view.choices if self.view else ()
        if choices != self.staged_from:
            self.staged_from = choices
            self.staging = Staging(choices, self.names) if choices else None
            self.hint = None

    # ---------------------------------------------------------------- drawing

    def _draw(self) -> None:
        if self.info is None:
            return
        info, view = self.info, self.view
        self.panes.header.show(*_header(info, view, catalogue_of(self)))
        cursor = self.cursor if view is None else None
        self.panes.seats.show(info, view, self.names, cursor, self.seen, hosting=self._hosting())
        hand = self.panes.hand
        invite = self.invite_command()
        if view is None:
            hand.show_note(f"Invite: {invite}" if invite else "")
        elif info.you is None:
            watching = "You are watching this table."
            hand.show_note(f"Watching · invite: {invite}" if invite else watching)
        else:
            hand.show(view.hand, self.names)
        if view is not None:
            self.panes.tracker.show(view.unseen, self.names)
        self._draw_decision()

    def _draw_decision(self) -> None:
        """The choice panel and the keys offered: all a step of a decision changes. While a
        sent choice awaits the table's answer, they stay as they were: the answer redraws
        them (drawing "Sent" first would cost every turn a screen update of its own)."""
        if self.awaiting is not None:
            return
        self._draw_choices()
        offered = {**self._offered(), "pick_keys": self._pick_keys()}
        offered["asking"] = self.confirming is not None  # every key answers: none shown
        if offered != self.offered:
            self.offered = offered
            self.refresh_bindings()

    def _draw_choices(self) -> None:
        panel = self.panes.choices
        if self.confirming is not None:
            panel.show_text(_question(self.confirming))
        elif self.staging is not None:
            panel.show_staging(self.staging, _hint_text(self.hint))
        else:
            panel.show_text(self._status())

    def invite_command(self) -> str | None:
        """The command that brings someone else straight to this table, if the server has
        one (over SSH: `ssh -t -p 2222 host CODE`), and the link that does it in a browser
        if the server has a page (`http://host:8080/t/CODE`)."""
        invite = getattr(self.app, "invite", None)
        link = getattr(self.app, "web_link", None)
        ways = [f"{invite} {self.code}" if invite else "", f"{link}/t/{self.code}" if link else ""]
        return " · ".join(way for way in ways if way) or None

    def _status(self) -> Text:
        """What the table waits for, when the receiver has nothing to choose."""
        assert self.info is not None
        view, names = self.view, self.names
        if view is None:
            levels = catalogue_of(self).bot_levels
            return _waiting_help(self._hosting(), len(self.info.seats), levels)
        if view.game_over:
            return self._standings(view)
        if view.round_over:
            return self._round_summary(view)
        pending = view.pending
        if pending is None:
            return Text("")
        if pending.seat == self.info.you:
            return Text("Sent. Waiting for the table…")
        who = names.player(pending.seat)
        return Text(f"Waiting for {who} {WAITING_FOR.get(pending.kind, 'to decide')}.")

    def _round_summary(self, view: View) -> Text:
        names = self.names
        winners = names.group(view.round_winners, capital=True)
        showdowns = [e for e in self.round_events if isinstance(e, ev.Showdown)]
        showdown = showdowns[-1] if showdowns else None
        reason = round_reason(self.round_end, showdown, names) if self.round_end else ""
        text = Text.assemble((f"Round {view.round} over", "bold"), f"\n{winners} won")
        text.append(f" ({reason})." if reason else ".")
        text.append_text(self._tokens_given())
        if self.info is not None and self.info.you is not None:
            text.append(f"\n\n{self._waiting_others()}" if self.continued else "\n\nn: next round")
        return text

    def _tokens_given(self) -> Text:
        """A line per player who gained tokens this round, with why: "Bo +2: round win, Spy"."""
        reasons: dict[int, list[str]] = {}
        for seat, reason in round_awards(self.round_events):
            reasons.setdefault(seat, []).append(token_reason(reason, self.names))
        text = Text("\nTokens:" if reasons else "")
        for seat, why in reasons.items():
            text.append(f"\n {self.names.player(seat, capital=True)} +{len(why)}: {', '.join(why)}")
        return text

    def _waiting_others(self) -> str:
        """Who else must be ready for the next round: the other humans at the table."""
        assert self.info is not None
        others = [
            i
            for i, seat in enumerate(self.info.seats)
            if i != self.info.you and seat.name is not None and not seat.bot and seat.connected
        ]
        if not others:
            return "Starting the next round…"
        return f"Sent. Waiting for {self.names.group(others)} to continue."

    def _standings(self, view: View) -> Text:
        """Game over: each player's place, tokens and rounds won, then the keys."""
        assert self.info is not None
        names = self.names
        winners = names.group(view.game_winners, capital=True)
        text = Text.assemble(("Game over", "bold"), f": {winners} won.")
        places = _places(view, self.rounds_won)
        rows = [
            [
                place,
                names.player(seat, capital=True),
                f"♥{view.seats[seat].tokens}",
                f"{self.rounds_won[seat]} round{'s' if self.rounds_won[seat] != 1 else ''}",
                "ready" if self.info.seats[seat].ready else "",
            ]
            for place, seat in places
        ]
        for (_, seat), line in zip(places, _columns(rows), strict=True):
            text.append(f"\n{line}", style="bold" if seat == self.info.you else "")
        text.append(self._rating_changes([seat for _, seat in places]))
        text.append(self._rematch_keys())
        return text

    def _rating_changes(self, seats: list[int]) -> str:
        """A rated game's changes, in the order of places: "Ratings: You 1523 (+23), ..."."""
        assert self.info is not None
        infos = self.info.seats
        changed = [s for s in seats if infos[s].rating is not None]
        said = [
            f"{self.names.player(s, capital=i == 0)} {infos[s].rating}"
            f" ({infos[s].rating_change or 0:+d})"
            for i, s in enumerate(changed)
        ]
        return f"\nRatings: {', '.join(said)}." if said else ""

    def _rematch_keys(self) -> str:
        """Game over: the keys for a rematch, or who it waits for once the receiver is ready."""
        info = self.info
        assert info is not None
        you = info.you
        if you is None:
            return ""
        host = "\ng: start now, bots for the rest" if self._hosting() else ""
        if not info.seats[you].ready:
            return f"\nr: ready for a rematch · l: leave{host}"
        others = [
            i
            for i, seat in enumerate(info.seats)
            if seat.name and not seat.bot and seat.connected and not seat.ready
        ]
        if not others:
            return "\nStarting the rematch…"
        return f"\nReady. The rematch waits for {self.names.group(others)}.{host}"

    # ---------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer (and show in the footer) only the keys that mean something now."""
        if self.confirming is not None:
            return False  # every key answers the question (see `on_key`)
        if action == "chat":
            return not typing_chat(self)
        return bool(self.offered.get(action, True))

    def keys_state(self) -> tuple[tuple[str, bool | str], ...]:
        """All the key bar's line depends on, but for the focus (see `check_action`)."""
        return tuple(self.offered.items())

    def key_shown(self, binding: Binding) -> str | None:
        """The key bar's label for the digits: the ones that pick something now."""
        if not binding.action.startswith("pick("):
            return None
        return str(self.offered.get("pick_keys", "")) or None

    def _pick_keys(self) -> str:
        """The digits offered now, as ranges: "1-4", "0-9", "0, 2-8"."""
        if self.staging is not None:
            keys = [option.key for option in self.staging.options if option.key.isdigit()]
        elif self.info is not None and self.view is None:
            keys = [str(i + 1) for i in range(min(9, len(self.info.seats)))]
        else:
            keys = []
        return _ranges(sorted({int(key) for key in keys}))

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
            "rematch": self._game_over() and seated and not self._ready(),
            "sit": waiting and self._cursor_seat_empty(),
            "stand": waiting and seated,
            "bot": waiting and self._hosting(),
            "start": (waiting or self._game_over()) and self._hosting(),
            "tracker": view is not None,
            "hint": self.staging is not None and bool(self.info and self.info.hints),
        }

    def action_pick(self, key: str) -> None:
        """A digit: pick that option, or (before the game) that seat."""
        if self.staging is not None:
            self._send_choice(self.staging.pick_key(key))
            self._draw_decision()
        elif (
            self.info is not None
            and self.view is None
            and key.isdigit()
            and 0 < int(key) <= len(self.info.seats)
        ):
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

    def _send_choice(self, choice: Choice | None, *, confirmed: bool = False) -> None:
        if choice is None:
            return
        edition = self.info.edition if self.info else ""
        playing = isinstance(choice, PlayChoice)
        if playing and not confirmed and out_if_played(catalogue_of(self), edition, choice.card):
            name = self.names.card(choice.card)
            self._ask(Confirm("play", f"Play {name}?", "You will be out of the round.", choice))
            return
        try:
            self._send(Act(choice))
        except ProtocolError as err:
            self.notify(err.reason, title="Bad choice", severity="error", markup=False)
            return
        self.staging = None
        self.staged_from = None
        loop = asyncio.get_running_loop()
        self.awaiting = loop.call_later(SENT_SHOWN_AFTER, self._answer_late)

    def _answer_late(self) -> None:
        """No answer yet: show that the choice was sent."""
        self.awaiting = None
        self._draw_decision()

    def _answered(self) -> None:
        if self.awaiting is not None:
            self.awaiting.cancel()
            self.awaiting = None

    def on_unmount(self) -> None:
        self._answered()

    def action_hint(self) -> None:
        """Ask the server what the hard bot would do here (shown above the choices)."""
        self._send(HintRequest())

    def action_next_round(self) -> None:
        """Ready for the next round."""
        self._send(ContinueRound())
        self.continued = True
        self._draw()

    def action_rematch(self) -> None:
        """Ready to play again with the same seats."""
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
        cycle = (None, *catalogue_of(self).bot_levels, None)
        if bot in cycle[:-2]:
            self._send(AddBot(self.cursor, cycle[cycle.index(bot) + 1]))

    def _game_over(self) -> bool:
        return bool(self.view and self.view.game_over)

    def _ready(self) -> bool:
        """The receiver has asked for a rematch."""
        info = self.info
        return bool(info and info.you is not None and info.seats[info.you].ready)

    def action_start(self) -> None:
        """Host: start the game (empty seats get bots); after a game, the rematch now (bots
        take the seats of who is not ready)."""
        self._send(Start())

    def action_tracker(self) -> None:
        """Switch the log pane and the card tracker."""
        self.toggle_class("-tracker")

    def action_chat(self) -> None:
        """Start typing a table chat line."""
        self.panes.chat.open()

    def on_chat_input_closed(self, event: ChatInput.Closed) -> None:
        if event.text:
            self._send(Chat(event.text))

    def action_scroll_log(self, pages: int) -> None:
        """Page through the log."""
        self.panes.log.page(pages)

    def action_profile(self) -> None:
        """Choose a player at this table, seated or watching: their profile."""
        info = self.info
        if info is None:
            return
        seated = (seat.name for seat in info.seats if seat.name and seat.bot is None)
        names = tuple(dict.fromkeys([*seated, *info.spectators]))
        self.app.push_screen(PlayersScreen(names, "Whose profile? (at this table)"))

    def action_leave(self) -> None:
        """Leave the table for the lobby; in a running game, after a yes."""
        if self._playing():
            self._ask(Confirm("leave", "Leave this game?", "A bot plays your seat from now on."))
        else:
            self.dismiss(self.code)

    def ask_to_quit(self) -> bool:
        """Ctrl+Q: True if the app should not quit yet because this asks first (seated in a
        running game); asked already, it quits."""
        if not self._playing() or (self.confirming and self.confirming.kind == "quit"):
            return False
        self._ask(Confirm("quit", "Quit lovelet?", "You leave this game."))
        return True

    async def on_key(self, event: events.Key) -> None:
        """Keys in the order typed: while a question is open, `y` says yes and any other key
        no; else the table's own keys run here. (Left to the app's bindings, a key runs only
        after a trip through the app's queue, and a key typed right after it, such as the
        `y` after `l`, would reach this screen first.)"""
        confirm = self.confirming
        action = TABLE_KEYS.get(event.key)
        if confirm is None and event.key == "ctrl+q":
            if not self.ask_to_quit():
                return  # the app quits
        elif confirm is None and action is None:
            return  # the app's keys, or none
        event.stop()
        event.prevent_default()
        if confirm is not None:
            self._answer(confirm, yes=event.key == "y")
        elif action is not None:
            await self.run_action(action)

    def _answer(self, confirm: Confirm, *, yes: bool) -> None:
        self.confirming = None
        if yes:
            self._confirmed(confirm)
        elif confirm.kind == "play" and self.staging is not None:
            self.staging.back()
        self._draw_decision()

    def _ask(self, confirm: Confirm) -> None:
        self.confirming = confirm
        self._draw_decision()

    def _confirmed(self, confirm: Confirm) -> None:
        if confirm.kind == "play":
            self._send_choice(confirm.choice, confirmed=True)
        elif confirm.kind == "leave":
            self.dismiss(self.code)
        else:
            self.app.exit()

    def _confirm_applies(self, confirm: Confirm) -> bool:
        """Is the question still about the game as it is now?"""
        if confirm.kind == "play":
            return bool(self.view and confirm.choice in self.view.choices)
        return self._playing()

    def _playing(self) -> bool:
        """Seated in a game that has not ended."""
        view, info = self.view, self.info
        return bool(view and info and info.you is not None and not view.game_over)

    # ---------------------------------------------------------------- the timer

    def _draw_clock(self, countdown: Countdown | None, seconds: int) -> None:
        header, panel = Text(), Text()
        if countdown is not None and self.info is not None:
            header, panel = clock_texts(countdown, seconds, self.info.you, self.names)
        self.panes.header.show_clock(header)
        self.panes.choices.show_clock(panel)

    def on_screen_suspend(self) -> None:
        """Another screen is on top (help): nothing ticks here meanwhile."""
        self.clock.hide()

    def on_screen_resume(self) -> None:
        self.clock.show()

    def _send(self, message: ClientMessage) -> None:
        send(self, message)

    def _hosting(self) -> bool:
        info = self.info
        return info is not None and info.host is not None and info.host == self.app.player_name

    def _cursor_seat_empty(self) -> bool:
        return self.info is not None and self.info.seats[self.cursor].name is None


def _round_break(view: View | None) -> bool:
    return bool(view and view.round_over and not view.game_over)


def _header(
    info: TableInfo, view: View | None, catalogue: Catalogue
) -> tuple[list[tuple[str, str]], int]:
    """The header's parts, each in its long and short form ("" leaves it out), and how many
    of the first are never left out for the width (all but the timer's and the watchers')."""
    parts = [(info.code, info.code), (info.name, info.name)]
    if info.private:
        parts.append(("private", "private"))
    edition = edition_name(catalogue, info.edition, short=True)  # as the lobby lists it
    parts.append((edition, edition))
    if view is not None:
        parts.append((f"round {view.round}", f"r{view.round}"))
    kept = len(parts)
    if info.timer:
        parts.append((f"{info.timer} s per turn", f"{info.timer} s"))
    if info.spectators:
        parts.append((f"{len(info.spectators)} watching", f"{len(info.spectators)} watch"))
    return parts, kept


def _places(view: View, rounds_won: Counter[int]) -> list[tuple[str, int]]:
    """Seats by place: most tokens first, then most rounds won; ties share a place."""
    seats = view.seats
    score = {s: (seats[s].tokens, rounds_won[s]) for s in range(len(seats))}
    order = sorted(score, key=lambda s: score[s], reverse=True)
    places = []
    for index, seat in enumerate(order):
        same = index > 0 and score[seat] == score[order[index - 1]]
        place = places[-1][0] if same else PLACES[min(index, len(PLACES) - 1)]
        places.append((place, seat))
    return places


def _columns(rows: list[list[str]]) -> list[str]:
    """Each row's cells, each column as wide as its widest cell (a space after the first
    column, two after the others): `1st alice       ♥5`."""
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    return [
        "".join(
            cell + " " * (width - cell_len(cell) + (1 if i == 0 else 2))
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _notice_text(text: str) -> Text:
    return Text(text, style="bold")


def _hint_text(hint: Hint | None) -> Text | None:
    """A hint as the choice panel shows it: the advice, then the next best, dimmed."""
    if hint is None:
        return None
    text = Text.assemble(("Hint: ", "bold"), hint.text)
    if hint.alternative:
        text.append(f"\n{hint.alternative[0].upper()}{hint.alternative[1:]}", style="dim")
    text.append("\n")
    return text


def _question(confirm: Confirm) -> Text:
    return Text.assemble(
        (confirm.question, "bold"), f"\n{confirm.detail}\n\ny: yes · any other key: no"
    )


def _ranges(keys: Sequence[int]) -> str:
    """Sorted digits as ranges: [0, 2, 3, 4] → "0, 2-4"."""
    runs: list[list[int]] = []
    for key in keys:
        if runs and key == runs[-1][-1] + 1:
            runs[-1].append(key)
        else:
            runs.append([key])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _waiting_help(hosting: bool, seats: int, levels: Sequence[str]) -> Text:
    choose = f"↑↓ or 1-{min(9, seats)}: choose a seat"
    lines = ["Before the game", "", choose, "s: sit there · u: stand up"]
    if hosting:
        cycle = " → ".join((*levels, "none"))
        lines += [f"b: bot ({cycle})", "g: start (empty seats get bots)"]
    else:
        lines.append("The host starts the game.")
    return Text("\n".join(lines))
