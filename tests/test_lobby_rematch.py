"""A rematch needs everyone's agreement: each player says ready (or leaves), or the host
starts it with bots for the others; everyone sees who is ready."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from protocol import CreateTable, Join, Leave, Notice, Rematch, Start
from server.lobby import Lobby, LobbySettings
from server.services.clock import LoopClock
from server.store import Store
from tests.lobby_client import Client
from tests.test_lobby import INSTANT, greeted, play_to_the_end


@pytest.fixture
def lobby() -> Lobby:
    return Lobby(LobbySettings(table=INSTANT), random.Random(1), clock=LoopClock())


async def finished_game(lobby: Lobby, takeover: bool = False) -> tuple[Client, Client]:
    """Ana hosts, Bo joins, a medium bot sits third; the game is played to its end."""
    ana, bo = await greeted(lobby, "ana"), await greeted(lobby, "bo")
    ana.send(CreateTable("t", "classic", 3, bot_level="medium", takeover=takeover))
    await ana.wait_for(lambda c: c.state)
    bo.send(Join(ana.state.info.code))
    await ana.wait_for(lambda c: c.state.info.seats[1].name == "bo")
    ana.send(Start())
    await play_to_the_end(ana, bo)
    await bo.wait_for(lambda c: c.finished())
    return ana, bo


async def test_one_players_rematch_waits_for_the_others_and_everyone_sees_who_is_ready(
    lobby: Lobby,
) -> None:
    ana, bo = await finished_game(lobby)
    ana.send(Rematch())
    await bo.wait_for(lambda c: c.state.info.seats[0].ready)
    assert bo.state.info.status == "finished" and not bo.state.info.seats[1].ready
    bo.send(Rematch())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    assert ana.state.view.round == 1
    assert not any(seat.ready for seat in ana.state.info.seats)


async def test_a_player_who_leaves_is_not_waited_for(lobby: Lobby) -> None:
    ana, bo = await finished_game(lobby)
    ana.send(Rematch())
    await bo.wait_for(lambda c: c.state.info.seats[0].ready)
    bo.send(Leave())
    await ana.wait_for(lambda c: c.state.info.status == "playing")
    assert ana.state.info.seats[1].bot is not None


async def test_the_host_starts_the_rematch_with_bots_for_who_is_not_ready(lobby: Lobby) -> None:
    ana, bo = await finished_game(lobby)
    bo.send(Start())
    await bo.wait_for(lambda c: c.errors())
    assert bo.errors()[-1].code == "not_host"
    ana.send(Start())
    await bo.wait_for(lambda c: c.state.info.status == "playing")
    seats = [(seat.name, seat.bot) for seat in bo.state.info.seats]
    assert seats == [("ana", None), ("medium bot 2", "medium"), ("medium bot 3", "medium")]
    assert bo.state.info.you is None and "bo" in bo.state.info.spectators
    assert any(isinstance(m, Notice) and "you watch" in m.text for m in bo.messages)


async def test_joining_a_finished_table_says_its_game_is_over(lobby: Lobby) -> None:
    ana, _ = await finished_game(lobby)
    eve = await greeted(lobby, "eve")
    eve.send(Join(ana.state.info.code))
    await eve.wait_for(lambda c: c.errors())
    (refusal,) = eve.errors()
    assert (refusal.code, refusal.message) == (
        "in_progress",
        "the game at this table is over: watch it instead",
    )


async def test_a_rated_games_end_shows_each_keyed_players_rating_and_change(
    tmp_path: Path,
) -> None:
    """Two keyed players finish a game: their seats carry the new rating and the change
    (the bot's none); a rematch forgets them."""
    with Store.open(tmp_path / "lovelet.db") as store:
        for name in ("ana", "bo"):
            store.claim_nickname(f"SHA256:{name}", name, set())  # as their SSH logins do
        lobby = Lobby(LobbySettings(table=INSTANT), random.Random(1), store, clock=LoopClock())
        ana, bo = await finished_game(lobby)
        seats = bo.state.info.seats
        rated = {i: (s.rating, s.rating_change) for i, s in enumerate(seats)}
        assert rated[2] == (None, None)  # the bot
        for seat in (0, 1):
            rating, change = rated[seat]
            assert rating == round(store.rating(f"SHA256:{seats[seat].name}").mu)
            assert change == rating - 1500 != 0, rated  # from a newcomer's 1500
        ana.send(Rematch())
        bo.send(Rematch())
        await ana.wait_for(lambda c: c.state.info.status == "playing")
        assert all(seat.rating is None for seat in ana.state.info.seats)


async def test_a_late_joiner_at_a_finished_table_is_told_the_seat_waits_for_a_rematch(
    lobby: Lobby,
) -> None:
    ana, bo = await finished_game(lobby, takeover=True)
    eve = await greeted(lobby, "eve")
    eve.send(Join(ana.state.info.code))
    await eve.wait_for(lambda c: any(isinstance(m, Notice) for m in c.messages))
    said = [m.text for m in eve.messages if isinstance(m, Notice)]
    assert said == ["You take medium bot 3's seat 3 in the rematch, if the table plays one."]
    ana.send(Rematch())
    bo.send(Rematch())
    await eve.wait_for(lambda c: c.state.info.status == "playing" and c.state.info.you == 2)
