"""Hints through the lobby (in-process sessions, real frames, the real bot pool): the request
and its answer, the log line everyone sees, the table setting, the rate limit; and that a hint
depends on the seat's view and log alone; the table's setting across a restart."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from protocol import BotSpec, CreateTable, Hint, HintRequest, Join, Spectate, Start, Tutorial
from server.bots.advice import advise
from server.bots.hard import Budget
from server.engine import Game, find_edition
from server.lobby import Lobby, LobbySettings, TableSettings
from server.services.clock import LoopClock
from server.store import Store
from tests.lobby_client import Client
from tests.test_bots import deck_with, seat_log
from tests.test_lobby import act_message, greeted
from tests.test_lobby_resume import Server as ResumeServer

INSTANT = TableSettings(bot_delay=0, round_pause=0, bot_budget=0.02, hint_burst=2)


@pytest.fixture
def lobby() -> Lobby:
    return Lobby(LobbySettings(table=INSTANT), random.Random(5), clock=LoopClock())


def hints(client: Client) -> list[Hint]:
    return [m for m in client.messages if isinstance(m, Hint)]


def error_codes(client: Client) -> list[str]:
    return [e.code for e in client.errors()]


async def ask(client: Client) -> Hint | str:
    """Ask for a hint; the answer, or the code of the refusal."""
    before_hints, before_errors = len(hints(client)), len(client.errors())
    client.send(HintRequest())
    await client.wait_for(lambda c: len(hints(c)) > before_hints or len(c.errors()) > before_errors)
    if len(client.errors()) > before_errors:
        return client.errors()[-1].code
    return hints(client)[-1]


async def at_a_table(lobby: Lobby, hints: bool | None, bots: int = 1) -> tuple[Client, Client]:
    """Ana hosts a 3-seat classic table with `bots` easy bots, Bo joins if there is room (else
    watches), and the game starts; both have its first state."""
    ana, bo = await greeted(lobby, "ana"), await greeted(lobby, "bo")
    specs = tuple(BotSpec(seat, "easy") for seat in range(3 - bots, 3))
    ana.send(CreateTable("t", "classic", 3, None, specs, hints=hints))
    code = (await ana.wait_for(lambda c: c.state)).info.code
    bo.send(Join(code) if bots < 2 else Spectate(code))
    await bo.wait_for(lambda c: c.state)
    ana.send(Start())
    await ana.wait_for(lambda c: c.state.view)
    return ana, bo


async def ana_to_decide(ana: Client, bo: Client) -> None:
    """Play on (Bo takes his first choice) until Ana has a decision."""
    while not ana.my_turn():
        await ana.wait_for(lambda c: c.my_turn() or bo.my_turn())
        if bo.my_turn() and not ana.my_turn():
            bo.send(act_message(bo.state.view.choices[0]))
            await bo.wait_for(lambda c: not c.my_turn() or ana.my_turn())


async def test_a_hint_answers_the_decision_and_the_table_sees_it_was_used(lobby: Lobby) -> None:
    ana, bo = await at_a_table(lobby, hints=None)
    assert ana.state.info.hints and bo.state.info.hints  # a bot plays: allowed by default
    await ana_to_decide(ana, bo)
    hint = await ask(ana)
    assert isinstance(hint, Hint)
    choices = [act_message(choice).choice for choice in ana.state.view.choices]
    assert hint.choice in choices and "% to win the game" in hint.text
    used = await bo.wait_for(lambda c: [e for e in c.events if e["kind"] == "hint"])
    assert used == [{"kind": "hint", "seat": 0}]
    assert hints(bo) == []  # the answer itself is Ana's alone


async def test_asking_again_for_the_same_decision_searches_once(lobby: Lobby) -> None:
    ana, bo = await at_a_table(lobby, hints=None)
    await ana_to_decide(ana, bo)
    answers = [await ask(ana) for _ in range(6)]  # the limit is 2 searches a minute
    assert all(answer == answers[0] for answer in answers) and isinstance(answers[0], Hint)
    assert sum(e["kind"] == "hint" for e in ana.events) <= 1
    await ana.wait_for(lambda c: any(e["kind"] == "hint" for e in c.events))
    assert sum(e["kind"] == "hint" for e in ana.events) == 1


async def test_new_decisions_are_limited_per_seat(lobby: Lobby) -> None:
    ana, _ = await at_a_table(lobby, hints=True, bots=2)  # Bo watches
    answers = []
    while len(answers) < 3 and not ana.finished():
        await ana.wait_for(lambda c: c.my_turn() or c.state.info.status != "playing")
        if ana.my_turn():
            answers.append(await ask(ana))
            ana.send(act_message(ana.state.view.choices[0]))
            await ana.wait_for(lambda c: not c.my_turn() or c.state.view.pending.kind != "play")
        ana.continue_if_between_rounds()
    assert [isinstance(a, Hint) for a in answers[:2]] == [True, True]
    assert answers[2] == "hint_limit"
    assert "at most 2 hints in 60 s: the next in" in ana.errors()[-1].message


async def test_all_human_tables_have_none_unless_the_host_turns_them_on(lobby: Lobby) -> None:
    for setting, bots, expected in ((None, 0, False), (True, 0, True), (False, 1, False)):
        ana, bo = await greeted(lobby, f"ana{setting}"), await greeted(lobby, f"bo{setting}")
        specs = (BotSpec(2, "easy"),) if bots else ()
        ana.send(CreateTable("t", "classic", 2 + bots, None, specs, hints=setting))
        code = (await ana.wait_for(lambda c: c.state)).info.code
        bo.send(Join(code))
        await bo.wait_for(lambda c: c.state)
        ana.send(Start())
        await ana.wait_for(lambda c: c.state.view)
        assert ana.state.info.hints is expected
        await ana_to_decide(ana, bo)
        answer = await ask(ana)
        assert isinstance(answer, Hint) if expected else answer == "no_hints"
        bo.send(HintRequest())  # not Bo's decision
        await bo.wait_for(lambda c: c.errors())
        assert error_codes(bo)[-1] == ("not_your_turn" if expected else "no_hints")


# ---------------------------------------------------------------- the seat's view alone


def resampled_games() -> list[Game]:
    """Three games of classic at 4 players in which seat 0 has seen the same (its Guard,
    then a Priest drawn) while the set-aside card, the others' hands and the deck differ."""
    games = []
    for first in (
        ["countess", "guard", "baron", "king", "prince", "priest"],
        ["princess", "guard", "handmaid", "baron", "guard", "priest"],
        ["guard", "guard", "prince", "countess", "princess", "priest"],
    ):
        game = Game(find_edition("classic"), 4, random.Random(1))
        game.start_round(deck=deck_with("classic", first), start=0)
        games.append(game)
    return games


def test_a_hint_depends_on_the_seats_view_and_log_alone() -> None:
    budget = Budget(seconds=math.inf, deals=40)  # bounded by positions: the same work each time
    names = ["ana", "bo", "cy", "di"]
    games = resampled_games()
    views = [game.view(0) for game in games]
    logs = [seat_log(game, 0) for game in games]
    assert views[0] == views[1] == views[2] and logs[0] == logs[1] == logs[2]
    assert [game.hands[1:] for game in games] != [games[0].hands[1:]] * 3
    answers = [
        advise(v, log, names, random.Random(9), budget) for v, log in zip(views, logs, strict=True)
    ]
    assert answers[0] == answers[1] == answers[2]
    assert "%" in answers[0].text


# ---------------------------------------------------------------- across a restart


def test_the_hosts_hint_setting_survives_a_restart_and_the_tutorial_is_not_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lovelet.db"
    with Store.open(path) as store:
        for name in ("ana", "bob", "cy"):
            store.claim_nickname(f"SHA256:{name}", name, set())
    before = ResumeServer(path, seed=4)
    ana, bob = before.player("ana"), before.player("bob")
    ana.send(CreateTable("t", "classic", 2, None, (), hints=True))  # all human: on by the host
    before.clock.settle()
    bob.send(Join(ana.state.info.code))
    ana.send(Start())
    cy = before.player("cy")
    cy.send(Tutorial())
    before.clock.settle()
    assert ana.state.info.hints and cy.state.info.name == "Tutorial"
    after = before.restart(path)
    assert after.resumed.tables == (ana.state.info.code,)  # not the tutorial
    ana = after.player("ana")
    assert ana.state.info.hints
