"""The easy bot: random among the legal choices, except those that knock itself out."""

from __future__ import annotations

import random

from server.engine import Choice, Play, Redraw, Role, View

from .cards import CardBook, card_book


class EasyBot:
    """Plays at random, but never discards its own Princess by choice nor names an absent card."""

    level = "easy"

    def choose(self, view: View, log: list[dict], rng: random.Random) -> Choice:
        """A random choice among the sensible ones (any legal one if none is sensible)."""
        choices = view.choices
        book = card_book(view.edition)
        nameable = possible_guesses(view, book)
        sensible = [choice for choice in choices if not reckless(choice, view, book, nameable)]
        return rng.choice(sensible or choices)


def possible_guesses(view: View, book: CardBook) -> set[str | int]:
    """The guesses naming a card this seat has not seen every copy of."""
    unseen = [card for card, count in view.unseen.items() if count]
    return {guess for guess in book.guesses if any(book.named(card, guess) for card in unseen)}


def reckless(choice: Choice, view: View, book: CardBook, nameable: set[str | int]) -> bool:
    """Whether `choice` knocks the bot's own seat out for sure, or names a card nobody can
    hold (`nameable`: the guesses that can hit)."""
    hand = view.hand
    if isinstance(choice, Redraw):
        return choice.redraw and any(book.has(card, Role.PRINCESS) for card in hand)
    if not isinstance(choice, Play):
        return False
    card = choice.card
    if book.has(card, Role.PRINCESS):
        return True
    if book.has(card, Role.PRINCE) and view.viewer in choice.targets:
        kept = list(hand)
        kept.remove(card)
        return any(book.has(other, Role.PRINCESS) for other in kept)
    return choice.guess is not None and choice.guess not in nameable
