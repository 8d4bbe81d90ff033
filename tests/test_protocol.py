"""The protocol package: round trips, wire stability, every error code, framing."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from test_tui_support import CATALOGUE

from protocol import (
    LIMITS,
    PROTOCOL_VERSION,
    Act,
    AddBot,
    Admin,
    BotSpec,
    CardCount,
    Chat,
    ChatLine,
    ContinueRound,
    CreateTable,
    Direction,
    EditionTally,
    ErrorCode,
    ErrorReply,
    FinishedGame,
    FrameReader,
    FriendInfo,
    FriendRequest,
    Friends,
    GamesRequest,
    Hello,
    Hint,
    HintRequest,
    Join,
    KeepChoice,
    LeaderEntry,
    Leave,
    Lobby,
    LocalProtocolError,
    LookChoice,
    Message,
    Notice,
    OnlineRating,
    PendingView,
    PlayChoice,
    PlayedGame,
    PlayerGames,
    Profile,
    ProfileRequest,
    ProtocolError,
    RatingInfo,
    RedrawChoice,
    RejoinSeat,
    Rematch,
    RemoteProtocolError,
    RemoveBot,
    Replay,
    ReplayFrame,
    ReplayRequest,
    ReplaySeat,
    SeatInfo,
    SeatView,
    Sit,
    Spectate,
    Stand,
    Start,
    Stats,
    StatsRequest,
    TableFits,
    TableInfo,
    TableState,
    TableSummary,
    Tutorial,
    View,
    Visit,
    Welcome,
    choice_from_wire,
    choice_to_wire,
    decode,
    encode,
    event_from_wire,
    event_to_wire,
    frame,
    from_wire,
    to_wire,
)
from protocol import events as ev
from protocol.registry import CHOICE, DIRECTION_OF, MESSAGES

TO_SERVER, TO_CLIENT = Direction.TO_SERVER, Direction.TO_CLIENT


def table_info(**changes: Any) -> TableInfo:
    """A table at play: four seats (one bot), two spectators, the receiver at seat 1."""
    seats = (
        SeatInfo("ann", None, True),
        SeatInfo("bob", None, False),
        SeatInfo("cyd", None, True),
        SeatInfo("Bot 1", "easy", True),
    )
    info = TableInfo("K7QX", "Friday night", "2019", "ann", seats, ("eve", "fay"), "playing", 60, 1)
    return dataclasses.replace(info, **changes)


def typical_view(**changes: Any) -> View:
    """A 2019 view mid-round, as seat 1 sees it when it must play."""
    seats = tuple(SeatView(True, s == 2, ("guard",), 1 + (s == 1), s) for s in range(4))
    choices = (PlayChoice("guard", (2,), "baron"), PlayChoice("priest", (0,)))
    unseen = {"spy": 2, "guard": 1, "priest": 1, "baron": 2, "countess": 1, "princess": 1}
    view = View(
        "2019", 4, 1, 3, 4, (0, 1, 2, 3), 9, 1, (), ("guard", "priest"), seats, 1,
        PendingView(1, "play"), choices, None, None, unseen, False, (), False, (), None,
    )  # fmt: skip
    return dataclasses.replace(view, **changes)


def typical_table(**view_changes: Any) -> TableState:
    """A table message as the server sends it mid-round: the receiver's view and 10 events."""
    events = tuple(
        ev.Play(seat=i % 4, card="guard", targets=(2,), guess="baron") for i in range(10)
    )
    return TableState(table_info(), typical_view(**view_changes), events)


# One or more samples of every message; `test_samples_cover_every_message` keeps it complete.
ROUND_START = ev.RoundStart(round=1, start=0, face_up=(), tokens=(0, 0))
PLAY_EVENT = ev.Play(seat=0, card="guard", targets=(1,), guess="priest")

SAMPLES: list[Message] = [
    Hello(PROTOCOL_VERSION, "ann"),
    Hello(0, "Zoë 🌹"),
    CreateTable("Friday night", "classic", 4, None, ()),
    CreateTable("t", "premium", 8, 3600, (BotSpec(1, "easy"), BotSpec(7, "medium"))),
    Join("K7QX"),
    Visit("K7QX"),
    Visit("7KQ2M9XW4D"),
    CreateTable("by invite", "2019", 4, 90, (), private=True),
    RejoinSeat("KQXM-TRWA"),
    Spectate("K7QX"),
    Leave(),
    Sit(0),
    Stand(),
    AddBot(3, "medium"),
    RemoveBot(7),
    Start(),
    Rematch(),
    Act(PlayChoice("guard", (2,), "priest")),
    Act(PlayChoice("guard", (2,), 7)),
    Act(PlayChoice("handmaid")),
    Act(KeepChoice("spy", ("guard", "baron"))),
    Act(LookChoice(4)),
    Act(RedrawChoice(False)),
    Chat("hello there"),
    Chat("x" * 200),
    ContinueRound(),
    TableFits(False),
    Welcome(
        PROTOCOL_VERSION, "ann", "SHA256:abc", False, "Be kind.\nHave fun.", catalogue=CATALOGUE
    ),
    Welcome(PROTOCOL_VERSION, "guest-4", None, True, "", catalogue=CATALOGUE),
    Welcome(
        PROTOCOL_VERSION,
        "ann",
        None,
        True,
        "",
        invite="ssh -t -p 2222 play.example.org",
        catalogue=CATALOGUE,
    ),
    Lobby((TableSummary("7KQ2M9XW4D", "secret", "2019", 4, 1, "waiting", 0, True),), ("root",)),
    Lobby((), ()),
    Lobby((TableSummary("K7QX", "Friday", "2019", 4, 3, "waiting", 0),), ("ann", "bob")),
    Lobby((), ("ann", "bob"), (OnlineRating("bob", 1532),)),
    typical_table(),
    TableState(table_info(you=None, status="waiting", timer=None, host=None), None, ()),
    ChatLine("lobby", "ann", "hi"),
    ChatLine("table", "bob", "gg"),
    ErrorReply("not_your_turn", "It is not your turn."),
    Notice("The server restarts in 5 minutes."),
    StatsRequest(),
    Admin("kick", "bob"),
    Admin("ban", "203.0.113.0/24", 7 * 86400, "spam"),
    Admin("motd"),
    Welcome(PROTOCOL_VERSION, "root", "SHA256:adm", False, "", admin=True, catalogue=CATALOGUE),
    Stats((), (), (), "This server keeps no stats."),
    Stats(
        (EditionTally("2019", 12, 5), EditionTally("classic", 1, 0)),
        (PlayedGame(41, "2019", "2025-06-01T10:30:00+00:00", True, ("ann", "easy bot 2")),),
        (LeaderEntry("cat", 2, 2, 1620, 410), LeaderEntry("ann", 5, 2, 1480, 300)),
        "",
        RatingInfo(1480, 300, 4),
        (FinishedGame(40, "classic", "2025-06-01T10:00:00+00:00", ("cat", "dan"), (1,)),),
    ),
    ReplayRequest(41),
    GamesRequest("cat"),
    PlayerGames(
        "cat", (FinishedGame(40, "classic", "2025-06-01T10:00:00Z", ("cat", "dan"), (0,)),)
    ),
    ProfileRequest("cat"),
    Profile(
        "cat",
        rating=RatingInfo(1620, 410, 2),
        history=(1510, 1620),
        editions=(EditionTally("classic", 2, 2),),
        favourites=(CardCount("guard", 7),),
        games=(PlayedGame(40, "classic", "2025-06-01T10:00:00Z", True, ("cat", "dan"), 0),),
    ),
    Profile("gus", "gus plays as a guest: guests' games are not kept."),
    FriendRequest("cat"),
    FriendRequest("cat", add=False),
    Friends((FriendInfo("cat", True, "K7QX"), FriendInfo("dan", True), FriendInfo("ed", False))),
    ReplayRequest(41, 2, 3),
    Replay(
        41,
        "2019",
        (ReplaySeat("ann", None), ReplaySeat("easy bot 2", "easy")),
        None,
        1,
        3,
        (
            ReplayFrame(None, typical_view(pending=None, choices=()), (ROUND_START,)),
            ReplayFrame(0, typical_view(viewer=None, hand=(), choices=()), (PLAY_EVENT,)),
        ),
    ),
    CreateTable("t", "classic", 2, None, (), hints=True),
    HintRequest(),
    Tutorial(),
    dataclasses.replace(typical_table(), guide="You hold a Guard.\nPlay it on Bo."),
    Hint(PlayChoice("guard", (1,), "priest"), "Guard on bo naming Priest: 41% to hit", None),
    Hint(KeepChoice("king", ("guard",)), "Keep King", "next best: Keep Guard, 12%"),
]


def direction_of(msg: Message) -> Direction:
    return DIRECTION_OF[type(msg)]


def raw(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def wire(msg: Message, **changes: Any) -> dict[str, Any]:
    """The wire map of `msg` with some keys replaced (a value of `...` deletes the key)."""
    result = to_wire(msg) | changes
    return {key: value for key, value in result.items() if value is not ...}


# --- round trips and wire stability -------------------------------------------------------------


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip(msg: Message) -> None:
    data = encode(msg)
    assert decode(data, direction=direction_of(msg)) == msg
    assert from_wire(to_wire(msg), direction_of(msg)) == msg
    assert encode(decode(data, direction=direction_of(msg))) == data


def test_a_cardinal_may_look_at_neither_hand() -> None:
    declined = Act(LookChoice(None))
    assert decode(encode(declined), direction=Direction.TO_SERVER) == declined


def test_samples_cover_every_message() -> None:
    sampled = {type(msg) for msg in SAMPLES}
    for table in MESSAGES.values():
        assert set(table.by_cls) <= sampled
    choices = {type(msg.choice) for msg in SAMPLES if isinstance(msg, Act)}
    assert choices == {PlayChoice, KeepChoice, LookChoice, RedrawChoice}


def test_wire_tags_are_written_down() -> None:
    """Tags are part of the wire format: renaming one is a protocol version change."""
    assert {tag: rec.cls.__name__ for tag, rec in MESSAGES[TO_SERVER].by_tag.items()} == {
        "hello": "Hello",
        "create_table": "CreateTable",
        "join": "Join",
        "visit": "Visit",
        "rejoin_seat": "RejoinSeat",
        "spectate": "Spectate",
        "leave": "Leave",
        "sit": "Sit",
        "stand": "Stand",
        "add_bot": "AddBot",
        "remove_bot": "RemoveBot",
        "start": "Start",
        "rematch": "Rematch",
        "act": "Act",
        "hint": "HintRequest",
        "tutorial": "Tutorial",
        "chat": "Chat",
        "continue_round": "ContinueRound",
        "table_fits": "TableFits",
        "stats_request": "StatsRequest",
        "replay_request": "ReplayRequest",
        "games_request": "GamesRequest",
        "profile_request": "ProfileRequest",
        "friend": "FriendRequest",
        "admin": "Admin",
    }
    assert {tag: rec.cls.__name__ for tag, rec in MESSAGES[TO_CLIENT].by_tag.items()} == {
        "welcome": "Welcome",
        "lobby": "Lobby",
        "table": "TableState",
        "hint": "Hint",
        "chat": "ChatLine",
        "error": "ErrorReply",
        "notice": "Notice",
        "stats": "Stats",
        "replay": "Replay",
        "games": "PlayerGames",
        "profile": "Profile",
        "friends": "Friends",
    }
    assert [c.TYPE for c in (PlayChoice, KeepChoice, LookChoice, RedrawChoice)] == [
        "play",
        "keep",
        "look",
        "redraw",
    ]


def test_golden_bytes() -> None:
    assert encode(Hello(1, "ann")) == b"\x83\xa4type\xa5hello\xa7version\x01\xa4name\xa3ann"
    assert to_wire(Act(PlayChoice("guard", (2,), "priest"), 7)) == {
        "type": "act",
        "choice": {"type": "play", "card": "guard", "targets": [2], "guess": "priest"},
        "decision": 7,
    }


def test_messages_are_frozen_slotted_dataclasses() -> None:
    for cls in DIRECTION_OF:
        assert dataclasses.is_dataclass(cls) and "__slots__" in vars(cls)
        assert cls.__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        Hello(1, "ann").name = "bob"  # type: ignore[misc]


def test_decoded_lists_are_tuples() -> None:
    msg = decode(encode(SAMPLES[3]), direction=TO_SERVER)
    assert isinstance(msg, CreateTable) and isinstance(msg.bots, tuple)


# --- invalid input: one case per error code and per kind of check ------------------------------

PLAY = {"type": "play", "card": "guard", "targets": [1], "guess": None}
S, C, E = TO_SERVER, TO_CLIENT, ErrorCode


def act(**changes: Any) -> dict[str, Any]:
    """An `act` wire map whose play choice has some fields changed."""
    return {"type": "act", "choice": PLAY | changes}


def table_view(**changes: Any) -> dict[str, Any]:
    """The typical table's wire map with some of its view's fields changed (`...`: removed)."""
    view = to_wire(typical_table())["view"] | changes
    return wire(typical_table(), view={k: v for k, v in view.items() if v is not ...})


def table(**changes: Any) -> dict[str, Any]:
    """The typical table's wire map with some of its `info` fields changed."""
    info = to_wire(typical_table())["info"]
    return wire(typical_table(), info=info | changes)


def nested(depth: int) -> list[Any]:
    """`depth` lists inside each other."""
    value: list[Any] = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


INVALID: dict[str, tuple[Direction, Any, ErrorCode]] = {
    # id: (direction, wire map or raw bytes, expected code)
    "empty": (S, b"", E.MALFORMED),
    "truncated": (S, encode(Hello(1, "ann"))[:-1], E.MALFORMED),
    "trailing": (S, encode(Leave()) + b"\xc0", E.MALFORMED),
    "reserved byte": (S, b"\xc1", E.MALFORMED),
    "not a map": (S, raw(["hello", 1, "ann"]), E.MALFORMED),
    "scalar": (C, raw(7), E.MALFORMED),
    "bin": (S, raw({"type": "chat", "text": b"hi"}), E.MALFORMED),
    "ext": (S, raw({"type": "chat", "text": msgpack.ExtType(1, b"x")}), E.MALFORMED),
    "empty ext": (S, b"\x82\xa4type\xa4chat\xa4text\xc7\x00\x05", E.MALFORMED),
    "bad utf-8": (S, b"\x82\xa4type\xa4chat\xa4text\xa2\xff\xfe", E.MALFORMED),
    "int key": (S, raw({"type": "leave", 1: 2}), E.MALFORMED),
    "unknown type": (S, {"type": "fly"}, E.UNKNOWN_TYPE),
    "wrong direction": (S, to_wire(Notice("hi")), E.UNKNOWN_TYPE),
    "wrong direction 2": (C, to_wire(Start()), E.UNKNOWN_TYPE),
    "no type": (S, {"code": "K7QX"}, E.MISSING_FIELD),
    "type not str": (S, {"type": 1}, E.BAD_FIELD),
    "missing": (S, {"type": "hello", "version": 1}, E.MISSING_FIELD),
    "missing nested": (S, {"type": "act", "choice": {"type": "look"}}, E.MISSING_FIELD),
    "missing motd": (C, wire(SAMPLES[23], motd=...), E.MISSING_FIELD),
    "unexpected": (S, {"type": "leave", "now": True}, E.UNEXPECTED_FIELD),
    "unexpected nested": (S, act(x=1), E.UNEXPECTED_FIELD),
    "str for int": (S, {"type": "sit", "seat": "1"}, E.BAD_FIELD),
    "bool for int": (S, {"type": "sit", "seat": True}, E.BAD_FIELD),
    "int for bool": (S, {"type": "act", "choice": {"type": "redraw", "redraw": 1}}, E.BAD_FIELD),
    "float": (S, {"type": "sit", "seat": 1.0}, E.BAD_FIELD),
    "seat range": (S, {"type": "sit", "seat": 8}, E.BAD_FIELD),
    "negative": (S, {"type": "remove_bot", "seat": -1}, E.BAD_FIELD),
    "huge int": (S, {"type": "sit", "seat": 2**64 - 1}, E.BAD_FIELD),
    "bad level": (S, {"type": "add_bot", "seat": 1, "level": "Expert!"}, E.BAD_FIELD),
    "bad choice": (S, {"type": "act", "choice": {"type": "pass"}}, E.BAD_FIELD),
    "choice not map": (S, {"type": "act", "choice": "guard"}, E.BAD_FIELD),
    "targets not list": (S, act(targets=1), E.BAD_FIELD),
    "guess float": (S, act(guess=1.5), E.BAD_FIELD),
    "guess bool": (S, act(guess=True), E.BAD_FIELD),
    "card id": (S, act(card="Guard!"), E.BAD_FIELD),
    "empty name": (S, {"type": "hello", "version": 1, "name": ""}, E.BAD_FIELD),
    "escape in name": (S, {"type": "hello", "version": 1, "name": "a\x1b[2J"}, E.BAD_FIELD),
    "newline in chat": (S, {"type": "chat", "text": "a\nb"}, E.BAD_FIELD),
    "c1 control": (S, {"type": "chat", "text": "a\x9bb"}, E.BAD_FIELD),
    "bad status": (C, table(status="x"), E.BAD_FIELD),
    "no seats": (C, table(seats=[]), E.BAD_FIELD),
    "bad admin command": (S, wire(Admin("kick", "bob"), command="shutdown"), E.BAD_FIELD),
    "zero ban duration": (S, wire(Admin("ban", "bob"), duration=0), E.BAD_FIELD),
    "bad scope": (C, {"type": "chat", "scope": "world", "sender": "a", "text": "b"}, E.BAD_FIELD),
    "float in view": (C, table_view(deck_size=0.5), E.BAD_FIELD),
    "view not map": (C, wire(typical_table(), view=[1, 2]), E.BAD_FIELD),
    "view missing": (C, table_view(hand=...), E.MISSING_FIELD),
    "view unexpected": (C, table_view(cards=[]), E.UNEXPECTED_FIELD),
    "view type": (C, table_view(type="table"), E.BAD_FIELD),
    "view untagged": (C, table_view(type=...), E.MISSING_FIELD),
    "view seat": (C, table_view(turn=8), E.BAD_FIELD),
    "view seats": (C, table_view(seats=[{"alive": True}] * 4), E.MISSING_FIELD),
    "view pending": (C, table_view(pending={"seat": 1, "kind": "pass"}), E.BAD_FIELD),
    "view choice": (C, table_view(choices=[{"type": "play", "card": "guard"}]), E.MISSING_FIELD),
    "view unseen": (C, table_view(unseen={"guard": -1}), E.BAD_FIELD),
    "view jester": (C, table_view(jester=[1]), E.BAD_FIELD),
    "event not map": (C, wire(typical_table(), events=[1]), E.BAD_FIELD),
    "long admin text": (S, wire(Admin("announce"), text="x" * 251), E.TOO_LONG),
    "long chat": (S, {"type": "chat", "text": "é" * 201}, E.TOO_LONG),
    "long name": (S, {"type": "hello", "version": 1, "name": "n" * 33}, E.TOO_LONG),
    "long card": (S, act(card="g" * 33), E.TOO_LONG),
    "huge string": (S, {"type": "chat", "text": "x" * 5000}, E.TOO_LONG),
    "long key": (S, {"type": "leave", "k" * 2000: 1}, E.TOO_LONG),
    "too many targets": (S, act(targets=[1] * 9), E.TOO_LARGE),
    "array limit": (S, act(targets=[1] * 17), E.TOO_LARGE),
    "map limit": (S, {f"k{i}": i for i in range(17)}, E.TOO_LARGE),
    "frame limit": (S, b"\x00" * (64 * 1024 + 1), E.TOO_LARGE),
    "frame limit to client": (C, b"\x00" * (1024 * 1024 + 1), E.TOO_LARGE),
    "deep": (S, act(targets=[[[1]]]), E.TOO_DEEP),
    "very deep": (S, b"\x81\xa1a" + b"\x91" * 5000 + b"\xc0", E.TOO_DEEP),
    "deep view": (
        C,
        wire(typical_table(), view={"a": [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]}),
        E.TOO_DEEP,
    ),
}


@pytest.mark.parametrize(("direction", "data", "code"), INVALID.values(), ids=INVALID.keys())
def test_invalid_input_gives_its_code(direction: Direction, data: Any, code: ErrorCode) -> None:
    data = data if isinstance(data, bytes) else raw(data)
    with pytest.raises(RemoteProtocolError) as caught:
        decode(data, direction=direction)
    assert caught.value.code == code, caught.value
    assert caught.value.reason


def test_depth_limit_is_inclusive() -> None:
    """16 levels pass the structure check (then the view lacks its fields); 17 do not."""
    for depth, code in ((14, ErrorCode.MISSING_FIELD), (15, ErrorCode.TOO_DEEP)):
        data = raw(wire(typical_table(), view={"a": nested(depth)}))  # the top level is depth 1
        with pytest.raises(RemoteProtocolError) as caught:
            decode(data, direction=TO_CLIENT)
        assert caught.value.code == code, caught.value
    with pytest.raises(LocalProtocolError, match=r"deeper than 16"):
        encode(typical_table(unseen={"a": nested(15)}))


def test_every_code_is_tested() -> None:
    assert {code for _, _, code in INVALID.values()} == set(ErrorCode)


def test_reason_names_the_field() -> None:
    bad = {"type": "create_table", "name": "t", "edition": "classic", "seats": 4, "timer": None}
    bad["bots"] = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "Expert!"}]
    with pytest.raises(ProtocolError, match=r"bots\[1\]\.level"):
        decode(raw(bad), direction=TO_SERVER)


def test_decode_rejects_non_bytes() -> None:
    for data in ("hello", None, 7, [1]):
        with pytest.raises(RemoteProtocolError) as caught:
            decode(data, direction=TO_SERVER)  # type: ignore[arg-type]
        assert caught.value.code == ErrorCode.MALFORMED


def test_decode_accepts_bytearray_and_memoryview() -> None:
    data = encode(Chat("hi"))
    assert decode(bytearray(data), direction=TO_SERVER) == Chat("hi")
    assert decode(memoryview(data), direction=TO_SERVER) == Chat("hi")


def test_error_is_printable_and_split_by_fault() -> None:
    err = RemoteProtocolError(ErrorCode.TOO_LONG, "text: 300 characters, at most 200")
    assert str(err) == "too_long: text: 300 characters, at most 200"
    assert isinstance(err, ProtocolError) and not isinstance(err, LocalProtocolError)
    assert err.code == "too_long"  # a StrEnum: sends as the plain string


# --- encoding invalid messages ------------------------------------------------------------------

BAD_MESSAGES: list[tuple[Any, ErrorCode]] = [
    ("not a message", ErrorCode.UNKNOWN_TYPE),
    (Chat("x" * 201), ErrorCode.TOO_LONG),
    (Sit(-1), ErrorCode.BAD_FIELD),
    (Act("guard"), ErrorCode.BAD_FIELD),  # type: ignore[arg-type]
    (Lobby(({"code": "K7QX"},), ()), ErrorCode.BAD_FIELD),  # type: ignore[arg-type]
    (typical_table(deck_size=0.5), ErrorCode.BAD_FIELD),
    (typical_table(unseen={"a": {1, 2}}), ErrorCode.BAD_FIELD),
    (typical_table(round=2**70), ErrorCode.BAD_FIELD),
    (typical_table(hand=(b"bytes",)), ErrorCode.MALFORMED),
    (typical_table(choices=({"type": "play", "card": "guard"},)), ErrorCode.BAD_FIELD),
    (typical_table(seats=({"alive": True},) * 4), ErrorCode.BAD_FIELD),
    (TableState(table_info(), {"round": 1}), ErrorCode.BAD_FIELD),  # type: ignore[arg-type]
    (Notice("\ud800"), ErrorCode.BAD_FIELD),
    (typical_table(edition="x" * (17 * 1024)), ErrorCode.TOO_LONG),
    (typical_table(unseen={f"k{i}": "x" * 16000 for i in range(70)}), ErrorCode.TOO_LARGE),
]


@pytest.mark.parametrize(("msg", "code"), BAD_MESSAGES, ids=lambda v: str(v)[:30])
def test_encode_refuses_what_the_peer_would_reject(msg: Any, code: ErrorCode) -> None:
    with pytest.raises(LocalProtocolError) as caught:
        encode(msg)
    assert caught.value.code == code, caught.value


def test_an_engine_event_map_becomes_its_kinds_record_and_crosses_the_wire() -> None:
    play = {"kind": "play", "seat": 0, "card": "baroness", "targets": (1, 2), "guess": None}
    record = event_from_wire(play)
    assert record == ev.Play(seat=0, card="baroness", targets=(1, 2), guess=None)
    msg = TableState(table_info(), typical_view(), (record,))
    back = decode(encode(msg), direction=TO_CLIENT)
    assert isinstance(back, TableState) and back.view == typical_view()
    assert back.events == (record,) and type(back.events[0]) is ev.Play


def test_a_private_field_not_shown_is_none_and_not_sent() -> None:
    hidden = event_from_wire({"kind": "draw", "seat": 2})
    assert hidden == ev.Draw(seat=2, card=None, set_aside=None)
    assert event_to_wire(hidden) == {"kind": "draw", "seat": 2}
    shown = ev.Draw(seat=2, card="spy")
    assert event_to_wire(shown) == {"kind": "draw", "seat": 2, "card": "spy"}


@pytest.mark.parametrize(
    ("wire_event", "code"),
    [
        ({"kind": "draw"}, ErrorCode.MISSING_FIELD),
        ({"kind": "draw", "seat": 1, "hand": "spy"}, ErrorCode.UNEXPECTED_FIELD),
        ({"kind": "fold", "seat": 1}, ErrorCode.BAD_FIELD),
        ("draw", ErrorCode.BAD_FIELD),
    ],
)
def test_event_from_wire_rejects(wire_event: Any, code: ErrorCode) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        event_from_wire(wire_event)
    assert caught.value.code == code


def test_a_view_decodes_to_records() -> None:
    back = decode(encode(typical_table()), direction=TO_CLIENT)
    assert isinstance(back, TableState) and isinstance(back.view, View)
    assert isinstance(back.view.seats[0], SeatView) and back.view.pending == PendingView(1, "play")
    assert back.view.choices == (PlayChoice("guard", (2,), "baron"), PlayChoice("priest", (0,)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.view.round = 4  # type: ignore[misc]


# --- act choices on their own -----------------------------------------------------------------


@pytest.mark.parametrize("msg", [m for m in SAMPLES if isinstance(m, Act)], ids=str)
def test_choice_round_trip(msg: Act) -> None:
    wire_choice = choice_to_wire(msg.choice)
    assert wire_choice == to_wire(msg)["choice"]
    assert choice_from_wire(wire_choice) == msg.choice


def test_choice_from_wire_takes_engine_style_tuples() -> None:
    engine_dict = {"type": "keep", "keep": "spy", "bottom": ("guard", "baron")}
    assert choice_from_wire(engine_dict) == KeepChoice("spy", ("guard", "baron"))


@pytest.mark.parametrize(
    ("wire_choice", "code"),
    [
        ("guard", ErrorCode.BAD_FIELD),
        ({"type": "look"}, ErrorCode.MISSING_FIELD),
        ({"type": "look", "seat": 1, "why": 2}, ErrorCode.UNEXPECTED_FIELD),
        ({"type": "look", "seat": [[1]]}, ErrorCode.TOO_DEEP),
        ({"type": "fold"}, ErrorCode.BAD_FIELD),
        (PLAY | {"card": "c" * 40}, ErrorCode.TOO_LONG),
    ],
)
def test_choice_from_wire_rejects(wire_choice: Any, code: ErrorCode) -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        choice_from_wire(wire_choice)
    assert caught.value.code == code


def test_choice_to_wire_rejects() -> None:
    with pytest.raises(LocalProtocolError, match="seat"):
        choice_to_wire(LookChoice(9))
    with pytest.raises(LocalProtocolError):
        choice_to_wire(Sit(1))  # type: ignore[arg-type]


# --- framing ------------------------------------------------------------------------------------


def test_frames_survive_any_split() -> None:
    frames = [encode(msg) for msg in SAMPLES if direction_of(msg) is TO_CLIENT]
    stream = b"".join(frame(f, direction=TO_CLIENT) for f in frames)
    for step in (1, 3, 7, 1000, len(stream)):
        reader, got = FrameReader(direction=TO_CLIENT), []
        for start in range(0, len(stream), step):
            got += reader.feed(stream[start : start + step])
        assert got == frames and reader.pending == 0


def test_frame_reader_refuses_an_oversize_length_at_once() -> None:
    reader = FrameReader(direction=TO_SERVER)
    assert reader.feed(frame(encode(Leave()), direction=TO_SERVER)[:3]) == []
    assert reader.pending == 3
    reader = FrameReader(direction=TO_SERVER)
    with pytest.raises(RemoteProtocolError) as caught:
        reader.feed((64 * 1024 + 1).to_bytes(4, "big"))
    assert caught.value.code == ErrorCode.TOO_LARGE
    with pytest.raises(RemoteProtocolError):  # broken for good
        reader.feed(frame(encode(Leave()), direction=TO_SERVER))


def test_frame_refuses_oversize_payload() -> None:
    limit = LIMITS[TO_SERVER].max_frame
    assert len(frame(b"x" * limit, direction=TO_SERVER)) == limit + 4
    with pytest.raises(LocalProtocolError):
        frame(b"x" * (limit + 1), direction=TO_SERVER)


# --- boundaries and cost ------------------------------------------------------------------------


def test_protocol_imports_no_io() -> None:
    code = (
        "import sys, protocol; "
        "bad = [m for m in ('asyncio', 'asyncssh', 'textual', 'server', 'lovelet_tui', 'socket')"
        " if m in sys.modules]; print(bad)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_docs_cover_every_message_field_and_code() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    for table in (*MESSAGES.values(), CHOICE):
        for tag, record in table.by_tag.items():
            assert f"`{tag}`" in doc, tag
            for name, _ in record.fields:
                assert f"`{name}`" in doc or f"{name}:" in doc, (tag, name)
    for code in ErrorCode:
        assert f"`{code}`" in doc, code
