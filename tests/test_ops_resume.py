"""Tables survive a restart, as a self-hoster sees it: `lovelet serve` as a real process on a
real data directory, players over real SSH with their keys. The server is killed (-9) or
stopped (SIGTERM) mid-round; started again on the same directory, it rebuilds the table and
the player, back with the same key, finds the screen they left."""

from __future__ import annotations

import itertools
import random
import signal
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh
from e2e_helpers import (
    GAME_TIMEOUT,
    OPTION,
    PANEL_WIDTH,
    Option,
    Panel,
    answer_yes,
    create_table,
    log_lines,
    phase,
    read_hand,
    read_panel,
    read_table_line,
    read_tokens,
    screen_lines,
    screen_text,
    wait_text,
)
from sshclient import SSHTerminal
from test_ops_process import ServerProcess, decide, fast_env, game_logs, until_my_turn

from lovelet_tui.staging import PROMPTS
from protocol import DEFAULT_TIMER, CreateTable, Join, Start
from server.commands.serve import RESTART_MESSAGE
from server.engine import find_edition
from server.lobby import Lobby, LobbySettings
from server.lobby.rebuild import replayed_events
from server.ssh.driver import RESTORE_TERMINAL
from server.store import GameLog, Store, database_path
from tests.fake_clock import FakeClock
from tests.lobby_client import Client

SIZE = (100, 60)
ANA = asyncssh.generate_private_key("ssh-ed25519")
BO = asyncssh.generate_private_key("ssh-ed25519")
WELCOME_BACK = "Welcome back: you are at table"
TOAST = "▌"
"""The left edge of a toast (a notice shown for a few seconds over the screen)."""


@dataclass(frozen=True, slots=True)
class Screen:
    """What a player sees of the game: hand, deck line, tokens, the log's rows in use and
    the choice panel."""

    hand: list[str]
    deck: str
    tokens: dict[str, int]
    log: list[str]
    panel: Panel | None
    text: str = field(default="", compare=False)  # the whole screen, for failure messages

    @classmethod
    def of(cls, term: SSHTerminal) -> Screen:
        deck = next((line for line in screen_lines(term) if line.startswith("   Deck ")), "")
        log = log_lines(term)
        while log and not log[-1]:
            log.pop()
        panel = any_panel(term)
        return cls(read_hand(term), deck, read_tokens(term), log, panel, screen_text(term))

    def check_same(self, before: Screen) -> None:
        """The same game as `before`: hand, deck, tokens, panel, and the log ending on the
        same rows. (The log pane fills from the top and, once full, moves its newest half up:
        a log received at once fills it, so the two can show more or less of the past.)"""
        assert (self.hand, self.deck, self.tokens, self.panel) == (
            before.hand,
            before.deck,
            before.tokens,
            before.panel,
        ), f"{self}\n{before}"
        rows = min(len(self.log), len(before.log))
        after, seen = self.log[-rows:], before.log[-rows:]
        assert rows > 1 and after == seen, f"now:\n{self.text}\nbefore:\n{before.text}"


async def kill_9(server: ServerProcess, *terms: SSHTerminal) -> list[Screen]:
    """SIGKILL the server; each terminal's screen once its connection is gone (all it was
    sent has arrived)."""
    for term in terms:  # a toast (a refused key, say) would cover rows of the log
        await term.wait_for(lambda t=term: TOAST not in screen_text(t), "no toast", 20)
    server.process.send_signal(signal.SIGKILL)
    assert await server.exited(10) == -signal.SIGKILL
    for term in terms:
        await term.wait_closed()
    return [Screen.of(term) for term in terms]


async def back_at_the_table(port: int, key: asyncssh.SSHKey, name: str):
    """Log in again with `key`: straight back at the table, the welcome toast gone."""
    return SSHTerminal.connect(port, username=name, key=key, size=SIZE)


async def settled(term: SSHTerminal, panel: Panel | None) -> Screen:
    """The screen once the welcome back has come and gone and the panel shows `panel`."""
    await wait_text(term, WELCOME_BACK)
    await term.wait_for(lambda: WELCOME_BACK not in screen_text(term), "the toast gone", 20)
    await term.wait_for(lambda: any_panel(term) == panel, f"the panel {panel}")
    return Screen.of(term)


async def press(term: SSHTerminal, option: Option) -> None:
    """Take `option` and wait for the panel (or the table) to move on."""
    panel, table_line = any_panel(term), read_table_line(term)
    await term.send_keys(option.key)
    await term.wait_for(
        lambda: any_panel(term) != panel or read_table_line(term) != table_line,
        "the key taken",
    )


async def finish_the_game(term: SSHTerminal, rng: random.Random) -> None:
    """Random decisions until the game is over."""
    while True:
        await term.wait_for(lambda: phase(term) is not None, "a decision", GAME_TIMEOUT)
        now = phase(term)
        if now == "over":
            return
        if now == "next":
            await term.send_keys("n")
            await term.wait_for(lambda: phase(term) != "next", "the next round")
        else:
            await decide(term, rng)


def one_continuous_game(data_dir: Path) -> GameLog:
    """The only game stored: finished, its log numbered without a gap, and what its seed and
    actions replay to."""
    (log,) = game_logs(data_dir).values()
    assert log.game.status == "finished" and log.events[-1].kind == "game_end"
    assert [event.seq for event in log.events] == list(range(len(log.events)))
    with Store.open(database_path(data_dir)) as store:
        replayed = replayed_events(store.action_log(log.game.id))
        identity = log.game.seats[0].identity
        assert identity is not None and store.player_stats(identity)["2019"].games == 1
        assert store.kept_tables() == []
    engine = [(e.kind, e.seat) for e in log.events if e.kind != "autoplay"]
    assert engine == [(e.kind, e.seat) for e in replayed]
    return log


async def test_kill_9_mid_round_then_the_player_is_back_to_the_same_screen(
    tmp_path: Path,
) -> None:
    rng = random.Random(15)
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="ana", key=ANA, size=SIZE) as ana:
            await wait_text(ana, "signed in as ana")
            await create_table(ana, seats=3, name="kept")
            await ana.send_keys("g")
            await until_my_turn(ana, rng)
            await decide(ana, rng)
            await until_my_turn(ana, rng)
            (before,) = await kill_9(server, ana)
    assert before.panel is not None and any(" played " in line for line in before.log)

    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        assert (await server.event("tables resumed"))["tables"] == 1
        async with await back_at_the_table(port, ANA, "ana") as ana:
            (await settled(ana, before.panel)).check_same(before)
            assert "kept" in screen_lines(ana)[0]
            await finish_the_game(ana, rng)
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0
    one_continuous_game(tmp_path)


async def test_a_restart_while_a_chancellor_decision_is_pending(tmp_path: Path) -> None:
    rng = random.Random(2019)
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="ana", key=ANA, size=SIZE) as ana:
            await wait_text(ana, "signed in as ana")
            await create_table(ana, seats=2)
            await ana.send_keys("g")
            await play_chancellor_drawing_two(ana, rng)
            (before,) = await kill_9(server, ana)
    assert len(before.hand) == 3, before

    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        async with await back_at_the_table(port, ANA, "ana") as ana:
            (await settled(ana, before.panel)).check_same(before)
            await press(ana, before.panel.options[0])
            assert read_panel(ana).prompt == PROMPTS["bottom"]
            await decide(ana, rng)
            await ana.wait_for(lambda: len(read_hand(ana)) < 3, "the Chancellor's cards put back")
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0


async def test_a_restart_while_a_bishop_decision_is_pending(tmp_path: Path) -> None:
    kept_premium_table(tmp_path)
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        assert (await server.event("tables resumed"))["tables"] == 1
        async with (
            await back_at_the_table(port, BO, "bo") as bo,
            await back_at_the_table(port, ANA, "ana") as ana,
        ):
            await wait_text(bo, WELCOME_BACK)
            await wait_text(ana, WELCOME_BACK)
            await play_the_bishop(ana, bo)
            (before,) = await kill_9(server, bo)
    assert before.panel.prompt == PROMPTS["redraw"]

    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        async with await back_at_the_table(port, BO, "bo") as back:
            (await settled(back, before.panel)).check_same(before)
            await press(back, before.panel.options[0])  # yes: discard and draw
            await back.wait_for(lambda: any_panel(back) != before.panel, "the redraw made")
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0


async def test_sigterm_tells_players_the_server_restarts_and_keeps_their_table(
    tmp_path: Path,
) -> None:
    rng = random.Random(7)
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        async with SSHTerminal.connect(port, username="ana", key=ANA, size=SIZE) as ana:
            await wait_text(ana, "signed in as ana")
            await create_table(ana, seats=3)
            await ana.send_keys("g")
            await until_my_turn(ana, rng)
            await ana.wait_for(lambda: TOAST not in screen_text(ana), "no toast", 20)
            before = Screen.of(ana)
            server.process.send_signal(signal.SIGTERM)
            await wait_text(ana, RESTART_MESSAGE)
            assert await ana.wait_closed(10) == 0
            assert await server.exited(10) == 0
        assert ana.raw.endswith(RESTORE_TERMINAL.encode() + RESTART_MESSAGE.encode() + b"\r\n")
    (cut,) = game_logs(tmp_path).values()
    assert cut.game.status == "playing"

    async with ServerProcess.run(fast_env(tmp_path)) as server:
        _, port = await server.ready()
        async with await back_at_the_table(port, ANA, "ana") as ana:
            (await settled(ana, before.panel)).check_same(before)
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(10) == 0


# ---------------------------------------------------------------- steering the game


async def play_chancellor_drawing_two(term: SSHTerminal, rng: random.Random) -> None:
    """Play until a Chancellor's keep decision holds three cards; one with a single card
    left to draw (the deck nearly out) is decided at random and play goes on."""
    while True:
        await play_until_prompt(term, PROMPTS["keep"], "Chancellor", rng)
        # the panel and the hand may come in two frames: go on once both are drawn
        await term.wait_for(lambda: _hand_matches_keep(term), "the cards drawn")
        if len(read_hand(term)) == 3:
            return
        panel = read_panel(term)
        assert panel is not None
        await press(term, rng.choice(panel.options))


def _hand_matches_keep(term: SSHTerminal) -> bool:
    panel = read_panel(term)
    keep = panel is not None and panel.prompt == PROMPTS["keep"]
    return keep and {o.label for o in panel.options} == set(read_hand(term))


async def play_until_prompt(term: SSHTerminal, prompt: str, card: str, rng: random.Random) -> None:
    """Play (preferring `card`) until the panel asks `prompt`; rematch if the game ends."""
    while True:
        await term.wait_for(lambda: phase(term) is not None, "a decision", GAME_TIMEOUT)
        now, panel = phase(term), read_panel(term)
        if now == "over":
            await term.send_keys("r")
            await term.wait_for(lambda: phase(term) != "over", "the rematch")
        elif now == "next":
            await term.send_keys("n")
            await term.wait_for(lambda: phase(term) != "next", "the next round")
        elif now == "confirm":
            await answer_yes(term)
        elif panel is not None and panel.prompt == prompt:
            return
        elif panel is not None:
            wanted = [o for o in panel.options if o.label == card]
            await press(term, wanted[0] if wanted else rng.choice(panel.options))


BISHOP_SEED = 297
"""A lobby rng seed whose first game at a premium table of five (ana, bo, three bots) has
ana play first holding the Bishop, and bo a card the Bishop can name (found by trying
seeds): the Bishop's hit comes on the first play, with no game to play until it does."""


def kept_premium_table(data_dir: Path) -> None:
    """`data_dir` as a server leaves it when killed at the start of a premium game of five:
    ana (the host) and bo with their keys, three bots, ana to play first with the Bishop.

    The lobby and store code of `lovelet serve`, run in this process with a seeded rng, open
    the table from the same messages the TUI sends (the default turn timer) and record the
    game; the server process started on `data_dir` rebuilds the table from what they wrote.
    """
    with Store.open(database_path(data_dir)) as store:
        for key, name in ((ANA, "ana"), (BO, "bo")):
            store.claim_nickname(key.get_fingerprint("sha256"), name, set())  # as a login does
        clock = FakeClock()
        lobby = Lobby(LobbySettings(), random.Random(BISHOP_SEED), store, clock=clock)
        host, guest = (
            Client(lobby, name, key=key.get_fingerprint("sha256"))
            for key, name in ((ANA, "ana"), (BO, "bo"))
        )
        host.hello()
        host.send(CreateTable("kept", "premium", 5, DEFAULT_TIMER))
        clock.settle()
        guest.hello()
        guest.send(Join(host.state.info.code))
        host.send(Start())
        clock.settle()
        game = host.attachment.session.table.game
        hands = [[card.id for card in hand] for hand in game.hands[:2]]
        assert game.turn == 0 and "bishop" in hands[0], hands
        assert find_edition("premium").by_id[hands[1][0]].value != 1, hands


async def play_the_bishop(ana: SSHTerminal, bo: SSHTerminal) -> None:
    """Ana, to play, plays the Bishop on bo naming the number of bo's card (read from bo's
    screen); bo is asked whether to redraw."""
    values = {card.name: card.value for card in find_edition("premium").cards}
    await ana.wait_for(lambda: any_phase(ana) == "decide", "ana's turn")
    while (panel := any_panel(ana)) is not None:
        step = bishop_step(panel, bo, values)
        assert step is not None, f"no step towards the Bishop's hit\n{screen_text(ana)}"
        await press(ana, step)
    await bo.wait_for(
        lambda: (p := any_panel(bo)) is not None and p.prompt == PROMPTS["redraw"],
        "bo asked whether to redraw",
    )


def any_panel(term: SSHTerminal) -> Panel | None:
    """The choice panel, also under prompts made of names ("Name a number:", "Ana and who
    else?", "Look at bo's hand?") that `read_panel` does not know."""
    known = read_panel(term)
    if known is not None:
        return known
    lines, start = screen_lines(term), term.screen.columns - PANEL_WIDTH
    for row, line in enumerate(lines):
        prompt = line[start:].strip()
        if prompt.endswith(("?", ":")):
            column = line.index(prompt, start)
            options = [OPTION.match(below[column:].rstrip()) for below in lines[row + 1 :]]
            found = list(itertools.takewhile(bool, options))
            if found:
                return Panel(prompt, tuple(Option(m[1], m[2]) for m in found))
    return None


def any_phase(term: SSHTerminal) -> str | None:
    """`phase`, knowing every prompt."""
    now = phase(term)
    return "decide" if now is None and any_panel(term) is not None else now


def bishop_step(panel: Panel, other: SSHTerminal, values: dict[str, int]) -> Option | None:
    """The option that plays the Bishop on `other` naming their card's number, if offered."""
    hand = read_hand(other)
    if panel.prompt == PROMPTS["card"]:
        return next((o for o in panel.options if o.label == "Bishop"), None)
    if panel.prompt == PROMPTS["targets"]:
        return next((o for o in panel.options if o.label.lower() in ("ana", "bo")), None)
    if panel.prompt == "Name a number:" and len(hand) == 1:
        return next((o for o in panel.options if o.key == str(values[hand[0]])), None)
    return None
