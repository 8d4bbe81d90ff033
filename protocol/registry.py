"""The message table: for each direction, every wire tag with its dataclass and field specs.

Adding a message is one dataclass in `protocol.messages` and one `Record` line here.
"""

from __future__ import annotations

from types import MappingProxyType

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.events import EVENTS, KINDS, WORDS
from protocol.limits import Direction
from protocol.schema import (
    Bool,
    ByType,
    EventMap,
    Ident,
    Int,
    ListOf,
    MapOf,
    Null,
    Nullable,
    OneOf,
    Record,
    Spec,
    Tagged,
    Text,
)

# Protocol-wide facts, in characters (code points) unless said otherwise.
MAX_SEATS = 8  # the largest edition (premium) seats 8
MAX_NAME = 32  # player names
MAX_TABLE_NAME = 40
MAX_CODE = 16  # table codes
MAX_CHAT = 200
MAX_MOTD = 2000
MAX_NOTICE = 1000
MAX_ERROR_MESSAGE = 500
MAX_IDENTITY = 128  # e.g. an SSH key fingerprint
MAX_TIMER = 3600  # seconds per decision
MAX_LIST = 1000  # tables, online names, spectators, events in one message
MAX_ADMIN_TARGET = 128  # a nickname, key fingerprint, address or network, or ban id
MAX_ADMIN_TEXT = 250  # 4 UTF-8 bytes a character at most: always within max_str_bytes
MAX_BAN_SECONDS = 10 * 366 * 86400  # ten years; longer is forever (null)
MAX_STATS_ROWS = 100  # editions, recent games, leaderboard lines in one `stats`
MAX_NOTE = 200
MAX_TIMESTAMP = 40  # an ISO 8601 date and time
MAX_TALLY = 2**31 - 1  # games or wins
MAX_HINT = 200  # one line of a hint
MAX_GUIDE = 600  # the tutorial's words at one step
MAX_RATING = 9999  # ratings are sent rounded and clamped to 0..MAX_RATING
MAX_BOT_DELAY_MS = 30_000  # `create_table.bot_delay`, milliseconds
MAX_EDITIONS = 32  # editions in the catalogue
MAX_CARDS = 32  # kinds of card in one edition
MAX_CARD_TEXT = 200  # a card's name (MAX_NAME) and effect
MAX_RULES = 4000  # an edition's short rules
MAX_LEVELS = 16  # bot levels in the catalogue
MAX_INVITE = 300  # `welcome.invite`: ssh, options, a user name and a host name
MAX_HAND = 8  # cards in one event's list (a hand, a Chancellor's draw, tokens' reasons)
MAX_GAME_ID = 2**63 - 1  # SQLite's largest row id
MAX_ROUNDS = 1000  # rounds in one game, as a replay counts them
MAX_REPLAY_FRAMES = 400  # steps in one round of a replay (the deal, then each decision)
MAX_REPLAY_EVENTS = 64  # events one step of a replay brings
MAX_DECK = 64  # cards in one edition's deck (a seat's discards)
MAX_CHOICES = MAX_LIST  # legal choices of one decision
DECISIONS = ("play", "chancellor", "cardinal_look", "bishop_redraw")
STATUSES = ("waiting", "playing", "round_over", "finished")
ADMIN_COMMANDS = ("kick", "ban", "unban", "announce", "motd")

SEAT = Int(0, MAX_SEATS - 1)
NAME = Text(MAX_NAME)
CODE = Text(MAX_CODE)
CARD = Ident(32)
LEVEL = Ident(16)  # a bot level: the server checks it against its registry
STATUS = OneOf(*STATUSES)
COUNT = Int(0, 1_000_000)
TALLY = Int(0, MAX_TALLY)
EDITION = Ident(32)
RATING = Int(0, MAX_RATING)
GUESS = Nullable(ByType({str: CARD, int: Int(0, 255)}))
GAME_ID = Int(1, MAX_GAME_ID)
DECISION = Int(0, MAX_TALLY)  # a pending decision's id, unique at its table

CHOICE = Tagged(
    [
        Record(
            m.PlayChoice,
            {
                "card": CARD,
                "targets": ListOf(SEAT, MAX_SEATS),
                "guess": GUESS,
            },
        ),
        Record(m.KeepChoice, {"keep": CARD, "bottom": ListOf(CARD, MAX_SEATS)}),
        Record(m.LookChoice, {"seat": Nullable(SEAT)}),
        Record(m.RedrawChoice, {"redraw": Bool()}),
    ]
)

SEAT_KEY = OneOf(*map(str, range(MAX_SEATS)))  # a seat as a map key
CARDS = ListOf(CARD, MAX_HAND)
EVENT_TYPES: MappingProxyType[str, Spec] = MappingProxyType(
    {
        "seat": SEAT,
        "seat_or_none": Nullable(SEAT),
        "none": Null(),
        "seats": ListOf(SEAT, MAX_SEATS),
        "card": CARD,
        "cards": CARDS,
        "guess": GUESS,
        "count": COUNT,
        "counts": ListOf(COUNT, MAX_SEATS),
        "bool": Bool(),
        "round": Int(1, 1_000_000),
        "reason": Ident(32),
        "card_by_seat": MapOf(SEAT_KEY, CARD, MAX_SEATS),
        "cards_by_seat": MapOf(SEAT_KEY, CARDS, MAX_SEATS),
        "count_by_seat": MapOf(SEAT_KEY, COUNT, MAX_SEATS),
        "reasons_by_seat": MapOf(SEAT_KEY, ListOf(Ident(32), MAX_HAND), MAX_SEATS),
        **{word: OneOf(*values) for word, values in WORDS.items()},
    }
)
"""The spec of each field type of `protocol.events` (see server/engine/event_catalogue.py)."""


def _event_kind(seat: str, fields: tuple) -> tuple[dict[str, Spec], dict[str, Spec]]:
    """The specs of one event kind's required fields and of those that may be absent (private
    fields, sent only to some seats, and optional ones)."""
    required: dict[str, Spec] = {"seat": EVENT_TYPES[seat]}
    optional: dict[str, Spec] = {}
    for name, type_, flags in fields:
        (optional if flags else required)[name] = EVENT_TYPES[type_]
    return required, optional


EVENT = EventMap({kind: _event_kind(*entry) for kind, entry in EVENTS.items()}, KINDS)

VIEW = Record(
    m.View,
    {
        "edition": EDITION,
        "players": Int(2, MAX_SEATS),
        "viewer": Nullable(SEAT),
        "round": Int(0, 1_000_000),
        "target": Int(1, 255),
        "tokens": ListOf(COUNT, MAX_SEATS),
        "deck_size": Int(0, MAX_DECK),
        "set_aside": Int(0, MAX_DECK),
        "face_up": CARDS,
        "hand": CARDS,
        "seats": ListOf(
            Record(
                m.SeatView,
                {
                    "alive": Bool(),
                    "protected": Bool(),
                    "discards": ListOf(CARD, MAX_DECK),
                    "hand_size": Int(0, MAX_HAND),
                    "tokens": COUNT,
                },
            ),
            MAX_SEATS,
            min_items=2,
        ),
        "turn": Nullable(SEAT),
        "pending": Nullable(
            Record(m.PendingView, {"seat": SEAT, "kind": OneOf(*DECISIONS), "decision": DECISION})
        ),
        "choices": ListOf(CHOICE, MAX_CHOICES),
        "marked": Nullable(SEAT),
        "jester": Nullable(ListOf(SEAT, 2, min_items=2)),
        "unseen": MapOf(CARD, Int(0, MAX_DECK), MAX_CARDS),
        "round_over": Bool(),
        "round_winners": ListOf(SEAT, MAX_SEATS),
        "game_over": Bool(),
        "game_winners": ListOf(SEAT, MAX_SEATS),
        "next_start": Nullable(SEAT),
    },
)
"""A seat's view (`protocol.View`), checked field by field like every message."""

TO_SERVER = Tagged(
    [
        Record(m.Hello, {"version": Int(0, 65535), "name": NAME}),
        Record(
            m.CreateTable,
            {
                "name": Text(MAX_TABLE_NAME),
                "edition": Ident(32),
                "seats": Int(2, MAX_SEATS),
                "timer": Nullable(Int(1, MAX_TIMER)),
                "bots": ListOf(Record(m.BotSpec, {"seat": SEAT, "level": LEVEL}), MAX_SEATS - 1),
                "takeover": Bool(),
                "private": Bool(),
                "hints": Nullable(Bool()),
                "bot_level": Nullable(LEVEL),
                "bot_delay": Nullable(Int(0, MAX_BOT_DELAY_MS)),
            },
        ),
        Record(m.Join, {"code": CODE}),
        Record(m.Visit, {"code": CODE}),
        Record(m.RejoinSeat, {"code": CODE}),
        Record(m.Spectate, {"code": CODE}),
        Record(m.Leave, {}),
        Record(m.Sit, {"seat": SEAT}),
        Record(m.Stand, {}),
        Record(m.AddBot, {"seat": SEAT, "level": LEVEL}),
        Record(m.RemoveBot, {"seat": SEAT}),
        Record(m.Start, {}),
        Record(m.Rematch, {}),
        Record(m.Act, {"choice": CHOICE, "decision": Nullable(DECISION)}),
        Record(m.HintRequest, {}),
        Record(m.Tutorial, {}),
        Record(m.Chat, {"text": Text(MAX_CHAT)}),
        Record(m.ContinueRound, {}),
        Record(m.TableFits, {"fits": Bool()}),
        Record(m.StatsRequest, {}),
        Record(
            m.ReplayRequest,
            {"game_id": GAME_ID, "seat": Nullable(SEAT), "round": Int(1, MAX_ROUNDS)},
        ),
        Record(m.GamesRequest, {"name": NAME}),
        Record(m.ProfileRequest, {"name": NAME}),
        Record(m.FriendRequest, {"name": NAME, "add": Bool()}),
        Record(
            m.Admin,
            {
                "command": OneOf(*ADMIN_COMMANDS),
                "target": Nullable(Text(MAX_ADMIN_TARGET)),
                "duration": Nullable(Int(1, MAX_BAN_SECONDS)),
                "text": Nullable(Text(MAX_ADMIN_TEXT)),
            },
        ),
    ],
    unknown=ErrorCode.UNKNOWN_TYPE,
)

TABLE_SUMMARY = Record(
    m.TableSummary,
    {
        "code": CODE,
        "name": Text(MAX_TABLE_NAME),
        "edition": Ident(32),
        "seats": Int(2, MAX_SEATS),
        "taken": Int(0, MAX_SEATS),
        "status": STATUS,
        "spectators": COUNT,
        "private": Bool(),
    },
)

SEAT_INFO = Record(
    m.SeatInfo,
    {
        "name": Nullable(NAME),
        "bot": Nullable(LEVEL),
        "connected": Bool(),
        "api_bot": Bool(),
        "ready": Bool(),
        "rating": Nullable(RATING),
        "rating_change": Nullable(Int(-MAX_RATING, MAX_RATING)),
        "small": Bool(),
    },
)

TABLE_INFO = Record(
    m.TableInfo,
    {
        "code": CODE,
        "name": Text(MAX_TABLE_NAME),
        "edition": Ident(32),
        "host": Nullable(NAME),
        "seats": ListOf(SEAT_INFO, MAX_SEATS, min_items=2),
        "spectators": ListOf(NAME, MAX_LIST),
        "status": STATUS,
        "timer": Nullable(Int(1, MAX_TIMER)),
        "you": Nullable(SEAT),
        "private": Bool(),
        "hints": Bool(),
    },
)

COUNTDOWN = Record(
    m.Countdown,
    {
        "kind": OneOf("turn", "held", "pause"),
        "remaining_ms": Int(0, MAX_TIMER * 1000),
        "seat": Nullable(SEAT),
    },
)

FINISHED_GAME = Record(
    m.FinishedGame,
    {
        "game_id": GAME_ID,
        "edition": EDITION,
        "ended_at": Text(MAX_TIMESTAMP),
        "players": ListOf(NAME, MAX_SEATS),
        "winners": ListOf(SEAT, MAX_SEATS),
    },
)

LEADER = Record(
    m.LeaderEntry,
    {"name": NAME, "games": TALLY, "wins": TALLY, "rating": RATING, "uncertainty": RATING},
)

EDITION_TALLY = Record(m.EditionTally, {"edition": EDITION, "games": TALLY, "wins": TALLY})

PLAYED_GAME = Record(
    m.PlayedGame,
    {
        "game_id": GAME_ID,
        "edition": EDITION,
        "ended_at": Text(MAX_TIMESTAMP),
        "won": Bool(),
        "players": ListOf(NAME, MAX_SEATS),
        "seat": SEAT,
    },
)

RATING_INFO = Record(m.RatingInfo, {"rating": RATING, "uncertainty": RATING, "games": TALLY})

STATS = Record(
    m.Stats,
    {
        "editions": ListOf(EDITION_TALLY, MAX_STATS_ROWS),
        "recent": ListOf(PLAYED_GAME, MAX_STATS_ROWS),
        "leaderboard": ListOf(LEADER, MAX_STATS_ROWS),
        "note": Text(MAX_NOTE, min_len=0),
        "rating": Nullable(RATING_INFO),
        "latest": ListOf(FINISHED_GAME, MAX_STATS_ROWS),
        "bots": ListOf(LEADER, MAX_STATS_ROWS),
        "min_games": TALLY,
    },
)

PLAYER_GAMES = Record(m.PlayerGames, {"name": NAME, "games": ListOf(FINISHED_GAME, MAX_STATS_ROWS)})

PROFILE = Record(
    m.Profile,
    {
        "name": NAME,
        "note": Text(MAX_NOTE, min_len=0),
        "rating": Nullable(RATING_INFO),
        "history": ListOf(RATING, MAX_STATS_ROWS),
        "editions": ListOf(EDITION_TALLY, MAX_STATS_ROWS),
        "favourites": ListOf(Record(m.CardCount, {"card": CARD, "count": TALLY}), MAX_CARDS),
        "games": ListOf(PLAYED_GAME, MAX_STATS_ROWS),
        "yours": Bool(),
        "friend": Bool(),
    },
)

MAX_FRIENDS = 50  # friends one player may mark

FRIENDS = Record(
    m.Friends,
    {
        "friends": ListOf(
            Record(m.FriendInfo, {"name": NAME, "online": Bool(), "table": Nullable(CODE)}),
            MAX_FRIENDS,
        )
    },
)

REPLAY = Record(
    m.Replay,
    {
        "game_id": GAME_ID,
        "edition": EDITION,
        "seats": ListOf(
            Record(m.ReplaySeat, {"name": NAME, "bot": Nullable(LEVEL)}), MAX_SEATS, min_items=2
        ),
        "seat": Nullable(SEAT),
        "round": Int(1, MAX_ROUNDS),
        "rounds": Int(1, MAX_ROUNDS),
        "frames": ListOf(
            Record(
                m.ReplayFrame,
                {
                    "actor": Nullable(SEAT),
                    "view": VIEW,
                    "events": ListOf(EVENT, MAX_REPLAY_EVENTS),
                },
            ),
            MAX_REPLAY_FRAMES,
            min_items=1,
        ),
    },
)

CARD_INFO = Record(
    m.CardInfo,
    {
        "id": CARD,
        "name": Text(MAX_NAME),
        "value": Int(0, 255),
        "count": Int(1, 255),
        "text": Text(MAX_CARD_TEXT),
        "out_if_played": Bool(),
    },
)

CATALOGUE = Record(
    m.Catalogue,
    {
        "editions": ListOf(
            Record(
                m.EditionInfo,
                {
                    "id": EDITION,
                    "name": Text(MAX_TABLE_NAME),
                    "short": Text(MAX_CODE),
                    "min_players": Int(2, MAX_SEATS),
                    "max_players": Int(2, MAX_SEATS),
                    "rules": Text(MAX_RULES, multiline=True),
                    "cards": ListOf(CARD_INFO, MAX_CARDS, min_items=1),
                },
            ),
            MAX_EDITIONS,
            min_items=1,
        ),
        "bot_levels": ListOf(LEVEL, MAX_LEVELS, min_items=1),
        "default_edition": EDITION,
    },
)

TO_CLIENT = Tagged(
    [
        Record(
            m.Welcome,
            {
                "version": Int(0, 65535),
                "name": NAME,
                "identity": Nullable(Text(MAX_IDENTITY)),
                "guest": Bool(),
                "motd": Text(MAX_MOTD, min_len=0, multiline=True),
                "admin": Bool(),
                "timer": Nullable(Int(1, MAX_TIMER)),
                "invite": Nullable(Text(MAX_INVITE)),
                "catalogue": CATALOGUE,
            },
        ),
        Record(
            m.Lobby,
            {
                "tables": ListOf(TABLE_SUMMARY, MAX_LIST),
                "online": ListOf(NAME, MAX_LIST),
                "ratings": ListOf(
                    Record(m.OnlineRating, {"name": NAME, "rating": RATING}), MAX_LIST
                ),
                "api_bots": ListOf(NAME, MAX_LIST),
            },
        ),
        Record(
            m.TableState,
            {
                "info": TABLE_INFO,
                "view": Nullable(VIEW),
                "events": ListOf(EVENT, MAX_LIST),
                "countdown": Nullable(COUNTDOWN),
                "guide": Nullable(Text(MAX_GUIDE, multiline=True)),
            },
        ),
        Record(
            m.Hint,
            {"choice": CHOICE, "text": Text(MAX_HINT), "alternative": Nullable(Text(MAX_HINT))},
        ),
        Record(
            m.ChatLine, {"scope": OneOf("lobby", "table"), "sender": NAME, "text": Text(MAX_CHAT)}
        ),
        Record(
            m.ErrorReply,
            {
                "code": Ident(64),
                "message": Text(MAX_ERROR_MESSAGE, multiline=True),
                "retry_after_ms": Nullable(Int(0, 3_600_000)),
            },
        ),
        Record(m.Notice, {"text": Text(MAX_NOTICE, multiline=True)}),
        STATS,
        REPLAY,
        PLAYER_GAMES,
        PROFILE,
        FRIENDS,
    ],
    unknown=ErrorCode.UNKNOWN_TYPE,
)

MESSAGES: MappingProxyType[Direction, Tagged] = MappingProxyType(
    {Direction.TO_SERVER: TO_SERVER, Direction.TO_CLIENT: TO_CLIENT}
)

DIRECTION_OF: MappingProxyType[type, Direction] = MappingProxyType(
    {cls: direction for direction, table in MESSAGES.items() for cls in table.by_cls}
)
