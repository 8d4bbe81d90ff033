"""The lobby: every attached session and every table, behind one frame-in/frame-out interface."""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol import (
    Act,
    AddBot,
    Admin,
    Chat,
    ContinueRound,
    CreateTable,
    Direction,
    ErrorReply,
    FriendRequest,
    GamesRequest,
    Hello,
    HintRequest,
    Join,
    Leave,
    Message,
    Notice,
    ProfileRequest,
    ProtocolError,
    RejoinSeat,
    Rematch,
    RemoveBot,
    ReplayRequest,
    Sit,
    Spectate,
    Stand,
    Start,
    StatsRequest,
    TableFits,
    Tutorial,
    Visit,
    decode,
)

from ..ops.config import DEFAULTS, Config
from ..ops.metrics import Metrics
from ..services.bot_pool import BotPool, shared_pool
from ..services.clock import Clock
from ..services.sanitize import clean_text
from ..store import MOTD, Store
from .admin import run_admin
from .board import Board
from .chat import chat
from .codes import CodeDoor
from .errors import TableError
from .friends import FriendList
from .greeting import hello
from .history import History
from .limits import RateLimit, TryBudget
from .lobby_list import LobbyList
from .runner import Deps, TableSettings
from .session import Identity, SendFrame, Session
from .stats import stats_for
from .table import Disconnect, Table
from .words import idle_time

log = logging.getLogger(__name__)

REPLACED = "You are playing from another session now: this one is closed."


CloseSession = Callable[[Session, str], None]  # end that session, telling it why


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """What the lobby needs beyond the tables' timings."""

    table: TableSettings = field(default_factory=TableSettings)
    motd: str = DEFAULTS.motd
    default_timer: int | None = DEFAULTS.table.turn_timer or None  # the form's first timer
    chat_max_length: int = DEFAULTS.limits.chat_max_length
    chat_burst: int = DEFAULTS.limits.chat_messages  # chat lines in any `chat_interval` seconds
    chat_interval: float = DEFAULTS.limits.chat_interval
    lobby_idle: float = DEFAULTS.limits.idle_timeout  # seconds idle in the lobby, at most
    admins: frozenset[str] = frozenset(DEFAULTS.admins)  # keys that may send `admin` commands
    leaderboard_min_games: int = DEFAULTS.leaderboard_min_games  # rated games to be listed
    invite: str | None = None  # the command before a table code, e.g. "ssh -t host"
    code_tries: int = DEFAULTS.limits.code_tries  # unknown codes one address may try at once
    code_try_seconds: float = DEFAULTS.limits.code_try_seconds  # then one more every this often
    replay_burst: int = 20  # replay requests allowed in any `replay_interval` seconds
    replay_interval: float = 10.0
    keep_tables: bool = True  # tables kept in the store for a restart (not `lovelet play`'s)

    @classmethod
    def from_config(cls, config: Config) -> LobbySettings:
        """The settings `config` sets, the tables' timings among them.

        `limits.sessions_per_identity` is not here: it goes to `StorePolicy`.
        """
        limits = config.limits
        return cls(
            table=TableSettings.from_config(config),
            motd=config.motd,
            admins=frozenset(config.admins),
            default_timer=config.table.turn_timer or None,
            lobby_idle=limits.idle_timeout or math.inf,  # 0 = never: a timer that never fires
            chat_burst=limits.chat_messages,
            chat_interval=limits.chat_interval,
            chat_max_length=limits.chat_max_length,
            leaderboard_min_games=config.leaderboard_min_games,
            code_tries=limits.code_tries,
            code_try_seconds=limits.code_try_seconds,
        )


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
        closer: CloseSession | None = None,
        bots: BotPool | None = None,
    ) -> None:
        self.settings = settings or LobbySettings()
        self.bots = bots or shared_pool()  # the bots' worker processes, shared by the tables
        self.rng = rng or random.Random()
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.close_session = closer  # how a session is ended from here (idle, admin)
        self.sessions: dict[Session, None] = {}
        self.board = Board(
            self.rng, lambda: self.lobby_list.changed(), lambda s: self._close(s, REPLACED)
        )
        self.friends = FriendList(store, self.sessions, self.board.listing)
        self.lobby_list = LobbyList(
            clock,
            self.sessions,
            self.board.listing,
            store,
            lambda s: self.is_admin(s.identity),
            self.friends.refresh,
        )
        tries = TryBudget(self.settings.code_tries, self.settings.code_try_seconds)
        self.codes = CodeDoor(self.board, clock, tries, self.is_admin)
        self.history = History(store, clock, self.sessions)
        self._handlers = _routes(self)

    # ------------------------------------------------------------- sessions

    def attach(
        self, identity: Identity, send_frame: SendFrame, notice: str | None = None
    ) -> Attachment:
        """A new client, already authenticated; it must say hello first."""
        session = Session(identity, send_frame, notice=notice)
        settings = self.settings
        session.chat_limit = RateLimit(settings.chat_burst, settings.chat_interval)
        session.replay_limit = RateLimit(settings.replay_burst, settings.replay_interval)
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
            session.table.submit(session, Disconnect())
        self.lobby_list.changed()

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
        return self.lobby_list.online()

    # ------------------------------------------------------------- handlers

    def _rejoin_seat(self, session: Session, message: RejoinSeat) -> None:
        self._require_in_lobby(session)
        self.codes.rejoin_seat(session, message)

    def _close(self, session: Session, reason: str) -> None:
        """Tell `session` why, then end it (or, with no closer, detach it)."""
        session.send(Notice(reason))
        if self.close_session is not None:
            self.close_session(session, reason)
        else:
            self.detach(session)

    def _create_table(self, session: Session, message: CreateTable) -> None:
        self._require_in_lobby(session)
        deps = self._deps()
        self.board.open(session, message, self.settings.table, deps)

    def _tutorial(self, session: Session, message: Tutorial) -> None:
        self._require_in_lobby(session)
        deps = self._deps()
        self.board.open_tutorial(session, self.settings.table, deps)

    def _deps(self) -> Deps:
        """What a new table's runner needs."""
        keep = self.settings.keep_tables
        return Deps(self.rng, self.clock, self.bots, self.store, self.metrics, keep)

    def _to_table(self, session: Session, message: Join | Spectate | Visit) -> None:
        here = session.table
        if isinstance(message, Visit) and here is not None and self.board.get(message.code) is here:
            return  # a player back in their seat at the table they were invited to
        self._require_in_lobby(session)
        self.codes.find(session, message.code).submit(session, message)

    def _leave(self, session: Session, message: Leave) -> None:
        self._table_of(session).submit(session, message)
        if session.table is None:
            self.lobby_list.send_to(session)

    def _at_table(self, session: Session, message: Message) -> None:
        self._table_of(session).submit(session, message)

    # ------------------------------------------------------------- tables

    def _table_of(self, session: Session) -> Table:
        if session.table is None:
            raise TableError("not_at_table", "you are not at a table")
        return session.table

    def _require_in_lobby(self, session: Session) -> None:
        if session.table is not None:
            raise TableError("at_table", f"leave table {session.table.code} first")

    @property
    def tables(self) -> dict[str, Table]:
        """The open tables by code."""
        return self.board.tables

    def session_count(self) -> int:
        """Sessions attached."""
        return len(self.sessions)

    def table_count(self) -> int:
        """Tables open."""
        return len(self.board.listing)

    def games_in_progress(self) -> int:
        """Tables in a game (a round, or the pause after one)."""
        return self.board.games_in_progress()

    def when_rounds_over(self, callback: Callable[[], object]) -> None:
        """Call `callback()` once no table is in the middle of a round a restart would lose
        (kept tables are rebuilt; at once if none is)."""
        self.board.when_rounds_over(callback)

    def announce(self, text: str) -> int:
        """A notice to every greeted session; how many got it."""
        greeted = [session for session in self.sessions if session.greeted]
        for session in greeted:
            session.send(Notice(clean_text(text, 1000)))
        return len(greeted)

    def shut_down(self, keep: bool = False) -> None:
        """Stop every table, timers cancelled: running games are recorded as abandoned, or
        with `keep` left in the store for the next start to rebuild."""
        self.board.close_all(keep)


def _routes(lobby: Lobby) -> dict[type, Callable[[Session, Message], None]]:
    """Which part of the lobby handles each kind of client message."""
    return {
        Hello: lambda s, m: hello(lobby, s, m),
        CreateTable: lobby._create_table,
        Tutorial: lobby._tutorial,
        Join: lobby._to_table,
        Visit: lobby._to_table,
        RejoinSeat: lobby._rejoin_seat,
        Spectate: lobby._to_table,
        Leave: lobby._leave,
        Sit: lobby._at_table,
        Stand: lobby._at_table,
        AddBot: lobby._at_table,
        RemoveBot: lobby._at_table,
        Start: lobby._at_table,
        TableFits: lambda s, m: s.table.submit(s, m) if s.table is not None else None,
        Rematch: lobby._at_table,
        ContinueRound: lobby._at_table,
        Act: lobby._at_table,
        HintRequest: lobby._at_table,
        Chat: lambda s, m: chat(lobby, s, m),
        StatsRequest: lambda s, m: s.send(
            stats_for(s.identity, lobby.store, lobby.settings.leaderboard_min_games)
        ),
        ReplayRequest: lobby.history.replay,
        GamesRequest: lobby.history.games,
        ProfileRequest: lobby.history.profile,
        FriendRequest: lobby.friends.change,
        Admin: lambda s, m: run_admin(lobby, s, m),
    }
