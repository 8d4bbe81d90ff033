"""The tutorial: `lovelet play --tutorial` played through by keys as a real process (pty +
pyte, 80×24), and by `t` in the lobby over real SSH; through the lobby, the scripted round
offers and takes only its plays, the bots follow the script, the guide goes to the player
alone, and hints come once it is over."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e_helpers import Server, read_panel, running_server, screen_text
from ptyterm import LOVELET, PtyTerminal
from sshclient import SSHTerminal

from protocol import Choice, Hint, HintRequest, PlayChoice, Spectate, Tutorial, choice_from_wire
from server.engine import choice_to_dict
from server.lobby import Lobby, LobbySettings, TableSettings
from server.lobby.tutorial import BOTS, PLAYER, ROUND_OVER, STEPS
from server.services.clock import LoopClock
from tests.test_lobby import act_message, greeted

TIMEOUT = 30.0
GUIDES = [step.guide for step in STEPS if step.seat == PLAYER]


def first_words(text: str) -> str:
    """The start of a guide: what fits on its first line at 80 columns."""
    return text[:40]


def one_option(term: PtyTerminal | SSHTerminal) -> bool:
    """The choice panel offers exactly one option (the scripted play's step)."""
    panel = read_panel(term)
    return panel is not None and len(panel.options) == 1


async def play_scripted_round(term: PtyTerminal | SSHTerminal) -> None:
    """Take the one option at every step while each of the player's guides shows, in order."""
    for guide in GUIDES:
        await term.wait_for(
            lambda g=guide: first_words(g) in screen_text(term), repr(guide[:20]), TIMEOUT
        )
        while True:  # one option at each step of the play: take it
            await term.wait_for(
                lambda g=guide: one_option(term) or first_words(g) not in screen_text(term),
                "the one choice",
                TIMEOUT,
            )
            if first_words(guide) not in screen_text(term):
                break  # the play was made: the next guide
            panel = read_panel(term)
            await term.send_keys(panel.options[0].key)
            await term.wait_for(
                lambda p=panel, g=guide: (
                    read_panel(term) != p or first_words(g) not in screen_text(term)
                ),
                "the key taken",
            )


async def test_lovelet_play_tutorial_guides_the_scripted_round_then_free_play() -> None:
    command = [LOVELET, "play", "--tutorial", "--bot-delay", "0"]
    async with PtyTerminal.spawn(command, size=(80, 24)) as term:
        await play_scripted_round(term)
        await term.wait_for(lambda: "n Next round" in screen_text(term), "the end", TIMEOUT)
        # the whole frame has arrived (the key bar is drawn last): the guide and the log
        assert "You won the round" in screen_text(term)
        assert "Bo's Prince" in screen_text(term)  # the log: the Baron beat it
        await term.send_keys("n")
        await term.wait_for(lambda: "Free play" in screen_text(term), "free play", TIMEOUT)
        await term.wait_for(lambda: "h Hint" in screen_text(term), "a decision", TIMEOUT)
        await term.send_keys("h")
        await term.wait_for(lambda: "Hint: " in screen_text(term), "the hint", TIMEOUT)
        await term.send_keys("\x11")  # ctrl+q: asks first, in a running game
        await term.wait_for(lambda: "Quit lovelet?" in screen_text(term), "the question")
        await term.send_keys("y")
        assert await term.exited() == 0, term.output
    assert b"Traceback" not in term.raw, term.output


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, TableSettings(bot_delay=0.1, round_pause=60)) as running:
        yield running


async def test_t_in_the_lobby_over_ssh_plays_the_scripted_round(server: Server) -> None:
    async with SSHTerminal.connect(server.port, username="ana") as ana:
        await ana.wait_for(lambda: "signed in as ana" in screen_text(ana), "the lobby")
        await ana.send_keys("t")
        await play_scripted_round(ana)
        await ana.wait_for(lambda: "You won the round" in screen_text(ana), "the end", TIMEOUT)


# ---------------------------------------------------------------- through the lobby


@pytest.fixture
def lobby() -> Lobby:
    settings = TableSettings(bot_delay=0, round_pause=60, bot_budget=0.02)
    return Lobby(LobbySettings(table=settings), random.Random(3), clock=LoopClock())


async def test_the_scripted_round_offers_and_takes_only_its_plays(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(Tutorial())
    await ana.wait_for(lambda c: c.my_turn())
    info = ana.state.info
    assert (info.name, info.you, info.edition) == ("Tutorial", PLAYER, "classic")
    assert [(s.name, s.bot) for s in info.seats[1:]] == [(name, "easy") for _, name in BOTS]
    watcher = await greeted(lobby, "cy")
    watcher.send(Spectate(info.code))
    await watcher.wait_for(lambda c: c.state and c.state.view)
    assert watcher.state.guide is None  # the guide is the player's alone
    for number, step in enumerate(s for s in STEPS if s.seat == PLAYER):
        await ana.wait_for(lambda c, s=step: c.my_turn() and c.state.guide == s.guide)
        assert ana.state.view.choices == (_wire(step),)
        assert not ana.state.info.hints  # no hints in the scripted round
        if number == 0:
            ana.send(HintRequest())
            await ana.wait_for(lambda c: c.errors())
            assert ana.errors()[-1].code == "no_hints"
            ana.send(act_message(PlayChoice("priest", (1,))))
            await ana.wait_for(lambda c: c.errors()[-1].code != "no_hints")
            assert ana.errors()[-1].code == "tutorial_step"
            assert "Guard on Bo, naming Baron" in ana.errors()[-1].message
        before = len(ana.events)
        ana.send(act_message(ana.state.view.choices[0]))
        await ana.wait_for(lambda c, n=before: len(c.events) > n)
    await ana.wait_for(lambda c: c.state.info.status == "round_over")
    assert ana.state.guide == ROUND_OVER and ana.state.view.round_winners == (PLAYER,)
    plays = [(e["seat"], e["card"]) for e in ana.events if e["kind"] == "play"]
    assert plays == [(step.seat, step.choice.card) for step in STEPS]
    ana.continue_if_between_rounds()
    await ana.wait_for(lambda c: c.my_turn() and c.state.view.round == 2)
    assert ana.state.info.hints and len(ana.state.view.choices) >= 1
    ana.send(HintRequest())
    await ana.wait_for(lambda c: any(isinstance(m, Hint) for m in c.messages))


# A guide's claim of a card in another player's hand now: "Cy still holds the Guard", "Bo has
# your Prince", "beats Cy's Guard" (past tense, "held", speaks of what was seen then).
CLAIMS = (
    re.compile(r"\b(Bo|Cy) (?:still )?(?:holds|has) (?:the |your )?([A-Z][a-z]+)"),
    re.compile(r"\bbeats (Bo|Cy)'s ([A-Z][a-z]+)"),
)


def claims(guide: str) -> list[tuple[int, str]]:
    """Each (seat, card id) a guide says another player holds now."""
    seats = {name: seat for seat, name in BOTS}
    return [(seats[name], card.lower()) for claim in CLAIMS for name, card in claim.findall(guide)]


def known_hands(me: int, events: list[dict]) -> dict[int, list[str | None]]:
    """What seat `me` knows for certain of each other hand from its own log: a card it saw,
    or None for one it did not; a card seen stays known until its holder may have played it."""
    hands: dict[int, list[str | None]] = {}
    for event in events:
        kind, seat = event["kind"], event["seat"]
        if seat == me and kind not in ("compare", "look", "swap"):
            continue
        if kind in ("deal", "draw"):
            hands.setdefault(seat, []).append(None)
        elif kind in ("play", "discard"):
            hand, card = hands[seat], event["card"]
            if card in hand and None in hand:
                hands[seat] = [None] * (len(hand) - 1)  # the card seen, or the one drawn?
            else:
                hand.remove(card if card in hand else None)
        elif kind == "look" and seat == me:
            hands[event["target"]] = list(event["cards"])
        elif kind == "compare" and me in (seat, event["target"]):
            other = event["target"] if seat == me else seat
            hands[other] = [event["cards"][str(other)]]
        elif kind == "swap":
            a, b = event["seats"]
            if me in (a, b):
                hands[b if a == me else a] = list(event["cards"][str(me)])
            else:
                hands[a], hands[b] = hands[b], hands[a]
        elif kind == "knocked_out":
            hands[seat] = []
    return hands


async def test_every_guide_claims_only_cards_the_player_knows_another_holds(
    lobby: Lobby,
) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(Tutorial())
    checked = 0
    for step in (s for s in STEPS if s.seat == PLAYER):
        await ana.wait_for(lambda c, s=step: c.my_turn() and c.state.guide == s.guide)
        hands = known_hands(PLAYER, ana.events)
        for seat, card in claims(step.guide):
            assert hands[seat] == [card], (step.guide, seat, card, hands[seat])
            checked += 1
        before = len(ana.events)
        ana.send(act_message(ana.state.view.choices[0]))
        await ana.wait_for(lambda c, n=before: len(c.events) > n)
    assert checked == 4  # "Cy still holds the Guard", two "beats", "Bo has your Prince"


def _wire(step) -> Choice:
    """A scripted choice as a view lists it."""
    return choice_from_wire(choice_to_dict(step.choice))


async def test_a_tutorial_table_is_private(lobby: Lobby) -> None:
    bo = await greeted(lobby, "bo")
    ana = await greeted(lobby, "ana")
    ana.send(Tutorial())
    await ana.wait_for(lambda c: c.state)
    await bo.wait_for(lambda c: "ana" in c.lobby.online)
    assert ana.state.info.private
    assert len(lobby.tables) == 1 and bo.lobby.tables == () and ana.lobby.tables == ()


async def test_the_tutorial_starts_only_from_the_lobby(lobby: Lobby) -> None:
    ana = await greeted(lobby, "ana")
    ana.send(Tutorial())
    await ana.wait_for(lambda c: c.state)
    ana.send(Tutorial())
    await ana.wait_for(lambda c: c.errors())
    assert ana.errors()[-1].code == "at_table"
    assert len(lobby.tables) == 1
