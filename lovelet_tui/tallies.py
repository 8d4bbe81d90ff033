"""Rows of a player's record as the stats and profile screens draw them: games per edition,
games played, a rating; names are plain text, never markup."""

from __future__ import annotations

from datetime import datetime

from rich.table import Table
from rich.text import Text

from lovelet_tui.editions import edition_name
from protocol import Catalogue, EditionTally, PlayedGame, RatingInfo

CURSOR = "› "


def cursor_rows(rows: list[Text], cursor: int) -> Text:
    """One row a line, the one at `cursor` marked and shown reversed."""
    marked = [
        Text.assemble(CURSOR if index == cursor else "  ", row) for index, row in enumerate(rows)
    ]
    marked[cursor].stylize("reverse")
    return Text("\n").join(marked)


def moved(cursor: int, delta: int, count: int) -> int:
    """`cursor` moved by `delta` within `count` rows (kept on the first or the last)."""
    return max(0, min(count - 1, cursor + delta))


def title(text: str) -> Text:
    """A section's title."""
    return Text(text, style="bold underline")


def grid(*headers: str) -> Table:
    """A borderless table with these column headers; only "Players" wraps."""
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, header_style="bold")
    for header in headers:
        table.add_column(header, no_wrap=header != "Players")
    return table


def editions_table(editions: tuple[EditionTally, ...], catalogue: Catalogue) -> Table:
    """Games, wins and the share won, one edition a row."""
    table = grid("Edition", "Games", "Wins", "Won")
    for row in editions:
        share = f"{100 * row.wins // row.games}%" if row.games else "-"
        name = edition_name(catalogue, row.edition)
        table.add_row(*map(Text, (name, str(row.games), str(row.wins), share)))
    return table


def games_table(games: tuple[PlayedGame, ...], cursor: int, catalogue: Catalogue) -> Table:
    """A player's games, one a row: when, edition, won or lost, who played; the row at
    `cursor` marked."""
    table = grid("", "Ended (UTC)", "Edition", "Result", "Players")
    for index, game in enumerate(games):
        table.add_row(
            Text(CURSOR if index == cursor else ""),
            Text(when(game.ended_at)),
            Text(edition_name(catalogue, game.edition, short=True)),
            Text("won", style="bold green") if game.won else Text("lost"),
            Text(", ".join(game.players)),
            style="reverse" if index == cursor else "",
        )
    return table


def rating_line(rating: RatingInfo, min_games: int = 0) -> Text:
    """A rating, and how many more rated games put its player on the leaderboard."""
    games = count_of(rating.games, "rated game")
    more = min_games - rating.games
    if more > 0:
        games += f"; {more} more to be on the leaderboard"
    return Text.assemble(
        "Rating ", (str(rating.rating), "bold"), f" ± {rating.uncertainty} ({games})"
    )


def count_of(count: int, what: str) -> str:
    """`3 rated games`, `1 rated game`."""
    return f"{count} {what}{'s' * (count != 1)}"


def when(ended_at: str) -> str:
    """An ISO time as `2025-06-01 20:30`; shown as sent if it does not parse."""
    try:
        return f"{datetime.fromisoformat(ended_at):%Y-%m-%d %H:%M}"
    except ValueError:
        return ended_at
