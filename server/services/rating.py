"""The rating rule: openskill's Plackett–Luce model on a scale where a newcomer is 1500 ± 500.

A game is rated when at least two keyed humans finished it. Its keyed humans are rated; bots
take part as fixed reference players (one rating per level, never updated); guests and
programs on the bot API take no part. Places: the game's winners first, then everyone else by
their tokens at the end.

The bot ladder is a second, separate rating: a game with a program on the bot API in it rates
its programs (by key) and the server's bots (one player per level, `bot:LEVEL`, starting from
its reference rating); humans take no part. A level with several seats in one game takes the
mean of their new ratings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

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
    api_bot: bool = False  # a program on the bot API (keyed by `identity`)

    @property
    def human(self) -> bool:
        """A keyed person (not a guest, a bot or a program)."""
        return self.identity is not None and not self.api_bot

    @property
    def ladder_key(self) -> str | None:
        """Who this seat is on the bot ladder: a program's key, `bot:LEVEL`, or None."""
        if self.api_bot:
            return self.identity
        return None if self.bot_level is None else f"{BOT_PREFIX}{self.bot_level}"


BOT_PREFIX = "bot:"
"""The bot ladder's key of a server bot level: `bot:medium`."""


def is_rated(entrants: Sequence[Entrant]) -> bool:
    """Whether the game changes ratings: two keyed humans at least."""
    return sum(e.human for e in entrants) >= MIN_RATED_HUMANS


def is_laddered(entrants: Sequence[Entrant]) -> bool:
    """Whether the game changes the bot ladder: a program and someone else on it."""
    on_ladder = [e for e in entrants if e.ladder_key is not None]
    return any(e.api_bot for e in on_ladder) and len(on_ladder) >= 2


def ladder_start(key: str) -> Rating:
    """Where `key` starts on the bot ladder: a server bot at its level's reference rating."""
    if key.startswith(BOT_PREFIX):
        mu, sigma = BOT_RATINGS.get(key.removeprefix(BOT_PREFIX), (MU, SIGMA))
        return Rating(mu, sigma)
    return Rating()


def rate_ladder(entrants: Sequence[Entrant], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """The bot ladder's ratings after the game, by ladder key (empty: not on the ladder)."""
    if not is_laddered(entrants):
        return {}
    playing = [e for e in entrants if e.ladder_key is not None]
    keys = [e.ladder_key or "" for e in playing]
    known = [before.get(key) or ladder_start(key) for key in keys]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in known]
    after = MODEL.rate(teams, ranks=[_place(e, playing) for e in playing])
    new: dict[str, list[Rating]] = {}
    for key, team in zip(keys, after, strict=True):
        new.setdefault(key, []).append(Rating(team[0].mu, team[0].sigma))
    return {
        key: Rating(fmean(r.mu for r in rs), fmean(r.sigma for r in rs)) for key, rs in new.items()
    }


def rate(entrants: Sequence[Entrant], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """The keyed humans' ratings after the game (missing from `before`: a newcomer).

    Empty when the game is not rated. Seats that are neither keyed nor bots are left out.
    """
    if not is_rated(entrants):
        return {}
    playing = [e for e in entrants if e.human or e.bot_level is not None]
    teams = [[_model_rating(e, before)] for e in playing]
    ranks = [_place(e, playing) for e in playing]
    after = MODEL.rate(teams, ranks=ranks)
    return {
        e.identity: Rating(team[0].mu, team[0].sigma)
        for e, team in zip(playing, after, strict=True)
        if e.identity is not None and e.human
    }


def _model_rating(entrant: Entrant, before: Mapping[str, Rating]) -> PlackettLuceRating:
    if entrant.identity is not None and entrant.human:
        known = before.get(entrant.identity, Rating())
        return MODEL.rating(mu=known.mu, sigma=known.sigma)
    mu, sigma = BOT_RATINGS.get(entrant.bot_level or "", (MU, SIGMA))
    return MODEL.rating(mu=mu, sigma=sigma)


def _place(entrant: Entrant, everyone: Sequence[Entrant]) -> int:
    """1 for a winner; otherwise 1 + how many seats did better (ties share a place)."""
    if entrant.won:
        return 1
    return 1 + sum(e.won or e.tokens > entrant.tokens for e in everyone)
