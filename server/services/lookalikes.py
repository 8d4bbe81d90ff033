"""Names that look alike: the key every name is compared by, and Latin mixed with look-alikes.

Two names look alike when their confusable skeletons (Unicode TR 39, from the `disarm`
library: Cyrillic і and Latin i, Greek ο and o, 0 and O, 1 and l) are the same once width
and case are folded (NFKC, casefold). Every place that holds names apart (the nicknames the
store reserves, the registry of sessions online, the bus's name book) compares `name_key`s.
Why `disarm`: docs/dependencies.md.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import disarm
from disarm import Script, detect_scripts, skeleton_key

KEY_VERSION = f"tr39 disarm {disarm.__version__}"
"""What `name_key` is computed with: keys stored under another version are computed again."""
_KEYS_CACHED = 4096
"""Names whose key is kept: those online, compared at every login, are computed once."""


@lru_cache(maxsize=_KEYS_CACHED)
def name_key(name: str) -> str:
    """What `name` is compared by: the TR 39 skeleton of the name with width and case folded
    first (so `VICTIM`, `ｖｉｃｔｉｍ`, `vıctım` and `vіctim` all key as `victim`)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return skeleton_key(folded, digit_policy="tr39")


@dataclass(frozen=True, slots=True)
class Lookalike:
    """A letter of another alphabet in a name with Latin letters that looks like a Latin letter
    or digit, and its alphabet's name (empty when the library does not know it)."""

    letter: str
    alphabet: str

    def __str__(self) -> str:
        """`Cyrillic і U+0456`: the code point, for clients that show only ASCII (OpenSSH)."""
        said = f"{self.letter} U+{ord(self.letter):04X}"
        return f"{self.alphabet} {said}" if self.alphabet else said


def mixed_lookalikes(name: str) -> list[Lookalike]:
    """The letters of other alphabets that pass for Latin ones, if `name` has Latin letters
    (Cyrillic і in `vіctim`); empty for a name in one alphabet, or whose other letters look
    like no Latin letter (`ana李`)."""
    if Script.LATIN not in detect_scripts(name):
        return []
    found: list[Lookalike] = []
    for letter in dict.fromkeys(name):
        scripts = detect_scripts(letter)
        if letter.isalpha() and scripts != [Script.LATIN] and name_key(letter).isascii():
            alphabet = scripts[0].name.replace("_", " ").title() if scripts else ""
            found.append(Lookalike(letter, alphabet))
    return found
