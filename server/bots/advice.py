"""Hints: the hard bot's choice for a seat, from that seat's view and log only, with a reason
a person can follow, taken from the same beliefs and search that chose it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from server.engine import Choice, Keep, Look, Play, Redraw, Role, View, find_edition

from .estimate import Table
from .hard import Budget, HardBot
from .medium import named_odds

MAX_TEXT = 200  # characters in one line of a hint
CERTAIN = 0.999  # a card this likely is known


@dataclass(frozen=True, slots=True)
class Advice:
    """The choice to make and why, and the next-best choice (None if there is no other)."""

    choice: Choice
    text: str
    alternative: Choice | None
    alternative_text: str | None


def advise(
    view: View, log: list[dict], names: Sequence[str], rng: random.Random, budget: Budget
) -> Advice:
    """What the hard bot would do at the seat of `view`, with the search's `budget`; `log` is
    the seat's visible log, `names` every seat's public name."""
    ranking = HardBot(budget).rank(view, log, rng)
    table = Table.from_view(view, ranking.beliefs)
    words = Words(view, names)
    best = ranking.best
    text = f"{words.choice(best)}: {reason(view, table, best, words, log)}"
    text += f"; {_percent(ranking.chances[0])} to win the game"
    if len(ranking.choices) < 2:
        only = "the only choice" if len(view.choices) == 1 else "nothing else comes close"
        return Advice(best, _line(f"{text} ({only})"), None, None)
    other = ranking.choices[1]
    alternative = f"next best: {words.choice(other)}, {_percent(ranking.chances[1])}"
    return Advice(best, _line(text), other, _line(alternative))


def _percent(chance: float) -> str:
    return f"{round(100 * min(max(chance, 0.0), 1.0))}%"


def _line(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


class Words:
    """Card and seat names as the table shows them, from the edition's reference card."""

    def __init__(self, view: View, names: Sequence[str]) -> None:
        self.cards = {card.id: card.name for card in find_edition(view.edition).cards}
        self.me = view.viewer
        self.names = list(names)

    def card(self, card: str | int | None) -> str:
        """A card's name (a number as it is)."""
        return self.cards.get(card, str(card)) if isinstance(card, str) else str(card)

    def seat(self, seat: int) -> str:
        """A seat's player: "you" for the viewer."""
        if seat == self.me:
            return "yourself"
        return self.names[seat] if seat < len(self.names) else f"seat {seat + 1}"

    def choice(self, choice: Choice) -> str:
        """A choice in a few words: "Guard on Bo naming Priest"."""
        if isinstance(choice, Keep):
            text = f"Keep {self.card(choice.keep)}"
            under = " then ".join(self.card(card) for card in choice.bottom)
            return f"{text}, {under} under the deck" if under else text
        if isinstance(choice, Look):
            seat = choice.seat
            return "Look at no hand" if seat is None else f"Look at {self.seat(seat)}'s hand"
        if isinstance(choice, Redraw):
            return "Redraw" if choice.redraw else "Keep your card"
        text = self.card(choice.card)
        if choice.targets:
            text += " on " + " and ".join(self.seat(s) for s in choice.targets)
        if choice.guess is not None:
            text += f" naming {self.card(choice.guess)}"
        return text


def reason(view: View, table: Table, choice: Choice, words: Words, log: list[dict]) -> str:
    """Why `choice`, in the seat's beliefs: the odds its card's effect works out."""
    if not isinstance(choice, Play):
        return _sub_reason(table, choice, words)
    book, card = table.book, choice.card
    kept = _kept(table.hand, card)
    role = book.role[card]
    targets = [seat for seat in choice.targets if seat != table.me]
    seat = targets[0] if targets else None
    if role is Role.COUNTESS and kept is not None and book.role[kept] in (Role.KING, Role.PRINCE):
        return f"the rules force it beside your {words.card(kept)}"
    if role is Role.PRINCESS:
        return "you are out if you discard her"
    if seat is None:
        return _untargeted(table, role, kept, words, choice)
    who = words.seat(seat)
    if role in (Role.GUARD, Role.BISHOP):
        hit = named_odds(table, seat, choice.guess)
        why = evidence(log, table, seat, words, choice.guess)
        return f"{why}; {_percent(hit)} to hit" if why else f"{_percent(hit)} to hit"
    if role in (Role.BARON, Role.DOWAGER_QUEEN) and kept is not None:
        win = _beats(table, seat, kept, lower_loses=role is Role.BARON)
        return f"your {words.card(kept)} beats {who}'s card {_percent(win)} of the time"
    if role is Role.PRINCE:
        princess = sum(p for c, p in table.dists[seat].items() if book.has(c, Role.PRINCESS))
        return f"{who} discards and draws again ({_percent(princess)} it is the Princess)"
    likeliest = _likeliest(table, seat, words)
    if role is Role.KING:
        return f"you give {who} your {words.card(kept)} for their card ({likeliest})"
    if role in (Role.PRIEST, Role.BARONESS, Role.CARDINAL):
        return f"you know little of {who}'s card ({likeliest})"
    return f"{who}'s card is {likeliest}"


def _untargeted(table: Table, role: str, kept: str | None, words: Words, choice: Play) -> str:
    """Why a play that chooses no other player."""
    held = words.card(kept) if kept is not None else "hand"
    if role is Role.HANDMAID and kept is not None:
        risk = 1 - table.survival(kept)
        return f"no one can target you until your turn ({_percent(risk)} risk to your {held})"
    if role is Role.PRINCE:
        return f"you discard your {held} and draw again"
    if not choice.targets and role in (Role.GUARD, Role.PRIEST, Role.BARON, Role.KING):
        return "every other player is protected: it does nothing"
    if kept is not None:
        return f"you keep your {held} ({_percent(table.win(kept))} to win the round with it)"
    return "it is the best use of your turn"


def _sub_reason(table: Table, choice: Keep | Look | Redraw, words: Words) -> str:
    """Why a Chancellor's keep, a Cardinal's look or a Bishop's redraw."""
    if isinstance(choice, Keep):
        return f"{_percent(table.win(choice.keep))} to win the round holding it"
    if isinstance(choice, Look):
        seat = choice.seat
        if seat is None or seat == table.me or seat not in table.dists:
            return "neither hand tells you anything new"
        return f"you know least of {words.seat(seat)}'s card ({_likeliest(table, seat, words)})"
    held = table.hand[0] if table.hand else None
    if held is None:
        return "it changes nothing"
    return f"your {words.card(held)} wins the round {_percent(table.win(held))} as it is"


def _kept(hand: list[str], card: str) -> str | None:
    rest = list(hand)
    rest.remove(card)
    return rest[0] if rest else None


def _beats(table: Table, seat: int, kept: str, lower_loses: bool) -> float:
    mine = table.book.value[kept]
    return sum(
        p
        for card, p in table.dists[seat].items()
        if table.book.value[card] != mine and (table.book.value[card] < mine) == lower_loses
    )


def _likeliest(table: Table, seat: int, words: Words) -> str:
    dist = table.dists.get(seat) or {}
    if not dist:
        return "unknown"
    card = max(dist, key=dist.__getitem__)
    if dist[card] >= CERTAIN:
        return f"a {words.card(card)} for sure"
    return f"likeliest a {words.card(card)}, {_percent(dist[card])}"


def evidence(
    log: list[dict], table: Table, seat: int, words: Words, named: str | int | None
) -> str:
    """What this seat saw this round that tells most about `seat`'s card, in a few words."""
    who = words.seat(seat)
    certain = max((table.dists.get(seat) or {}).values(), default=0.0) >= CERTAIN
    for event in reversed(_this_round(log)):
        kind = event.get("kind")
        if kind == "look" and event.get("seat") == table.me and event.get("target") == seat:
            return f"you saw {who}'s card"
        if kind == "compare" and seat in (event.get("seat"), event.get("target")):
            loser = event.get("loser")
            if loser is not None and loser != seat:
                return f"{who} won a compare"
            if loser is None and table.me in (event.get("seat"), event.get("target")):
                return f"{who} tied your card"
        if kind == "swap" and seat in (event.get("seats") or ()):
            return f"{who} swapped hands"
        if kind == "play" and event.get("seat") == seat and not certain:
            return f"{who} played {words.card(event.get('card'))} and kept a card"
    if certain:
        return f"only one card fits what {who} did"
    book = table.book
    copies = sum(n for card, n in table.pool.items() if book.named(card, named))
    return f"{copies} of the {sum(table.pool.values())} cards you have not seen"


def _this_round(log: list[dict]) -> list[dict]:
    for index in range(len(log) - 1, -1, -1):
        if log[index].get("kind") == "round_start":
            return log[index:]
    return log
