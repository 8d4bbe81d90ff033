"""The game log in plain sentences: one line per event a receiver may see, or none."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rich.text import Text

from lovelet_tui.names import Names, join
from protocol.events import EVENTS

Event = Mapping[str, Any]

PRIVATE_FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, _, flags in fields if "private" in flags)
    for kind, (_, fields) in EVENTS.items()
}
"""Each event kind's private fields (`protocol.events`): a line that has one is private."""
HEADLINES = frozenset({"round_start", "round_end", "game_end"})
REASONS = {"last_standing": "last one standing", "showdown": "highest card"}
NO_EFFECT_WHY = {"no_target": "no one could be chosen", "empty_deck": "the deck is empty"}
# why a token was given, where the reason is not a card's id (see docs/engine.md)
TOKEN_REASONS = {"round": "round win", "pair": "pair bonus"}
PRIVATE_STYLE = "italic"
HEADLINE_STYLE = "bold"


def narrate(events: Iterable[Event], names: Names) -> list[Text]:
    """The log lines for `events`, in order; a Guard's guess joins the line of its play."""
    lines: list[Text] = []
    previous: Event | None = None
    for event in events:
        if previous is not None and _answers(event, previous) and lines:
            lines[-1].append(" — hit" if event.get("hit") else " — miss")
        else:
            sentence = SENTENCES.get(str(event.get("kind")), _unknown)(event, names)
            if sentence:
                lines.append(Text(sentence, style=_style(event)))
        previous = event
    return lines


def _answers(event: Event, play: Event) -> bool:
    """Is `event` the result of the guess named in `play`, its line just before?"""
    return (
        event.get("kind") == "guess"
        and play.get("kind") == "play"
        and event.get("seat") == play.get("seat")
        and [event.get("target")] == list(play.get("targets") or [])
        and event.get("guess") == play.get("guess")
    )


def _style(event: Event) -> str:
    kind = str(event.get("kind"))
    if kind in HEADLINES:
        return HEADLINE_STYLE
    return PRIVATE_STYLE if not PRIVATE_FIELDS.get(kind, frozenset()).isdisjoint(event) else ""


def _actor(event: Event, names: Names) -> str:
    return names.player(event.get("seat"), capital=True)


def _was(seat: int | None, names: Names) -> str:
    return "were" if seat is not None and seat == names.you else "was"


def _round_start(event: Event, names: Names) -> str:
    line = f"Round {event.get('round')}: {names.player(event.get('start'))} to play first"
    face_up = event.get("face_up") or []
    return f"{line}; face up: {names.hand(face_up)}" if face_up else line


def _deal(event: Event, names: Names) -> str | None:
    return f"You were dealt {names.card(event['card'])}" if "card" in event else None


def _draw(event: Event, names: Names) -> str | None:
    source = " (the set-aside card)" if event.get("set_aside") else ""
    if "card" in event:
        return f"You drew {names.card(event['card'])}{source}"
    return f"{_actor(event, names)} drew the set-aside card" if source else None


def _draw_nothing(event: Event, names: Names) -> str:
    return f"{_actor(event, names)} drew nothing: no cards left"


def _play(event: Event, names: Names) -> str:
    seat = event.get("seat")
    line = f"{_actor(event, names)} played {names.card(str(event.get('card')))}"
    targets = list(event.get("targets") or [])
    if targets:
        line += " on " + " and ".join(_target(t, seat, names) for t in targets)
    if event.get("guess") is not None:
        line += f", guessed {names.guess(event['guess'])}"
    return line


def _target(target: Any, seat: int | None, names: Names) -> str:
    if target != seat:
        return names.player(target)
    return "yourself" if seat == names.you else "themself"


def _guess(event: Event, names: Names) -> str:
    result = "hit" if event.get("hit") else "miss"
    target = names.player(event.get("target"))
    return f"{_actor(event, names)} named {names.guess(event.get('guess'))} for {target} — {result}"


def _assassin(event: Event, names: Names) -> str:
    """The event is named after the card revealed."""
    card, guesser = names.card(str(event.get("kind"))), names.whose(event.get("guard"))
    return f"{_actor(event, names)} revealed the {card} against {guesser} guess"


def _look(event: Event, names: Names) -> str:
    whose = names.whose(event.get("target"))
    if "cards" in event:
        return f"You saw {whose} hand: {names.hand(event['cards'])}"
    return f"{_actor(event, names)} looked at {whose} hand"


def _compare(event: Event, names: Names) -> str:
    seat, target = event.get("seat"), event.get("target")
    line = f"{_actor(event, names)} compared hands with {names.player(target)}"
    cards = event.get("cards") or {}
    if cards:
        shown = [f"{names.whose(s)} {names.card(cards.get(str(s), '?'))}" for s in (seat, target)]
        line += f" ({' vs '.join(shown)})"
    loser = event.get("loser")
    return f"{line}: {'a tie' if loser is None else names.player(loser) + ' lost'}"


def _no_look(event: Event, names: Names) -> str:
    return f"{_actor(event, names)} chose not to look at a hand"


def _protected(event: Event, names: Names) -> str:
    seat = event.get("seat")
    if seat is not None and seat == names.you:
        return "You are protected until your next turn"
    return f"{_actor(event, names)} is protected until their next turn"


def _discard(event: Event, names: Names) -> str:
    return f"{_actor(event, names)} discarded {names.card(str(event.get('card')))}"


def _knocked_out(event: Event, names: Names) -> str:
    seat = event.get("seat")
    line = f"{_actor(event, names)} {_was(seat, names)} knocked out"
    cards = event.get("cards") or []
    return f"{line}, holding {names.hand(cards)}" if cards else line


def _swap(event: Event, names: Names) -> str:
    seats = list(event.get("seats") or [])
    actor = event.get("seat")
    if actor in seats and len(seats) == 2:
        other = seats[1] if seats[0] == actor else seats[0]
        line = f"{_actor(event, names)} swapped hands with {names.player(other)}"
    else:  # a Cardinal on two other players: "you" first, as a person says it
        pair = sorted(seats, key=lambda s: s != names.you)
        line = f"{_actor(event, names)} made {names.group(pair)} swap hands"
    cards = event.get("cards") or {}
    if names.you in seats and cards:
        other = next(s for s in seats if s != names.you)
        given, got = cards.get(str(names.you), []), cards.get(str(other), [])
        line += f": you gave {names.hand(given)} and got {names.hand(got)}"
    return line


def _chancellor_draw(event: Event, names: Names) -> str:
    line = f"{_actor(event, names)} drew {_count(event.get('count'))} to choose from"
    return f"{line}: {names.hand(event['cards'])}" if "cards" in event else line


def _chancellor_return(event: Event, names: Names) -> str:
    if "keep" in event:
        bottom = ", then ".join(names.card(card) for card in event.get("bottom") or [])
        return f"You kept {names.card(event['keep'])} and put {bottom} under the deck"
    return f"{_actor(event, names)} put {_count(event.get('count'))} under the deck"


def _count(count: Any) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _marked(event: Event, names: Names) -> str:
    return f"The next card that chooses players must choose {names.player(event.get('target'))}"


def _jester(event: Event, names: Names) -> str:
    target, seat = event.get("target"), event.get("seat")
    wins = "win" if target is not None and target == names.you else "wins"
    gains = "gain" if seat is not None and seat == names.you else "gains"
    return f"If {names.player(target)} {wins} the round, {names.player(seat)} {gains} a token"


def _redraw(event: Event, names: Names) -> str:
    if event.get("redraw"):
        return f"{_actor(event, names)} chose to discard and draw a new card"
    yours = names.you is not None and event.get("seat") == names.you
    return f"{_actor(event, names)} chose to keep {'your' if yours else 'their'} card"


def _token(event: Event, names: Names) -> str:
    seat, count = event.get("seat"), event.get("tokens")
    have = "have" if seat is not None and seat == names.you else "has"
    why = token_reason(str(event.get("reason")), names)
    return f"{_actor(event, names)} gained a token ({why}) and {have} {count}"


def round_awards(events: Iterable[Event]) -> list[tuple[int, str]]:
    """Every token of the latest round in `events` (a log), in the order given, as (seat,
    reason): those gained during the round (`token`), then the round end's (`awards`, by seat)."""
    awards: list[tuple[int, str]] = []
    for event in events:
        kind = event.get("kind")
        if kind == "round_start":
            awards = []
        elif kind == "token":
            awards.append((int(event["seat"]), str(event.get("reason"))))
        elif kind == "round_end":
            for seat, reasons in (event.get("awards") or {}).items():
                awards.extend((int(seat), str(reason)) for reason in reasons)
    return awards


def token_reason(reason: str, names: Names) -> str:
    """Why a token was given, in words: "round win", "pair bonus", or the card's name."""
    return TOKEN_REASONS.get(reason) or names.card(reason)


def _no_effect(event: Event, names: Names) -> str:
    whose = names.whose(event.get("seat"), capital=True)
    line = f"{whose} {names.card(str(event.get('card')))} had no effect"
    why = NO_EFFECT_WHY.get(str(event.get("why")))
    return f"{line}: {why}" if why else line


def _showdown(event: Event, names: Names) -> str:
    hands = event.get("hands") or {}
    shown = [_holds(int(s), c, names) for s, c in hands.items()]
    return f"Showdown: {join(shown)}"


def _holds(seat: int, card: str, names: Names) -> str:
    has = "have" if seat == names.you else "has"
    return f"{names.player(seat)} {has} {names.card(card)}"


def _round_end(event: Event, names: Names) -> str:
    winners = names.group(event.get("winners") or [])
    reason = REASONS.get(str(event.get("reason")), str(event.get("reason")))
    gains = event.get("gains") or {}
    line = f"Round over: {winners} won ({reason})"
    return f"{line}; tokens: {gained(gains, names, event.get('awards'))}" if gains else line


def gained(
    gains: Mapping[str, int], names: Names, awards: Mapping[str, Sequence[str]] | None = None
) -> str:
    """Tokens gained at a round's end, e.g. "Ana +1, you +1", with their reasons when given
    and not just the round's win the sentence tells: "Ana +2 (round win, Spy), you +1 (Jester)"."""
    parts = []
    for seat, count in gains.items():
        part = f"{names.player(int(seat))} +{count}"
        reasons = (awards or {}).get(seat) or ()
        if reasons and list(reasons) != ["round"]:
            part += f" ({', '.join(token_reason(str(r), names) for r in reasons)})"
        parts.append(part)
    return ", ".join(parts)


def _game_end(event: Event, names: Names) -> str:
    return f"Game over: {names.group(event.get('winners') or [])} won the game"


def _autoplay(event: Event, names: Names) -> str:
    who = names.player(event.get("seat"))
    why = f"{who} left" if event.get("reason") == "disconnected" else "Time ran out"
    if "keep" in event:
        return f"{why}: a bot kept {names.card(str(event['keep']))} for {who}"
    if "card" in event:
        return f"{why}: a bot played {names.card(str(event['card']))} for {who}"
    return f"{why}: a bot decided for {who}"


def _unknown(event: Event, names: Names) -> str:
    return str(event.get("kind")).replace("_", " ")


SENTENCES: dict[str, Callable[[Event, Names], str | None]] = {
    "round_start": _round_start,
    "deal": _deal,
    "draw": _draw,
    "draw_nothing": _draw_nothing,
    "play": _play,
    "guess": _guess,
    "assassin": _assassin,
    "look": _look,
    "no_look": _no_look,
    "compare": _compare,
    "protected": _protected,
    "discard": _discard,
    "knocked_out": _knocked_out,
    "swap": _swap,
    "chancellor_draw": _chancellor_draw,
    "chancellor_return": _chancellor_return,
    "marked": _marked,
    "jester": _jester,
    "redraw": _redraw,
    "token": _token,
    "no_effect": _no_effect,
    "showdown": _showdown,
    "round_end": _round_end,
    "game_end": _game_end,
    "autoplay": _autoplay,
}
