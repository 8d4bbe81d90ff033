"""One catalogue, sent by the server: the app has no edition, card or bot-level data of its own,
and shows whatever catalogue its welcome carried."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from test_tui_support import CATALOGUE, FakeLink, screen_text, served, table_info

from protocol import (
    AddBot,
    BotSpec,
    CardInfo,
    Catalogue,
    CreateTable,
    EditionInfo,
    RemoveBot,
    SeatInfo,
    TableState,
    encode,
)
from server.bots import LEVELS
from server.engine import EDITIONS

ROOT = Path(__file__).resolve().parent.parent
CLIENT_SIDE = ("lovelet_tui", "protocol")  # the app, and the protocol it reads lists from
SIZE = (100, 30)

VOCABULARY = {
    "count": "a reference card's field (copies in the deck)",
    "guard": "the `assassin` event's field: the seat whose Guard was turned back",
    "assassin": "an event kind, named after the card",
    "jester": "an event kind and a view field, named after the card",
    "chancellor": "a pending decision's kind",
}
"""Protocol words that happen to equal a card id: what the app reads, not data it holds."""


def catalogue_words(catalogue: Catalogue) -> tuple[set[str], re.Pattern[str]]:
    """(strings that are an edition's or card's id or name, or a bot level; a pattern finding
    a card's or edition's name as a word inside longer text)."""
    editions, cards = catalogue.editions, [c for e in catalogue.editions for c in e.cards]
    exact = {e.id for e in editions} | {e.name for e in editions} | {e.short for e in editions}
    exact |= {c.id for c in cards} | {c.name for c in cards} | set(catalogue.bot_levels)
    names = sorted({c.name for c in cards} | {e.name for e in editions}, key=len, reverse=True)
    return exact - VOCABULARY.keys(), re.compile(rf"\b({'|'.join(map(re.escape, names))})\b")


def string_literals(tree: ast.Module) -> Iterator[ast.Constant]:
    """Every string constant but docstrings (they may explain with an example)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node


def catalogue_literals(source: str, catalogue: Catalogue = CATALOGUE) -> list[str]:
    """The string literals in `source` that copy something the catalogue holds."""
    exact, names = catalogue_words(catalogue)
    return [
        node.value
        for node in string_literals(ast.parse(source))
        if node.value in exact or names.search(node.value)
    ]


def test_the_app_holds_no_edition_card_or_bot_level_of_its_own() -> None:
    paths = sorted(path for package in CLIENT_SIDE for path in (ROOT / package).rglob("*.py"))
    found = {
        str(path.relative_to(ROOT)): hits
        for path in paths
        if (hits := catalogue_literals(path.read_text(encoding="utf-8")))
    }
    assert not found, f"read these from the catalogue the server sends: {found}"


def test_the_scan_finds_a_copied_edition_card_or_level() -> None:
    source = '''
"""A docstring may say Guard and 2019."""
DEFAULT = "2019"
LEVELS = ("easy", "hard")
ASK = frozenset({"princess"})
LINE = f"revealed the Assassin to {who}"
'''
    assert sorted(catalogue_literals(source)) == [
        "2019",
        "easy",
        "hard",
        "princess",
        "revealed the Assassin to ",
    ]


def test_the_catalogue_is_the_engines_editions_and_the_bots_levels() -> None:
    assert [e.id for e in CATALOGUE.editions] == list(EDITIONS)
    assert CATALOGUE.bot_levels == LEVELS
    for info in CATALOGUE.editions:
        edition = EDITIONS[info.id]
        assert (info.name, info.short, info.rules) == (edition.name, edition.short, edition.rules)
        assert [c.id for c in info.cards] == [c.id for c in edition.cards]
        assert sum(c.count for c in info.cards) == len(edition.full_deck)


# A server with one more edition and one more bot level: nothing in the app changes.
DUEL = EditionInfo(
    "duel",
    "Love Letter Duel",
    "Duel",
    2,
    3,
    "Two or three play a short game.",
    (
        CardInfo("sword", "Sword", 1, 4, "Name a card; a hit is out."),
        CardInfo("crown", "Crown", 5, 1, "Play it and you are out.", out_if_played=True),
    ),
)
EMPTY = SeatInfo(None, None, False)
EXTENDED = dataclasses.replace(
    CATALOGUE,
    editions=(*CATALOGUE.editions, DUEL),
    bot_levels=(*CATALOGUE.bot_levels, "grandmaster"),
    default_edition="duel",
)


async def test_the_form_offers_an_edition_and_a_bot_level_only_the_catalogue_has() -> None:
    link = FakeLink(EXTENDED)
    app = served(link, "Ana")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        text = screen_text(app)
        assert "Love Letter Duel" in text and "‹ 4 ›" not in text  # 2-3 players: 3 offered
        await pilot.press("tab", "tab", "tab", "right")  # bots: 1
        await pilot.press("tab", *["right"] * 3)  # bot level: the catalogue's last
        assert "grandmaster" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
    bots = (BotSpec(1, "grandmaster"),)
    sent = CreateTable("Ana's table", "duel", 3, 90, bots, bot_level="grandmaster")
    assert link.sent[1:] == [sent]


async def test_rules_help_and_the_table_read_the_catalogue() -> None:
    link = FakeLink(EXTENDED)
    app = served(link, "Ana")
    seats = (SeatInfo("Ana", None, True), SeatInfo("hard bot 2", "hard", True), EMPTY)
    info = dataclasses.replace(table_info(None, 0, seats=seats), edition="duel")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.deliver(encode(TableState(info)))
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert (
            "T1 · Friday game · Duel" in text
            and "easy → medium → hard → grandmaster → none" in text
        )
        await pilot.press("down", "b")  # the hard bot's seat: the next level is the new one
        await pilot.press("question_mark", "r")
        await pilot.pause()
        text = screen_text(app)
        assert "Two or three play a short game." in text and "Play it and you are out." in text
    assert link.sent[1:] == [RemoveBot(1), AddBot(1, "grandmaster")]
