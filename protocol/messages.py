"""Every protocol message as a frozen dataclass.

`TYPE` is the wire tag, written down here and never derived from declaration order. The field
rules (types, lengths, allowed values) live in `protocol.registry`; these classes hold no
serialisation logic. Lists are tuples so messages stay immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from protocol.events import Event

# --- act choices ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayChoice:
    """Play `card` at `targets` (seats), naming `guess` (a card id, or a number in premium)."""

    TYPE: ClassVar[str] = "play"
    card: str
    targets: tuple[int, ...] = ()
    guess: str | int | None = None


@dataclass(frozen=True, slots=True)
class KeepChoice:
    """Chancellor: keep `keep`, put `bottom` under the deck (listed top to bottom)."""

    TYPE: ClassVar[str] = "keep"
    keep: str
    bottom: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LookChoice:
    """Cardinal: look at the hand of `seat`, or (None) at neither hand."""

    TYPE: ClassVar[str] = "look"
    seat: int | None


@dataclass(frozen=True, slots=True)
class RedrawChoice:
    """Bishop's target: discard and redraw, or not."""

    TYPE: ClassVar[str] = "redraw"
    redraw: bool


Choice = PlayChoice | KeepChoice | LookChoice | RedrawChoice

# --- client -> server -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot to seat when a table is created."""

    seat: int
    level: str  # one of the catalogue's `bot_levels`


@dataclass(frozen=True, slots=True)
class Hello:
    """First message of a session: its protocol version and the player's name."""

    TYPE: ClassVar[str] = "hello"
    version: int
    name: str


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Open a table and sit at it; `timer` is seconds per decision, None for no timer;
    `takeover`: players who join a started game may take a bot's seat at the next round;
    `private`: not listed in the lobby, reachable by its (long) code only;
    `hints`: whether players may ask for hints (None: only at a table with a bot);
    `bot_level`: the level of the bots that take the seats still empty at the start (None:
    the server's weakest); `bot_delay`: milliseconds each bot waits before it plays while no
    human sits at the table (None: the server's delay), for programs on the bot API."""

    TYPE: ClassVar[str] = "create_table"
    name: str
    edition: str
    seats: int
    timer: int | None = None
    bots: tuple[BotSpec, ...] = ()
    takeover: bool = False
    private: bool = False
    hints: bool | None = None  # None: allowed if a bot plays at the table, else not
    bot_level: str | None = None
    bot_delay: int | None = None


@dataclass(frozen=True, slots=True)
class Join:
    """Join the table with this code as a player."""

    TYPE: ClassVar[str] = "join"
    code: str


@dataclass(frozen=True, slots=True)
class Visit:
    """Go to the table with this code (an invite): a free seat if it waits for players and
    has one, else watching."""

    TYPE: ClassVar[str] = "visit"
    code: str


@dataclass(frozen=True, slots=True)
class RejoinSeat:
    """A guest back within the grace period: the seat held with this one-time code."""

    TYPE: ClassVar[str] = "rejoin_seat"
    code: str


@dataclass(frozen=True, slots=True)
class Spectate:
    """Watch the table with this code."""

    TYPE: ClassVar[str] = "spectate"
    code: str


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the current table for the lobby."""

    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class Sit:
    """Take an empty seat at the current table."""

    TYPE: ClassVar[str] = "sit"
    seat: int


@dataclass(frozen=True, slots=True)
class Stand:
    """Give up the seat and watch instead."""

    TYPE: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True)
class AddBot:
    """Host: put a bot of `level` (one of the catalogue's `bot_levels`) in an empty seat."""

    TYPE: ClassVar[str] = "add_bot"
    seat: int
    level: str


@dataclass(frozen=True, slots=True)
class RemoveBot:
    """Host: remove the bot from `seat`."""

    TYPE: ClassVar[str] = "remove_bot"
    seat: int


@dataclass(frozen=True, slots=True)
class Start:
    """Host: start the game."""

    TYPE: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class Rematch:
    """After the game: play again with the same seats."""

    TYPE: ClassVar[str] = "rematch"


@dataclass(frozen=True, slots=True)
class Act:
    """Answer the pending decision of this session's seat: `decision` is the id of the
    decision answered (`view.pending.decision`), refused as `stale_decision` once another
    decision is pending; None answers whichever is pending when it arrives."""

    TYPE: ClassVar[str] = "act"
    choice: Choice
    decision: int | None = None


@dataclass(frozen=True, slots=True)
class Chat:
    """Say something to the lobby or, at a table, to the table."""

    TYPE: ClassVar[str] = "chat"
    text: str


@dataclass(frozen=True, slots=True)
class HintRequest:
    """Ask what the hard bot would do at this session's pending decision, and why."""

    TYPE: ClassVar[str] = "hint"


@dataclass(frozen=True, slots=True)
class Tutorial:
    """Start the tutorial: a guided first game at a table of this session's own."""

    TYPE: ClassVar[str] = "tutorial"


@dataclass(frozen=True, slots=True)
class ContinueRound:
    """After a round: start the next one."""

    TYPE: ClassVar[str] = "continue_round"


@dataclass(frozen=True, slots=True)
class TableFits:
    """Whether the player's terminal is big enough to show the table (the app says so at a
    table when that changes): a turn timer waits for a player who cannot see the table."""

    TYPE: ClassVar[str] = "table_fits"
    fits: bool


@dataclass(frozen=True, slots=True)
class StatsRequest:
    """Ask for this player's games and wins, recent games and the leaderboard."""

    TYPE: ClassVar[str] = "stats_request"


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """Ask for one round of a finished game's replay, as `seat` saw it (None: the public
    view). The server answers `replay`, or `error` if the receiver may not see it."""

    TYPE: ClassVar[str] = "replay_request"
    game_id: int
    seat: int | None = None
    round: int = 1


@dataclass(frozen=True, slots=True)
class GamesRequest:
    """Ask for the latest finished public games of the player called `name` (a leader)."""

    TYPE: ClassVar[str] = "games_request"
    name: str


@dataclass(frozen=True, slots=True)
class ProfileRequest:
    """Ask for the profile of the player called `name` (answer: `profile`)."""

    TYPE: ClassVar[str] = "profile_request"
    name: str


@dataclass(frozen=True, slots=True)
class FriendRequest:
    """Mark the keyed player called `name` as a friend, or with `add` false no longer
    (answer: `friends`)."""

    TYPE: ClassVar[str] = "friend"
    name: str
    add: bool = True


@dataclass(frozen=True, slots=True)
class Admin:
    """An administrator's command; the server says which fields each command needs."""

    TYPE: ClassVar[str] = "admin"
    command: str  # "kick" | "ban" | "unban" | "announce" | "motd"
    target: str | None = None  # a nickname online, key fingerprint, address, or ban id
    duration: int | None = None  # seconds a ban lasts; None: until lifted
    text: str | None = None  # an announcement, the new motd, or a ban's reason


ClientMessage = (
    Hello
    | CreateTable
    | Join
    | RejoinSeat
    | Visit
    | Spectate
    | Leave
    | Sit
    | Stand
    | AddBot
    | RemoveBot
    | Start
    | Rematch
    | Act
    | HintRequest
    | Tutorial
    | Chat
    | ContinueRound
    | TableFits
    | StatsRequest
    | ReplayRequest
    | GamesRequest
    | ProfileRequest
    | FriendRequest
    | Admin
)

# --- server -> client -----------------------------------------------------------------------


DEFAULT_TIMER = 90  # seconds per decision at new tables, unless the server says otherwise


@dataclass(frozen=True, slots=True)
class CardInfo:
    """One card of an edition's reference: its id, name, value, copies in the deck and effect;
    `out_if_played`: playing or discarding it knocks its player out."""

    id: str
    name: str
    value: int
    count: int
    text: str
    out_if_played: bool = False


@dataclass(frozen=True, slots=True)
class EditionInfo:
    """An edition as menus show it: id, long and short names, player range, rules, cards."""

    id: str
    name: str
    short: str
    min_players: int
    max_players: int
    rules: str
    cards: tuple[CardInfo, ...]


@dataclass(frozen=True, slots=True)
class Catalogue:
    """What this server offers: its editions (`default_edition` first in the new-table form)
    and its bot levels, weakest first. The app shows these and keeps no list of its own."""

    editions: tuple[EditionInfo, ...]
    bot_levels: tuple[str, ...]
    default_edition: str

    def edition(self, edition_id: str) -> EditionInfo | None:
        """The edition with that id, None if this server does not offer it."""
        return next((e for e in self.editions if e.id == edition_id), None)


@dataclass(frozen=True, slots=True)
class Welcome:
    """Answer to `hello`: the name in use, the SSH identity (None for a guest), the motd,
    whether this session may send `admin` commands, the turn timer new tables start with,
    and the server's `catalogue` of editions and bot levels."""

    TYPE: ClassVar[str] = "welcome"
    version: int
    name: str
    identity: str | None
    guest: bool
    motd: str = ""
    admin: bool = False
    timer: int | None = DEFAULT_TIMER
    invite: str | None = None
    """The command before a table code that reaches this server, e.g. `ssh -t -p 2222
    play.example.org`; None where there is no SSH (local play)."""
    catalogue: Catalogue = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class TableSummary:
    """One line of the lobby's table list."""

    code: str
    name: str
    edition: str
    seats: int
    taken: int
    status: str  # "waiting" | "playing" | "round_over" | "finished"
    spectators: int
    private: bool = False  # listed to administrators only


@dataclass(frozen=True, slots=True)
class Lobby:
    """The lobby: open tables and the names of everyone online."""

    TYPE: ClassVar[str] = "lobby"
    tables: tuple[TableSummary, ...]
    online: tuple[str, ...]
    ratings: tuple[OnlineRating, ...] = ()  # of those online who have a rating
    api_bots: tuple[str, ...] = ()  # those online who are programs on the bot API


@dataclass(frozen=True, slots=True)
class OnlineRating:
    """The rating shown beside a name in the lobby's online list."""

    name: str
    rating: int


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat: its player's name (None if empty), bot level (None if human), connection;
    `api_bot`: a program plays it through the bot API (docs/bot-api.md); `ready`: at a
    finished table, its player has asked for a rematch; `rating` and `rating_change`: at a
    finished table whose game was rated, its keyed player's rating now and what the game
    changed it by (None otherwise)."""

    name: str | None
    bot: str | None
    connected: bool
    api_bot: bool = False
    ready: bool = False
    rating: int | None = None
    rating_change: int | None = None
    small: bool = False  # its player's terminal is too small to show the table now


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table's setup; `you` is the receiver's seat, None for a spectator."""

    code: str
    name: str
    edition: str
    host: str | None
    seats: tuple[SeatInfo, ...]
    spectators: tuple[str, ...]
    status: str  # "waiting" | "playing" | "round_over" | "finished"
    timer: int | None
    you: int | None
    private: bool = False  # not listed in the lobby: reachable by its code only
    hints: bool = False  # whether its players may ask for hints now


@dataclass(frozen=True, slots=True)
class Countdown:
    """A timer running at the table: a seat's turn or the pause between rounds.

    `remaining_ms` is the time left when the server sent it; the app counts down from there.
    `seat` is the seat whose decision is timed (None for the pause between rounds).
    """

    kind: str  # "turn" | "held" (a turn's, waiting for a player who cannot see the table) | "pause"
    remaining_ms: int
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone may know of one seat: in the round, protected, its discards (card ids,
    oldest first), how many cards it holds, its tokens."""

    alive: bool
    protected: bool
    discards: tuple[str, ...]
    hand_size: int
    tokens: int


@dataclass(frozen=True, slots=True)
class PendingView:
    """Whose decision the table waits for, its kind ("play", "chancellor", "cardinal_look" or
    "bishop_redraw") and its id, unique at its table (`act` names it in `decision`)."""

    seat: int
    kind: str
    decision: int = 0


@dataclass(frozen=True, slots=True)
class View:
    """Everything the receiver's seat (`viewer`; None: a spectator) may know now: the engine's
    view (server/engine/view.py), field for field.

    `hand` is the viewer's own cards (empty for a spectator); other hands are only sizes.
    `choices` are the legal choices of the pending decision, for the seat that must decide
    only: send one back in `act`. `unseen`: copies of each card id not in the viewer's hand,
    the discards or face up. `jester`: (the Jester's player, the seat they bet on).
    """

    TYPE: ClassVar[str] = "view"
    edition: str
    players: int
    viewer: int | None
    round: int
    target: int  # tokens to win
    tokens: tuple[int, ...]
    deck_size: int
    set_aside: int  # cards set aside face down
    face_up: tuple[str, ...]
    hand: tuple[str, ...]
    seats: tuple[SeatView, ...]
    turn: int | None
    pending: PendingView | None
    choices: tuple[Choice, ...]
    marked: int | None  # the Sycophant's chosen seat
    jester: tuple[int, ...] | None
    unseen: Mapping[str, int]
    round_over: bool
    round_winners: tuple[int, ...]
    game_over: bool
    game_winners: tuple[int, ...]
    next_start: int | None


@dataclass(frozen=True, slots=True)
class TableState:
    """A table: its info, the receiver's view from the engine, and new events since the last.

    `countdown` is the timer running now, None when no timer runs; `guide` the tutorial's
    words for the receiver now, None outside the tutorial.
    """

    TYPE: ClassVar[str] = "table"
    info: TableInfo
    view: View | None = None
    events: tuple[Event, ...] = ()
    countdown: Countdown | None = None
    guide: str | None = None


@dataclass(frozen=True, slots=True)
class Hint:
    """Answer to `hint`: the choice the hard bot would make from the receiver's seat, why
    (one line), and the next-best choice in a few words (None if there is no other)."""

    TYPE: ClassVar[str] = "hint"
    choice: Choice
    text: str
    alternative: str | None = None


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A chat line said by `sender` in the lobby or at the table."""

    TYPE: ClassVar[str] = "chat"
    scope: str  # "lobby" | "table"
    sender: str
    text: str


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """A request failed: a stable `code` (protocol, lobby or engine) and a message; for
    `rate_limited`, the milliseconds to wait before sending again."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    retry_after_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to show the user (server shutting down, a player left, ...)."""

    TYPE: ClassVar[str] = "notice"
    text: str


@dataclass(frozen=True, slots=True)
class EditionTally:
    """A player's finished games and wins in one edition."""

    edition: str
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One of the player's recent finished games; `players` are every seat's name in order,
    `seat` is the player's own."""

    game_id: int
    edition: str
    ended_at: str  # ISO 8601, UTC
    won: bool
    players: tuple[str, ...]
    seat: int = 0


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One of the server's latest finished public games: every seat's name, the winners'
    seats."""

    game_id: int
    edition: str
    ended_at: str  # ISO 8601, UTC
    players: tuple[str, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LeaderEntry:
    """One line of the leaderboard: a rated player's rating and uncertainty (±), games, wins."""

    name: str
    games: int
    wins: int
    rating: int
    uncertainty: int


@dataclass(frozen=True, slots=True)
class RatingInfo:
    """A player's own rating, its uncertainty (one standard deviation) and rated games."""

    rating: int
    uncertainty: int
    games: int


@dataclass(frozen=True, slots=True)
class Stats:
    """Answer to `stats_request`; `note` says why the player's own lists are empty, if so."""

    TYPE: ClassVar[str] = "stats"
    editions: tuple[EditionTally, ...]
    recent: tuple[PlayedGame, ...]
    leaderboard: tuple[LeaderEntry, ...]
    note: str = ""
    rating: RatingInfo | None = None  # None: a guest, or no rated game yet
    latest: tuple[FinishedGame, ...] = ()  # the server's latest finished public games
    bots: tuple[LeaderEntry, ...] = ()  # the bot ladder: API bots and the server's bots
    min_games: int = 0  # rated games a player needs to be on the leaderboard


@dataclass(frozen=True, slots=True)
class ReplaySeat:
    """A seat of a replayed game: its player's name then, and the bot level if a bot."""

    name: str
    bot: str | None


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One step of a replay: the view after it and the events it brought, both as the
    replay's viewpoint saw them; `actor` is the seat whose decision it was (None: the deal)."""

    actor: int | None
    view: View
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Replay:
    """One round of a finished game, step by step, from the deal to the round's end."""

    TYPE: ClassVar[str] = "replay"
    game_id: int
    edition: str
    seats: tuple[ReplaySeat, ...]
    seat: int | None  # the viewpoint: a seat, or None for the public view
    round: int
    rounds: int  # rounds in the game
    frames: tuple[ReplayFrame, ...]


@dataclass(frozen=True, slots=True)
class PlayerGames:
    """Answer to `games_request`: that player's latest finished public games, newest first."""

    TYPE: ClassVar[str] = "games"
    name: str
    games: tuple[FinishedGame, ...]


@dataclass(frozen=True, slots=True)
class CardCount:
    """A card and how many times a player played it."""

    card: str
    count: int


@dataclass(frozen=True, slots=True)
class Profile:
    """Answer to `profile_request`: a player's rating and its history, games and wins per
    edition, favourite cards and latest games; `note` says why there is none of it (a guest,
    a bot, a server that keeps no stats)."""

    TYPE: ClassVar[str] = "profile"
    name: str
    note: str = ""
    rating: RatingInfo | None = None  # None: no rated game yet
    history: tuple[int, ...] = ()  # the rating after each latest rated game, oldest first
    editions: tuple[EditionTally, ...] = ()
    favourites: tuple[CardCount, ...] = ()  # the cards played most, most played first
    games: tuple[PlayedGame, ...] = ()  # newest first; `seat` is this player's
    yours: bool = False  # the receiver's own profile: its private games are listed too
    friend: bool = False  # one of the receiver's friends


@dataclass(frozen=True, slots=True)
class FriendInfo:
    """A friend: online or not, and the code of the table they are at (None: in the lobby,
    offline, or at a private table)."""

    name: str
    online: bool
    table: str | None = None


@dataclass(frozen=True, slots=True)
class Friends:
    """A keyed player's friends and where they are, by name: after the welcome, after each
    change of the list, and when one of them comes, goes or changes tables."""

    TYPE: ClassVar[str] = "friends"
    friends: tuple[FriendInfo, ...]


ServerMessage = (
    Welcome
    | Lobby
    | TableState
    | Hint
    | ChatLine
    | ErrorReply
    | Notice
    | Stats
    | Replay
    | PlayerGames
    | Profile
    | Friends
)

Message = ClientMessage | ServerMessage
