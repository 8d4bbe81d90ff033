"""The rating rule: openskill's Plackett–Luce model on a scale where a newcomer is 1500 ± 500.

A game is rated when at least two keyed humans finished it. Its keyed humans are rated; bots
take part as fixed reference players (one rating per level, never updated); guests take no
part. Places: the game's winners first, then everyone else by their tokens at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

MU = 1500.0
SIGMA = 500.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=MU / 300)
MIN_RATED_HUMANS = 2
BOT_RATINGS: Mapping[str, tuple[float, float]] = {
    "easy": (1200.0, 150.0),
    "medium": (1500.0, 150.0),
    "hard": (1800.0, 150.0),
}
"""Each bot level's fixed (mu, sigma); an unknown level counts as a newcomer would."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: `mu` the rating, `sigma` its uncertainty (one standard deviation)."""

    mu: float = MU
    sigma: float = SIGMA


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat in a finished game: a keyed human (`identity`) or a bot (`bot_level`)."""

    identity: str | None
    bot_level: str | None
    won: bool
    tokens: int


def is_rated(entrants: Sequence[Entrant]) -> bool:
    """Whether the game changes ratings: two keyed humans at least."""
    return sum(e.identity is not None for e in entrants) >= MIN_RATED_HUMANS


def rate(entrants: Sequence[Entrant], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """The keyed humans' ratings after the game (missing from `before`: a newcomer).

    Empty when the game is not rated. Seats that are neither keyed nor bots are left out.
    """
    if not is_rated(entrants):
        return {}
    playing = [e for e in entrants if e.identity is not None or e.bot_level is not None]
    teams = [[_model_rating(e, before)] for e in playing]
    ranks = [_place(e, playing) for e in playing]
    after = MODEL.rate(teams, ranks=ranks)
    return {
        e.identity: Rating(team[0].mu, team[0].sigma)
        for e, team in zip(playing, after, strict=True)
        if e.identity is not None
    }


def _model_rating(entrant: Entrant, before: Mapping[str, Rating]) -> PlackettLuceRating:
    if entrant.identity is not None:
        known = before.get(entrant.identity, Rating())
        return MODEL.rating(mu=known.mu, sigma=known.sigma)
    mu, sigma = BOT_RATINGS.get(entrant.bot_level or "", (MU, SIGMA))
    return MODEL.rating(mu=mu, sigma=sigma)


def _place(entrant: Entrant, everyone: Sequence[Entrant]) -> int:
    """1 for a winner; otherwise 1 + how many seats did better (ties share a place)."""
    if entrant.won:
        return 1
    return 1 + sum(e.won or e.tokens > entrant.tokens for e in everyone)
