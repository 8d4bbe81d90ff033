"""The short rules every edition shares: how a turn and a round go. Each edition adds its own."""

from __future__ import annotations

import re

FLOW = """\
Each player holds one card. On your turn draw a card, then play one of your two cards face up
and do what it says. Cards played stay in front of you, in order, for everyone to see.
Knocked-out players reveal their hand and sit out the rest of the round.
The round ends when one player is left, or after a turn that empties the deck: then the
highest card wins. Round winners gain a favor token; enough tokens win the game.
A protected player (Handmaid) cannot be chosen until their next turn. If every other player
is protected, a card that must choose another player is played with no effect."""


def rules(own: str) -> str:
    """The shared flow, then the edition's `own` rules, as paragraphs (source lines joined, so
    a screen wraps them to its width)."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", f"{FLOW}\n\n{own.strip()}")
