"""Make client-supplied strings safe to show on other players' terminals.

Every string that came from a client (SSH username, TERM, chat, names) passes through here
before it is stored or displayed: control characters, escape sequences, bidirectional
overrides and other invisible code points are removed, whitespace is normalised.
"""

from __future__ import annotations

import unicodedata

NAME_MAX_LEN = 16
NAME_FALLBACK = "guest"
_NAME_PUNCTUATION = "-_."
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
    """Fold compatibility forms and accents to ASCII where possible (`é` → `e`)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if char.isascii())


def clean_name(text: str, max_len: int = NAME_MAX_LEN, fallback: str = NAME_FALLBACK) -> str:
    """Return a player name: ASCII letters, digits and `-_.` only, spaces become `_`,
    at most `max_len` characters, never empty (`fallback` instead)."""
    folded = _ascii_fold(clean_text(text, max_len * 4))
    kept = "".join(
        "_" if char == " " else char
        for char in folded
        if char.isalnum() or char in _NAME_PUNCTUATION or char == " "
    )
    name = kept.strip(_NAME_PUNCTUATION)[:max_len].rstrip(_NAME_PUNCTUATION)
    return name or fallback


def escape_markup(text: str) -> str:
    """Escape `text` for Textual content markup so it renders literally.

    `rich.markup.escape` is not enough for Textual 8 markup: it leaves `[$var]`, `[B]`,
    `[ b]` and trailing backslashes interpreted. Textual treats every `[` preceded by a
    backslash as literal and drops only that backslash, so escaping each `[` round-trips.
    """
    return text.replace("[", "\\[")
