"""The game log in plain sentences: one line per event a receiver may see, or none."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rich.text import Text

from lovelet_tui.names import Names, join
from protocol import events as ev
from protocol.events import EVENTS, Event

PRIVATE_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name, _, flags in fields if "private" in flags)
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
    showdown: ev.Showdown | None = None
    for event in events:
        if isinstance(event, ev.Showdown):
            showdown = event
        if isinstance(event, ev.Guess) and _answers(event, previous) and lines:
            lines[-1].append(" — hit" if event.hit else " — miss")
        else:
            if isinstance(event, ev.RoundEnd):
                sentence: str | None = _round_end(event, names, showdown)
            else:
                sentence = SENTENCES[type(event)](event, names)
            if sentence:
                lines.append(Text(sentence, style=_style(event)))
        previous = event
    return lines


def _answers(event: ev.Guess, play: Event | None) -> bool:
    """Is `event` the result of the guess named in `play`, its line just before?"""
    return (
        isinstance(play, ev.Play)
        and event.seat == play.seat
        and (event.target,) == play.targets
        and event.guess == play.guess
    )


def _style(event: Event) -> str:
    kind = event.KIND
    if kind in HEADLINES:
        return HEADLINE_STYLE
    private = any(getattr(event, name) is not None for name in PRIVATE_FIELDS[kind])
    return PRIVATE_STYLE if private else ""


def _actor(event: Event, names: Names) -> str:
    return names.player(event.seat, capital=True)


def _was(seat: int | None, names: Names) -> str:
    return "were" if seat is not None and seat == names.you else "was"


def _round_start(event: ev.RoundStart, names: Names) -> str:
    line = f"Round {event.round}: {names.player(event.start)} to play first"
    return f"{line}; face up: {names.hand(event.face_up)}" if event.face_up else line


def _deal(event: ev.Deal, names: Names) -> str | None:
    return f"You were dealt {names.card(event.card)}" if event.card is not None else None


def _draw(event: ev.Draw, names: Names) -> str | None:
    source = " (the set-aside card)" if event.set_aside else ""
    if event.card is not None:
        return f"You drew {names.card(event.card)}{source}"
    return f"{_actor(event, names)} drew the set-aside card" if source else None


def _draw_nothing(event: ev.DrawNothing, names: Names) -> str:
    return f"{_actor(event, names)} drew nothing: no cards left"


def _play(event: ev.Play, names: Names) -> str:
    line = f"{_actor(event, names)} played {names.card(event.card)}"
    if event.targets:
        line += " on " + " and ".join(_target(t, event.seat, names) for t in event.targets)
    if event.guess is not None:
        line += f", guessed {names.guess(event.guess)}"
    return line


def _target(target: int, seat: int | None, names: Names) -> str:
    if target != seat:
        return names.player(target)
    return "yourself" if seat == names.you else "themself"


def _guess(event: ev.Guess, names: Names) -> str:
    result = "hit" if event.hit else "miss"
    target = names.player(event.target)
    return f"{_actor(event, names)} named {names.guess(event.guess)} for {target} — {result}"


def _assassin(event: ev.Assassin, names: Names) -> str:
    """The event is named after the card revealed."""
    card, guesser = names.card(event.KIND), names.whose(event.guard)
    return f"{_actor(event, names)} revealed the {card} against {guesser} guess"


def _look(event: ev.Look, names: Names) -> str:
    whose = names.whose(event.target)
    if event.cards is not None:
        return f"You saw {whose} hand: {names.hand(event.cards)}"
    return f"{_actor(event, names)} looked at {whose} hand"


def _compare(event: ev.Compare, names: Names) -> str:
    seat, target = event.seat, event.target
    line = f"{_actor(event, names)} compared hands with {names.player(target)}"
    cards = event.cards or {}
    if cards:
        shown = [f"{names.whose(s)} {names.card(cards.get(str(s), '?'))}" for s in (seat, target)]
        line += f" ({' vs '.join(shown)})"
    loser = event.loser
    return f"{line}: {'a tie' if loser is None else names.player(loser) + ' lost'}"


def _no_look(event: ev.NoLook, names: Names) -> str:
    return f"{_actor(event, names)} chose not to look at a hand"


def _protected(event: ev.Protected, names: Names) -> str:
    if event.seat == names.you:
        return "You are protected until your next turn"
    return f"{_actor(event, names)} is protected until their next turn"


def _discard(event: ev.Discard, names: Names) -> str:
    return f"{_actor(event, names)} discarded {names.card(event.card)}"


def _knocked_out(event: ev.KnockedOut, names: Names) -> str:
    line = f"{_actor(event, names)} {_was(event.seat, names)} knocked out"
    return f"{line}, holding {names.hand(event.cards)}" if event.cards else line


def _swap(event: ev.Swap, names: Names) -> str:
    seats, actor = list(event.seats), event.seat
    if actor in seats and len(seats) == 2:
        other = seats[1] if seats[0] == actor else seats[0]
        line = f"{_actor(event, names)} swapped hands with {names.player(other)}"
    else:  # a Cardinal on two other players: "you" first, as a person says it
        pair = sorted(seats, key=lambda s: s != names.you)
        line = f"{_actor(event, names)} made {names.group(pair)} swap hands"
    cards = event.cards or {}
    if names.you in seats and cards:
        other = next(s for s in seats if s != names.you)
        given, got = cards.get(str(names.you), ()), cards.get(str(other), ())
        line += f": you gave {names.hand(given)} and got {names.hand(got)}"
    return line


def _chancellor_draw(event: ev.ChancellorDraw, names: Names) -> str:
    line = f"{_actor(event, names)} drew {_count(event.count)} to choose from"
    return f"{line}: {names.hand(event.cards)}" if event.cards is not None else line


def _chancellor_return(event: ev.ChancellorReturn, names: Names) -> str:
    if event.keep is not None:
        bottom = ", then ".join(names.card(card) for card in event.bottom or ())
        return f"You kept {names.card(event.keep)} and put {bottom} under the deck"
    return f"{_actor(event, names)} put {_count(event.count)} under the deck"


def _count(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _marked(event: ev.Marked, names: Names) -> str:
    return f"The next card that chooses players must choose {names.player(event.target)}"


def _jester(event: ev.Jester, names: Names) -> str:
    target, seat = event.target, event.seat
    wins = "win" if target == names.you else "wins"
    gains = "gain" if seat == names.you else "gains"
    return f"If {names.player(target)} {wins} the round, {names.player(seat)} {gains} a token"


def _redraw(event: ev.Redraw, names: Names) -> str:
    if event.redraw:
        return f"{_actor(event, names)} chose to discard and draw a new card"
    yours = names.you is not None and event.seat == names.you
    return f"{_actor(event, names)} chose to keep {'your' if yours else 'their'} card"


def _token(event: ev.Token, names: Names) -> str:
    have = "have" if event.seat == names.you else "has"
    why = token_reason(event.reason, names)
    return f"{_actor(event, names)} gained a token ({why}) and {have} {event.tokens}"


def round_awards(events: Iterable[Event]) -> list[tuple[int, str]]:
    """Every token of the latest round in `events` (a log), in the order given, as (seat,
    reason): those gained during the round (`token`), then the round end's (`awards`, by seat)."""
    awards: list[tuple[int, str]] = []
    for event in events:
        if isinstance(event, ev.RoundStart):
            awards = []
        elif isinstance(event, ev.Token):
            awards.append((event.seat, event.reason))
        elif isinstance(event, ev.RoundEnd):
            for seat, reasons in event.awards.items():
                awards.extend((int(seat), reason) for reason in reasons)
    return awards


def token_reason(reason: str, names: Names) -> str:
    """Why a token was given, in words: "round win", "pair bonus", or the card's name."""
    return TOKEN_REASONS.get(reason) or names.card(reason)


def _no_effect(event: ev.NoEffect, names: Names) -> str:
    whose = names.whose(event.seat, capital=True)
    line = f"{whose} {names.card(event.card)} had no effect"
    why = NO_EFFECT_WHY.get(event.why)
    return f"{line}: {why}" if why else line


def _showdown(event: ev.Showdown, names: Names) -> str:
    shown = [_holds(int(s), c, names) for s, c in event.hands.items()]
    return f"Showdown: {join(shown)}"


def _holds(seat: int, card: str, names: Names) -> str:
    has = "have" if seat == names.you else "has"
    return f"{names.player(seat)} {has} {names.card(card)}"


def _round_end(event: ev.RoundEnd, names: Names, showdown: ev.Showdown | None = None) -> str:
    winners = names.group(event.winners)
    line = f"Round over: {winners} won ({round_reason(event, showdown, names)})"
    return f"{line}; tokens: {gained(event.gains, names, event.awards)}" if event.gains else line


def round_reason(end: ev.RoundEnd, showdown: ev.Showdown | None, names: Names) -> str:
    """Why the round's winners won: "last one standing", or the showdown's numbers, e.g.
    "Dowager Queen 7 + 2 Counts = 9 beats Princess 8", "tie at 8: discards 14 against 13"."""
    if end.reason != "showdown" or showdown is None:
        return REASONS.get(end.reason, end.reason)
    scores = {int(seat): score for seat, score in showdown.scores.items()}
    won = [seat for seat in end.winners if seat in scores]
    if not won:
        return REASONS["showdown"]
    tied = [seat for seat, score in scores.items() if score == scores[won[0]]]
    others = [seat for seat in scores if seat not in tied]
    if len(tied) > 1:
        why = [_tie(scores[won[0]], tied, won, showdown)]
    elif others:
        runner = max(others, key=scores.__getitem__)
        why = [f"{_score(won[0], showdown, names)} beats {_score(runner, showdown, names)}"]
    else:
        why = [] if showdown.outranked else [_score(won[0], showdown, names)]
    for seat, card in showdown.outranked.items():
        why.append(f"{names.card(card)} beats {names.card(showdown.hands[seat])}")
    return "; ".join(why)


def _score(seat: int, showdown: ev.Showdown, names: Names) -> str:
    """A shown hand and its value: "Princess 8", "Dowager Queen 7 + 2 Counts = 9"."""
    card = names.card(showdown.hands[str(seat)])
    score = showdown.scores[str(seat)]
    counts = showdown.counts.get(str(seat), 0)
    if not counts:
        return f"{card} {score}"
    plural = "s" if counts > 1 else ""
    return f"{card} {score - counts} + {counts} {names.card('count')}{plural} = {score}"


def _tie(score: int, tied: list[int], won: list[int], showdown: ev.Showdown) -> str:
    """A tie at the top, and how the discards broke it (if the edition breaks it so):
    "tie at 8: discards 14 against 13", "tie at 5: discards 9 each"."""
    totals = {int(seat): total for seat, total in showdown.discards.items()}
    if not totals:
        return f"tie at {score}"
    line = f"tie at {score}: discards {totals[won[0]]}{' each' if len(won) > 1 else ''}"
    beaten = sorted((totals[seat] for seat in tied if seat not in won), reverse=True)
    return f"{line} against {join([str(total) for total in beaten])}" if beaten else line


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


def _game_end(event: ev.GameEnd, names: Names) -> str:
    return f"Game over: {names.group(event.winners)} won the game"


def _autoplay(event: ev.Autoplay, names: Names) -> str:
    who = names.player(event.seat)
    why = f"{names.player(event.seat, capital=True)} left"
    why = why if event.reason == "disconnected" else "Time ran out"
    if event.keep is not None:
        return f"{why}: a bot kept {names.card(event.keep)} for {who}"
    if event.card is not None:
        return f"{why}: a bot played {names.card(event.card)} for {who}"
    return f"{why}: a bot decided for {who}"


def _hint(event: ev.Hint, names: Names) -> str:
    return f"{names.player(event.seat, capital=True)} used a hint"


SENTENCES: dict[type[Event], Callable[[Any, Names], str | None]] = {
    ev.RoundStart: _round_start,
    ev.Deal: _deal,
    ev.Draw: _draw,
    ev.DrawNothing: _draw_nothing,
    ev.Play: _play,
    ev.Guess: _guess,
    ev.Assassin: _assassin,
    ev.Look: _look,
    ev.NoLook: _no_look,
    ev.Compare: _compare,
    ev.Protected: _protected,
    ev.Discard: _discard,
    ev.KnockedOut: _knocked_out,
    ev.Swap: _swap,
    ev.ChancellorDraw: _chancellor_draw,
    ev.ChancellorReturn: _chancellor_return,
    ev.Marked: _marked,
    ev.Jester: _jester,
    ev.Redraw: _redraw,
    ev.Token: _token,
    ev.NoEffect: _no_effect,
    ev.Showdown: _showdown,
    ev.RoundEnd: _round_end,
    ev.GameEnd: _game_end,
    ev.Autoplay: _autoplay,
    ev.Hint: _hint,
}
"""The sentence of each kind of event (None: nothing to show this receiver)."""
