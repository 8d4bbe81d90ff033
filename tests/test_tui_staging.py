"""Decisions staged over the real engine's legal choices: card → targets → guess, and the
Chancellor, Cardinal and Bishop sub-decisions."""

from __future__ import annotations

import pytest
from test_tui_support import NAMES, cards_of, new_game

from lovelet_tui.names import Names
from lovelet_tui.staging import Staging
from protocol import KeepChoice, LookChoice, PlayChoice, RedrawChoice
from server.engine import Game, Look, Play
from server.services.views import wire_view


def _staging(game: Game, seat: int) -> Staging:
    view = wire_view(game.view(seat))
    names = Names(NAMES[: game.players], seat, cards_of(game.edition.id))
    return Staging(view.choices, names)


def _labels(staging: Staging) -> list[str]:
    return [f"{option.key} {option.label}" for option in staging.options]


def test_guard_is_card_then_target_then_guess() -> None:
    staging = _staging(
        new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "prince"]), 0
    )
    assert staging.prompt == "Play which card?"
    assert _labels(staging) == ["1 Guard", "2 Prince"]
    assert staging.pick_key("1") is None
    assert _labels(staging) == ["1 Bo", "2 Cy", "3 Di"]
    assert staging.pick_key("3") is None
    assert staging.prompt == "Name a card:"
    assert _labels(staging)[:3] == ["0 Spy", "2 Priest", "3 Baron"]  # keyed by value
    choice = staging.pick_key("2")
    assert choice == PlayChoice("guard", (3,), "priest")


def test_back_undoes_one_pick_at_a_time() -> None:
    staging = _staging(
        new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "prince"]), 0
    )
    assert not staging.back()
    staging.pick_key("1")
    staging.pick_key("1")
    assert staging.step == "guess"
    assert staging.back() and staging.step == "targets"
    assert staging.back() and staging.step == "card"
    assert not staging.can_back


def test_a_card_without_targets_is_one_key() -> None:
    staging = _staging(
        new_game("2019", 4, ["spy", "handmaid", "priest", "baron", "guard", "countess"]), 0
    )
    assert staging.pick_key("1") == PlayChoice("handmaid")


def test_arrows_and_enter_pick_like_digits() -> None:
    staging = _staging(
        new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "prince"]), 0
    )
    staging.move(1)
    staging.move(5)  # stays on the list
    assert staging.cursor == 1
    assert staging.choose() is None  # Prince
    assert _labels(staging) == ["1 You", "2 Bo", "3 Cy", "4 Di"]


def test_ppea_guesses_are_keyed_by_value_and_the_second_princess_by_a_spare_digit() -> None:
    first = ["ogre", "guard", "kings_advisors", "palace_librarian", "oliver", "guard"]
    named = {}
    for key in "0123456789":
        staging = _staging(new_game("ppea", 4, first), 0)
        staging.pick_key("1")  # Guard
        staging.pick_key("1")  # Bo
        choice = staging.pick_key(key)
        assert choice is not None, key
        assert isinstance(choice, PlayChoice)
        named[key] = choice.guess
    assert named == {
        "0": "claire",
        "1": "princess_sadie",  # the only digit no guess's value takes (Guards cannot be named)
        "2": "kings_advisors",
        "3": "palace_librarian",
        "4": "oliver",
        "5": "prince_vladric",
        "6": "princess_amira",
        "7": "ghost_king",
        "8": "celeste",
        "9": "ogre",
    }


def test_the_named_card_shows_its_key_in_every_edition() -> None:
    decks = {
        "classic": ["princess", "guard", "priest", "baron", "handmaid", "guard"],
        "2019": ["princess", "guard", "priest", "baron", "handmaid", "guard"],
        "ppea": ["ogre", "guard", "kings_advisors", "palace_librarian", "oliver", "guard"],
    }
    shown = {}
    for edition, first in decks.items():
        staging = _staging(new_game(edition, 4, first), 0)
        staging.pick_key("1")  # Guard
        staging.pick_key("1")  # Bo
        assert staging.prompt == "Name a card:"
        shown[edition] = _labels(staging)
    assert shown["classic"] == [
        "2 Priest", "3 Baron", "4 Handmaid", "5 Prince", "6 King", "7 Countess", "8 Princess"
    ]  # fmt: skip
    assert shown["2019"][0] == "0 Spy" and shown["2019"][-3:] == [
        "7 King", "8 Countess", "9 Princess"
    ]  # fmt: skip
    assert shown["ppea"][5:] == [
        "6 Princess Amira",
        "1 Princess Sadie",
        "7 Ghost King",
        "8 Celeste the Unicorn",
        "9 Ogre",
    ]


def test_premium_guesses_are_picked_by_their_number() -> None:
    first = ["princess", "guard", "priest", "baron", "handmaid", "prince", "guard"]
    staging = _staging(new_game("premium", 5, first), 0)
    staging.pick_key("1")  # Guard
    staging.pick_key("1")  # Bo
    assert staging.prompt == "Name a number:"
    assert _labels(staging)[:2] == ["0 Assassin, Jester", "2 Priest, Cardinal"]
    assert staging.pick_key("7") == PlayChoice("guard", (1,), 7)


def test_two_targets_are_picked_one_player_at_a_time() -> None:
    first = ["princess", "baroness", "priest", "baron", "handmaid", "prince", "guard"]
    staging = _staging(new_game("premium", 5, first), 0)
    staging.pick_key("1")  # Baroness: look at one or two hands
    assert _labels(staging) == ["1 Bo", "2 Cy", "3 Di", "4 Ed"]
    staging.pick_key("2")  # Cy
    assert staging.prompt == "Cy and who else?"
    assert _labels(staging) == ["1 Bo", "2 Di", "3 Ed", "4 Only Cy"]
    assert staging.pick_key("2") == PlayChoice("baroness", (2, 3))


def test_chancellor_keeps_then_orders_the_bottom() -> None:
    game = new_game("2019", 4, ["spy", "chancellor", "priest", "baron", "handmaid", "guard"])
    game.act(0, Play("chancellor"))  # draws two more: Spy and Guard
    staging = _staging(game, 0)
    assert staging.prompt == "Keep which card?"
    assert _labels(staging) == ["1 Guard", "2 Spy"]
    staging.pick_key("2")
    assert staging.prompt == "Put under the deck (top first):"
    assert staging.pick_key("1") == KeepChoice("spy", ("guard", "guard"))


def test_cardinal_look_and_bishop_redraw() -> None:
    first = ["princess", "cardinal", "priest", "baron", "handmaid", "prince", "guard"]
    game = new_game("premium", 5, first)
    game.act(0, Play("cardinal", (1, 2)))
    look = _staging(game, 0)
    assert look.prompt == "Look at one of the two hands?"
    assert _labels(look) == ["1 Bo's hand", "2 Cy's hand", "3 Neither"]
    assert look.pick_key("2") == LookChoice(2)

    game = new_game(
        "premium", 5, ["princess", "bishop", "priest", "baron", "handmaid", "prince", "guard"]
    )
    game.act(0, Play("bishop", (1,), 2))  # Bo holds the Priest: a hit
    redraw = _staging(game, 1)
    assert _labels(redraw) == ["1 Yes: discard and draw", "2 No: keep it"]
    assert redraw.pick_key("2") == RedrawChoice(redraw=False)


def test_a_cardinal_on_yourself_offers_the_other_hand_or_none() -> None:
    first = ["princess", "cardinal", "priest", "baron", "handmaid", "prince", "guard"]
    game = new_game("premium", 5, first)
    game.act(0, Play("cardinal", (0, 3)))
    look = _staging(game, 0)
    assert look.prompt == "Look at Di's hand?"
    assert _labels(look) == ["1 Yes: look at Di's hand", "2 No"]
    assert look.pick_key("2") == LookChoice(None)
    game.act(0, Look(None))
    assert game.pending is not None and game.pending.seat == 1


def test_names_keep_their_case_in_a_hand_to_look_at() -> None:
    first = ["princess", "cardinal", "priest", "baron", "handmaid", "prince", "guard"]
    game = new_game("premium", 5, first)
    game.act(0, Play("cardinal", (1, 2)))
    view = wire_view(game.view(0))
    bots = ("Ana", "medium bot 2", "easy bot 3", "Di", "Ed")
    look = Staging(view.choices, Names(bots, 0, cards_of("premium")))
    assert _labels(look)[:2] == ["1 medium bot 2's hand", "2 easy bot 3's hand"]


def test_two_players_picked_in_either_order_make_the_same_play() -> None:
    first = ["princess", "cardinal", "priest", "baron", "handmaid", "prince", "guard"]
    staging = _staging(new_game("premium", 5, first), 0)
    staging.pick_key("1")  # Cardinal
    assert _labels(staging) == ["1 You", "2 Bo", "3 Cy", "4 Di", "5 Ed"]
    staging.pick_key("4")  # Di first
    assert staging.prompt == "Di and who else?"
    assert staging.pick_key("2") == PlayChoice("cardinal", (1, 3))


def test_each_pick_narrows_the_choices_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every screen update reads the step, prompt and options several times: the choices
    are matched against the picks once per pick, not once per read."""
    staging = _staging(
        new_game("2019", 4, ["spy", "guard", "priest", "baron", "handmaid", "prince"]), 0
    )
    matched = []
    match = Staging._matches
    monkeypatch.setattr(Staging, "_matches", lambda self, c: matched.append(c) or match(self, c))
    for key in ("1", "2"):
        matched.clear()
        for _ in range(3):
            assert staging.prompt and staging.options and staging.step
        assert len(matched) <= len(staging.choices)
        assert staging.pick_key(key) is None
