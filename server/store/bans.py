"""Bans by key fingerprint or by address (one IP or a CIDR network), with optional expiry."""

from __future__ import annotations

import ipaddress
import sqlite3
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from .db import transaction
from .times import from_text, to_text

BanKind = Literal["fingerprint", "address"]
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Ban:
    """One ban; `until` None means forever, `lifted_at` set means no longer in force."""

    id: int
    kind: BanKind
    value: str
    reason: str
    by: str
    created_at: datetime
    until: datetime | None
    lifted_at: datetime | None = None

    def in_force(self, now: datetime) -> bool:
        """Whether the ban applies at `now`."""
        return self.lifted_at is None and (self.until is None or now < self.until)

    def matches(self, fingerprint: str | None, address: IPNetwork | None) -> bool:
        """Whether it names this key, or a network holding this address."""
        if self.kind == "fingerprint":
            return fingerprint is not None and fingerprint == self.value
        return address is not None and _subnet_of(address, ipaddress.ip_network(self.value))


_COLUMNS = "id, kind, value, reason, banned_by, created_at, until, lifted_at"


def _ban(row: tuple) -> Ban:
    ban_id, kind, value, reason, by, created, until, lifted = row
    return Ban(
        ban_id, kind, value, reason, by, from_text(created), from_text(until), from_text(lifted)
    )


def normalise(kind: BanKind, value: str) -> str:
    """The stored form of a ban's value; ValueError if it is not one."""
    value = value.strip()
    if kind == "address":
        return str(ipaddress.ip_network(_unmapped(value), strict=False))
    if kind == "fingerprint":
        if not value or any(char.isspace() for char in value):
            raise ValueError(f"{value!r} is not a key fingerprint")
        return value
    raise ValueError(f"a ban is by 'fingerprint' or 'address', not {kind!r}")


def _unmapped(address: str) -> str:
    """An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as plain IPv4."""
    try:
        mapped = ipaddress.IPv6Address(address).ipv4_mapped
    except ValueError:
        return address
    return str(mapped) if mapped is not None else address


def _subnet_of(address: IPNetwork, network: IPNetwork) -> bool:
    return address.version == network.version and address.subnet_of(network)


def add_ban(
    conn: sqlite3.Connection,
    kind: BanKind,
    value: str,
    until: datetime | None,
    reason: str,
    by: str,
    now: datetime,
) -> Ban:
    """Ban a key or an address until `until` (None: until lifted); the new ban."""
    value = normalise(kind, value)
    ban_id = conn.execute(
        "INSERT INTO bans (kind, value, reason, banned_by, created_at, until)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (kind, value, reason, by, to_text(now), None if until is None else to_text(until)),
    ).lastrowid
    return Ban(ban_id, kind, value, reason, by, from_text(to_text(now)), _same(until))


def _same(instant: datetime | None) -> datetime | None:
    """`instant` as it reads back from the database."""
    return None if instant is None else from_text(to_text(instant))


def lift_ban(conn: sqlite3.Connection, target: int | str, now: datetime) -> list[Ban]:
    """Lift the ban with id `target`, or every ban on the value `target`; those lifted."""
    if isinstance(target, int):
        where, args = "id = ?", [target]
    else:
        values = _spellings(target)
        where, args = f"value IN ({','.join('?' * len(values))})", values
    with transaction(conn, immediate=True):
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM bans WHERE lifted_at IS NULL AND {where} ORDER BY id", args
        ).fetchall()
        conn.executemany(
            "UPDATE bans SET lifted_at = ? WHERE id = ?", [(to_text(now), row[0]) for row in rows]
        )
    return [replace(_ban(row), lifted_at=_same(now)) for row in rows]


def _spellings(value: str) -> list[str]:
    """`value` as typed and, if it is an address or network, as stored."""
    spellings = {value.strip()}
    with suppress(ValueError):  # not an address: a fingerprint is stored as typed
        spellings.add(normalise("address", value))
    return sorted(spellings)


def active_bans(conn: sqlite3.Connection, now: datetime) -> list[Ban]:
    """Bans in force at `now`, oldest first."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM bans WHERE lifted_at IS NULL AND (until IS NULL OR until > ?)"
        " ORDER BY id",
        (to_text(now),),
    )
    return [_ban(row) for row in rows]


def all_bans(conn: sqlite3.Connection) -> list[Ban]:
    """Every ban ever made, lifted and expired ones too, oldest first."""
    return [_ban(row) for row in conn.execute(f"SELECT {_COLUMNS} FROM bans ORDER BY id")]


def is_banned(
    conn: sqlite3.Connection, fingerprint: str | None, address: str | None, now: datetime
) -> Ban | None:
    """The first ban in force at `now` on this key or this address (IP text), if any."""
    network = _as_network(address)
    for ban in active_bans(conn, now):
        if ban.matches(fingerprint, network):
            return ban
    return None


def _as_network(address: str | None) -> IPNetwork | None:
    """A single address as a one-address network; None if it is not an IP (e.g. '?')."""
    if not address:
        return None
    try:
        return ipaddress.ip_network(_unmapped(address.strip()))
    except ValueError:
        return None
