"""Text snapshots of every screen at 80×24 and 120×40, compared with the files in
`tests/snapshots/`: the lobby, the new-table form, the table in each state (and with 2, 4 and
8 players), help, the rules of each edition, stats, replays, the admin command line and rejoin. Each
scene is then switched to the monochrome look (as Ctrl+T does): the same text, and a `-mono`
file listing the runs shown in reverse video (how that look marks focus and selection without
colour). Every screen class in `lovelet_tui/screens/` must appear in a scene. After a
deliberate layout change, regenerate them with

    LOVELET_SNAPSHOTS=update python3 -m pytest tests/test_tui_snapshots.py

and review the diff (`git diff tests/snapshots`) before committing it.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import pkgutil
import random
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from test_tui_replay import played_log
from test_tui_support import (
    CATALOGUE,
    NAMES,
    FakeLink,
    new_game,
    screen_text,
    served,
    table_info,
    table_state,
)
from textual.pilot import Pilot
from textual.screen import Screen

import lovelet_tui.screens
from lovelet_tui import LoveletApp
from lovelet_tui.colour import Look
from lovelet_tui.screens.admin import AdminScreen
from lovelet_tui.screens.create_table import CreateTableScreen
from lovelet_tui.screens.friends import FriendsScreen
from lovelet_tui.screens.help import HelpScreen
from lovelet_tui.screens.lobby import LobbyScreen
from lovelet_tui.screens.players import PlayersScreen
from lovelet_tui.screens.profile import ProfileScreen
from lovelet_tui.screens.rejoin import RejoinScreen
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.screens.rules import RulesScreen
from lovelet_tui.screens.stats import StatsScreen
from lovelet_tui.screens.table import TableScreen
from protocol import (
    PROTOCOL_VERSION,
    CardCount,
    ChatLine,
    Countdown,
    EditionTally,
    FinishedGame,
    FriendInfo,
    Friends,
    LeaderEntry,
    Lobby,
    OnlineRating,
    PlayedGame,
    PlayerGames,
    Profile,
    RatingInfo,
    Replay,
    ReplayFrame,
    ReplayRequest,
    ReplaySeat,
    SeatInfo,
    ServerMessage,
    Stats,
    TableState,
    TableSummary,
    Welcome,
    encode,
)
from server.engine import Game, find_edition
from server.lobby.rebuild import round_frames
from server.services.views import wire_events, wire_view

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("LOVELET_SNAPSHOTS") == "update"
SIZES = [(80, 24), (120, 40)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
TABLES = {2: "2019", 4: "2019", 8: "premium"}  # players → edition
LONG = ("Alexandria Smith", "Bartholomew Jone", "Cassiopeia Brown", "Dimitri Petrovic")
CLOCK = re.compile(r"(turn: )\d+ s")  # the seconds left move on while the screen is read
REVERSE = "Reverse video in the monochrome look (how it marks focus and selection), by row:"

Drive = Callable[[LoveletApp, Pilot[None]], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class Scene:
    """A screen brought about by `drive` in an app signed in as `player`; `screen` is the
    class on top once it ran."""

    screen: type[Screen[object]]
    drive: Drive
    player: str = "Ana"
    admin: bool = False
    guest: bool = False
    motd: str = ""


# --- what the server sends -----------------------------------------------------------------

TABLE_LIST = Lobby(
    tables=(
        TableSummary("K7Q", "Bo's table", "2019", 4, 2, "waiting", 0),
        TableSummary("ZZ9", "late night", "premium", 6, 6, "playing", 3),
        TableSummary("M2P", "classic only", "classic", 2, 2, "finished", 1),
    ),
    online=("Ana", "Bo", "Cy", "Di"),
    ratings=(OnlineRating("Bo", 1612), OnlineRating("Cy", 1487)),
)
CHAT = (
    ChatLine("lobby", "Bo", "anyone up for a 4-player game?"),
    ChatLine("lobby", "Cy", "in five minutes"),
    ChatLine("lobby", "Ana", "I'll open one"),
)
STATS = Stats(
    editions=(EditionTally("2019", 4, 3), EditionTally("classic", 2, 0)),
    recent=(
        PlayedGame(9, "2019", "2025-06-01T20:30:00+00:00", True, ("Ana", "Bo")),
        PlayedGame(8, "2019", "2025-05-31T19:00:00+00:00", True, ("Cy", "Ana", "Di"), 1),
        PlayedGame(7, "classic", "2025-05-30T08:05:00+00:00", False, ("Ana", "Bo")),
    ),
    leaderboard=(LeaderEntry("Cy", 9, 7, 1712, 180), LeaderEntry("Ana", 6, 3, 1540, 210)),
    rating=RatingInfo(1540, 210, 6),
    latest=(
        FinishedGame(11, "premium", "2025-06-02T21:10:00+00:00", ("Di", "Ed", "Fay"), (2,)),
        FinishedGame(10, "2019", "2025-06-02T18:45:00+00:00", ("Bo", "Cy"), (0,)),
    ),
)
BO_PROFILE = Profile(
    "Bo",
    rating=RatingInfo(1612, 190, 9),
    history=(1500, 1523, 1511, 1540, 1562, 1549, 1580, 1597, 1612),
    editions=(EditionTally("2019", 7, 4), EditionTally("classic", 3, 2)),
    favourites=(CardCount("guard", 31), CardCount("priest", 12), CardCount("handmaid", 9)),
    games=(
        PlayedGame(10, "2019", "2025-06-02T18:45:00+00:00", True, ("Bo", "Cy"), 0),
        PlayedGame(9, "2019", "2025-06-01T20:30:00+00:00", False, ("Ana", "Bo"), 1),
        PlayedGame(6, "classic", "2025-05-29T21:15:00+00:00", True, ("Bo", "Di", "Ed", "Fay"), 0),
    ),
)
FRIENDS = Friends(
    (FriendInfo("Bo", True, "K7Q"), FriendInfo("Cy", True), FriendInfo("Gwendolyn", False))
)
CY_GAMES = PlayerGames(
    "Cy",
    (
        FinishedGame(10, "2019", "2025-06-02T18:45:00+00:00", ("Bo", "Cy"), (0,)),
        FinishedGame(8, "2019", "2025-05-31T19:00:00+00:00", ("Cy", "Ana", "Di"), (1,)),
    ),
)
REPLAYED = played_log()  # game 7 of STATS: a classic game for two, Ana in seat 0
FOUR = tuple(SeatInfo(NAMES[i], "medium" if i == 2 else None, True) for i in range(4))


async def _deliver(pilot: Pilot[None], *messages: ServerMessage) -> None:
    for message in messages:
        pilot.app.deliver(encode(message))  # type: ignore[attr-defined]
    await _settle(pilot)


async def _press(pilot: Pilot[None], *keys: str) -> None:
    await pilot.press(*keys)
    await _settle(pilot)


async def _settle(pilot: Pilot[None]) -> None:
    """Let the app handle what is queued and finish any scrolling it started."""
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def _play(game: Game, turns: int) -> Game:
    for _ in range(turns):
        assert game.pending is not None
        game.act(game.pending.seat, game.pending.choices[0])
    return game


def _timed(state: TableState, game: Game) -> TableState:
    """`state` with a turn clock on the seat to play (the seconds are masked in the text)."""
    seat = game.pending.seat if game.pending else None
    return dataclasses.replace(state, countdown=Countdown("turn", 45_000, seat))


def _round_over() -> Game:
    """A 2019 round that seat 0 wins and gains the Spy's token in too (seed found once)."""
    game = Game(find_edition("2019"), players=3, rng=random.Random(2))
    game.start_round()
    while not game.round_over:
        _play(game, 1)
    return game


def _game_over() -> Game:
    game = new_game("classic", 3)
    while not game.game_over:
        if game.pending is None:
            game.start_round()
        else:
            _play(game, 1)
    return game


def _guard_first() -> Game:
    """Ana (seat 0) to play a Guard or a Priest: the Guard asks for a target, then a card."""
    return new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "priest"])


# --- the scenes ----------------------------------------------------------------------------


async def lobby_empty(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, Lobby((), ("Ana",)))


async def lobby_tables(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)


async def lobby_chat(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST, *CHAT)


async def create_table(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "n")


async def table_waiting(app: LoveletApp, pilot: Pilot[None]) -> None:
    seats = (FOUR[0], SeatInfo(None, None, False), FOUR[2], SeatInfo(None, None, False))
    await _deliver(pilot, TableState(table_info(None, 0, seats=seats, status="waiting")))


async def table_your_turn(app: LoveletApp, pilot: Pilot[None]) -> None:
    game = _play(new_game("2019", 4), 4)
    you = game.pending.seat if game.pending else 0
    await _deliver(pilot, _timed(table_state(game, you, seats=FOUR), game))


async def table_others_turn(app: LoveletApp, pilot: Pilot[None]) -> None:
    game = _play(new_game("2019", 4), 3)
    await _deliver(pilot, _timed(table_state(game, 0, seats=FOUR), game))


async def table_target(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, table_state(_guard_first(), 0, seats=FOUR))
    await _press(pilot, "1")


async def table_guess(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, table_state(_guard_first(), 0, seats=FOUR))
    await _press(pilot, "1", "1")


async def table_round_over(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, table_state(_round_over(), 0, status="round_over"))


async def table_game_over(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, table_state(_game_over(), 0, status="finished"))


async def table_watching(app: LoveletApp, pilot: Pilot[None]) -> None:
    game = _play(new_game("2019", 4), 5)
    await _deliver(pilot, _timed(table_state(game, None, seats=FOUR), game))


async def help_lobby(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "question_mark")


async def help_table(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, table_state(_guard_first(), 0, seats=FOUR))
    await _press(pilot, "question_mark")


def rules(edition: int) -> Drive:
    """The rules of the catalogue's `edition`-th edition, reached from the lobby's help."""

    async def drive(app: LoveletApp, pilot: Pilot[None]) -> None:
        await _deliver(pilot, TABLE_LIST)
        await _press(pilot, "question_mark", "r", *["right"] * edition)

    return drive


async def stats(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _press(pilot, "i")
    await _deliver(pilot, STATS)


async def stats_player(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _press(pilot, "i")
    await _deliver(pilot, STATS)
    await _press(pilot, *["down"] * (len(STATS.recent) + len(STATS.latest)), "enter")
    await _deliver(pilot, CY_GAMES)


async def players_online(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "p", "down")


async def profile(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "p", "down", "enter")
    await _deliver(pilot, BO_PROFILE)
    await _press(pilot, "down")


async def friends(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST, FRIENDS)
    await _press(pilot, "f")


async def _answer_replay(app: LoveletApp, pilot: Pilot[None]) -> None:
    """Answer the app's last replay request as the server does, from `REPLAYED`."""
    asked = [m for m in app.link.sent if isinstance(m, ReplayRequest)][-1]  # type: ignore[attr-defined]
    played = round_frames(REPLAYED, asked.seat, asked.round)
    frames = tuple(
        ReplayFrame(f.actor, wire_view(f.view), wire_events(f.events, asked.seat))
        for f in played.frames
    )
    seats = (ReplaySeat("Ana", None), ReplaySeat("Bo", "easy"))
    reply = Replay(7, "classic", seats, asked.seat, played.round, played.rounds, frames)
    await _deliver(pilot, reply)


async def _replay_of_game_7(app: LoveletApp, pilot: Pilot[None]) -> None:
    """From stats, Enter on the third recent game: game 7 from Ana's seat."""
    await _press(pilot, "i")
    await _deliver(pilot, STATS)
    await _press(pilot, "down", "down", "enter")
    assert app.link.sent[-1] == ReplayRequest(7, 0, 1)  # type: ignore[attr-defined]
    await _answer_replay(app, pilot)


async def replay_yours(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _replay_of_game_7(app, pilot)
    await _press(pilot, "right", "right", "right")


async def replay_public(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _replay_of_game_7(app, pilot)
    await _press(pilot, "right", "right", "right", "v")
    await _answer_replay(app, pilot)


async def replay_end(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _replay_of_game_7(app, pilot)
    await _press(pilot, "end")
    await _answer_replay(app, pilot)


async def admin(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "a")


async def rejoin(app: LoveletApp, pilot: Pilot[None]) -> None:
    await _deliver(pilot, TABLE_LIST)
    await _press(pilot, "r")


async def _table_of(app: LoveletApp, pilot: Pilot[None], players: int) -> None:
    """The table screen with 2, 4 or 8 players, long names at 8: the seats' layouts."""
    game = new_game(TABLES[players], players)
    for _ in range(players + 1):  # a turn each and one more: discards, marks and a log
        assert game.pending is not None
        game.act(game.pending.seat, game.pending.choices[-1])
    names = (*LONG, *NAMES[4:]) if players == 8 else NAMES
    seats = [SeatInfo(names[i], "medium" if i == 1 else None, i != 3) for i in range(players)]
    pending = game.pending.seat if game.pending else None
    you = pending if players != 4 else players - 1  # on turn, or waiting for another
    state = table_state(game, you, seats=seats, host=names[0])
    await _deliver(pilot, dataclasses.replace(state, countdown=Countdown("turn", 45_000, pending)))


def players(count: int) -> Drive:
    async def drive(app: LoveletApp, pilot: Pilot[None]) -> None:
        await _table_of(app, pilot, count)

    return drive


SCENES: dict[str, Scene] = {
    "lobby-empty": Scene(LobbyScreen, lobby_empty, guest=True),
    "lobby-tables": Scene(LobbyScreen, lobby_tables),
    "lobby-chat": Scene(LobbyScreen, lobby_chat, motd="Be kind. Games reset on Sunday."),
    "create_table": Scene(CreateTableScreen, create_table),
    "table-waiting": Scene(TableScreen, table_waiting),
    "table-your-turn": Scene(TableScreen, table_your_turn, player="Bo"),
    "table-others-turn": Scene(TableScreen, table_others_turn),
    "table-target": Scene(TableScreen, table_target),
    "table-guess": Scene(TableScreen, table_guess),
    "table-round-over": Scene(TableScreen, table_round_over),
    "table-game-over": Scene(TableScreen, table_game_over),
    "table-watching": Scene(TableScreen, table_watching, player="Zed"),
    **{f"table-{n}p": Scene(TableScreen, players(n)) for n in TABLES},
    "help-lobby": Scene(HelpScreen, help_lobby),
    "help-table": Scene(HelpScreen, help_table),
    **{
        f"rules-{edition.id}": Scene(RulesScreen, rules(index))
        for index, edition in enumerate(CATALOGUE.editions)
    },
    "stats": Scene(StatsScreen, stats),
    "stats-player-games": Scene(StatsScreen, stats_player),
    "players": Scene(PlayersScreen, players_online),
    "profile": Scene(ProfileScreen, profile),
    "friends": Scene(FriendsScreen, friends),
    "replay-yours": Scene(ReplayScreen, replay_yours),
    "replay-public": Scene(ReplayScreen, replay_public),
    "replay-end": Scene(ReplayScreen, replay_end),
    "admin": Scene(AdminScreen, admin, admin=True),
    "rejoin": Scene(RejoinScreen, rejoin, guest=True),
}


# --- drawing and comparing -----------------------------------------------------------------


def reverse_runs(app: LoveletApp) -> list[str]:
    """Each run of cells drawn in reverse video, as `row R col C: text` (from 1); the same
    run on consecutive rows (a scroll bar) as one `rows R-S` line."""
    runs: list[tuple[int, int, str]] = []
    for row, strip in enumerate(app.screen._compositor.render_strips(), 1):
        col, start, run = 1, 0, ""
        for segment in (*strip, None):
            if segment is not None and segment.style is not None and segment.style.reverse:
                start, run = start or col, run + segment.text
            elif run:
                runs.append((row, start, run.strip() or repr(run)))
                start, run = 0, ""
            col += segment.cell_length if segment is not None else 0
    lines: list[str] = []
    for group in _consecutive(runs):
        (first, col, text), last = group[0], group[-1][0]
        rows = f"rows {first}-{last}" if last > first else f"row {first}"
        lines.append(f"{rows} col {col}: {text}")
    return lines


def _consecutive(runs: list[tuple[int, int, str]]) -> list[list[tuple[int, int, str]]]:
    """`runs` grouped where the same column and text go on from one row to the next."""
    groups: list[list[tuple[int, int, str]]] = []
    for run in sorted(runs, key=lambda r: (r[1], r[2], r[0])):
        last = groups[-1][-1] if groups else None
        if last is not None and last[1:] == run[1:] and last[0] + 1 == run[0]:
            groups[-1].append(run)
        else:
            groups.append([run])
    return sorted(groups, key=lambda g: (g[0][0], g[0][1]))


async def scene_texts(scene: Scene, size: tuple[int, int]) -> tuple[str, str, str]:
    """What `scene` shows at `size` in the colour look; then, switched to monochrome as
    Ctrl+T does, what it shows and its reverse-video runs."""
    link = FakeLink()
    app = served(link, scene.player, look=Look.COLOUR)
    async with app.run_test(size=size) as pilot:
        welcome = Welcome(
            PROTOCOL_VERSION,
            scene.player,
            None if scene.guest else f"SHA256:{scene.player}",
            scene.guest,
            scene.motd,
            scene.admin,
            catalogue=CATALOGUE,
        )
        await _deliver(pilot, welcome)
        await scene.drive(app, pilot)
        assert type(app.screen) is scene.screen, f"{type(app.screen).__name__} on top"
        colour = CLOCK.sub(r"\1NN s", screen_text(app))
        app.action_next_look()  # Ctrl+T's action (forms, being modal, take no app keys)
        assert app.look is Look.MONOCHROME
        app.clear_notifications()  # the toast naming the new look
        await _settle(pilot)
        runs = "\n".join(reverse_runs(app)) or "none"
        return colour, CLOCK.sub(r"\1NN s", screen_text(app)), f"{REVERSE}\n{runs}\n"


def compare(text: str, name: str) -> None:
    """`text` is the snapshot `name` (written instead with LOVELET_SNAPSHOTS=update)."""
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no {path.name}: run with LOVELET_SNAPSHOTS=update to make it"
    assert text == path.read_text(encoding="utf-8"), f"the screen differs from {path.name}"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("name", SCENES)
async def test_each_screen_matches_its_snapshots_in_colour_and_monochrome(
    name: str, size: tuple[int, int]
) -> None:
    """The monochrome look draws the same text; its file lists what it marks in reverse."""
    colour, monochrome, runs = await scene_texts(SCENES[name], size)
    compare(colour, f"{name}-{size[0]}x{size[1]}")
    assert monochrome == colour, "the monochrome look draws other text than the colour one"
    compare(runs, f"{name}-{size[0]}x{size[1]}-mono")


def screen_classes() -> set[type[Screen[object]]]:
    """Every screen class defined in a module of `lovelet_tui/screens/`."""
    found = set()
    for module in pkgutil.iter_modules(lovelet_tui.screens.__path__):
        loaded = importlib.import_module(f"lovelet_tui.screens.{module.name}")
        for _, value in inspect.getmembers(loaded, inspect.isclass):
            if issubclass(value, Screen) and value.__module__ == loaded.__name__:
                found.add(value)
    return found


def test_every_screen_has_a_scene_with_snapshots() -> None:
    missing = {cls.__name__ for cls in screen_classes()} - {
        scene.screen.__name__ for scene in SCENES.values()
    }
    assert not missing, f"screens without a snapshot scene in SCENES: {sorted(missing)}"
    names = {f"{name}-{w}x{h}{mono}" for name in SCENES for w, h in SIZES for mono in ("", "-mono")}
    files = {path.stem for path in SNAPSHOTS.glob("*.txt")}
    assert not names - files, f"snapshots never made: {sorted(names - files)}"
    assert not files - names, f"snapshots of no scene (delete them): {sorted(files - names)}"
