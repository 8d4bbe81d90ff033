"""Make client-supplied strings safe to show on other players' terminals.

Every string that came from a client (SSH username, TERM, chat, names) passes through here
before it is stored or displayed: control characters, escape sequences, bidirectional
overrides and other invisible code points are removed, whitespace is normalised.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from rich.cells import cell_len

NAME_MAX_LEN = 16
NAME_FALLBACK = "guest"
_NAME_PUNCTUATION = "-_."
_NAME_LETTERS = frozenset({"Lu", "Ll", "Lt", "Lo"})
_ONE_CELL_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
_NAME_RULE = "letters, digits and - _ ."
_ASKED_SHOWN = 24  # characters of the name asked for that a notice repeats
_MAX_COMBINING_RUN = 2

# Categories that never reach a terminal: controls (C0, C1, DEL), format characters
# (bidi overrides/isolates/marks, zero-width joiners...), surrogates, private use, unassigned.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_SPACE_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})
_COMBINING_CATEGORIES = frozenset({"Mn", "Me"})
_WHITESPACE_CONTROLS = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85")


def _is_space(char: str, category: str) -> bool:
    return category in _SPACE_CATEGORIES or char in _WHITESPACE_CONTROLS


def _printable_chars(text: str) -> list[str]:
    """Keep printable characters; every kind of whitespace becomes one plain space."""
    out: list[str] = []
    combining_run = 0
    for char in text:
        category = unicodedata.category(char)
        if _is_space(char, category):
            if out and out[-1] != " ":
                out.append(" ")
            combining_run = 0
        elif category in _DROPPED_CATEGORIES:
            continue
        elif category in _COMBINING_CATEGORIES:
            combining_run += 1
            if combining_run <= _MAX_COMBINING_RUN and out and out[-1] != " ":
                out.append(char)
        else:
            combining_run = 0
            out.append(char)
    return out


def clean_text(text: str, max_len: int) -> str:
    """Return `text` without control/format characters, whitespace collapsed, at most
    `max_len` code points, stripped at both ends."""
    normalised = unicodedata.normalize("NFC", text)
    cleaned = "".join(_printable_chars(normalised)).strip()
    return cleaned[:max_len].rstrip()


def _ascii_fold(text: str) -> str:
    """Fold compatibility forms and accents to ASCII where possible (`ﬁ` → `fi`)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if char.isascii())


def _drawn_safely(char: str) -> bool:
    """A letter or digit every terminal draws in a width Rich agrees on, left to right.

    ASCII letters and digits; other letters (not modifier letters) written left to right
    (no bidi reordering) that take one cell, or two for East Asian wide ones. Of the letters
    East Asian fonts may draw wide ("ambiguous" width), only Latin, Greek and Cyrillic ones,
    which terminals outside a CJK legacy mode draw in one cell.
    """
    if char.isascii():
        return char.isalnum()
    if unicodedata.category(char) not in _NAME_LETTERS or unicodedata.bidirectional(char) != "L":
        return False
    width = unicodedata.east_asian_width(char)
    if width == "A" and not unicodedata.name(char, "").startswith(_ONE_CELL_SCRIPTS):
        return False
    return cell_len(char) == (2 if width in "WF" else 1)


@dataclass(frozen=True, slots=True)
class Name:
    """A player name made from a requested one, and why it differs (None if it does not)."""

    name: str
    problem: str | None = None


def fit_cells(text: str, width: int) -> str:
    """The longest start of `text` that takes at most `width` cells."""
    end, cells = 0, 0
    for char in text:
        cells += cell_len(char)
        if cells > width:
            break
        end += 1
    return text[:end]


def with_suffix(name: str, number: int, max_len: int = NAME_MAX_LEN) -> str:
    """`name-<number>`, shortening `name` so the result takes at most `max_len` cells."""
    suffix = f"-{number}"
    return fit_cells(name, max_len - len(suffix)) + suffix


def clean_name(text: str, max_len: int = NAME_MAX_LEN, fallback: str = NAME_FALLBACK) -> str:
    """Return a player name: letters and digits that draw safely, `-_.`, spaces as `_`,
    at most `max_len` cells (a wide letter takes two), never empty (`fallback` instead)."""
    return name_from(text, max_len, fallback).name


def name_from(text: str, max_len: int = NAME_MAX_LEN, fallback: str = NAME_FALLBACK) -> Name:
    """`clean_name`, with a phrase saying why the name is not `text` as asked."""
    folded = unicodedata.normalize("NFKC", clean_text(text, max_len * 4))
    kept = "".join(_name_chars(folded))
    core = kept.strip(_NAME_PUNCTUATION)
    name = fit_cells(core, max_len).rstrip(_NAME_PUNCTUATION) or fallback
    composed = unicodedata.normalize("NFC", text)
    if name == composed:
        return Name(name)
    shown = clean_text(composed, len(composed))
    asked = f'"{shown[:_ASKED_SHOWN]}…"' if len(shown) > _ASKED_SHOWN else f'"{shown}"'
    if not core:
        problem = f"{asked} has no character a name can hold"
    elif kept not in (composed, composed.replace(" ", "_")):
        problem = f"{asked} has characters a name cannot hold ({_NAME_RULE})"
    elif cell_len(core) > max_len:
        wide = cell_len(core) > len(core)
        problem = (
            f"{asked} is wider than {max_len} columns"
            if wide
            else f"{asked} is longer than {max_len} characters"
        )
    elif core != kept:
        problem = f"{asked} starts or ends with - _ or ."
    else:
        problem = f"{asked} has spaces, and names have none"
    return Name(name, problem)


def _name_chars(text: str) -> list[str]:
    chars: list[str] = []
    for char in text:
        if char == " ":
            chars.append("_")
        elif char in _NAME_PUNCTUATION or _drawn_safely(char):
            chars.append(char)
        else:
            chars.extend(c for c in _ascii_fold(char) if c.isalnum())
    return chars


def escape_markup(text: str) -> str:
    """Escape `text` for Textual content markup so it renders literally.

    `rich.markup.escape` is not enough for Textual 8 markup: it leaves `[$var]`, `[B]`,
    `[ b]` and trailing backslashes interpreted. Textual treats every `[` preceded by a
    backslash as literal and drops only that backslash, so escaping each `[` round-trips.
    """
    return text.replace("[", "\\[")
