"""The game log in sentences, from real engine events as each seat receives them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from test_tui_support import NAMES, cards_of, new_game

from lovelet_tui.names import Names
from lovelet_tui.narrate import PRIVATE_STYLE, SENTENCES, narrate, round_awards
from protocol import events as ev
from protocol.events import EVENTS, KINDS
from server.commands.scenarios import load_scenario, play_scenario
from server.engine import Game, Keep, Play
from server.services.views import wire_events


def _log(game: Game, seat: int | None, since: int = 0) -> list[str]:
    names = Names(NAMES[: game.players], seat, cards_of(game.edition.id))
    return [line.plain for line in narrate(wire_events(game.events[since:], seat), names)]


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
    assert _log(game, 0, since)[1] == "You swapped hands with Cy: you gave Baron and got Princess"
    assert _log(game, 1, since)[1] == "Ana swapped hands with Cy"


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


def test_a_timed_out_decision_is_told() -> None:
    names = Names(["ana", "bo"], you=1)  # no card catalogue here: cards read as their ids
    (line,) = narrate([ev.Autoplay(seat=1, reason="timeout", decision="look")], names)
    assert line.plain == "Time ran out: a bot decided for you"
    timed_out = ev.Autoplay(seat=1, reason="timeout", decision="play", card="guard")
    (line,) = narrate([timed_out], names)
    assert line.plain == "Time ran out: a bot played guard for you"
    away = ev.Autoplay(seat=0, reason="disconnected", decision="play", card="priest")
    (line,) = narrate([away], names)
    assert line.plain == "ana left: a bot played priest for ana"


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
    assert _log(game, 1)[-1].endswith("tokens: Ana +1 (pair bonus), you +2 (round win, pair bonus)")
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
    assert round_awards(wire_events(game.events, 3)) == [(0, "jester"), (1, "round")]
    game = _scenario("premium/constable_token_when_knocked_out_after_playing_it")
    assert round_awards(wire_events(game.events, None)) == [(1, "constable")]


# Each card's lines in every edition, as the player, the player chosen and a spectator read them.
CARD_LINES: dict[str, dict[int | None, list[str]]] = {
    "classic/guard_hit_knocks_out": {
        0: ["You played Guard on Bo, guessed Priest — hit", "Bo was knocked out, holding Priest"],
        1: [
            "Ana played Guard on you, guessed Priest — hit",
            "You were knocked out, holding Priest",
        ],
    },
    "classic/priest_look_changes_nothing": {
        0: ["You played Priest on Bo", "You saw Bo's hand: Guard"],
        1: ["Ana played Priest on you", "Ana looked at your hand"],
        None: ["Ana played Priest on Bo", "Ana looked at Bo's hand"],
    },
    "classic/baron_target_lower_knocked_out": {
        0: ["You compared hands with Bo (your King vs Bo's Priest): Bo lost"],
        1: ["Ana compared hands with you (Ana's King vs your Priest): you lost"],
        None: ["Ana compared hands with Bo: Bo lost", "Bo was knocked out, holding Priest"],
    },
    "classic/baron_tie_nothing_happens": {None: ["Ana compared hands with Bo: a tie"]},
    "classic/handmaid_protection_starts_at_once": {
        0: ["You played Handmaid", "You are protected until your next turn"],
        1: [
            "Ana is protected until their next turn",
            "Your Guard had no effect: no one could be chosen",
        ],
        None: ["Bo played Guard", "Bo's Guard had no effect: no one could be chosen"],
    },
    "classic/prince_other_discards_and_draws": {
        1: ["Ana played Prince on you", "You discarded Priest"],
        None: ["Ana played Prince on Bo", "Bo discarded Priest"],
    },
    "classic/prince_on_self_discards_and_draws": {
        0: ["You played Prince on yourself", "You discarded Baron"],
        None: ["Ana played Prince on themself", "Ana discarded Baron"],
    },
    "classic/king_swaps_hands": {
        0: ["You swapped hands with Bo: you gave Baron and got Priest"],
        1: ["Ana played King on you", "Ana swapped hands with you: you gave Priest and got Baron"],
        None: ["Ana played King on Bo", "Ana swapped hands with Bo"],
    },
    "classic/countess_played_by_choice": {0: ["You played Countess"]},
    "classic/princess_played_knocks_out": {
        0: ["You played Princess", "You were knocked out, holding Guard"],
        None: ["Ana played Princess", "Ana was knocked out, holding Guard"],
    },
    "2019/spy_winner_and_spy_gains_two_tokens": {
        None: [
            "Ana played Spy",
            "Round over: Ana won (last one standing); tokens: Ana +2 (round win, Spy)",
        ],
    },
    "2019/chancellor_keeps_one_returns_two": {
        0: ["You played Chancellor", "You kept King and put Handmaid, then Baron under the deck"],
        None: ["Ana drew 2 cards to choose from", "Ana put 2 cards under the deck"],
    },
    "2019/chancellor_empty_deck_no_effect": {
        None: ["Ana's Chancellor had no effect: the deck is empty"],
        0: ["Your Chancellor had no effect: the deck is empty"],
    },
    "2019/guard_naming_spy_hits": {None: ["Ana played Guard on Bo, guessed Spy — hit"]},
    "ppea/claire_bonus_for_losing_player_still_in_round": {
        0: ["You played Claire the Spy", "tokens: you +1 (Claire the Spy), Bo +1"],
    },
    "ppea/amira_keeps_one_returns_two_to_bottom": {
        0: [
            "You played Princess Amira",
            "You kept Ghost King and put Guard, then King's Advisors under the deck",
        ],
    },
    "ppea/ghost_king_swaps_hands": {
        2: [
            "Ana played Ghost King on you",
            "Ana swapped hands with you: you gave Claire the Spy and got Guard",
        ],
        None: ["Ana swapped hands with Cy"],
    },
    "ppea/kings_advisors_look_changes_nothing": {0: ["You saw Cy's hand: Oliver the Dragon"]},
    "ppea/palace_librarian_lower_hand_knocked_out": {
        1: ["Ana compared hands with you (Ana's Ghost King vs your Oliver the Dragon): you lost"],
    },
    "ppea/oliver_protects_until_own_next_turn": {
        0: ["You played Oliver the Dragon", "You are protected until your next turn"],
    },
    "ppea/prince_vladric_target_discards_and_draws": {
        1: ["Ana played Prince Vladric on you", "You discarded Ghost King"]
    },
    "ppea/celeste_played_by_choice": {None: ["Ana played Celeste the Unicorn"]},
    "ppea/ogre_played_knocks_out": {0: ["You played Ogre", "You were knocked out, holding Guard"]},
    "ppea/pair_bonus_two_players_in_round_each_gain": {
        None: ["tokens: Ana +1 (pair bonus), Bo +2 (round win, pair bonus)"],
    },
    "premium/assassin_knocks_out_guard_player": {
        0: [
            "You played Guard on Bo, guessed 3 (Baron, Baroness)",
            "Bo revealed the Assassin against your guess",
            "You were knocked out, holding Baron",
        ],
        1: ["You revealed the Assassin against Ana's guess", "You discarded Assassin"],
    },
    "premium/jester_token_when_chosen_player_wins_round": {
        0: ["You played Jester on Bo", "If Bo wins the round, you gain a token"],
        1: ["Ana played Jester on you", "If you win the round, Ana gains a token"],
        None: ["If Bo wins the round, Ana gains a token", "tokens: Ana +1 (Jester), Bo +1"],
    },
    "premium/cardinal_swaps_two_other_players": {
        0: [
            "You played Cardinal on Cy and Di",
            "You made Cy and Di swap hands",
            "You saw Cy's hand: Baron",
        ],
        2: [
            "Ana played Cardinal on you and Di",
            "Ana made you and Di swap hands: you gave Priest and got Baron",
            "Ana looked at your hand",
        ],
        None: ["Ana made Cy and Di swap hands", "Ana looked at Cy's hand"],
    },
    "premium/cardinal_swaps_own_hand_with_another": {
        0: [
            "You played Cardinal on yourself and Ed",
            "You swapped hands with Ed: you gave Count and got King",
            "You saw Ed's hand: Count",
        ],
        None: [
            "Ana played Cardinal on themself and Ed",
            "Ana swapped hands with Ed",
            "Ana looked at Ed's hand",
        ],
    },
    "premium/cardinal_look_is_optional": {
        0: ["You made Cy and Di swap hands", "You chose not to look at a hand"],
        None: ["Ana chose not to look at a hand"],
    },
    "premium/baroness_looks_at_two_players": {
        0: [
            "You played Baroness on Cy and Ed",
            "You saw Cy's hand: Priest",
            "You saw Ed's hand: King",
        ],
        2: [
            "Ana played Baroness on you and Ed",
            "Ana looked at your hand",
            "Ana looked at Ed's hand",
        ],
    },
    "premium/sycophant_forces_next_guard_to_choose_marked": {
        0: ["You played Sycophant on Cy", "The next card that chooses players must choose Cy"],
        2: ["Ana played Sycophant on you", "The next card that chooses players must choose you"],
    },
    "premium/sycophant_marking_own_player": {
        0: [
            "You played Sycophant on yourself",
            "The next card that chooses players must choose you",
        ],
        None: [
            "Ana played Sycophant on themself",
            "The next card that chooses players must choose Ana",
        ],
    },
    "premium/count_adds_one_at_showdown": {
        None: [
            "Ana played Count",
            "Round over: Ana won (Constable 6 + 1 Count = 7 beats King 6); tokens: Ana +1",
        ],
    },
    "premium/two_counts_add_two_at_showdown": {
        1: ["Round over: Ana won (Constable 6 + 2 Counts = 8 beats Countess 7); tokens: Ana +1"],
    },
    "premium/princess_beats_bishop_at_showdown_despite_counts": {
        None: ["Round over: Bo won (Princess beats Bishop); tokens: Bo +1"],
    },
    "classic/tie_broken_by_discard_total": {
        0: ["Round over: Bo won (tie at 5: discards 11 against 9); tokens: Bo +1"],
    },
    "classic/tie_equal_discard_totals_all_win": {
        None: ["Ana and Bo won (tie at 5: discards 10 each); tokens: Ana +1, Bo +1"],
    },
    "2019/tie_all_tied_players_win": {
        None: ["Round over: Ana and Bo won (tie at 1); tokens: Ana +1, Bo +1"],
    },
    "premium/constable_token_when_knocked_out_after_playing_it": {
        1: [
            "You played Constable",
            "You were knocked out, holding Baroness",
            "You gained a token (Constable) and have 1",
        ],
    },
    "premium/dowager_queen_higher_value_knocked_out": {
        1: [
            "Ana played Dowager Queen on you",
            "Ana compared hands with you (Ana's Priest vs your King): you lost",
        ],
    },
    "premium/bishop_hit_gains_token_and_target_redraws": {
        1: [
            "Ana played Bishop on you, guessed 3 (Baron, Baroness) — hit",
            "Ana gained a token (Bishop) and has 1",
            "You chose to discard and draw a new card",
            "You discarded Baron",
        ],
        None: ["Bo chose to discard and draw a new card"],
    },
    "premium/bishop_hit_target_keeps_hand": {
        1: ["You chose to keep your card"],
        None: ["Bo chose to keep their card"],
    },
    "premium/guard_seven_hits_countess": {
        None: ["Ana played Guard on Bo, guessed 7 (Countess, Dowager Queen) — hit"]
    },
}


def _in_order(expected: list[str], lines: list[str]) -> bool:
    """Do `expected` lines appear in `lines` in order (each as a whole line or its end)?"""
    rest = iter(lines)
    return all(any(line == want or line.endswith(want) for line in rest) for want in expected)


@pytest.mark.parametrize("case", sorted(CARD_LINES), ids=str)
def test_each_cards_lines_read_as_sentences_for_each_viewer(case: str) -> None:
    game = _scenario(case)
    for seat, expected in CARD_LINES[case].items():
        log = _log(game, seat)
        assert _in_order(expected, log), f"seat {seat}: {expected} not in {log}"


BOT_NAMES = ("Ana", "medium bot 2", "easy bot 3", "Di", "Ed", "Fay", "Gus", "Hal")
WRONG = [
    re.compile(r"Medium bot|Easy bot"),  # a name never changes case
    re.compile(r"\b[Yy]ou (was|has|is|wins|gains)\b|\byour own\b|\btheir own\b"),
    re.compile(r"^(?P<name>[A-Za-z][\w ]*?) (kept|looked at|compared hands with) (?P=name)\b"),
]


@pytest.mark.parametrize("path", sorted(SCENARIOS.rglob("*.toml")), ids=lambda p: p.stem)
def test_no_line_of_any_scenario_reads_wrong_for_any_viewer(path: Path) -> None:
    game = play_scenario(load_scenario(path))
    assert {KINDS[e.kind] for e in game.events} <= set(SENTENCES), "an event without a sentence"
    for seat in [None, *range(game.players)]:
        names = Names(BOT_NAMES[: game.players], seat, cards_of(game.edition.id))
        for line in narrate(wire_events(game.events, seat), names):
            bad = [rule.pattern for rule in WRONG if rule.search(line.plain)]
            assert not bad, f"seat {seat}: {line.plain!r} matches {bad}"


def test_every_kind_of_the_event_catalogue_has_a_sentence() -> None:
    """The narration knows the kinds the wire schema lists, no more and no fewer."""
    assert {record.KIND for record in SENTENCES} == set(EVENTS)


def test_a_line_is_private_when_it_holds_a_private_field_of_the_catalogue() -> None:
    names = Names(NAMES[:3], 0, {})
    kept = ev.Autoplay(seat=0, reason="timeout", decision="keep")
    (public,) = narrate([kept], names)
    (private,) = narrate([dataclasses.replace(kept, keep="king")], names)
    assert (public.style, private.style) == ("", PRIVATE_STYLE)
    assert private.plain == "Time ran out: a bot kept king for you"  # no card names given


def test_a_sentence_about_you_leaving_starts_with_a_capital() -> None:
    away = ev.Autoplay(seat=1, reason="disconnected", decision="play", card="guard")
    (line,) = narrate([away], Names(["ana", "bo"], you=1))
    assert line.plain == "You left: a bot played guard for you"
