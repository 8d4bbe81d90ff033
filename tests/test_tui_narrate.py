"""The game log in sentences, from real engine events as each seat receives them."""

from __future__ import annotations

from pathlib import Path

from test_tui_support import NAMES, new_game

from lovelet_tui.names import Names
from lovelet_tui.narrate import narrate, round_awards
from server.engine import Game, Keep, Play
from server.scenarios import load_scenario, play_scenario


def _log(game: Game, seat: int | None, since: int = 0) -> list[str]:
    names = Names(NAMES[: game.players], seat, {c["id"]: c for c in game.view(seat)["cards"]})
    return [line.plain for line in narrate([e.for_seat(seat) for e in game.events[since:]], names)]


def test_round_start_deal_and_draw_are_private() -> None:
    game = new_game("2019", 3, ["spy", "guard", "priest", "baron", "handmaid"])
    assert _log(game, 0) == [
        "Round 1: you to play first",
        "You were dealt Guard",
        "You drew Handmaid",
    ]
    assert _log(game, 1) == ["Round 1: Ana to play first", "You were dealt Priest"]


def test_a_guard_play_and_its_result_are_one_sentence() -> None:
    game = new_game("2019", 3, ["spy", "guard", "priest", "baron", "handmaid"])
    since = len(game.events)
    game.act(0, Play("guard", (1,), "priest"))
    assert _log(game, 2, since)[:2] == [
        "Ana played Guard on Bo, guessed Priest — hit",
        "Bo was knocked out, holding Priest",
    ]
    assert _log(game, 1, since)[1] == "You were knocked out, holding Priest"


def test_a_look_is_shown_only_to_the_looker() -> None:
    game = new_game("2019", 3, ["spy", "priest", "king", "baron", "handmaid"])
    since = len(game.events)
    game.act(0, Play("priest", (1,)))
    assert _log(game, 0, since)[:2] == ["You played Priest on Bo", "You saw Bo's hand: King"]
    assert _log(game, 1, since)[1] == "Ana looked at your hand"
    assert _log(game, None, since)[1] == "Ana looked at Bo's hand"


def test_compare_and_swap_show_cards_to_the_two_players_only() -> None:
    game = new_game("2019", 3, ["spy", "baron", "guard", "princess", "king"])
    since = len(game.events)
    game.act(0, Play("baron", (1,)))  # Ana keeps the King against Bo's Guard
    assert (
        _log(game, 1, since)[1]
        == "Ana compared hands with you (Ana's King vs your Guard): you lost"
    )
    assert _log(game, 2, since)[1] == "Ana compared hands with Bo: Bo lost"

    game = new_game("2019", 3, ["spy", "king", "guard", "princess", "baron"])
    since = len(game.events)
    game.act(0, Play("king", (2,)))
    assert _log(game, 0, since)[1] == "You and Cy swapped hands: you gave Baron and got Princess"
    assert _log(game, 1, since)[1] == "Ana and Cy swapped hands"


def test_chancellor_keeps_its_cards_secret() -> None:
    game = new_game("2019", 3, ["spy", "chancellor", "priest", "baron", "guard", "prince", "king"])
    since = len(game.events)
    game.act(0, Play("chancellor"))
    game.act(0, Keep("king", ("guard", "prince")))
    assert _log(game, 0, since)[1:3] == [
        "You drew 2 cards to choose from: Prince and King",
        "You kept King and put Guard, then Prince under the deck",
    ]
    assert _log(game, 1, since)[1:3] == [
        "Ana drew 2 cards to choose from",
        "Ana put 2 cards under the deck",
    ]


def test_round_and_game_end() -> None:
    game = new_game("classic", 2, ["guard", "priest", "baron", "handmaid", "guard", "princess"])
    since = len(game.events)
    game.act(0, Play("guard", (1,), "princess"))
    log = _log(game, 0, since)
    assert log[-1] == "Round over: you won (last one standing); tokens: you +1"


def test_unknown_kinds_still_read() -> None:
    names = Names(("Ana", "Bo"), 0)
    assert [line.plain for line in narrate([{"kind": "brand_new", "seat": 1}], names)] == [
        "brand new"
    ]


def test_a_timed_out_decision_is_told() -> None:
    names = Names(["ana", "bo"], you=1)
    (line,) = narrate([{"kind": "autoplay", "seat": 1, "reason": "timeout"}], names)
    assert line.plain == "Time ran out: a bot decided for you"


SCENARIOS = Path(__file__).parent / "scenarios"


def _scenario(name: str) -> Game:
    """The game a rule scenario plays (tests/scenarios/<name>.toml)."""
    return play_scenario(load_scenario(SCENARIOS / f"{name}.toml"))


def test_each_round_end_token_says_why_it_was_given() -> None:
    game = _scenario("2019/spy_winner_and_spy_gains_two_tokens")
    assert _log(game, 0)[-1] == (
        "Round over: you won (last one standing); tokens: you +2 (round win, Spy)"
    )
    game = _scenario("ppea/claire_bonus_for_losing_player_still_in_round")
    assert _log(game, None)[-1].endswith("tokens: Ana +1 (Claire the Spy), Bo +1")
    game = _scenario("ppea/pair_bonus_two_players_in_round_each_gain")
    assert _log(game, 1)[-1].endswith(
        "tokens: Ana +1 (Princess pair), you +2 (round win, Princess pair)"
    )
    game = _scenario("premium/jester_token_when_chosen_player_wins_round")
    assert _log(game, 2)[-1].endswith("tokens: Ana +1 (Jester), Bo +1")


def test_a_token_gained_during_a_round_says_why() -> None:
    game = _scenario("premium/bishop_hit_gains_token_and_target_redraws")
    assert "You gained a token (Bishop) and have 1" in _log(game, 0)
    assert "Ana gained a token (Bishop) and has 1" in _log(game, 1)
    game = _scenario("premium/constable_token_when_knocked_out_after_playing_it")
    assert "Bo gained a token (Constable) and has 1" in _log(game, None)


def test_round_awards_lists_the_latest_rounds_tokens_with_their_reasons() -> None:
    game = _scenario("premium/jester_token_when_chosen_player_wins_round")
    assert round_awards(e.for_seat(3) for e in game.events) == [(0, "jester"), (1, "round")]
    game = _scenario("premium/constable_token_when_knocked_out_after_playing_it")
    assert round_awards(e.for_seat(None) for e in game.events) == [(1, "constable")]
