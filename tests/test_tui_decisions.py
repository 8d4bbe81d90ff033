"""Decisions taken by keys on the table screen (Pilot, fake link): a Guard's named card by its
value in ppea, and the Cardinal's optional look."""

from __future__ import annotations

from test_tui_support import FakeLink, new_game, screen_text, served, table_state

from protocol import Act, LookChoice, PlayChoice, encode
from server.engine import Game, Play

SIZE = (80, 24)
PPEA_GUARD_FIRST = ["ogre", "guard", "kings_advisors", "palace_librarian", "oliver", "guard"]
CARDINAL_FIRST = ["princess", "cardinal", "priest", "baron", "handmaid", "prince", "guard"]


async def _press(game: Game, seat: int, *keys: str) -> tuple[FakeLink, str]:
    """Open the table at `seat`, press `keys`; the link and the screen after."""
    link = FakeLink()
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver(encode(table_state(game, seat)))
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        text = screen_text(app)
    return link, text


async def test_ppea_names_a_card_by_its_value() -> None:
    for key, named in (("9", "ogre"), ("8", "celeste"), ("7", "ghost_king"), ("0", "claire")):
        link, _ = await _press(new_game("ppea", 4, PPEA_GUARD_FIRST), 0, "1", "1", key)
        assert link.sent[-1] == Act(PlayChoice("guard", (1,), named)), key


async def test_ppea_shows_and_takes_the_second_princess_key() -> None:
    link, text = await _press(new_game("ppea", 4, PPEA_GUARD_FIRST), 0, "1", "1")
    assert "6  Princess Amira" in text and "1  Princess Sadie" in text
    link, _ = await _press(new_game("ppea", 4, PPEA_GUARD_FIRST), 0, "1", "1", "1")
    assert link.sent[-1] == Act(PlayChoice("guard", (1,), "princess_sadie"))


async def test_a_cardinal_on_yourself_asks_about_the_other_hand_only() -> None:
    game = new_game("premium", 5, CARDINAL_FIRST)
    game.act(0, Play("cardinal", (0, 3)))
    _, text = await _press(game, 0)
    assert "Look at Di's hand?" in text and "Look at one of" not in text
    assert "1  Yes: look at Di's hand" in text and "2  No" in text
    link, _ = await _press(game, 0, "2")
    assert link.sent[-1] == Act(LookChoice(None))


async def test_a_cardinal_may_look_at_neither_hand() -> None:
    game = new_game("premium", 5, CARDINAL_FIRST)
    game.act(0, Play("cardinal", (1, 2)))
    _, text = await _press(game, 0)
    assert "Look at one of the two hands?" in text and "3  Neither" in text
    link, _ = await _press(game, 0, "3")
    assert link.sent[-1] == Act(LookChoice(None))


async def test_a_cardinals_players_are_picked_in_either_order() -> None:
    game = new_game("premium", 5, CARDINAL_FIRST)
    link, _ = await _press(game, 0, "1", "4", "2")  # Cardinal, Di, then Bo
    assert link.sent[-1] == Act(PlayChoice("cardinal", (1, 3)))
