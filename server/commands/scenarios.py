"""Data-driven rule scenarios: load a TOML scenario, run it against the engine, report.

The file format is documented in docs/scenarios.md. `scenario_command` backs `lovelet scenario`.
"""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.engine import EngineError, Game, Keep, Look, Play, Redraw, find_edition

TOP_KEYS = {"edition", "players", "tokens", "round"}
ROUND_KEYS = {"start", "deck", "expect", "step"}
STEP_KEYS = {
    "seat",
    "play",
    "target",
    "targets",
    "guess",
    "keep",
    "bottom",
    "look",
    "redraw",
    "expect",
}
SEAT_SET_KEYS = {"eliminated", "protected", "round_winners", "game_winners"}
BOOL_KEYS = {"round_over", "game_over"}
INT_KEYS = {"deck_size", "turn", "next_start"}
EXPECT_KEYS = (
    SEAT_SET_KEYS
    | BOOL_KEYS
    | INT_KEYS
    | {"hands", "discards", "tokens", "face_up", "awards", "error"}
)


NO_LOOK = "none"  # a step's `look` at neither hand
# why a token was given: a round win, the Princess pair, or the card that gave it
TOKEN_REASONS = {"round", "pair", "spy", "claire", "jester", "bishop", "constable"}


class OneOf(frozenset):
    """An expectation met by any one of its members (`next_start = [0, 2]`)."""


class ScenarioError(ValueError):
    """The scenario file itself is invalid (bad TOML, unknown key, wrong deck, ...)."""


@dataclass(frozen=True)
class Step:
    """One action (or one action sequence) of one seat, and what must hold afterwards."""

    label: str
    seat: int
    play: str | None = None
    targets: tuple[int, ...] = ()
    guess: str | int | None = None
    keep: str | None = None
    bottom: tuple[str, ...] = ()
    look: int | str | None = None  # a seat or NO_LOOK
    redraw: bool | None = None
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Round:
    """A round: its deck (top first), optional starting seat, checks and steps."""

    number: int
    deck: tuple[str, ...]
    start: int | None
    expect: dict[str, Any]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Scenario:
    """A whole validated scenario file."""

    path: str
    edition: str
    players: int
    tokens: tuple[int, ...] | None
    rounds: tuple[Round, ...]


@dataclass(frozen=True)
class Result:
    """Outcome of one scenario file: passed, or the first mismatch / file error."""

    path: str
    passed: bool
    message: str = ""

    def line(self) -> str:
        """One line for the CLI."""
        return f"PASS {self.path}" if self.passed else f"FAIL {self.path}: {self.message}"


class Mismatch(Exception):
    """Raised inside a run at the first expectation that does not hold."""


# --------------------------------------------------------------------------- loading


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raise ScenarioError if it is invalid."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ScenarioError(f"cannot read: {err}") from err
    return parse_scenario(text, str(path))


def parse_scenario(text: str, name: str = "<scenario>") -> Scenario:
    """Parse and validate scenario TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"invalid TOML: {err}") from err
    _check_keys(data, TOP_KEYS, "top level")
    edition_id = _require(data, "edition", str, "top level")
    try:
        edition = find_edition(edition_id)
    except KeyError as err:
        raise ScenarioError(f"unknown edition {edition_id!r}") from err
    players = _require(data, "players", int, "top level")
    if not edition.min_players <= players <= edition.max_players:
        raise ScenarioError(
            f"edition {edition_id} takes {edition.min_players}-{edition.max_players} players,"
            f" not {players}"
        )
    tokens = data.get("tokens")
    if tokens is not None:
        if not (_is_int_list(tokens) and len(tokens) == players):
            raise ScenarioError(f"tokens must list {players} integers")
        tokens = tuple(tokens)
    ctx = _Context(edition, players)
    raw_rounds = data.get("round")
    if not isinstance(raw_rounds, list) or not raw_rounds:
        raise ScenarioError("at least one [[round]] is required")
    rounds = tuple(_parse_round(raw, n, ctx) for n, raw in enumerate(raw_rounds, 1))
    return Scenario(name, edition_id, players, tokens, rounds)


@dataclass(frozen=True)
class _Context:
    edition: Any
    players: int

    @property
    def card_ids(self) -> set[str]:
        return {spec.id for spec in self.edition.cards}

    def card(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in self.card_ids:
            raise ScenarioError(f"{where}: unknown card {value!r}")
        return value

    def seat(self, value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ScenarioError(f"{where}: seat must be an integer, not {value!r}")
        if not 0 <= value < self.players:
            raise ScenarioError(f"{where}: no seat {value} with {self.players} players")
        return value


def _parse_round(raw: Any, number: int, ctx: _Context) -> Round:
    where = f"round {number}"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: must be a table")
    _check_keys(raw, ROUND_KEYS, where)
    deck = raw.get("deck")
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise ScenarioError(f"{where}: deck must be a list of card ids")
    _check_deck(deck, ctx, where)
    start = raw.get("start")
    if start is not None:
        start = ctx.seat(start, f"{where} start")
    expect = _parse_expect(raw.get("expect", {}), ctx, f"{where} expect")
    raw_steps = raw.get("step", [])
    if not isinstance(raw_steps, list):
        raise ScenarioError(f"{where}: step must be an array of tables ([[round.step]])")
    steps = tuple(_parse_step(s, f"{where}, step {i}", ctx) for i, s in enumerate(raw_steps, 1))
    return Round(number, tuple(deck), start, expect, steps)


def _check_deck(deck: list[str], ctx: _Context, where: str) -> None:
    for card in deck:
        ctx.card(card, f"{where} deck")
    want = Counter(getattr(card, "id", card) for card in ctx.edition.deck())
    got = Counter(deck)
    if got != want:
        missing = sorted((want - got).elements())
        extra = sorted((got - want).elements())
        raise ScenarioError(
            f"{where}: deck is not exactly the {ctx.edition.id} cards"
            f" (missing {missing}, extra {extra})"
        )


def _parse_step(raw: Any, where: str, ctx: _Context) -> Step:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: must be a table")
    _check_keys(raw, STEP_KEYS, where)
    seat = ctx.seat(_require(raw, "seat", int, where), where)
    if "target" in raw and "targets" in raw:
        raise ScenarioError(f"{where}: give target or targets, not both")
    targets: tuple[int, ...] = ()
    if "target" in raw:
        targets = (ctx.seat(raw["target"], f"{where} target"),)
    elif "targets" in raw:
        if not isinstance(raw["targets"], list):
            raise ScenarioError(f"{where}: targets must be a list of seats")
        targets = tuple(ctx.seat(t, f"{where} targets") for t in raw["targets"])
    play = ctx.card(raw["play"], f"{where} play") if "play" in raw else None
    guess = _parse_guess(raw["guess"], ctx, where) if "guess" in raw else None
    keep = ctx.card(raw["keep"], f"{where} keep") if "keep" in raw else None
    bottom = raw.get("bottom", [])
    if not isinstance(bottom, list):
        raise ScenarioError(f"{where}: bottom must be a list of card ids")
    bottom = tuple(ctx.card(c, f"{where} bottom") for c in bottom)
    look = _parse_look(raw["look"], ctx, where) if "look" in raw else None
    redraw = raw.get("redraw")
    if redraw is not None and not isinstance(redraw, bool):
        raise ScenarioError(f"{where}: redraw must be true or false")
    _check_step_shape(raw, where)
    expect = _parse_expect(raw.get("expect", {}), ctx, f"{where} expect")
    label = _step_label(where, seat, play, keep, look, redraw)
    return Step(label, seat, play, targets, guess, keep, bottom, look, redraw, expect)


def _parse_look(value: Any, ctx: _Context, where: str) -> int | str:
    """`look`: a seat, or "none" (the Cardinal's player looks at neither hand)."""
    return NO_LOOK if value == NO_LOOK else ctx.seat(value, f"{where} look")


def _parse_guess(value: Any, ctx: _Context, where: str) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ScenarioError(f"{where}: guess must be a card id or a number")
    if isinstance(value, str):
        return ctx.card(value, f"{where} guess")
    return value


def _check_step_shape(raw: dict[str, Any], where: str) -> None:
    """A step plays a card (maybe followed by keep/look), or only keeps/looks/answers."""
    has = {k for k in ("play", "keep", "look", "redraw") if k in raw}
    if not has:
        raise ScenarioError(f"{where}: a step needs play, keep, look or redraw")
    if "redraw" in has and len(has) > 1:
        raise ScenarioError(f"{where}: redraw is a step of its own")
    if "bottom" in raw and "keep" not in raw:
        raise ScenarioError(f"{where}: bottom needs keep")
    if "play" not in raw and {"target", "targets", "guess"} & raw.keys():
        raise ScenarioError(f"{where}: target/targets/guess need play")


def _step_label(
    where: str, seat: int, play: str | None, keep: str | None, look: int | str | None, redraw: Any
) -> str:
    parts = [f"plays {play}"] if play else []
    if keep:
        parts.append(f"keeps {keep}")
    if look is not None:
        parts.append(f"looks at {look}")
    if redraw is not None:
        parts.append(f"redraw={str(redraw).lower()}")
    return f"{where} (seat {seat} {', '.join(parts)})"


def _parse_expect(raw: Any, ctx: _Context, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: must be a table")
    _check_keys(raw, EXPECT_KEYS, where)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        out[key] = _parse_expect_value(key, value, ctx, f"{where}.{key}")
    return out


def _parse_expect_value(key: str, value: Any, ctx: _Context, where: str) -> Any:
    if key in SEAT_SET_KEYS:
        if not isinstance(value, list):
            raise ScenarioError(f"{where}: must be a list of seats")
        return frozenset(ctx.seat(v, where) for v in value)
    if key in BOOL_KEYS:
        if not isinstance(value, bool):
            raise ScenarioError(f"{where}: must be true or false")
        return value
    if key == "next_start" and isinstance(value, list):
        return OneOf(ctx.seat(v, where) for v in value)
    if key in INT_KEYS:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ScenarioError(f"{where}: must be an integer")
        return ctx.seat(value, where) if key != "deck_size" else value
    if key == "tokens":
        if not (_is_int_list(value) and len(value) == ctx.players):
            raise ScenarioError(f"{where}: must list {ctx.players} integers")
        return tuple(value)
    if key == "error":
        if not isinstance(value, str):
            raise ScenarioError(f"{where}: must be a string")
        return value
    if key == "face_up":
        if not isinstance(value, list):
            raise ScenarioError(f"{where}: must be a list of card ids")
        return tuple(ctx.card(c, where) for c in value)
    if key == "awards":
        return _parse_awards(value, ctx, where)
    return _parse_seat_cards(key, value, ctx, where)


def _parse_awards(value: Any, ctx: _Context, where: str) -> dict[int, tuple[str, ...]]:
    """`awards`: a table of seat -> the reasons of its tokens this round, in order."""
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: must be a table of seat = reasons")
    out: dict[int, tuple[str, ...]] = {}
    for seat_text, reasons in value.items():
        try:
            seat = ctx.seat(int(seat_text), where)
        except ValueError as err:
            raise ScenarioError(f"{where}: {seat_text!r} is not a seat") from err
        if not isinstance(reasons, list) or not all(r in TOKEN_REASONS for r in reasons):
            raise ScenarioError(
                f"{where}.{seat_text}: must be a list of {', '.join(sorted(TOKEN_REASONS))}"
            )
        out[seat] = tuple(reasons)
    return out


def _parse_seat_cards(key: str, value: Any, ctx: _Context, where: str) -> dict[int, Any]:
    """`hands` / `discards`: a table of seat -> card or list of cards."""
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: must be a table of seat = card(s)")
    out: dict[int, Any] = {}
    for seat_text, cards in value.items():
        try:
            seat = ctx.seat(int(seat_text), where)
        except ValueError as err:
            raise ScenarioError(f"{where}: {seat_text!r} is not a seat") from err
        if isinstance(cards, str):
            cards = [cards]
        if not isinstance(cards, list):
            raise ScenarioError(f"{where}.{seat_text}: must be a card id or a list of card ids")
        out[seat] = tuple(ctx.card(c, f"{where}.{seat_text}") for c in cards)
    return out


def _check_keys(table: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ScenarioError(
            f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})"
        )


def _require(table: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in table:
        raise ScenarioError(f"{where}: missing key {key!r}")
    value = table[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ScenarioError(f"{where}: {key} must be {kind.__name__}, not {value!r}")
    return value


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


# --------------------------------------------------------------------------- running


def run_scenario(path: str | Path) -> Result:
    """Load and run one scenario file; never raises for a bad file or a failing engine."""
    try:
        scenario = load_scenario(path)
    except ScenarioError as err:
        return Result(str(path), False, f"invalid scenario: {err}")
    return run_loaded(scenario)


def run_loaded(scenario: Scenario) -> Result:
    """Run a validated scenario against a fresh game."""
    try:
        play_scenario(scenario)
    except Mismatch as err:
        return Result(scenario.path, False, str(err))
    return Result(scenario.path, True)


def play_scenario(scenario: Scenario) -> Game:
    """The game a validated scenario plays, once played; Mismatch at the first check failed."""
    try:
        game = _new_game(scenario)
    except Exception as err:
        raise Mismatch(f"cannot create the game: {type(err).__name__}: {err}") from err
    for rnd in scenario.rounds:
        _run_round(game, scenario, rnd)
    return game


def _new_game(scenario: Scenario) -> Game:
    return Game(
        find_edition(scenario.edition),
        players=scenario.players,
        rng=random.Random(0),
        tokens=scenario.tokens,
    )


def _run_round(game: Game, scenario: Scenario, rnd: Round) -> None:
    where = f"round {rnd.number} start"
    try:
        game.start_round(deck=list(rnd.deck), start=rnd.start)
    except Exception as err:
        raise Mismatch(f"{where}: start_round raised {type(err).__name__}: {err}") from err
    _check_expect(game, scenario.players, rnd.expect, where)
    for step in rnd.steps:
        _run_step(game, scenario.players, step)


def _actions(step: Step) -> Iterator[Any]:
    if step.play is not None:
        yield Play(step.play, step.targets, step.guess)
    if step.keep is not None:
        yield Keep(step.keep, step.bottom)
    if step.look is not None:
        yield Look(None if step.look == NO_LOOK else step.look)
    if step.redraw is not None:
        yield Redraw(step.redraw)


def _run_step(game: Game, players: int, step: Step) -> None:
    want_error = step.expect.get("error")
    for action in _actions(step):
        before = _snapshot(game, players)
        try:
            game.act(step.seat, action)
        except EngineError as err:
            _on_rejected(game, players, step, action, err, before)
            _check_expect(game, players, step.expect, step.label)
            return
        except Exception as err:
            raise Mismatch(
                f"{step.label}: engine crashed on {action!r}: {type(err).__name__}: {err}"
            ) from err
    if want_error is not None:
        raise Mismatch(f"{step.label}: expected a rejection ({want_error!r}) but it was accepted")
    _check_expect(game, players, step.expect, step.label)


def _on_rejected(
    game: Game, players: int, step: Step, action: Any, err: EngineError, before: Any
) -> None:
    want = step.expect.get("error")
    if want is None:
        raise Mismatch(f"{step.label}: {action!r} rejected: {err}")
    code = getattr(err, "code", "")
    if want not in str(err) and want not in code:
        raise Mismatch(f"{step.label}: error {want!r} expected, got {code}: {err}")
    if _snapshot(game, players) != before:
        raise Mismatch(f"{step.label}: rejected {action!r} changed the game state")


def _snapshot(game: Game, players: int) -> Any:
    return (
        game.view(None),
        [game.view(seat) for seat in range(players)],
        len(game.events),
    )


# --------------------------------------------------------------------------- observing


def _check_expect(game: Game, players: int, expect: dict[str, Any], where: str) -> None:
    for key, want in expect.items():
        if key == "error":
            continue
        try:
            got = _observe(game, players, key)
        except (AttributeError, KeyError, IndexError, TypeError) as err:
            raise Mismatch(f"{where}: cannot read {key} off the game: {err!r}") from err
        if key in ("hands", "discards"):
            _check_seat_cards(key, want, got, where)
        elif isinstance(want, OneOf):
            if got not in want:
                raise Mismatch(f"{where}: {key}: expected one of {_show(want)}, got {_show(got)}")
        elif got != want:
            raise Mismatch(f"{where}: {key}: expected {_show(want)}, got {_show(got)}")


def _check_seat_cards(
    key: str, want: dict[int, tuple[str, ...]], got: list[list[str]], where: str
) -> None:
    for seat, cards in want.items():
        have = got[seat]
        same = list(cards) == list(have) if key == "discards" else Counter(cards) == Counter(have)
        if not same:
            raise Mismatch(
                f"{where}: {key} of seat {seat}: expected {list(cards)}, got {list(have)}"
            )


def _show(value: Any) -> str:
    if isinstance(value, frozenset | set):
        return str(sorted(value))
    if isinstance(value, tuple):
        return str(list(value))
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)


def _observe(game: Game, players: int, key: str) -> Any:
    """Read one observable off the spectator view (hands: off each seat's own view)."""
    public = game.view(None)
    seats = public.seats
    if key == "eliminated":
        return frozenset(s for s, info in enumerate(seats) if not info.alive)
    if key == "protected":
        return frozenset(s for s, info in enumerate(seats) if info.protected)
    if key in ("round_winners", "game_winners"):
        return frozenset(getattr(public, key))
    if key in ("tokens", "face_up"):
        return tuple(getattr(public, key))
    if key == "discards":
        return [list(info.discards) for info in seats]
    if key == "hands":
        return [list(game.view(seat).hand) for seat in range(players)]
    if key == "awards":
        return _round_awards(game.log(None))
    return getattr(public, key)


def _round_awards(log: list[dict]) -> dict[int, tuple[str, ...]]:
    """Each seat's tokens of the latest round, by reason in order, as the spectators' log
    tells them: `token` events during the round, then the round end's `awards`."""
    starts = [i for i, event in enumerate(log) if event["kind"] == "round_start"]
    awards: dict[int, list[str]] = {}
    for event in log[starts[-1] if starts else 0 :]:
        if event["kind"] == "token":
            awards.setdefault(event["seat"], []).append(event["reason"])
        elif event["kind"] == "round_end":
            for seat, reasons in event["awards"].items():
                awards.setdefault(int(seat), []).extend(reasons)
    return {seat: tuple(reasons) for seat, reasons in awards.items()}


# --------------------------------------------------------------------------- CLI


def scenario_files(paths: list[str]) -> list[Path]:
    """Expand directories to the *.toml files below them, sorted; keep files as given."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("*.toml")) if p.is_dir() else [p])
    return out


def scenario_command(paths: list[str]) -> int:
    """Run scenario files (or directories of them), print one line each; 0 if all pass."""
    files = scenario_files(paths)
    if not files:
        print("usage: lovelet scenario FILE_OR_DIR...")
        return 2
    failed = 0
    for path in files:
        result = run_scenario(path)
        print(result.line())
        failed += not result.passed
    return 1 if failed else 0
