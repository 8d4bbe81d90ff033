"""Every event the engine emits is one of the event catalogue's, field for field, and each
seat is shown an event's private fields exactly when the catalogue says it may see them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_engine_properties import CONFIGS, play_game

from server.engine import Event
from server.engine.event_catalogue import EVENTS, check_event

GAMES_PER_CONFIG = 12
NOT_FROM_THE_ENGINE = {"autoplay"}  # written by the table runner (see tests/test_lobby*.py)
RARE = {"draw_nothing"}  # a Prince on an empty deck after the set-aside card was drawn


def check_emitted(event: Event, players: int) -> None:
    """`event` as every seat and a spectator see it matches its catalogue entry exactly."""
    spec = EVENTS.get(event.kind)
    assert spec is not None, f"{event.kind} is not in the catalogue"
    assert set(event.secret or ()) == spec.private, event
    public = event.for_seat(None)
    assert set(event.to) == spec.audience(public), event
    for viewer in [*range(players), None]:
        shown = event.for_seat(viewer)
        assert check_event(shown, viewer) is None, (check_event(shown, viewer), shown)
        if spec.private:
            assert (spec.private <= set(shown)) == (viewer in spec.audience(shown))


@pytest.mark.parametrize(("edition_id", "players"), CONFIGS)
def test_every_emitted_event_matches_the_catalogue(edition_id: str, players: int) -> None:
    kinds: Counter[str] = Counter()
    for seed in range(GAMES_PER_CONFIG):
        game = play_game(edition_id, players, seed=1000 + seed, check=False)
        for event in game.events:
            check_emitted(event, players)
            kinds[event.kind] += 1
    assert kinds["play"] and kinds["round_end"] and kinds["game_end"] == GAMES_PER_CONFIG


def test_every_catalogued_kind_is_emitted_somewhere() -> None:
    """No catalogue entry is stale: random games of every edition meet every engine kind."""
    seen: set[str] = set()
    for edition_id, players in CONFIGS:
        for seed in range(GAMES_PER_CONFIG):
            seen.update(e.kind for e in play_game(edition_id, players, seed=1000 + seed).events)
    assert set(EVENTS) - seen - NOT_FROM_THE_ENGINE - RARE == set()
    assert seen <= set(EVENTS)


@pytest.mark.parametrize(
    ("event", "viewer", "why"),
    [
        ({"kind": "shuffle", "seat": None}, None, "unknown event kind"),
        ({"kind": "protected", "seat": 0, "card": "king"}, 1, "unlisted fields"),
        ({"kind": "discard", "seat": 0}, 1, "misses its field 'card'"),
        ({"kind": "deal", "seat": 0}, 0, "misses its field 'card'"),
        ({"kind": "deal", "seat": 0, "card": "guard"}, 1, "shows its private field"),
        ({"kind": "deal", "seat": 0, "card": "guard"}, None, "shows its private field"),
        ({"kind": "game_end", "seat": 2, "winners": [2], "tokens": [1, 3]}, 1, "names a seat"),
        (
            {"kind": "compare", "seat": 0, "target": 2, "loser": 0, "cards": {"0": "a", "2": "b"}},
            1,
            "shows its private field",
        ),
    ],
)
def test_the_check_refuses_what_the_catalogue_does_not_list(
    event: dict, viewer: int | None, why: str
) -> None:
    assert why in (check_event(event, viewer) or "")


def test_the_check_accepts_a_private_field_for_its_audience() -> None:
    cards = {"0": "guard", "2": "guard"}
    event = {"kind": "compare", "seat": 0, "target": 2, "loser": None, "cards": cards}
    assert check_event(event, 2) is None
    assert check_event({"kind": "draw", "seat": 1}, 0) is None  # a turn's draw, seen by others


def test_the_engine_docs_list_every_kind_and_field_of_the_catalogue() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "engine.md").read_text()
    table = text.split("## Event kinds", 1)[1].split("\n\n", 2)[1]
    rows = {row.split("|")[1].strip(" `"): row for row in table.splitlines()[2:]}
    assert set(rows) == set(EVENTS) - NOT_FROM_THE_ENGINE
    for kind, row in rows.items():
        fields = row.split("|")[2]
        missing = [f.name for f in EVENTS[kind].fields if f"`{f.name}`" not in fields]
        assert not missing, f"docs/engine.md's {kind} row misses {missing}"
