"""The server's admission policy: bans and reserved nicknames from the store, sessions per key."""

from __future__ import annotations

from ..ops.config import DEFAULTS
from ..ssh.gatekeeper import Admission
from ..store import NameRules, Store
from ..store.bans import Ban


def ban_message(ban: Ban) -> str:
    """One line telling a banned person why and until when."""
    until = f" until {ban.until:%Y-%m-%d %H:%M} UTC" if ban.until else ""
    reason = f": {ban.reason}" if ban.reason else ""
    return f"You are banned from this server{until}{reason}."


class StorePolicy:
    """Refuses banned addresses and keys, reserves keyed nicknames, caps sessions per key."""

    def __init__(
        self,
        store: Store,
        sessions_per_identity: int = DEFAULTS.limits.sessions_per_identity,
        names: NameRules | None = None,
    ) -> None:
        self._store = store
        self._sessions_per_identity = sessions_per_identity
        self._names = names or NameRules()

    def refuse_address(self, address: str) -> str | None:
        """A banned address is refused before authentication."""
        ban = self._store.is_banned(None, address)
        return ban_message(ban) if ban else None

    def admit(
        self, identity: str | None, address: str, wanted: str, online: dict[str, str | None]
    ) -> Admission:
        """Check the key's bans and session count, then claim a nickname for it."""
        ban = self._store.is_banned(identity, address)
        if ban is not None:
            return Admission(refusal=ban_message(ban))
        if identity is not None:
            open_sessions = sum(1 for other in online.values() if other == identity)
            if open_sessions >= self._sessions_per_identity:
                sessions = "session" if open_sessions == 1 else "sessions"
                return Admission(
                    refusal=f"You already have {open_sessions} {sessions} open with this key."
                )
        claim = self._store.claim_nickname(identity, wanted, set(online), rules=self._names)
        return Admission(claim.name, claim.notice)
