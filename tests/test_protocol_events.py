"""Events on the wire are checked on decode against the event catalogue, like every message."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import CONFIGS, play_game
from test_protocol_fuzz import valid

from protocol import (
    Direction,
    ErrorCode,
    LocalProtocolError,
    RemoteProtocolError,
    SeatInfo,
    TableInfo,
    TableState,
    decode,
    encode,
    event_from_wire,
    event_to_wire,
    to_wire,
)
from protocol import events as wire_copy
from protocol.registry import EVENT
from server.commands.wire_events import class_name
from server.commands.wire_events import wire_events as generated
from server.engine.event_catalogue import EVENTS, WORDS

SEATS = tuple(SeatInfo(f"p{i}", None, True) for i in range(8))
INFO = TableInfo("ABCD", "t", "premium", "p0", SEATS, (), "playing", 90, 0)


def frame_with(events: list[dict[str, Any]]) -> bytes:
    """A table update carrying `events`, packed without the sender's checks."""
    wire = to_wire(TableState(INFO))
    return msgpack.packb({**wire, "events": events}, use_bin_type=True)


def refusal(event: dict[str, Any]) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as caught:
        decode(frame_with([event]), direction=Direction.TO_CLIENT)
    return caught.value


def test_the_wire_copy_of_the_catalogue_is_current() -> None:
    """protocol/events.py is regenerated after each catalogue change.

    (By server/commands/wire_events.py.)
    """
    assert generated() == wire_copy.EVENTS
    assert dict(WORDS) == wire_copy.WORDS
    assert list(EVENTS) == list(wire_copy.EVENTS) == list(wire_copy.KINDS)
    for kind, spec in EVENTS.items():
        record = wire_copy.KINDS[kind]
        assert kind == record.KIND and record.__name__ == class_name(kind)
        fields = [f.name for f in dataclasses.fields(record)]
        assert fields == ["seat", *(f.name for f in spec.fields)], kind


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_event_of_random_games_decodes_for_every_viewer(
    edition_id: str, players: int
) -> None:
    game = play_game(edition_id, players, seed=players * 31, check=False)
    for viewer in [*range(players), None]:
        log = game.log(viewer)
        for start in range(0, len(log), 500):
            decode(
                encode(
                    TableState(INFO, None, tuple(map(event_from_wire, log[start : start + 500])))
                ),
                direction=Direction.TO_CLIENT,
            )


def test_the_engines_maps_take_the_fast_path() -> None:
    """The server makes a record of every event for every receiver: the engine's maps (tuples
    for lists) load by the compiled path, never the slow one that names a failure."""
    load = EVENT.fast_load()
    game = play_game("premium", 6, seed=5, check=False)
    for viewer in [*range(6), None]:
        for event in game.log(viewer):
            assert load(event) == event_from_wire(event)


GOOD = {"kind": "play", "seat": 1, "card": "guard", "targets": [2], "guess": "priest"}


@pytest.mark.parametrize(
    ("event", "code", "says"),
    [
        ({**GOOD, "kind": "shuffle"}, ErrorCode.BAD_FIELD, "unknown event kind 'shuffle'"),
        ({**GOOD, "kind": 3}, ErrorCode.BAD_FIELD, "unknown event kind int"),
        ({k: v for k, v in GOOD.items() if k != "kind"}, ErrorCode.BAD_FIELD, "unknown event"),
        ({**GOOD, "hand": ["king"]}, ErrorCode.UNEXPECTED_FIELD, "unexpected field 'hand'"),
        ({k: v for k, v in GOOD.items() if k != "guess"}, ErrorCode.MISSING_FIELD, "'guess'"),
        ({k: v for k, v in GOOD.items() if k != "seat"}, ErrorCode.MISSING_FIELD, "'seat'"),
        ({**GOOD, "targets": [9]}, ErrorCode.BAD_FIELD, "events[0].targets[0]"),
        ({**GOOD, "card": "Guard!"}, ErrorCode.BAD_FIELD, "events[0].card"),
        ({"kind": "round_end", "seat": 0}, ErrorCode.BAD_FIELD, "expected null"),
        ({"kind": "deal", "seat": 0, "card": 3}, ErrorCode.BAD_FIELD, "events[0].card"),
        ({"kind": "draw", "seat": 0, "set_aside": 1}, ErrorCode.BAD_FIELD, "set_aside"),
        (
            {"kind": "showdown", "seat": None, "hands": {"x": "guard"}},
            ErrorCode.BAD_FIELD,
            "events[0].hands['x']",
        ),
        (
            {"kind": "no_effect", "seat": 0, "card": "guard", "why": "bored"},
            ErrorCode.BAD_FIELD,
            "events[0].why",
        ),
    ],
)
def test_a_wrong_event_is_refused(event: dict[str, Any], code: ErrorCode, says: str) -> None:
    err = refusal(event)
    assert err.code == code and says in err.reason, err.reason


def test_private_and_optional_fields_may_be_absent() -> None:
    events = [
        {"kind": "draw", "seat": 0},
        {"kind": "draw", "seat": 0, "set_aside": True, "card": "king"},
        {"kind": "compare", "seat": 0, "target": 1, "loser": None},
        {"kind": "autoplay", "seat": 0, "reason": "timeout", "decision": "look"},
    ]
    decoded = decode(frame_with(events), direction=Direction.TO_CLIENT)
    assert [event_to_wire(event) for event in decoded.events] == events
    assert decoded.events[0] == wire_copy.Draw(seat=0, set_aside=None, card=None)
    assert decoded.events[3] == wire_copy.Autoplay(
        seat=0, reason="timeout", decision="look", card=None, keep=None
    )


def test_the_sender_refuses_an_event_the_peer_would() -> None:
    bad = wire_copy.Play(seat=1, card="Guard!", targets=(2,), guess="priest")
    with pytest.raises(LocalProtocolError, match="card"):
        encode(TableState(INFO, None, (bad,)))
    with pytest.raises(LocalProtocolError, match="expected an event record"):
        encode(TableState(INFO, None, (GOOD,)))  # a map is not a record


VALID_EVENTS = valid(EVENT).map(event_to_wire)  # as maps on the wire
REQUIRED = {kind: [n for n, _ in required] for kind, (required, *_) in EVENT.kinds.items()}


@settings(max_examples=300, deadline=None)
@given(event=VALID_EVENTS, data=st.data())
def test_any_event_with_a_field_too_many_or_too_few_or_an_unknown_kind_is_refused(
    event: dict[str, Any], data: st.DataObject
) -> None:
    decode(frame_with([event]), direction=Direction.TO_CLIENT)  # the valid one decodes
    kind = event["kind"]
    unknown = data.draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in EVENTS))
    assert refusal({**event, "kind": unknown}).code == ErrorCode.BAD_FIELD
    listed = {"kind", *(n for n, _, _ in wire_copy.EVENTS[kind][1]), "seat"}
    extra = data.draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in listed))
    assert refusal({**event, extra: 0}).code == ErrorCode.UNEXPECTED_FIELD
    missing = data.draw(st.sampled_from(REQUIRED[kind]))
    dropped = {k: v for k, v in event.items() if k != missing}
    assert refusal(dropped).code == ErrorCode.MISSING_FIELD
