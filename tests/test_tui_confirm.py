"""What cannot be undone asks first with a one-key yes/no: playing the Princess (or the
Ogre) by choice, leaving a running game with `l`, quitting it with Ctrl+Q. Any key but `y`
keeps the game as it was."""

from __future__ import annotations

from test_tui_support import (
    FakeLink,
    burst,
    deliver,
    new_game,
    option_key,
    screen_text,
    served,
    table_state,
)

from protocol import Act, Leave, PlayChoice

SIZE = (80, 24)
PRINCESS_FIRST = ["spy", "princess", "guard", "guard", "guard", "guard"]  # Ana: Princess, Guard


async def test_playing_the_princess_asks_and_no_keeps_the_choice_open() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        princess = option_key(app, "Princess")
        await pilot.press(princess)
        await pilot.pause()
        assert "Play Princess?" in screen_text(app) and "out of the round" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert "Play which card?" in screen_text(app)
        assert not any(isinstance(m, Act) for m in link.sent)
        await pilot.press(princess, "y")
        await pilot.pause()
    assert link.sent[-1] == Act(PlayChoice("princess"))


async def test_the_ogre_asks_too() -> None:
    game = new_game("ppea", 4, ["claire", "ogre", "guard", "guard", "guard", "guard"])
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        await pilot.press(option_key(app, "Ogre"))
        await pilot.pause()
        assert "Play Ogre?" in screen_text(app)
        await pilot.press("y")
        await pilot.pause()
    assert link.sent[-1] == Act(PlayChoice("ogre"))


async def test_leaving_a_running_game_asks_and_any_other_key_stays() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        await pilot.press("l")
        await pilot.pause()
        assert "Leave this game?" in screen_text(app)
        assert "Pick" not in screen_text(app).splitlines()[-1]  # no key but the answer
        since = len(game.events)
        await deliver(app, pilot, table_state(game, 0, since))  # the table moves on meanwhile
        assert "Leave this game?" in screen_text(app)
        await pilot.press("c")  # not yes: no chat line opens either
        await pilot.pause()
        assert "Play which card?" in screen_text(app) and app.table is not None
        assert link.sent[1:] == []
        await pilot.press("l", "y")
        await pilot.pause()
        assert app.table is None
    assert link.sent[1:] == [Leave()]


async def test_ctrl_q_in_a_running_game_asks_then_quits_on_yes() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        await pilot.press("question_mark")  # from help over the table: back to it to ask
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert "Quit lovelet?" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert app.return_code is None and not link.closed
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
        assert app.return_code == 0


async def test_a_spectator_leaves_and_quits_without_a_question() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Zed")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, None))
        await pilot.press("l")
        await pilot.pause()
        assert app.table is None
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code == 0


async def test_a_question_and_its_answer_typed_in_one_burst_are_taken_in_order() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        princess = option_key(app, "Princess")
        burst(app, "l", "n", princess, "y")  # no to leaving, then the Princess and yes
        await pilot.pause()
        assert link.sent[-1] == Act(PlayChoice("princess")) and app.table is not None
        burst(app, "l", "y")
        await pilot.pause()
        assert app.table is None and link.sent[-1] == Leave()


async def test_ctrl_q_and_yes_in_one_burst_quit() -> None:
    game = new_game("2019", 4, PRINCESS_FIRST)
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await deliver(app, pilot, table_state(game, 0))
        burst(app, "ctrl+q", "y")
        await pilot.pause()
        assert app.return_code == 0  # quitting, on its own
