"""Admin commands through in-process sessions: who may send them, and what each does to the
store (a real SQLite file), to other sessions (closed through the server's hook) and to the
next login (refused by the real `StorePolicy`)."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from protocol import Admin, ErrorReply, Notice, Welcome
from server.commands.glue import identity_of
from server.commands.policy import StorePolicy
from server.lobby import Lobby, LobbySettings, Session
from server.services.clock import LoopClock
from server.ssh.info import SessionInfo
from server.store import MOTD, Store
from server.store.times import now as utc_now
from tests.lobby_client import Client

ROOT = "SHA256:root"  # the administrator's key
BOB = "SHA256:bob"
BOB_ADDRESS = "198.51.100.7"
GUEST_ADDRESS = "203.0.113.9"


class Hook:
    """The server's `close_session` as the SSH layer does it: the session goes away."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.closed: list[tuple[str, str]] = []

    def __call__(self, session: Session, reason: str) -> None:
        self.closed.append((session.name, reason))
        self.lobby.detach(session)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "lovelet.db") as opened:
        yield opened


@pytest.fixture
def lobby(store: Store) -> Lobby:
    settings = LobbySettings(motd="configured", admins=frozenset({ROOT}))
    made = Lobby(settings, random.Random(1), store, clock=LoopClock())
    made.close_session = Hook(made)
    return made


def closed(lobby: Lobby) -> list[tuple[str, str]]:
    assert isinstance(lobby.close_session, Hook)
    return lobby.close_session.closed


async def greeted(lobby: Lobby, name: str, **identity: object) -> Client:
    client = Client(lobby, name, **identity)
    client.hello()
    await client.wait_for(lambda c: c.lobby)
    return client


def notices(client: Client) -> list[str]:
    return [m.text for m in client.messages if isinstance(m, Notice)]


def welcome(client: Client) -> Welcome:
    return next(m for m in client.messages if isinstance(m, Welcome))


async def command(client: Client, *fields: object) -> None:
    """Send one admin command and wait for its answer (a notice or an error)."""
    before = len(client.messages)
    client.send(Admin(*fields))  # type: ignore[arg-type]
    await client.wait_for(
        lambda c: any(isinstance(m, Notice | ErrorReply) for m in c.messages[before:])
    )


@pytest.fixture
async def root(lobby: Lobby) -> Client:
    return await greeted(lobby, "root", key=ROOT, address="192.0.2.1")


@pytest.fixture
async def bob(lobby: Lobby) -> Client:
    return await greeted(lobby, "bob", key=BOB, address=BOB_ADDRESS)


# --------------------------------------------------------------------------- who may


async def test_welcome_says_who_is_an_admin(lobby: Lobby, root: Client, bob: Client) -> None:
    fake = await greeted(lobby, "fake", key=ROOT, guest=True)  # a guest never is
    assert [welcome(c).admin for c in (root, bob, fake)] == [True, False, False]


@pytest.mark.parametrize(
    "fields",
    [
        ("kick", "root"),
        ("ban", "root"),
        ("ban", "203.0.113.0/24", 60),
        ("unban", "1"),
        ("announce", None, None, "free cards"),
        ("motd", None, None, "pwned"),
    ],
)
async def test_non_admins_are_refused_and_nothing_changes(
    lobby: Lobby, store: Store, root: Client, bob: Client, fields: tuple
) -> None:
    store.add_ban("address", "192.0.2.200", None)
    bob.send(Admin(*fields))
    await bob.wait_for(lambda c: c.errors())
    assert [e.code for e in bob.errors()] == ["not_admin"]
    assert [b.id for b in store.active_bans()] == [1]
    assert store.get_setting(MOTD) is None
    assert closed(lobby) == []
    assert notices(root) == notices(bob) == []


def test_ssh_sessions_bring_their_address() -> None:
    keyed = identity_of(SessionInfo("bob", BOB, BOB_ADDRESS, "xterm", (80, 24)))
    guest = identity_of(SessionInfo("guest", None, GUEST_ADDRESS, "xterm", (80, 24)))
    assert (keyed.id, keyed.guest, keyed.address) == (BOB, False, BOB_ADDRESS)
    assert (guest.guest, guest.address) == (True, GUEST_ADDRESS)


# --------------------------------------------------------------------------- kick


async def test_kick_ends_the_session_through_the_hook_and_is_logged(
    lobby: Lobby, root: Client, bob: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, "lovelet.events"):
        await command(root, "kick", "BOB")
    assert closed(lobby) == [("bob", "Kicked by an admin.")]
    assert "bob" not in lobby.online()
    assert notices(root) == ["Kicked bob."]
    [record] = [r for r in caplog.records if r.getMessage() == "admin action"]
    assert record.fields == {"admin": ROOT, "action": "kick", "target": "bob"}


@pytest.mark.parametrize(
    ("target", "code"),
    [("nobody", "no_such_player"), ("root", "target_is_admin"), (None, "bad_admin")],
)
async def test_kick_refusals(
    lobby: Lobby, root: Client, bob: Client, target: str | None, code: str
) -> None:
    await command(root, "kick", target)
    assert [e.code for e in root.errors()] == [code]
    assert closed(lobby) == []


async def test_kick_needs_the_servers_hook(lobby: Lobby, root: Client, bob: Client) -> None:
    lobby.close_session = None
    await command(root, "kick", "bob")
    assert [e.code for e in root.errors()] == ["no_close"]
    assert "bob" in lobby.online()


# --------------------------------------------------------------------------- ban and unban


async def test_banning_a_keyed_player_bans_the_key_and_closes_all_its_sessions(
    lobby: Lobby, store: Store, root: Client, bob: Client
) -> None:
    second = await greeted(lobby, "bob-2", key=BOB, address="192.0.2.50")
    await command(root, "ban", "bob", 86400, "spamming \u202echat")
    [ban] = store.active_bans()
    assert (ban.kind, ban.value, ban.reason, ban.by) == (
        "fingerprint",
        BOB,
        "spamming chat",
        "root",
    )
    assert ban.until is not None
    assert timedelta(hours=23) < ban.until - utc_now() <= timedelta(days=1)
    reason = f"Banned by an admin until {ban.until:%Y-%m-%d %H:%M} UTC: spamming chat."
    assert sorted(closed(lobby)) == [("bob", reason), ("bob-2", reason)]
    assert lobby.online() == ("root",)
    assert notices(root) == [
        f"Ban 1 on fingerprint {BOB}, until {ban.until:%Y-%m-%d %H:%M} UTC; sessions closed: 2."
    ]
    refusal = StorePolicy(store).admit(BOB, "192.0.2.99", "bob", {}).refusal
    assert refusal is not None and "banned" in refusal
    assert second.attachment.session.closed


async def test_banning_a_guest_bans_the_address_and_everyone_on_it(
    lobby: Lobby, store: Store, root: Client
) -> None:
    await greeted(lobby, "guest", key="guest:1", guest=True, address=GUEST_ADDRESS)
    await greeted(lobby, "guest-2", key="guest:2", guest=True, address=f"::ffff:{GUEST_ADDRESS}")
    await greeted(lobby, "other", key="guest:3", guest=True, address="203.0.113.10")
    await command(root, "ban", "guest")
    [ban] = store.active_bans()
    assert (ban.kind, ban.value, ban.until) == ("address", f"{GUEST_ADDRESS}/32", None)
    assert sorted(closed(lobby)) == [
        ("guest", "Banned by an admin."),
        ("guest-2", "Banned by an admin."),
    ]
    policy = StorePolicy(store)
    assert policy.refuse_address(GUEST_ADDRESS) is not None
    assert policy.refuse_address("203.0.113.10") is None


async def test_banning_a_network_spares_administrators(
    lobby: Lobby, store: Store, root: Client, bob: Client
) -> None:
    await command(root, "ban", "0.0.0.0/0", 60)
    assert [name for name, _ in closed(lobby)] == ["bob"]
    assert lobby.online() == ("root",)
    assert store.active_bans()[0].value == "0.0.0.0/0"


async def test_banning_a_key_that_is_not_online(lobby: Lobby, store: Store, root: Client) -> None:
    await command(root, "ban", "SHA256:gone")
    assert [(b.kind, b.value) for b in store.active_bans()] == [("fingerprint", "SHA256:gone")]
    assert notices(root) == ["Ban 1 on fingerprint SHA256:gone, forever; sessions closed: 0."]
    assert StorePolicy(store).admit("SHA256:gone", "192.0.2.3", "x", {}).refusal is not None


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("nobody", "no_such_player"),
        ("root", "target_is_admin"),
        (ROOT, "target_is_admin"),
        ("lost", "bad_admin"),  # a guest that came without an address
        (None, "bad_admin"),
    ],
)
async def test_ban_refusals_record_nothing(
    lobby: Lobby, store: Store, root: Client, target: str | None, code: str
) -> None:
    await greeted(lobby, "lost", key="guest:lost", guest=True)
    await command(root, "ban", target)
    assert [e.code for e in root.errors()] == [code]
    assert store.active_bans() == [] and closed(lobby) == []


async def test_unban_by_id_and_by_value(lobby: Lobby, store: Store, root: Client) -> None:
    store.add_ban("fingerprint", BOB, None)
    store.add_ban("address", GUEST_ADDRESS, None)
    await command(root, "unban", "1")
    await command(root, "unban", GUEST_ADDRESS)
    assert store.active_bans() == []
    assert notices(root) == [
        f"Lifted ban 1 on fingerprint {BOB}.",
        f"Lifted ban 2 on address {GUEST_ADDRESS}/32.",
    ]
    policy = StorePolicy(store)
    assert policy.admit(BOB, BOB_ADDRESS, "bob", {}).refusal is None
    await command(root, "unban", "7")
    assert [e.code for e in root.errors()] == ["no_such_ban"]


# --------------------------------------------------------------------------- announce, motd


async def test_announce_reaches_every_session_cleaned(
    lobby: Lobby, root: Client, bob: Client
) -> None:
    await command(root, "announce", None, None, "Restart at \u202e8 pm")
    await bob.wait_for(notices)
    assert notices(bob) == notices(root) == ["Restart at 8 pm"]


async def test_motd_is_stored_shown_to_new_sessions_and_cleared(
    lobby: Lobby, store: Store, root: Client
) -> None:
    await command(root, "motd", None, None, "Tournament \u200bFriday")
    assert store.get_setting(MOTD) == "Tournament Friday"
    newcomer = await greeted(lobby, "new")
    assert welcome(newcomer).motd == "Tournament Friday"
    await command(root, "motd")
    assert store.get_setting(MOTD) is None
    assert welcome(await greeted(lobby, "later")).motd == "configured"
    assert notices(root) == ["Message of the day set.", "Message of the day cleared."]


async def test_without_a_store_kick_and_announce_still_work() -> None:
    lobby = Lobby(LobbySettings(admins=frozenset({ROOT})), random.Random(1), clock=LoopClock())
    lobby.close_session = Hook(lobby)
    root = await greeted(lobby, "root", key=ROOT)
    await greeted(lobby, "bob", key=BOB)
    for fields in (("ban", "bob"), ("unban", "1"), ("motd", None, None, "hi")):
        await command(root, *fields)
    assert [e.code for e in root.errors()] == ["no_store"] * 3
    await command(root, "kick", "bob")
    await command(root, "announce", None, None, "still here")
    assert notices(root) == ["Kicked bob.", "still here"]


async def test_every_command_that_runs_is_logged_and_refusals_are_not(
    root: Client, bob: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, "lovelet.events"):
        await command(bob, "announce", None, None, "not me")
        await command(root, "ban", "SHA256:gone", 3600)
        await command(root, "unban", "SHA256:gone")
        await command(root, "announce", None, None, "hello")
        await command(root, "motd", None, None, "hi")
        await command(root, "kick", "nobody")
    logged = [r.fields for r in caplog.records if r.getMessage() == "admin action"]
    assert logged == [
        {"admin": ROOT, "action": "ban", "target": "1 on fingerprint SHA256:gone"},
        {"admin": ROOT, "action": "unban", "target": "1 on fingerprint SHA256:gone"},
        {"admin": ROOT, "action": "announce"},
        {"admin": ROOT, "action": "motd"},
    ]
