"""Usernames asyncssh refuses before the server hears of them, refused in a sentence.

asyncssh checks every username with SASLprep (RFC 4013) while reading the authentication
request, before `begin_auth`, and disconnects with its own error text (`Unassigned character:
'\\U0001f600'` for an emoji). The check stays as it is; only its message changes, to one a
player can act on. OpenSSH prints it as `Received disconnect from …: <message>`. lovelet refuses
a name that mixes Latin letters with look-alike letters of another alphabet the same way
(`mixed_refusal`, at `begin_auth`), so that clients show it alike.
"""

from __future__ import annotations

import asyncssh.connection
from asyncssh.saslprep import SASLPrepError, saslprep

from server.services.lookalikes import mixed_lookalikes

WHAT_SSH_REFUSES = {
    "Unassigned character": "characters SSH does not know, such as emoji",
    "Prohibited character": "control, private-use or other invisible characters",
    "Both RandALCat and LCat characters present": "right-to-left and left-to-right letters mixed",
    "RandALCat character not at both start and end": (
        "right-to-left letters with other characters at an end"
    ),
}


def refusal(error: SASLPrepError) -> str:
    """The sentence for a username SASLprep refused with `error`."""
    detail = str(error)
    found = next((text for key, text in WHAT_SSH_REFUSES.items() if detail.startswith(key)), None)
    what = found or "characters SSH cannot carry"
    return (
        f"Your SSH username has {what}, which SSH cannot send as a name; "
        "connect as ssh NAME@host with a NAME of letters and digits."
    )


def mixed_refusal(name: str) -> str | None:
    """The sentence refusing `name` (as cleaned) if it mixes Latin letters with look-alikes."""
    lookalikes = mixed_lookalikes(name)
    if not lookalikes:
        return None
    which = ", ".join(map(str, lookalikes))
    return (
        "Your SSH username mixes Latin letters with letters of another alphabet that look "
        f"like them ({which}), so it could pass for someone else's name; "
        "connect as ssh NAME@host with a NAME in one alphabet."
    )


def readable_saslprep(text: str) -> str:
    """asyncssh's SASLprep, refusing in `refusal`'s words."""
    try:
        return saslprep(text)
    except SASLPrepError as error:
        raise SASLPrepError(refusal(error)) from None


def install() -> None:
    """Make asyncssh refuse usernames in sentences (it looks `saslprep` up in its module)."""
    asyncssh.connection.saslprep = readable_saslprep  # type: ignore[attr-defined]
