"""Names that look alike share a key (the TR 39 skeleton, case and width folded); Latin letters
mixed with look-alikes of another alphabet are found, letter by letter."""

from __future__ import annotations

import pytest

from server.services.lookalikes import Lookalike, mixed_lookalikes, name_key


@pytest.mark.parametrize(
    ("name", "lookalike"),
    [
        ("victim", "vіctim"),  # Cyrillic і
        ("scope", "ѕсоре"),  # every letter Cyrillic
        ("opal", "οpal"),  # Greek ο
        ("pox", "ροχ"),  # every letter Greek
        ("ABE", "ΑΒΕ"),  # Greek capitals whose small letters look alike too
        ("victim", "vıctım"),  # Latin dotless ı
        ("victim", "VICTIM"),  # case
        ("victim", "ｖｉｃｔｉｍ"),  # fullwidth
        ("bob", "b0b"),  # 0 and O
        ("lilo", "1i1o"),  # 1 and l
    ],
)
def test_names_that_look_alike_share_a_key(name: str, lookalike: str) -> None:
    assert name_key(lookalike) == name_key(name)


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("victim", "vlctim"),  # i and l differ once case is folded (I and l would not)
        ("bob", "rob"),
        ("ana", "anna"),
        ("Jose", "José"),
        ("ana", "ana-2"),
    ],
)
def test_names_that_look_different_do_not(name: str, other: str) -> None:
    assert name_key(other) != name_key(name)


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("vіctim", [Lookalike("і", "Cyrillic")]),
        ("Ελένηx", [Lookalike("Ε", "Greek"), Lookalike("ν", "Greek"), Lookalike("η", "Greek")]),
        ("anaЗ", [Lookalike("З", "Cyrillic")]),  # looks like the digit 3
        ("victim", []),
        ("ѕсоре", []),  # one alphabet: look-alike, but not mixed
        ("Ελένη", []),
        ("ana李", []),  # Han letters look like no Latin one
        ("anaЖ", []),
    ],
)
def test_latin_mixed_with_lookalikes_of_another_alphabet_is_found(
    name: str, found: list[Lookalike]
) -> None:
    assert mixed_lookalikes(name) == found


def test_a_lookalike_is_said_with_its_alphabet() -> None:
    assert str(Lookalike("і", "Cyrillic")) == "Cyrillic і U+0456"
    assert str(Lookalike("ᲀ", "")) == "ᲀ U+1C80"
