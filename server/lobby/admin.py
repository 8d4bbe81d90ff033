"""Administrators' commands from the app: kick, ban, unban, announce and motd.

Only sessions whose key fingerprint is in `LobbySettings.admins` may run them. A refused
command raises `TableError` and changes nothing; every command that runs is logged and
answered with a `notice`. Administrators are never kicked, nor closed by a ban.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from contextlib import suppress
from datetime import timedelta
from typing import TYPE_CHECKING

from protocol import Admin, Notice
from protocol.registry import MAX_MOTD, MAX_NOTICE

from ..ops.logs import log_admin_action
from ..services.sanitize import clean_text
from ..store import MOTD, Ban, Store
from ..store.bans import BanKind, IPNetwork, normalise
from ..store.times import now as utc_now
from .errors import TableError
from .session import Identity, Session

if TYPE_CHECKING:
    from .lobby import Lobby

KICKED = "Kicked by an admin."
REASON_MAX = 200
FINGERPRINT_PREFIX = "SHA256:"

Command = Callable[["Lobby", Session, Admin], None]


def run_admin(lobby: Lobby, session: Session, command: Admin) -> None:
    """Run `command` for `session` if it is an administrator's."""
    if not lobby.is_admin(session.identity):
        raise TableError("not_admin", "only administrators can do that")
    COMMANDS[command.command](lobby, session, command)


# ------------------------------------------------------------------ commands


def _kick(lobby: Lobby, admin: Session, command: Admin) -> None:
    name = _required(command.target, "kick NAME")
    target = _online(lobby, name)
    if target is None:
        raise TableError("no_such_player", f"nobody called {clean_text(name, 32)} is online")
    _closer(lobby)(_not_admin(lobby, target), KICKED)
    _log(admin, "kick", target.name)
    admin.send(Notice(f"Kicked {target.name}."))


def _ban(lobby: Lobby, admin: Session, command: Admin) -> None:
    store, close = _store(lobby), _closer(lobby)
    kind, value = _ban_value(lobby, _required(command.target, "ban NAME|KEY|ADDRESS [TIME]"))
    until = None if command.duration is None else utc_now() + timedelta(seconds=command.duration)
    reason = clean_text(command.text or "", REASON_MAX)
    try:
        ban = store.add_ban(kind, value, until, reason, admin.name)
    except ValueError as err:
        raise TableError("bad_admin", str(err)) from None
    covered = [
        session
        for session in lobby.sessions
        if not lobby.is_admin(session.identity) and _covers(ban, session.identity)
    ]
    for session in covered:
        close(session, _banned(ban))
    _log(admin, "ban", _described(ban))
    admin.send(Notice(f"Ban {_described(ban)}, {_until(ban)}; sessions closed: {len(covered)}."))


def _unban(lobby: Lobby, admin: Session, command: Admin) -> None:
    store = _store(lobby)
    target = _required(command.target, "unban ID|VALUE")
    lifted = store.lift_ban(int(target) if target.isdigit() else target)
    if not lifted:
        raise TableError("no_such_ban", f"no ban in force matches {clean_text(target, 64)}")
    for ban in lifted:
        _log(admin, "unban", _described(ban))
    said = "; ".join(map(_described, lifted))
    admin.send(Notice(clean_text(f"Lifted ban {said}.", MAX_NOTICE)))


def _announce(lobby: Lobby, admin: Session, command: Admin) -> None:
    text = clean_text(command.text or "", MAX_NOTICE)
    if not text:
        raise TableError("bad_admin", "usage: announce TEXT")
    _log(admin, "announce", None)
    lobby.announce(text)


def _motd(lobby: Lobby, admin: Session, command: Admin) -> None:
    store = _store(lobby)
    text = clean_text(command.text or "", MAX_MOTD)
    store.set_setting(MOTD, text or None)
    _log(admin, "motd", None)
    admin.send(Notice("Message of the day set." if text else "Message of the day cleared."))


COMMANDS: dict[str, Command] = {
    "kick": _kick,
    "ban": _ban,
    "unban": _unban,
    "announce": _announce,
    "motd": _motd,
}

# ------------------------------------------------------------------ helpers


def _required(value: str | None, usage: str) -> str:
    """A field the command needs, stripped; `bad_admin` with the usage if it is missing."""
    value = (value or "").strip()
    if not value:
        raise TableError("bad_admin", f"usage: {usage}")
    return value


def _store(lobby: Lobby) -> Store:
    if lobby.store is None:
        raise TableError("no_store", "this server keeps no database")
    return lobby.store


def _closer(lobby: Lobby) -> Callable[[Session, str], None]:
    if lobby.close_session is None:
        raise TableError("no_close", "this server cannot close sessions")
    return lobby.close_session


def _online(lobby: Lobby, name: str) -> Session | None:
    """The greeted session called `name` (in any case), if any."""
    wanted = name.casefold()
    for session in lobby.sessions:
        if session.greeted and session.name.casefold() == wanted:
            return session
    return None


def _not_admin(lobby: Lobby, session: Session) -> Session:
    if lobby.is_admin(session.identity):
        raise TableError("target_is_admin", f"{session.name} is an administrator")
    return session


def _ban_value(lobby: Lobby, target: str) -> tuple[BanKind, str]:
    """What a ban on `target` names: a player online (their key, or a guest's address), else
    an address or network, else a key fingerprint."""
    session = _online(lobby, target)
    if session is not None:
        return _identity_ban(_not_admin(lobby, session).identity)
    with suppress(ValueError):
        return "address", normalise("address", target)
    if not target.startswith(FINGERPRINT_PREFIX):
        raise TableError(
            "no_such_player",
            f"{clean_text(target, 32)} is not a player online, an address or a SHA256: key",
        )
    if target in lobby.settings.admins:
        raise TableError("target_is_admin", "that key is an administrator's")
    return "fingerprint", target


def _identity_ban(identity: Identity) -> tuple[BanKind, str]:
    """A keyed player is banned by key, a guest by address."""
    if not identity.guest:
        return "fingerprint", identity.id
    if identity.address is None:
        raise TableError("bad_admin", f"{identity.name} is a guest with no known address")
    return "address", identity.address


def _covers(ban: Ban, identity: Identity) -> bool:
    fingerprint = None if identity.guest else identity.id
    return ban.matches(fingerprint, _network(identity.address))


def _network(address: str | None) -> IPNetwork | None:
    if address is None:
        return None
    with suppress(ValueError):
        return ipaddress.ip_network(normalise("address", address))
    return None


def _until(ban: Ban) -> str:
    return "forever" if ban.until is None else f"until {ban.until:%Y-%m-%d %H:%M} UTC"


def _banned(ban: Ban) -> str:
    """Why a banned player's session ends."""
    until = "" if ban.until is None else f" {_until(ban)}"
    reason = f": {ban.reason}" if ban.reason else ""
    return f"Banned by an admin{until}{reason}."


def _described(ban: Ban) -> str:
    return f"{ban.id} on {ban.kind} {clean_text(ban.value, 64)}"


def _log(admin: Session, action: str, target: str | None) -> None:
    log_admin_action(admin.identity.id, action, target)
