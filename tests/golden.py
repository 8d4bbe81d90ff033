"""Golden playthroughs, in the manner of OpenSpiel's: seeded games written out step by step.

For each game in GAMES, a text file in tests/golden/ holds, at every decision: what every seat
and a spectator see (the fields of their views that changed since the step before, and the
events they may see since then; what all of them see alike written once), the legal choices
and the one taken (uniformly at random from a seeded generator). A change to
the engine that changes any of it shows as a diff. tests/test_golden.py replays and compares;
after an intended change, regenerate the files and review the diff:

    .venv/bin/python tests/golden.py
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from server.engine import EDITIONS, Game
from server.engine.choices import Choice, Decision, Keep, Look, Play, Redraw, choice_to_dict

GOLDEN = Path(__file__).resolve().parent / "golden"
GAMES = [
    ("classic", 2, 2),
    ("classic", 3, 7),
    ("2019", 2, 4),
    ("2019", 4, 3),
    ("premium", 5, 7),
    ("ppea", 2, 4),
    ("ppea", 3, 3),
]
"""(edition, players, seed) of each recorded game: seeds of short games, to keep the files
small."""
CATALOGUE = "cards"
"""The edition's reference card (the catalogue's, not in any view): written once at the top."""


def path_of(edition: str, players: int, seed: int) -> Path:
    """Where the playthrough of this game is kept."""
    return GOLDEN / f"{edition}-{players}p-seed{seed}.txt"


def playthrough(edition: str, players: int, seed: int) -> str:
    """The whole game as text, ending with a newline."""
    return "".join(line + "\n" for line in _lines(edition, players, seed))


def _lines(edition: str, players: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    game = Game(EDITIONS[edition], players, rng)
    viewers: list[int | None] = [*range(players), None]
    seen = Seen({viewer: 0 for viewer in viewers}, {viewer: {} for viewer in viewers})
    yield f"# {edition}, {players} players, seed {seed}: regenerate with tests/golden.py"
    yield f"{CATALOGUE}: {_json(game.edition.reference)}"
    step = 0
    while not game.game_over:
        game.start_round()
        while not game.round_over:
            decision = game.pending
            assert decision is not None
            choice = rng.choice(decision.choices)
            step += 1
            yield ""
            yield f"step {step}: seat {decision.seat} decides ({decision.kind})"
            yield from _views(game, viewers, seen, decision)
            yield from _choices(decision, choice)
            game.act(decision.seat, choice)
    yield ""
    yield "end"
    yield from _views(game, viewers, seen, None)


@dataclass(frozen=True, slots=True)
class Seen:
    """Per viewer: how many events it was shown, and its view at the step before."""

    events: dict[int | None, int]
    views: dict[int | None, dict]


def _views(
    game: Game, viewers: list[int | None], seen: Seen, decision: Decision | None
) -> Iterator[str]:
    """The events since the step before, then each viewer's changed view fields: those all of
    them see alike once ("everyone"), then each one's own.

    The choices in the views are checked, not written: the deciding seat's are the legal ones
    (written below them), everyone else's are none."""
    logs, news = {}, {}
    for viewer in viewers:
        logs[viewer] = game.log(viewer, seen.events[viewer])
        seen.events[viewer] += len(logs[viewer])
        view = asdict(game.view(viewer))
        deciding = decision is not None and viewer == decision.seat
        legal = [choice_to_dict(c) for c in decision.choices] if deciding else []
        assert [choice_to_dict(c) for c in view.pop("choices")] == legal, viewer
        before, seen.views[viewer] = seen.views[viewer], view
        news[viewer] = {k: v for k, v in view.items() if before.get(k, ...) != v}
    for index in range(len(logs[viewers[0]])):
        yield f"  event: {_alike({viewer: log[index] for viewer, log in logs.items()})}"
    first = news[viewers[0]]
    shared = {k: v for k, v in first.items() if all(n.get(k, ...) == v for n in news.values())}
    yield f"  everyone: {_json(shared)}"
    for viewer, new in news.items():
        own = {k: v for k, v in new.items() if k not in shared}
        yield f"  {_name(viewer)}: {_json(own)}"


def _alike(seen_as: dict[int | None, dict]) -> str:
    """One event as each viewer saw it: once if all saw it alike, else per group of viewers."""
    groups: dict[str, list[str]] = {}
    for viewer, event in seen_as.items():
        groups.setdefault(_json(event), []).append(_name(viewer))
    if len(groups) == 1:
        return next(iter(groups))
    return " · ".join(f"{', '.join(names)} {text}" for text, names in groups.items())


def _name(viewer: int | None) -> str:
    return "spectator" if viewer is None else f"seat {viewer}"


def _choices(decision: Decision, choice: Choice) -> Iterator[str]:
    yield f"  legal: {' | '.join(_choice(c) for c in decision.choices)}"
    yield f"  action: {_choice(choice)}"


def _choice(choice: Choice) -> str:
    """`guard →1 ?priest` (play the Guard on seat 1, naming the Priest), `keep baron ↓guard,spy`
    (Chancellor: keep the Baron, these to the bottom), `look 2` or `look none`, `redraw yes`."""
    match choice:
        case Play(card, targets, guess):
            seats = f" →{','.join(map(str, targets))}" if targets else ""
            named = f" ?{guess}" if guess is not None else ""
            return f"{card}{seats}{named}"
        case Keep(keep, bottom):
            return f"keep {keep} ↓{','.join(bottom)}"
        case Look(seat):
            return f"look {'none' if seat is None else seat}"
        case Redraw(redraw):
            return f"redraw {'yes' if redraw else 'no'}"
    raise AssertionError(f"unknown choice {choice!r}")


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def main() -> int:
    """Write every playthrough; print each file and its size."""
    GOLDEN.mkdir(exist_ok=True)
    for edition, players, seed in GAMES:
        path = path_of(edition, players, seed)
        path.write_text(playthrough(edition, players, seed))
        print(f"{path.relative_to(GOLDEN.parent.parent)}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
