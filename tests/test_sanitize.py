"""Sanitising client-supplied strings."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.content import Content

from server.services.sanitize import (
    Name,
    clean_name,
    clean_text,
    escape_markup,
    name_from,
    with_suffix,
)

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
NASTY = st.text(
    alphabet=st.one_of(
        st.characters(codec=None),
        st.sampled_from(list(BIDI_CONTROLS + "\x1b\x07\x7f\x9b\x00\r\n\t[]\\")),
    ),
    max_size=200,
)


def _visible(char: str) -> bool:
    return char == " " or unicodedata.category(char)[0] in "LMNPS"


@given(NASTY, st.integers(min_value=0, max_value=64))
def test_clean_text_has_only_visible_characters(text: str, max_len: int) -> None:
    cleaned = clean_text(text, max_len)
    assert len(cleaned) <= max_len
    assert all(_visible(char) for char in cleaned), repr(cleaned)
    assert "  " not in cleaned
    assert cleaned == cleaned.strip()


def _name_char(char: str) -> bool:
    """ASCII letters, digits and -_., or a left-to-right letter of one or two cells."""
    if char.isascii():
        return char.isalnum() or char in "-_."
    return (
        unicodedata.category(char) in ("Lu", "Ll", "Lt", "Lo")
        and unicodedata.bidirectional(char) == "L"
        and cell_len(char) in (1, 2)
    )


@given(NASTY)
def test_clean_name_is_short_safe_and_never_empty(text: str) -> None:
    name = clean_name(text)
    assert 1 <= cell_len(name) <= 16
    assert all(_name_char(char) for char in name), repr(name)
    assert "[" not in name and "\x1b" not in name


@given(NASTY)
def test_a_name_differs_from_the_one_asked_only_with_a_reason(text: str) -> None:
    result = name_from(text)
    assert (result.problem is None) == (result.name == unicodedata.normalize("NFC", text))
    if result.problem is not None:
        assert all(_visible(char) for char in result.problem), repr(result.problem)


@given(NASTY)
def test_escape_markup_round_trips_through_textual_markup(text: str) -> None:
    cleaned = clean_text(text, 200)
    assert Content.from_markup(escape_markup(cleaned)).plain == cleaned


def test_escape_sequences_and_bidi_are_removed() -> None:
    hostile = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u2066 \x9b31m ok\x7f"
    assert clean_text(hostile, 100) == "]0;pwned[2Jevil 31m ok"


def test_whitespace_is_collapsed() -> None:
    assert clean_text("  a \t\r\n b\u2028c\u00a0 ", 10) == "a b c"


def test_combining_marks_are_capped() -> None:
    assert clean_text("x" + "\u0301" * 50, 100) == "x\u0301\u0301"


def test_clean_name_examples() -> None:
    assert clean_name("José Martínez") == "José_Martínez"
    assert clean_name("Ελένη") == "Ελένη" and clean_name("Вася") == "Вася"
    assert clean_name("李小龍") == "李小龍"  # two cells each, as Rich counts them
    assert clean_name("龍" * 10) == "龍" * 8  # 16 cells
    assert with_suffix("龍" * 8, 2) == "龍" * 7 + "-2" and with_suffix("bob", 12) == "bob-12"
    assert clean_name("مرحبا") == "guest"  # right to left: a terminal would reorder the line
    assert clean_name("a\u202eb\u200dc") == "abc"
    assert clean_name("q\u0301x") == "qx"  # a mark that composes with nothing is dropped
    assert clean_name("[b]alice[/b]") == "baliceb"
    assert clean_name("\x1b[31mbob") == "31mbob"
    assert clean_name("...") == "guest"
    assert clean_name("") == "guest"
    assert clean_name("\uff46\uff55\uff4c\uff4c") == "full"
    assert clean_name("x" * 100) == "x" * 16
    assert clean_name("-leading-dash") == "leading-dash"


def test_a_changed_name_says_why_in_words() -> None:
    assert name_from("alice") == Name("alice")
    assert name_from("x" * 20).problem == f'"{"x" * 20}" is longer than 16 characters'
    assert name_from("Ana María").problem == '"Ana María" has spaces, and names have none'
    assert name_from("-x-").problem == '"-x-" starts or ends with - _ or .'
    assert name_from("...") == Name("guest", '"..." has no character a name can hold')
    folded = name_from("\uff46\uff55\uff4c\uff4c \x1b[31m")
    assert folded == Name(
        "full_31m", '"ｆｕｌｌ [31m" has characters a name cannot hold (letters, digits and - _ .)'
    )
    assert name_from("龍" * 9).problem == f'"{"龍" * 9}" is wider than 16 columns'
    assert name_from("y" * 40).problem == f'"{"y" * 24}…" is longer than 16 characters'


def test_escape_markup_neutralises_actions_and_variables() -> None:
    for text in ("[@click=app.quit]x[/]", "[$accent]v", "[B]up[/B]", "a\\[b]", "x\\"):
        assert Content.from_markup(escape_markup(text)).plain == text
