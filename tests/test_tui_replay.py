"""The replay screen with Pilot, against a link that answers like the server from a game the
real engine played: → / ← step across rounds, PgDn / PgUp a round, Home / End, v switches
views, a refusal is shown, Esc goes back; the stats screen opens it on the chosen game."""

from __future__ import annotations

import random

from test_tui_support import CATALOGUE, cards_of, screen_text

from lovelet_tui import LoveletApp
from lovelet_tui.names import Names
from lovelet_tui.narrate import narrate
from lovelet_tui.screens.replay import ReplayScreen
from lovelet_tui.screens.stats import StatsScreen
from protocol import (
    PROTOCOL_VERSION,
    Direction,
    ErrorReply,
    FinishedGame,
    GamesRequest,
    Hello,
    LeaderEntry,
    PlayedGame,
    PlayerGames,
    Replay,
    ReplayFrame,
    ReplayRequest,
    ReplaySeat,
    Stats,
    Welcome,
    decode,
    encode,
)
from server.engine import Game, choice_to_dict, find_edition
from server.lobby.rebuild import round_frames
from server.services.views import wire_events, wire_view
from server.store import ActionLog, ActionRecord

SIZE = (100, 30)
GAME = 7
SEATS = (ReplaySeat("Ana", None), ReplaySeat("Bo", "easy"))


def played_log(seed: int = 3) -> ActionLog:
    """A whole classic game for two, every decision the first legal one."""
    game = Game(find_edition("classic"), 2, random.Random(seed))
    actions: list[ActionRecord] = []
    while not game.game_over:
        if game.round_over:
            game.start_round()
        seat, choice = game.pending.seat, game.pending.choices[0]
        actions.append(ActionRecord(len(actions), seat, choice_to_dict(choice)))
        game.act(seat, choice)
    return ActionLog("classic", 2, seed, actions)


class ServerLink:
    """Answers `replay_request` from the engine as the server would; records what was sent."""

    def __init__(self, log: ActionLog, refuse: bool = False) -> None:
        self.log, self.refuse = log, refuse
        self.sent: list[object] = []
        self.app: LoveletApp | None = None

    def send(self, frame: bytes) -> None:
        message = decode(frame, direction=Direction.TO_SERVER)
        self.sent.append(message)
        if self.app is None:
            return
        if isinstance(message, Hello):
            welcome = Welcome(PROTOCOL_VERSION, "Ana", "SHA256:ana", False, catalogue=CATALOGUE)
            self.app.deliver(encode(welcome))
        elif isinstance(message, ReplayRequest):
            self.app.deliver(encode(self.answer(message)))

    def answer(self, request: ReplayRequest) -> Replay | ErrorReply:
        if self.refuse:
            return ErrorReply("not_your_seat", "you may replay your own seat's view")
        played = round_frames(self.log, request.seat, request.round)
        frames = tuple(
            ReplayFrame(f.actor, wire_view(f.view), wire_events(f.events, request.seat))
            for f in played.frames
        )
        return Replay(GAME, "classic", SEATS, request.seat, played.round, played.rounds, frames)

    def requests(self) -> list[ReplayRequest]:
        return [m for m in self.sent if isinstance(m, ReplayRequest)]

    def close(self) -> None:
        pass


def replay_app(link: ServerLink) -> LoveletApp:
    app = LoveletApp(link, "Ana")
    link.app = app
    return app


async def open_replay(app: LoveletApp, pilot, seat: int | None = 0) -> ReplayScreen:
    screen = ReplayScreen(GAME, seat, 0)
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def until(pilot, condition, pauses: int = 20) -> None:
    """Let the app handle what is queued until `condition()` holds (or fail)."""
    for _ in range(pauses):
        if condition():
            return
        await pilot.pause()
    assert condition()


def header(app: LoveletApp) -> str:
    return screen_text(app).splitlines()[0]


async def test_arrows_step_and_cross_into_the_next_and_previous_round() -> None:
    link = ServerLink(played_log())
    app = replay_app(link)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_replay(app, pilot)
        assert link.requests() == [ReplayRequest(GAME, 0, 1)]
        assert "round 1 of" in header(app) and "step 1 of" in header(app)
        assert "› You were dealt" in screen_text(app)
        steps = len(screen.shown.frames)
        await pilot.press("right")
        assert "step 2 of" in header(app)
        names = Names(("Ana", "Bo"), 0, cards_of(screen.frame.view.edition))
        lines = [line.plain for line in narrate(screen.frame.events, names)]
        assert lines and all(f"› {line[:40]}" in screen_text(app) for line in lines)
        await pilot.press("left")
        assert "step 1 of" in header(app)
        for _ in range(steps):
            await pilot.press("right")
        await pilot.pause()
        assert "round 2 of" in header(app) and "step 1 of" in header(app)
        assert link.requests()[-1] == ReplayRequest(GAME, 0, 2)
        await pilot.press("left")
        assert "round 1 of" in header(app) and f"step {steps} of {steps}" in header(app)
        assert len(link.requests()) == 2  # round 1 was kept


async def test_page_keys_go_by_rounds_and_home_end_to_either_end() -> None:
    link = ServerLink(played_log())
    app = replay_app(link)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_replay(app, pilot)
        await pilot.press("pagedown")
        await pilot.pause()
        assert "round 2 of" in header(app) and "step 1 of" in header(app)
        await pilot.press("right", "right", "pageup")
        assert "round 2 of" in header(app) and "step 1 of" in header(app)
        await pilot.press("pageup")
        await pilot.pause()
        assert "round 1 of" in header(app) and "step 1 of" in header(app)
        await pilot.press("end")
        await pilot.pause()
        rounds = screen.shown.rounds
        assert f"round {rounds} of {rounds}" in header(app)
        assert "The end of the game." in screen_text(app)
        assert "› Game over: " in screen_text(app)
        await pilot.press("right")  # nothing after the end
        assert link.requests()[-1] == ReplayRequest(GAME, 0, rounds)
        await pilot.press("home")
        await pilot.pause()
        assert "round 1 of" in header(app) and "step 1 of" in header(app)


async def test_v_switches_to_the_public_view_at_the_same_step() -> None:
    link = ServerLink(played_log())
    app = replay_app(link)
    async with app.run_test(size=SIZE) as pilot:
        await open_replay(app, pilot)
        await pilot.press("right", "right")
        assert "Your view" in screen_text(app)
        await pilot.press("v")
        await pilot.pause()
        text = screen_text(app)
        assert link.requests()[-1] == ReplayRequest(GAME, None, 1)
        assert "The public view" in text and "step 3 of" in header(app)
        assert "no one's hand is shown" in text and "You were dealt" not in text
        await pilot.press("v")
        await pilot.pause()
        assert "Your view" in screen_text(app) and link.requests()[-1] == ReplayRequest(GAME, 0, 1)


async def test_a_refusal_is_shown_and_esc_goes_back() -> None:
    link = ServerLink(played_log(), refuse=True)
    app = replay_app(link)
    async with app.run_test(size=SIZE) as pilot:
        await open_replay(app, pilot, seat=1)
        await until(pilot, lambda: "No replay: you may replay" in screen_text(app))
        await pilot.press("right", "pagedown", "end")  # nothing to move through
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.lobby


STATS = Stats(
    (),
    (PlayedGame(GAME, "classic", "2025-06-01T20:30:00+00:00", True, ("Bo", "Ana"), 1),),
    (),
    latest=(FinishedGame(5, "2019", "2025-06-01T19:00:00+00:00", ("Cy", "Di"), (0,)),),
)


async def test_stats_choose_a_game_and_replay_it_from_your_seat_or_in_public() -> None:
    link = ServerLink(played_log())
    app = replay_app(link)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        app.deliver(encode(STATS))
        await pilot.pause()
        text = screen_text(app)
        assert "Latest games on this server" in text and "Enter: replay a game" in text
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert link.requests()[-1] == ReplayRequest(GAME, 1, 1)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("p")
        assert link.requests()[-1] == ReplayRequest(GAME, None, 1)
        await pilot.press("escape", "down", "enter")
        await pilot.pause()
        assert link.requests()[-1] == ReplayRequest(5, None, 1)  # not yours: the public view
        assert "v " not in screen_text(app).splitlines()[-1]


async def test_the_chosen_game_stays_in_view_down_a_long_list() -> None:
    recent = tuple(
        PlayedGame(100 + i, "classic", "2025-06-01T20:30:00+00:00", True, ("Bo", "Ana"), 1)
        for i in range(10)
    )
    latest = tuple(
        FinishedGame(200 + i, "2019", f"2025-06-0{1 + i % 9}T19:00:00+00:00", ("Cy", "Di"), (0,))
        for i in range(10)
    )
    app = replay_app(ServerLink(played_log()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("i")
        app.deliver(encode(Stats((), recent, (), latest=latest)))
        await pilot.pause()
        for _ in range(19):
            await pilot.press("down")
        await pilot.pause()
        rows = screen_text(app).splitlines()
        chosen = [row for row in rows if row.lstrip().startswith("›")]
        assert len(chosen) == 1 and "2025-06-01" in chosen[0] and "Cy, Di" in chosen[0]
        await pilot.press("enter")
        await pilot.pause()
        assert app.link.requests()[-1] == ReplayRequest(209, None, 1)


async def test_enter_on_a_leader_lists_their_games_to_replay() -> None:
    link = ServerLink(played_log())
    app = replay_app(link)
    stats = Stats((), (), (LeaderEntry("Cy", 9, 7, 1712, 180), LeaderEntry("Di", 6, 3, 1540, 90)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        app.deliver(encode(stats))
        await pilot.pause()
        assert "p Public" not in screen_text(app)  # a leader is no game
        await pilot.press("down", "enter")
        assert link.sent[-1] == GamesRequest("Di")
        games = (FinishedGame(12, "2019", "2025-06-01T19:00:00+00:00", ("Di", "Ed"), (1,)),)
        app.deliver(encode(PlayerGames("Di", games)))
        await pilot.pause()
        text = screen_text(app)
        assert "Di's latest games" in text
        assert any(row.lstrip().startswith("›") and "Di, Ed" in row for row in text.splitlines())
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert link.requests()[-1] == ReplayRequest(12, None, 1)
