"""The lobby: every attached session and every table, behind one frame-in/frame-out interface."""

from __future__ import annotations

import logging
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol import (
    DEFAULT_TIMER,
    PROTOCOL_VERSION,
    Act,
    AddBot,
    Admin,
    Chat,
    ChatLine,
    ContinueRound,
    CreateTable,
    Direction,
    ErrorReply,
    Hello,
    Join,
    KeepChoice,
    Leave,
    LookChoice,
    Message,
    Notice,
    PlayChoice,
    ProtocolError,
    RedrawChoice,
    Rematch,
    RemoveBot,
    Sit,
    Spectate,
    Stand,
    Start,
    StatsRequest,
    Welcome,
    decode,
)
from protocol import (
    Lobby as LobbyMessage,
)

from ..engine import Choice, Keep, Look, Play, Redraw, find_edition
from ..metrics import Metrics
from ..sanitize import clean_text
from ..store import MOTD, Store
from .admin import run_admin
from .clock import Clock
from .limits import RateLimit
from .session import Identity, SendFrame, Session
from .stats import stats_for
from .table import Table, TableError, TableSettings

log = logging.getLogger(__name__)

CODE_ALPHABET = "".join(c for c in string.ascii_uppercase if c not in "IO")
TABLE_NAME_MAX = 40

CloseSession = Callable[[Session, str], None]


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """What the lobby needs beyond the tables' timings."""

    table: TableSettings = field(default_factory=TableSettings)
    motd: str = ""
    default_timer: int | None = DEFAULT_TIMER  # the turn timer the new-table form offers first
    chat_max_length: int = 200
    chat_burst: int = 5  # chat lines allowed in any `chat_interval` seconds
    chat_interval: float = 10.0
    lobby_idle: float = 1800.0  # seconds in the lobby without a message before disconnection
    admins: frozenset[str] = frozenset()  # key fingerprints that may send `admin` commands


class Attachment:
    """A session's end of the lobby: frames in through `receive`, out through its sink."""

    def __init__(self, lobby: Lobby, session: Session) -> None:
        self._lobby = lobby
        self.session = session

    def receive(self, frame: bytes) -> None:
        """One frame from the client. Errors go back to this client only."""
        self._lobby.receive(self.session, frame)

    def detach(self) -> None:
        """The client is gone."""
        self._lobby.detach(self.session)


class Lobby:
    """Shared by every session of the server: routes messages to handlers and tables."""

    def __init__(
        self,
        settings: LobbySettings | None = None,
        rng: random.Random | None = None,
        store: Store | None = None,
        metrics: Metrics | None = None,
        *,
        clock: Clock,
    ) -> None:
        self.settings = settings or LobbySettings()
        self.rng = rng or random.Random()
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.close_session: CloseSession | None = None  # set by the server to end a session
        self.sessions: dict[Session, None] = {}
        self.tables: dict[str, Table] = {}
        self._lobby_dirty = False
        self._rounds_over: list[Callable[[], object]] = []  # called once no round is played
        self._handlers: dict[type, Callable[[Session, Message], None]] = {
            Hello: self._hello,
            CreateTable: self._create_table,
            Join: self._join,
            Spectate: self._spectate,
            Leave: self._leave,
            Sit: lambda s, m: self._table_of(s).sit(s, m.seat),
            Stand: lambda s, m: self._table_of(s).stand(s),
            AddBot: lambda s, m: self._table_of(s).add_bot(s, m.seat, m.level),
            RemoveBot: lambda s, m: self._table_of(s).remove_bot(s, m.seat),
            Start: lambda s, m: self._table_of(s).start(s),
            Rematch: lambda s, m: self._table_of(s).rematch(s),
            ContinueRound: lambda s, m: self._table_of(s).continue_round(s),
            Act: lambda s, m: self._table_of(s).act(s, engine_choice(m.choice)),
            Chat: self._chat,
            StatsRequest: lambda s, m: s.send(stats_for(s.identity, self.store)),
            Admin: lambda s, m: run_admin(self, s, m),
        }

    # ------------------------------------------------------------- sessions

    def attach(
        self, identity: Identity, send_frame: SendFrame, notice: str | None = None
    ) -> Attachment:
        """A new client, already authenticated; it must say hello first."""
        session = Session(identity, send_frame, notice=notice)
        settings = self.settings
        session.chat_limit = RateLimit(settings.chat_burst, settings.chat_interval)
        self.sessions[session] = None
        self._reset_idle(session)
        return Attachment(self, session)

    def detach(self, session: Session) -> None:
        """A client left or dropped: its seat is held, its place freed."""
        if session.closed:
            return
        session.closed = True
        if session.idle_timer is not None:
            session.idle_timer.cancel()
        self.sessions.pop(session, None)
        if session.table is not None:
            session.table.disconnect(session)
        self._lobby_changed()

    def receive(self, session: Session, frame: bytes) -> None:
        """Decode and handle one client frame; refusals go back to that client only."""
        if session.closed:
            return
        self._reset_idle(session)
        try:
            message = decode(frame, direction=Direction.TO_SERVER)
            if not session.greeted and not isinstance(message, Hello):
                raise TableError("hello_first", "say hello first")
            self._handlers[type(message)](session, message)
        except ProtocolError as err:
            session.send(ErrorReply(str(err.code), err.reason))
        except TableError as err:
            session.send(ErrorReply(err.code, err.message))
        except Exception:  # a bug must not take the server or other sessions down
            log.exception("error handling a message from %s", session.name)
            session.send(ErrorReply("internal", "something went wrong on the server"))

    def _reset_idle(self, session: Session) -> None:
        if session.idle_timer is not None:
            session.idle_timer.cancel()
        session.idle_timer = self.clock.call_later(self.settings.lobby_idle, self._idle, session)

    def _idle(self, session: Session) -> None:
        """Disconnect a session idle in the lobby; one at a table stays (its seat matters)."""
        if session.table is not None:
            self._reset_idle(session)
        elif self.close_session is not None:
            self.close_session(
                session, f"Disconnected after {idle_time(self.settings.lobby_idle)} idle."
            )

    def motd(self) -> str:
        """The message of the day: as set by an admin, else as configured."""
        if self.store is not None:
            return self.store.get_setting(MOTD) or self.settings.motd
        return self.settings.motd

    def is_admin(self, identity: Identity) -> bool:
        """Whether `identity` logged in with an administrator's key."""
        return not identity.guest and identity.id in self.settings.admins

    def online(self) -> tuple[str, ...]:
        """Names of every greeted session."""
        return tuple(s.name for s in self.sessions if s.greeted)

    # ------------------------------------------------------------- handlers

    def _hello(self, session: Session, message: Hello) -> None:
        if message.version != PROTOCOL_VERSION:
            raise TableError(
                "version", f"protocol {message.version} is not {PROTOCOL_VERSION}: please update"
            )
        identity = session.identity
        session.greeted = True
        session.send(
            Welcome(
                PROTOCOL_VERSION,
                identity.name,
                None if identity.guest else identity.id,
                identity.guest,
                self.motd(),
                self.is_admin(identity),
                self.settings.default_timer,
            )
        )
        if session.notice:
            session.send(Notice(session.notice))
        self._rejoin_held_seat(session)
        if session.table is None:
            self._send_lobby(session)
        self._lobby_changed()

    def _rejoin_held_seat(self, session: Session) -> None:
        if session.identity.guest:
            return
        for table in self.tables.values():
            if table.seat_of_identity(session.identity.id) is not None:
                table.join(session)
                session.send(Notice(f"Welcome back: you are at table {table.code} again."))
                return

    def _create_table(self, session: Session, message: CreateTable) -> None:
        self._require_in_lobby(session)
        try:
            edition = find_edition(message.edition)
            edition.check_players(message.seats)
        except (KeyError, ValueError) as err:
            raise TableError("bad_table", str(err).strip("'\"")) from None
        name = clean_text(message.name, TABLE_NAME_MAX) or f"{session.name}'s table"
        table = Table(
            self._new_code(),
            name,
            edition,
            message.seats,
            message.timer,
            self.settings.table,
            self._table_changed,
            self.rng,
            self.clock,
            self.store,
            self.metrics,
        )
        self.tables[table.code] = table
        table.add_host(session)
        for bot in message.bots:
            table.add_bot(session, bot.seat, bot.level)

    def _join(self, session: Session, message: Join) -> None:
        self._require_in_lobby(session)
        self._find_table(message.code).join(session)

    def _spectate(self, session: Session, message: Spectate) -> None:
        self._require_in_lobby(session)
        self._find_table(message.code).spectate(session)

    def _leave(self, session: Session, message: Leave) -> None:
        self._table_of(session).leave(session)
        self._send_lobby(session)

    def _chat(self, session: Session, message: Chat) -> None:
        text = clean_text(message.text, self.settings.chat_max_length)
        if not text:
            raise TableError("empty_chat", "nothing to say")
        if not session.chat_limit.allow(self.clock.now()):
            raise TableError(
                "chat_rate",
                f"slow down: at most {self.settings.chat_burst} lines every "
                f"{self.settings.chat_interval:.0f} s",
            )
        if session.table is not None:
            line = ChatLine("table", session.name, text)
            receivers = session.table.sessions()
        else:
            line = ChatLine("lobby", session.name, text)
            receivers = [s for s in self.sessions if s.greeted and s.table is None]
        for receiver in receivers:
            receiver.send(line)

    # ------------------------------------------------------------- tables

    def _new_code(self) -> str:
        while True:
            code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(4))
            if code not in self.tables:
                return code

    def _find_table(self, code: str) -> Table:
        table = self.tables.get(code.strip().upper())
        if table is None:
            raise TableError("no_such_table", f"no table {code!r}")
        return table

    def _table_of(self, session: Session) -> Table:
        if session.table is None:
            raise TableError("not_at_table", "you are not at a table")
        return session.table

    def _require_in_lobby(self, session: Session) -> None:
        if session.table is not None:
            raise TableError("at_table", f"leave table {session.table.code} first")

    def _table_changed(self, table: Table) -> None:
        if table.closed:
            self.tables.pop(table.code, None)
        self._lobby_changed()
        if self._rounds_over and not self.rounds_in_progress():
            waiting, self._rounds_over = self._rounds_over, []
            for callback in waiting:
                callback()

    def rounds_in_progress(self) -> int:
        """How many tables are in the middle of a round."""
        return sum(table.status == "playing" for table in self.tables.values())

    def when_rounds_over(self, callback: Callable[[], object]) -> None:
        """Call `callback()` once no table is in the middle of a round (at once if none is)."""
        if self.rounds_in_progress():
            self._rounds_over.append(callback)
        else:
            callback()

    def announce(self, text: str) -> None:
        """A notice to every greeted session."""
        for session in self.sessions:
            if session.greeted:
                session.send(Notice(clean_text(text, 1000)))

    def shut_down(self) -> None:
        """Stop every table: running games are recorded as abandoned, timers cancelled."""
        for table in list(self.tables.values()):
            table.close()

    # ------------------------------------------------------------- lobby updates

    def _lobby_changed(self) -> None:
        """Coalesce lobby-list updates to one per loop iteration."""
        if not self._lobby_dirty:
            self._lobby_dirty = True
            self.clock.call_soon(self._flush_lobby)

    def _flush_lobby(self) -> None:
        self._lobby_dirty = False
        message = self._lobby_message()
        for session in self.sessions:
            if session.greeted and session.table is None:
                session.send(message)

    def _send_lobby(self, session: Session) -> None:
        session.send(self._lobby_message())

    def _lobby_message(self) -> LobbyMessage:
        tables = tuple(table.summary() for table in self.tables.values())
        return LobbyMessage(tables, self.online())


def idle_time(seconds: float) -> str:
    """'45 seconds', '1 minute', '30 minutes': how long someone was idle, in words."""
    if seconds < 90:
        count, unit = round(seconds), "second"
    else:
        count, unit = round(seconds / 60), "minute"
    return f"{count} {unit}{'' if count == 1 else 's'}"


def engine_choice(choice: PlayChoice | KeepChoice | LookChoice | RedrawChoice) -> Choice:
    """The engine's value object for a protocol choice."""
    if isinstance(choice, PlayChoice):
        return Play(choice.card, tuple(choice.targets), choice.guess)
    if isinstance(choice, KeepChoice):
        return Keep(choice.keep, tuple(choice.bottom))
    if isinstance(choice, LookChoice):
        return Look(choice.seat)
    return Redraw(choice.redraw)
