"""Friends: the keyed players a keyed player marked, and where they are now (online, at
which table listed in the lobby), sent to the player whenever that changes."""

from __future__ import annotations

from collections.abc import Mapping

from protocol import FriendInfo, FriendRequest, Friends, Notice, TableSummary
from protocol.registry import MAX_FRIENDS

from ..store import Store, TooManyFriends
from .errors import TableError
from .session import Session
from .stats import NO_STORE_NOTE, display_name


class FriendList:
    """Each keyed session's friends, loaded at its hello and kept on the session; `refresh`
    sends each one where their friends are whenever that changed."""

    def __init__(
        self,
        store: Store | None,
        sessions: Mapping[Session, None],
        listing: Mapping[str, TableSummary],
    ) -> None:
        self._store = store
        self._sessions = sessions
        self._listing = listing  # the open tables: a private one is not named

    def greet(self, session: Session) -> None:
        """Load a keyed player's friends and tell them where those are (nothing to one who
        never had any)."""
        if self._store is not None and not session.identity.guest:
            session.friends = self._store.friends_of(session.identity.id)
            if session.friends or session.friends_sent is not None:
                self._send(session, self._online())

    def change(self, session: Session, message: FriendRequest) -> None:
        """Mark the player called `message.name` as a friend (or no longer)."""
        store = self._store
        if store is None:
            raise TableError("no_store", NO_STORE_NOTE)
        if session.identity.guest:
            raise TableError("guest", "Only players with an SSH key keep a list of friends.")
        key = self._key_of(message.name, store)
        if key == session.identity.id:
            raise TableError("yourself", "You are always a friend of yours.")
        name = display_name(message.name)
        if message.add:
            try:
                store.add_friend(session.identity.id, key)
            except TooManyFriends:
                raise TableError(
                    "too_many_friends", f"You have {MAX_FRIENDS} friends: remove one first."
                ) from None
            session.send(Notice(f"{name} is one of your friends now."))
        else:
            store.remove_friend(session.identity.id, key)
            session.send(Notice(f"{name} is no longer one of your friends."))
        self.greet(session)

    def refresh(self) -> None:
        """Tell every keyed player with friends where they are, if that changed."""
        online: dict[str, Session] | None = None
        for session in self._sessions:
            if session.greeted and session.friends:
                online = self._online() if online is None else online
                self._send(session, online)

    def _key_of(self, name: str, store: Store) -> str:
        """The key of the keyed player called `name`: online, or reserved to their key."""
        here = next((s for s in self._sessions if s.greeted and s.name == name), None)
        if here is not None and here.identity.guest:
            raise TableError(
                "guest_friend", f"{display_name(name)} plays as a guest, without a key."
            )
        key = here.identity.id if here is not None else store.owner_of(name)
        if key is None:
            raise TableError(
                "no_such_player", f"Nobody called {display_name(name)} has a key here."
            )
        return key

    def _online(self) -> dict[str, Session]:
        """The keyed sessions by key (one at a table first)."""
        keyed = [s for s in self._sessions if s.greeted and not s.identity.guest]
        keyed.sort(key=lambda s: s.table is not None)
        return {s.identity.id: s for s in keyed}

    def _send(self, session: Session, online: dict[str, Session]) -> None:
        message = Friends(
            tuple(self._info(key, name, online) for key, name in session.friends.items())
        )
        if message != session.friends_sent:
            session.friends_sent = message
            session.send(message)

    def _info(self, key: str, nickname: str, online: dict[str, Session]) -> FriendInfo:
        other = online.get(key)
        if other is None:
            return FriendInfo(display_name(nickname), False)
        table = other.table.code if other.table is not None else None
        listed = self._listing.get(table) if table is not None else None
        return FriendInfo(other.name, True, table if listed and not listed.private else None)
